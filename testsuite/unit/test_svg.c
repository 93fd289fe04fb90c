/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* test_svg.c - the one SVG writer (util/svg.h): stacked charts, event
 * marks, and text escaped for XML after the rule for user text. The
 * integration test (test_metrics.py) parses a real plan history with
 * Python's XML parser. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "util/svg.h"

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

START_TEST(test_stack_marks_and_escaping)
{
	double x[] = { 0, 10, 10, 30 }, y[] = { 1, 1, 3, 3 };
	svg_series_t s[] = { { "w<o>rkers & \"PS\"", x, y, 4 } };
	svg_mark_t m[] = { { 10, "resize 1: 1 PS + 3 workers" },
			   { 40, "bell\x07 \xff" } };
	svg_chart_t c[] = { { "a", "t", "n", s, 1, m, 2 },
			    { "b", "t", "loss", s, 1, NULL, 0 } };
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	svg_stack(f, c, 2);
	fclose(f);
	ck_assert_uint_eq(count(text, "<svg"), 3);	/* root + 2 charts */
	ck_assert_uint_eq(count(text, "</svg>"), 3);
	ck_assert_uint_eq(count(text, "<line class=\"mark\""), 2);
	ck_assert_ptr_nonnull(strstr(text,
		"<title>resize 1: 1 PS + 3 workers</title>"));
	ck_assert_ptr_nonnull(strstr(text,
		"w&lt;o&gt;rkers &amp; &quot;PS&quot;"));
	/* a control character and a byte that is not UTF-8, escaped */
	ck_assert_ptr_nonnull(strstr(text, "bell\\x07 \\xff"));
	ck_assert_ptr_null(strchr(text, '\x07'));
	/* the x axis of both charts reaches the last mark (40) */
	ck_assert_uint_eq(count(text, ">40</text>"), 2);
	free(text);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("svg");
	TCase *tc = tcase_create("svg");

	tcase_add_test(tc, test_stack_marks_and_escaping);
	suite_add_tcase(s, tc);
	return check_run(s);
}
