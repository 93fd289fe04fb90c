/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* test_escape.c - the one escaping rule for user text (util/escape.h) and
 * the JSON writers' use of it (util/json_strict.h). */
#include <check.h>
#include <json-c/json.h>
#include <stdint.h>
#include <string.h>

#include "check_run.h"
#include "util/escape.h"
#include "util/json_strict.h"

static const struct { const char *in, *out; } cases[] = {
	{ "plain /tmp/ckpt", "plain /tmp/ckpt" },
	{ "a\\b", "a\\\\b" },
	{ "x\ny\rz\t", "x\\ny\\rz\\t" },
	{ "esc\x1b[31m del\x7f", "esc\\x1b[31m del\\x7f" },
	/* UTF-8 letters of any script are kept */
	{ "/tmp/\xc3\xa9t\xc3\xa9_\xe6\xa8\xa1\xe5\x9e\x8b_\xf0\x9f\x98\x80",
	  "/tmp/\xc3\xa9t\xc3\xa9_\xe6\xa8\xa1\xe5\x9e\x8b_\xf0\x9f\x98\x80" },
	/* C1 controls (CSI U+009B), bidi overrides and isolates, separators */
	{ "a\xc2\x9b" "31m", "a\\u009b31m" },
	{ "\xe2\x80\xaa\xe2\x80\xae\xe2\x81\xa6\xe2\x81\xa9",
	  "\\u202a\\u202e\\u2066\\u2069" },
	{ "l\xe2\x80\xa8p\xe2\x80\xa9", "l\\u2028p\\u2029" },
	/* not UTF-8: a lone byte >= 0x80, BOM-like ff fe, a cut sequence,
	 * overlong, surrogate, beyond U+10FFFF */
	{ "a\x9b" "31m", "a\\x9b31m" },
	{ "\xff\xfe", "\\xff\\xfe" },
	{ "cut\xe6\xa8", "cut\\xe6\\xa8" },
	{ "\xc0\xaf", "\\xc0\\xaf" },
	{ "\xed\xa0\x80", "\\xed\\xa0\\x80" },
	{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" },
};

START_TEST(test_rule_case)
{
	char out[256];

	str_escape(cases[_i].in, strlen(cases[_i].in), out, sizeof(out));
	ck_assert_str_eq(out, cases[_i].out);
	/* the escape is itself safe, and safe text is its own escape */
	ck_assert_ptr_null(str_find_unsafe(out, NULL));
	if (!strcmp(cases[_i].in, cases[_i].out))
		ck_assert_ptr_null(str_find_unsafe(cases[_i].in, NULL));
	else if (!strchr(cases[_i].in, '\\'))
		ck_assert_ptr_nonnull(str_find_unsafe(cases[_i].in, NULL));
}
END_TEST

START_TEST(test_find_unsafe_points_at_the_character)
{
	const char *s = "/tmp/\xc3\xa9\xe2\x80\xaex";
	size_t len = 0;

	ck_assert_ptr_eq(str_find_unsafe(s, &len), s + 7);
	ck_assert_uint_eq(len, 3);
	s = "ok\xffz";
	ck_assert_ptr_eq(str_find_unsafe(s, &len), s + 2);
	ck_assert_uint_eq(len, 1);
}
END_TEST

/* A cut never splits a character: the result stays valid UTF-8. */
START_TEST(test_cut_between_characters)
{
	char out[8];

	str_escape("\xe6\xa8\xa1\xe5\x9e\x8b\xe6\xa8\xa1\xe5\x9e\x8b", 12,
		   out, sizeof(out));
	ck_assert_str_eq(out, "\xe6\xa8\xa1...");
	ck_assert_ptr_null(str_find_unsafe(out, NULL));
}
END_TEST

START_TEST(test_utf8_decode)
{
	uint32_t cp = 0;

	ck_assert_uint_eq(utf8_decode("\xf0\x9f\x98\x80", 4, &cp), 4);
	ck_assert_uint_eq(cp, 0x1f600);
	ck_assert_uint_eq(utf8_decode("\xf0\x9f\x98\x80", 3, &cp), 0);
	ck_assert_uint_eq(utf8_decode("\xe0\x80\x80", 3, &cp), 0);
	ck_assert(str_codepoint_unsafe(0x9b));
	ck_assert(!str_codepoint_unsafe(0xe9));
}
END_TEST

/* The JSON writers apply the same rule to every string, at any depth;
 * safe strings and numbers are left as they are. */
START_TEST(test_json_strict_strings)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	const char *text;

	json_object_object_add(o, "hints", json_object_new_string(
				       "optimus,ckpt_dir=/tmp/a\x9b" "31m\xe2\x80\xae"));
	json_object_object_add(o, "ok", json_object_new_string("/tmp/\xc3\xa9"));
	json_object_array_add(a, json_object_new_string("\xff\xfe"));
	json_object_array_add(a, json_object_new_string_len("n1\0x", 4));
	json_object_array_add(a, json_object_new_double(1.0 / 0.0));
	json_object_object_add(o, "list", a);
	json_strict_strings(o);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	ck_assert_ptr_null(str_find_unsafe(text, NULL));
	ck_assert_str_eq(json_object_get_string(json_object_object_get(o,
			 "hints")), "optimus,ckpt_dir=/tmp/a\\x9b31m\\u202e");
	ck_assert_str_eq(json_object_get_string(json_object_object_get(o, "ok")),
			 "/tmp/\xc3\xa9");
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(a, 0)),
			 "\\xff\\xfe");
	ck_assert_int_eq(json_object_get_string_len(
				 json_object_array_get_idx(a, 1)), 2);
	/* only json_strict turns non-finite numbers into null */
	ck_assert(json_object_is_type(json_object_array_get_idx(a, 2),
				      json_type_double));
	json_strict(o);
	ck_assert_ptr_null(json_object_array_get_idx(a, 2));
	json_object_put(o);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("escape");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_rule_case, 0,
			    (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, test_find_unsafe_points_at_the_character);
	tcase_add_test(tc, test_cut_between_characters);
	tcase_add_test(tc, test_utf8_decode);
	tcase_add_test(tc, test_json_strict_strings);
	suite_add_tcase(s, tc);
	return check_run(s);
}
