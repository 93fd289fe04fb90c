# alloc: core sources, unit tests, tools and benchmarks (see HACKING.md)
# Allocation (Optimus, quality-driven, DRF/Tetris/FIFO baselines),
# Theorem 1 placement and the parameter assignment algorithm.
src_common_liboptimus_core_la_SOURCES += \
	src/common/resources.h src/common/resources.c \
	src/common/heap.h src/common/heap.c \
	src/common/alloc.h src/common/alloc.c \
	src/common/alloc_optimus.c src/common/alloc_quality.c \
	src/common/alloc_drf.c src/common/alloc_tetris.c \
	src/common/alloc_fifo.c \
	src/common/placement.h src/common/placement.c \
	src/common/paa.h src/common/paa.c src/common/paa_models.c
