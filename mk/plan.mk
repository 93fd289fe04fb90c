# plan: core sources, unit tests, tools and benchmarks (see HACKING.md)
# The per-job record (models, predictions with priors, JSON state) and the
# planning of one scheduling interval, shared by sched/optimus and
# optimus-sim (doc/planning.md).
src_common_liboptimus_core_la_SOURCES += \
	src/common/plan/job_model.h src/common/plan/job_model.c \
	src/common/plan/job_model_predict.c src/common/plan/job_model_json.c \
	src/common/plan/plan.h src/common/plan/plan_priv.h src/common/plan/plan.c \
	src/common/plan/plan_alloc.c src/common/plan/plan_place.c \
	src/common/plan/plan_run.c src/common/plan/plan_json.c \
	src/common/plan/plan_input.h src/common/plan/plan_input.c

PLAN_TESTS = testsuite/unit/test_job_model testsuite/unit/test_plan
check_PROGRAMS += $(PLAN_TESTS)
TESTS += $(PLAN_TESTS)
testsuite_unit_test_job_model_SOURCES = testsuite/unit/test_job_model.c
testsuite_unit_test_job_model_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_job_model_LDADD = $(UNIT_LDADD)
testsuite_unit_test_plan_SOURCES = testsuite/unit/test_plan.c
testsuite_unit_test_plan_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_plan_LDADD = $(UNIT_LDADD)
