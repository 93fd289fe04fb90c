/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * test_metrics.c - the Prometheus text format (util/prom_text.h) and the
 * scheduler's metrics in it (report/metrics.h). The text is read back by a
 * reader written here from the format's description (lines, HELP/TYPE
 * before the samples, the escapes of label values); the integration test
 * (testsuite/integration/test_metrics.py) parses the real listener's answer
 * with prometheus_client's parser.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "report/metrics.h"
#include "util/escape.h"
#include "util/prom_text.h"

/* A label value as the format reads it back (\\, \", \n). */
static void unescape(const char *in, size_t n, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (in[i] == '\\' && i + 1 < n) {
			i++;
			out[o++] = in[i] == 'n' ? '\n' : in[i];
		} else {
			out[o++] = in[i];
		}
	}
	out[o] = '\0';
}

static const char *const user_texts[] = {
	"plain-model", "quote\"d", "back\\slash", "two\nlines",
	"esc\x1b[31m", "bidi\xe2\x80\xae" "evil", "not utf8 \xff\xfe",
	"r\xc3\xa9seau \xe6\xa8\xa1\xe5\x9e\x8b",
};

START_TEST(test_label_value_reads_back_as_the_user_text_rule)
{
	char esc[1024], back[1024], safe[512];
	const char *in = user_texts[_i];

	prom_label_escape(in, esc, sizeof(esc));
	/* nothing that would end the value or the line */
	ck_assert_ptr_null(strchr(esc, '\n'));
	for (const char *p = esc; *p; p++) {
		if (*p == '\\') {
			ck_assert(p[1] == '\\' || p[1] == '"' || p[1] == 'n');
			p++;
		} else {
			ck_assert_int_ne(*p, '"');
		}
	}
	unescape(esc, strlen(esc), back);
	str_escape(in, strlen(in), safe, sizeof(safe));
	ck_assert_str_eq(back, safe);
	ck_assert_ptr_null(str_find_unsafe(back, NULL));
}
END_TEST

START_TEST(test_label_escape_examples)
{
	char out[64];

	ck_assert_str_eq(prom_label_escape("a\"b", out, sizeof(out)), "a\\\"b");
	/* str_escape's "\\" then the format's: four backslashes */
	ck_assert_str_eq(prom_label_escape("a\\b", out, sizeof(out)),
			 "a\\\\\\\\b");
	ck_assert_str_eq(prom_label_escape("a\nb", out, sizeof(out)),
			 "a\\\\nb");
	ck_assert_str_eq(prom_label_escape(NULL, out, sizeof(out)), "");
	/* cut between escapes, never inside one */
	ck_assert_str_eq(prom_label_escape("\"\"\"", out, 6), "\\\"\\\"");
}
END_TEST

START_TEST(test_names)
{
	ck_assert(prom_metric_name_valid("optimus_job_gpus"));
	ck_assert(prom_metric_name_valid("a:b_c9"));
	ck_assert(!prom_metric_name_valid("9lives"));
	ck_assert(!prom_metric_name_valid("job-gpus"));
	ck_assert(!prom_metric_name_valid(""));
	ck_assert(!prom_metric_name_valid(NULL));
	ck_assert(prom_label_name_valid("job_id"));
	ck_assert(!prom_label_name_valid("__name__"));
	ck_assert(!prom_label_name_valid("a:b"));
	ck_assert(!prom_label_name_valid("0x"));
}
END_TEST

START_TEST(test_numbers)
{
	char b[40];

	ck_assert_str_eq(prom_number(3, b, sizeof(b)), "3");
	ck_assert_str_eq(prom_number(0.1, b, sizeof(b)), "0.1");
	ck_assert_str_eq(prom_number(9007199254740992.0, b, sizeof(b)),
			 "9007199254740992");
	ck_assert_str_eq(prom_number(INFINITY, b, sizeof(b)), "+Inf");
	ck_assert_str_eq(prom_number(-INFINITY, b, sizeof(b)), "-Inf");
	ck_assert_str_eq(prom_number(NAN, b, sizeof(b)), "NaN");
	ck_assert(strtod(prom_number(1.0 / 3, b, sizeof(b)), NULL) == 1.0 / 3);
}
END_TEST

/* The text written by fn into a malloc'd string. */
static char *capture_family(const char *name, prom_type_t t, const char *help,
			    int *rc)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	*rc = prom_family(f, name, t, help);
	fclose(f);
	return text;
}

START_TEST(test_family_lines)
{
	int rc;
	char *t = capture_family("x_total", PROM_COUNTER, "a\\b\nc", &rc);

	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(t, "# HELP x_total a\\\\b\\nc\n# TYPE x_total counter\n");
	free(t);
	t = capture_family("bad name", PROM_GAUGE, "h", &rc);
	ck_assert_int_lt(rc, 0);
	ck_assert_str_eq(t, "");
	free(t);
}
END_TEST

/* --- the whole text, read back line by line --------------------------- */

#define MAXFAM 64
typedef struct parsed {
	char fam[MAXFAM][80], type[MAXFAM][10];
	int nfam;
	int nsamples;
	char *text;
} parsed_t;

/*
 * Check the grammar of every line: HELP then TYPE once per family, samples
 * only of the family just declared (counters' names end in _total), label
 * values quoted with only the format's escapes, a number after them.
 */
static void parse_text(char *text, parsed_t *p)
{
	char *save = NULL;

	memset(p, 0, sizeof(*p));
	p->text = text;
	ck_assert_int_eq(text[strlen(text) - 1], '\n');
	for (char *l = strtok_r(text, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		char name[80], *rest, *end;

		if (!strncmp(l, "# HELP ", 7)) {
			ck_assert_int_lt(p->nfam, MAXFAM);
			ck_assert_int_eq(sscanf(l + 7, "%79s", name), 1);
			for (int i = 0; i < p->nfam; i++)
				ck_assert_str_ne(p->fam[i], name);
			strcpy(p->fam[p->nfam], name);
			continue;
		}
		if (!strncmp(l, "# TYPE ", 7)) {
			char type[16];

			ck_assert_int_eq(sscanf(l + 7, "%79s %15s", name, type), 2);
			ck_assert_str_eq(name, p->fam[p->nfam]);
			ck_assert(!strcmp(type, "counter") || !strcmp(type, "gauge"));
			if (!strcmp(type, "counter"))
				ck_assert_str_eq(name + strlen(name) - 6, "_total");
			strcpy(p->type[p->nfam++], type);
			continue;
		}
		ck_assert_int_ne(l[0], '#');
		ck_assert_int_gt(p->nfam, 0);
		rest = l + strcspn(l, "{ ");
		ck_assert_int_eq((int)(rest - l), (int)strlen(p->fam[p->nfam - 1]));
		ck_assert(!strncmp(l, p->fam[p->nfam - 1], rest - l));
		if (*rest == '{') {
			rest++;
			while (*rest != '}') {
				rest += strcspn(rest, "=");
				ck_assert_int_eq(rest[1], '"');
				for (rest += 2; *rest != '"'; rest++) {
					ck_assert_int_ne(*rest, '\0');
					if (*rest == '\\')
						rest++;
				}
				rest++;
				if (*rest == ',')
					rest++;
			}
			rest++;
		}
		ck_assert_int_eq(*rest, ' ');
		strtod(rest + 1, &end);
		ck_assert_int_eq(*end, '\0');
		p->nsamples++;
	}
}

static bool own_only(uint32_t owner, void *arg)
{
	return owner == *(uint32_t *)arg;
}

static bool everyone(uint32_t owner, void *arg)
{
	(void)owner;
	(void)arg;
	return true;
}

static const char *const phases[] = { "pending", "running", "done" };

static void fill(metrics_t *m, metrics_channel_t *c)
{
	metrics_job_t *j;

	memset(c, 0, sizeof(*c));
	c->start_time = 1700000000;
	c->accepted[c->naccepted++] = (metrics_count_t){ "progress", 12 };
	c->refused[c->nrefused++] = (metrics_count_t){ "forbidden", 3 };
	memset(m, 0, sizeof(*m));
	m->planner = true;
	m->per_job = true;
	m->phases = phases;
	m->nphases = 3;
	m->sched.plans = 7;
	m->sched.plan_decisions[METRICS_RESIZE] = 1;
	m->sched.plan_decisions[METRICS_PREEMPT] = 1;
	m->sched.preemptions = 4;
	m->sched.ckpt_confirmed = 2;
	j = metrics_add_job(m);
	j->job_id = 11;
	j->uid = 1000;
	strcpy(j->phase, "running");
	strcpy(j->model, "res\"net\n50");
	j->ps = 2, j->workers = 3, j->gpus = 6, j->resizes = 1;
	j->preemptions = 2;
	j->remaining_seconds = 120.5;
	j = metrics_add_job(m);
	j->job_id = 22;
	j->uid = 1001;
	strcpy(j->phase, "running");
	j->ps = 1, j->workers = 1;
	/* remaining time unknown (NAN): no series */
}

static char *render(const metrics_t *m, const metrics_channel_t *c,
		    bool (*vis)(uint32_t, void *), uint32_t viewer)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	ck_assert_int_eq(metrics_render(f, c, m, vis, &viewer), 0);
	fclose(f);
	return text;
}

START_TEST(test_render_is_well_formed_and_filtered)
{
	metrics_t m;
	metrics_channel_t c;
	parsed_t p;
	char *t;

	fill(&m, &c);
	t = render(&m, &c, own_only, 1000);
	ck_assert_ptr_nonnull(strstr(t, "optimus_job_gpus{job_id=\"11\"} 6\n"));
	ck_assert_ptr_nonnull(strstr(t, "model=\"res\\\"net\\\\n50\""));
	ck_assert_ptr_nonnull(strstr(t,
		"optimus_job_predicted_remaining_seconds{job_id=\"11\"} 120.5\n"));
	ck_assert_ptr_null(strstr(t, "job_id=\"22\""));
	/* scheduler-wide: every user's jobs */
	ck_assert_ptr_nonnull(strstr(t, "optimus_jobs{phase=\"running\"} 2\n"));
	ck_assert_ptr_nonnull(strstr(t, "optimus_jobs{phase=\"done\"} 0\n"));
	ck_assert_ptr_nonnull(strstr(t,
		"optimus_reports_refused_total{reason=\"forbidden\"} 3\n"));
	ck_assert_ptr_nonnull(strstr(t,
		"optimus_checkpoint_waits_total{outcome=\"confirmed\"} 2\n"));
	ck_assert_ptr_nonnull(strstr(t,
		"optimus_plan_decisions{action=\"resize\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(t,
		"optimus_plan_decisions{action=\"preempt\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(t, "optimus_preemptions_total 4\n"));
	ck_assert_ptr_nonnull(strstr(t,
		"optimus_job_preemptions_total{job_id=\"11\"} 2\n"));
	parse_text(t, &p);
	ck_assert_int_gt(p.nfam, 20);
	free(t);

	t = render(&m, &c, everyone, 0);
	ck_assert_ptr_nonnull(strstr(t, "optimus_job_ps{job_id=\"22\"} 1\n"));
	ck_assert_ptr_null(strstr(t,
		"optimus_job_predicted_remaining_seconds{job_id=\"22\"}"));
	parse_text(t, &p);
	free(t);
	metrics_free(&m);
}
END_TEST

/* Every user's view of m, checked to be well-formed (parse_text cuts the
 * text it reads: a copy). */
static char *render_checked(const metrics_t *m, const metrics_channel_t *c)
{
	parsed_t p;
	char *t = render(m, c, everyone, 0), *copy = strdup(t);

	ck_assert_ptr_nonnull(copy);
	parse_text(copy, &p);
	free(copy);
	return t;
}

/* Without per_job (MetricsPerJob=no, the default) nothing of the text
 * names a job or carries a user's text: its size does not grow with the
 * jobs ever run. */
START_TEST(test_render_by_default_names_no_job)
{
	metrics_t m;
	metrics_channel_t c;
	char *t;

	fill(&m, &c);
	m.per_job = false;
	t = render_checked(&m, &c);
	ck_assert_ptr_null(strstr(t, "job_id="));
	ck_assert_ptr_null(strstr(t, "model="));
	ck_assert_ptr_null(strstr(t, "optimus_job_"));
	ck_assert_ptr_nonnull(strstr(t, "optimus_jobs{phase=\"running\"} 2\n"));
	ck_assert_ptr_nonnull(strstr(t, "optimus_plans_total 7\n"));
	free(t);
	metrics_free(&m);
}
END_TEST

/* A job that has ended has no series left (its record may stay); the
 * scheduler-wide count still has it, as done. */
START_TEST(test_render_drops_an_ended_job)
{
	metrics_t m;
	metrics_channel_t c;
	char *t;

	fill(&m, &c);
	strcpy(m.jobs[0].phase, "done");
	m.jobs[0].ended = true;
	t = render_checked(&m, &c);
	ck_assert_ptr_null(strstr(t, "job_id=\"11\""));
	ck_assert_ptr_nonnull(strstr(t, "optimus_job_ps{job_id=\"22\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(t, "optimus_jobs{phase=\"done\"} 1\n"));
	free(t);
	metrics_free(&m);
}
END_TEST

START_TEST(test_render_without_planner_has_the_channel_only)
{
	metrics_t m = { 0 };
	metrics_channel_t c;
	parsed_t p;
	char *t;

	fill(&m, &c);
	metrics_free(&m);
	m.planner = false;
	t = render(&m, &c, everyone, 0);
	ck_assert_ptr_nonnull(strstr(t,
		"optimus_reports_accepted_total{type=\"progress\"} 12\n"));
	ck_assert_ptr_null(strstr(t, "optimus_plans_total"));
	parse_text(t, &p);
	ck_assert_int_eq(p.nfam, 3);
	free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = tcase_create("prom_text");

	tcase_add_loop_test(tc, test_label_value_reads_back_as_the_user_text_rule,
			    0, sizeof(user_texts) / sizeof(user_texts[0]));
	tcase_add_test(tc, test_label_escape_examples);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_numbers);
	tcase_add_test(tc, test_family_lines);
	suite_add_tcase(s, tc);
	tc = tcase_create("metrics");
	tcase_add_test(tc, test_render_is_well_formed_and_filtered);
	tcase_add_test(tc, test_render_by_default_names_no_job);
	tcase_add_test(tc, test_render_drops_an_ended_job);
	tcase_add_test(tc, test_render_without_planner_has_the_channel_only);
	suite_add_tcase(s, tc);
	return check_run(s);
}
