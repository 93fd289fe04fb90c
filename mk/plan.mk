# plan: core sources, unit tests, tools and benchmarks (see HACKING.md)
# The per-job record (models, predictions with priors, JSON state) and the
# planning of one scheduling interval, shared by sched/optimus and
# optimus-sim (doc/planning.md).
src_common_liboptimus_core_la_SOURCES += \
	src/common/job_model.h src/common/job_model.c \
	src/common/job_model_predict.c src/common/job_model_json.c

PLAN_TESTS = testsuite/unit/test_job_model
check_PROGRAMS += $(PLAN_TESTS)
TESTS += $(PLAN_TESTS)
testsuite_unit_test_job_model_SOURCES = testsuite/unit/test_job_model.c
testsuite_unit_test_job_model_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_job_model_LDADD = $(UNIT_LDADD)
