/*
 * optimusctl - ask sched/optimus what it knows and plans
 * (see optimusctl(1)): status, show job N, plan; --json for scripts.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ascii_plot.h"
#include "models/curve_fit.h"
#include "report/report_client.h"

typedef struct opts {
	int json;
	int plot;
	const char *addr;
	int timeout_ms;
} opts_t;

static void usage(FILE *f)
{
	fprintf(f,
"Usage: optimusctl [OPTIONS] status\n"
"       optimusctl [OPTIONS] show job N\n"
"       optimusctl [OPTIONS] plan\n"
"\n"
"Query the sched/optimus scheduler over its munge-authenticated channel.\n"
"  status       jobs that reported, with their last progress and speed\n"
"  show job N   one job: loss points, fitted curve (and an ASCII plot of\n"
"               them), speed samples, and whatever else the scheduler\n"
"               knows (predictions, allocation history); your jobs only\n"
"               unless you are root or SlurmUser\n"
"  plan         the scheduler's current plan\n"
"\n"
"Options:\n"
"  --json             print the scheduler's JSON answer as is\n"
"  --no-plot          no ASCII plot in 'show job'\n"
"  --addr HOST:PORT   listener (default: $OPTIMUS_REPORT_ADDR, else\n"
"                     ReportAddress/ReportPort of optimus.conf beside\n"
"                     $SLURM_CONF)\n"
"  --timeout MS       connect/reply timeout (default 5000)\n"
"  -h, --help         this text\n"
"\n"
"Exit status: 0 answered, 1 refused or unreachable, 2 usage error.\n");
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (o)
		json_object_object_get_ex(o, key, &v);
	return v;
}

static double num(json_object *o, const char *key)
{
	json_object *v = get(o, key);

	return v ? json_object_get_double(v) : 0.0;
}

/* A job row: the history's form ("job", "last_progress", "last_speed") or
 * a planner's ("job_id", "step", "loss", "ps", "workers", "summary"). */
static void print_job_row(json_object *j)
{
	json_object *p = get(j, "last_progress"), *s = get(j, "last_speed");
	json_object *id = get(j, "job") ? get(j, "job") : get(j, "job_id");
	json_object *summary = get(j, "summary");
	char speed[64] = "-";

	if (s)
		snprintf(speed, sizeof(speed), "%d,%d,%.4g", (int)num(s, "ps"),
			 (int)num(s, "workers"), num(s, "steps_per_sec"));
	else if (get(j, "workers"))
		snprintf(speed, sizeof(speed), "%d,%d,-", (int)num(j, "ps"),
			 (int)num(j, "workers"));
	printf("%-10lld %-8lld %-8lld ", (long long)json_object_get_int64(id),
	       (long long)num(j, "uid"), (long long)num(j, "reports"));
	if (!p && get(j, "step"))
		p = j;
	if (p)
		printf("%-12lld %-12.6g %-10.4g ", (long long)num(p, "step"),
		       num(p, "loss"), num(p, "sps"));
	else
		printf("%-12s %-12s %-10s ", "-", "-", "-");
	printf("%-18s %s\n", speed, summary ? json_object_get_string(summary) : "");
}

static void print_jobs(json_object *jobs, const char *empty)
{
	size_t n = jobs ? json_object_array_length(jobs) : 0;

	printf("%-10s %-8s %-8s %-12s %-12s %-10s %-18s %s\n", "JOBID", "UID",
	       "REPORTS", "STEP", "LOSS", "SAMPLES/S", "SPEED(p,w,steps/s)",
	       "SUMMARY");
	for (size_t i = 0; i < n; i++)
		print_job_row(json_object_array_get_idx(jobs, i));
	if (n == 0)
		printf("(%s)\n", empty);
}

static void print_status(json_object *res)
{
	json_object *pol = get(res, "policy");

	if (pol)
		printf("Policy %s, plan every %lld s\n", json_object_get_string(pol),
		       (long long)num(res, "plan_interval"));
	print_jobs(get(res, "jobs"), "no job known to the scheduler");
	if (get(res, "reporting")) {
		printf("\nJobs that reported:\n");
		print_jobs(get(res, "reporting"), "no job has reported yet");
	}
}

/* The scheduler's fit when it sent one, else our own power-law fit. */
static int job_fit(json_object *res, const double *k, const double *l,
		   size_t n, curve_coef_t *fit, const char **source)
{
	json_object *f = get(res, "fit"), *c = get(f, "c"), *form = get(f, "form");

	if (c && form && json_object_array_length(c) == 3 &&
	    curve_form_parse(json_object_get_string(form), &fit->form) == 0) {
		for (int i = 0; i < 3; i++)
			fit->c[i] = json_object_get_double(
				json_object_array_get_idx(c, i));
		*source = "scheduler";
		return 0;
	}
	*source = "optimusctl (power law, unweighted)";
	return curve_fit(CURVE_POWER, k, l, NULL, n, fit);
}

static double eval_fit(double x, const void *ctx)
{
	return curve_eval(ctx, x);
}

static void print_points(json_object *res, const opts_t *o)
{
	json_object *pts = get(res, "progress");
	size_t n = pts && json_object_is_type(pts, json_type_array) ?
		   json_object_array_length(pts) : 0, m = 0;
	double *k = calloc(n + 1, sizeof(*k)), *l = calloc(n + 1, sizeof(*l));
	curve_coef_t fit;
	const char *source;
	int have_fit;

	for (size_t i = 0; k && l && i < n; i++) {
		json_object *p = json_object_array_get_idx(pts, i);

		if (num(p, "step") <= 0)
			continue;	/* the fitted forms need k > 0 */
		k[m] = num(p, "step");
		l[m++] = num(p, "loss");
	}
	printf("Loss points: %zu\n", n);
	have_fit = m >= 3 && job_fit(res, k, l, m, &fit, &source) == 0;
	if (have_fit)
		printf("Fit (%s): %s c0=%.6g c1=%.6g c2=%.6g rms=%.4g\n", source,
		       curve_form_name(fit.form), fit.c[0], fit.c[1], fit.c[2],
		       fit.rms);
	else
		printf("Fit: none (needs 3 points with step > 0)\n");
	if (o->plot && m > 0) {
		printf("\nloss against step ('*' reported, '.' fitted):\n");
		ascii_plot(stdout, k, l, m, have_fit ? eval_fit : NULL, &fit, 64, 16);
	}
	free(k);
	free(l);
}

static void print_speed(json_object *res)
{
	json_object *sp = get(res, "speed_samples");
	size_t n = sp && json_object_is_type(sp, json_type_array) ?
		   json_object_array_length(sp) : 0;

	printf("\nSpeed samples: %zu\n", n);
	if (n)
		printf("  %-6s %-8s %s\n", "PS", "WORKERS", "STEPS/S");
	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(sp, i);

		printf("  %-6d %-8d %.6g\n", (int)num(s, "ps"),
		       (int)num(s, "workers"), num(s, "steps_per_sec"));
	}
}

/* Everything else the scheduler said (predictions, allocations, ...). */
static void print_rest(json_object *res)
{
	static const char *const shown[] = { "job", "uid", "reports",
		"progress", "speed_samples", NULL };

	json_object_object_foreach(res, key, val) {
		int skip = 0;

		for (int i = 0; shown[i]; i++)
			skip |= !strcmp(key, shown[i]);
		if (!skip)
			printf("%s: %s\n", key, json_object_to_json_string_ext(
				       val, JSON_C_TO_STRING_PRETTY));
	}
}

static void print_job(json_object *res, const opts_t *o)
{
	printf("Job %lld: uid %lld, %lld reports\n", (long long)num(res, "job"),
	       (long long)num(res, "uid"), (long long)num(res, "reports"));
	print_points(res, o);
	print_speed(res);
	print_rest(res);
}

static void print_plan(json_object *res)
{
	json_object *planner = get(res, "planner");

	if (planner && !strcmp(json_object_get_string(planner), "none")) {
		printf("No planner has registered yet; jobs with reports:\n");
		print_jobs(get(res, "jobs"), "no job has reported yet");
		return;
	}
	printf("%s\n", json_object_to_json_string_ext(res, JSON_C_TO_STRING_PRETTY));
}

static int parse_query(int argc, char **argv, query_t *q)
{
	char *end;
	unsigned long id;

	if (argc == 1 && !strcmp(argv[0], "status"))
		return q->kind = QUERY_STATUS, 0;
	if (argc == 1 && !strcmp(argv[0], "plan"))
		return q->kind = QUERY_PLAN, 0;
	if (argc == 3 && !strcmp(argv[0], "show") && !strcmp(argv[1], "job")) {
		errno = 0;
		id = strtoul(argv[2], &end, 10);
		if (errno || *end || id < 1 || id > UINT32_MAX)
			return -1;
		q->kind = QUERY_JOB;
		q->job_id = (uint32_t)id;
		return 0;
	}
	return -1;
}

static int parse_opts(int argc, char **argv, opts_t *o)
{
	static const struct option lo[] = {
		{ "json", 0, NULL, 'j' }, { "no-plot", 0, NULL, 'n' },
		{ "addr", 1, NULL, 'a' }, { "timeout", 1, NULL, 't' },
		{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int c;

	*o = (opts_t){ .plot = 1, .timeout_ms = 5000 };
	while ((c = getopt_long(argc, argv, "+h", lo, NULL)) != -1) {
		switch (c) {
		case 'j': o->json = 1; break;
		case 'n': o->plot = 0; break;
		case 'a': o->addr = optarg; break;
		case 't': o->timeout_ms = atoi(optarg); break;
		case 'h': usage(stdout); exit(0);
		default: return -1;
		}
	}
	return o->timeout_ms > 0 ? 0 : -1;
}

static int request(const opts_t *o, const query_t *q, json_object **res)
{
	message_t m = { .type = MSG_QUERY, .query = *q };
	report_endpoint_t ep;
	char err[512];
	int rc;

	if (o->addr)
		setenv("OPTIMUS_REPORT_ADDR", o->addr, 1);
	if ((rc = report_endpoint_resolve(&ep, err, sizeof(err))) == 0)
		rc = report_client_call(&ep, &m, o->timeout_ms, 0, res, err,
					sizeof(err));
	if (rc)
		fprintf(stderr, "optimusctl: %s\n", err);
	return rc;
}

int main(int argc, char **argv)
{
	json_object *res = NULL;
	query_t q = { 0 };
	opts_t o;

	if (parse_opts(argc, argv, &o) ||
	    parse_query(argc - optind, argv + optind, &q)) {
		usage(stderr);
		return 2;
	}
	if (request(&o, &q, &res))
		return 1;
	if (!res)
		res = json_object_new_object();
	if (o.json)
		printf("%s\n", json_object_to_json_string_ext(
			       res, JSON_C_TO_STRING_PRETTY));
	else if (q.kind == QUERY_STATUS)
		print_status(res);
	else if (q.kind == QUERY_JOB)
		print_job(res, &o);
	else
		print_plan(res);
	json_object_put(res);
	return 0;
}
