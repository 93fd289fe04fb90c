/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * test_conf_file.c - the clients' reader of slurm.conf/optimus.conf
 * (util/conf_file.h) against the shared table testsuite/data/
 * conf_cases.json, which the Python client passes too; and the endpoint
 * the clients resolve from such files (spaces around '=', the primary
 * SlurmctldHost first).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "report/client.h"
#include "util/conf_file.h"
#include "check_run.h"

static json_object *cases;

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void remove_files(const char *dir, json_object *files)
{
	char path[512];

	json_object_object_foreach(files, name, text) {
		(void)text;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		unlink(path);
	}
	rmdir(dir);
}

START_TEST(test_table_case)
{
	json_object *c = json_object_array_get_idx(cases, _i), *files, *get,
		    *error = NULL;
	const char *name = json_object_get_string(
		json_object_object_get(c, "name"));
	char dir[] = "/tmp/optimus-conf-XXXXXX", path[512], val[256], err[512];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	files = json_object_object_get(c, "files");
	json_object_object_foreach(files, fname, text)
		write_file(dir, fname, json_object_get_string(text));
	snprintf(path, sizeof(path), "%s/main.conf", dir);
	if (json_object_object_get_ex(c, "error", &error)) {
		int rc = conf_file_get(path, "ReportPort", val, sizeof(val), err,
				       sizeof(err));

		ck_assert_msg(rc < 0, "%s: accepted", name);
		ck_assert_msg(strstr(err, json_object_get_string(error)),
			      "%s: message '%s' lacks '%s'", name, err,
			      json_object_get_string(error));
	} else {
		get = json_object_object_get(c, "get");
		json_object_object_foreach(get, key, want) {
			int rc = conf_file_get(path, key, val, sizeof(val), err,
					       sizeof(err));

			ck_assert_msg(rc >= 0, "%s: %s: %s", name, key, err);
			if (json_object_is_type(want, json_type_null))
				ck_assert_msg(rc == 0, "%s: %s='%s' found", name,
					      key, val);
			else
				ck_assert_msg(rc == 1 && !strcmp(val,
					      json_object_get_string(want)),
					      "%s: %s='%s', want '%s'", name, key,
					      rc == 1 ? val : "(absent)",
					      json_object_get_string(want));
		}
	}
	remove_files(dir, files);
}
END_TEST

/* optimus.conf with spaces, and every SlurmctldHost in order: the
 * clients try the primary controller first (both took the last,
 * the backup, and `ReportPort = 7000` was silently the default port). */
START_TEST(test_endpoint_grammar_and_controllers)
{
	char dir[] = "/tmp/optimus-endpoint-XXXXXX", conf[512], err[256];
	report_endpoint_t ep;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	write_file(dir, "slurm.conf",
		   "SlurmctldHost=primary(10.0.0.1)\n"
		   "SlurmctldHost = backup(10.0.0.2) # the backup\n"
		   "SlurmctldHost=backup2\n"
		   "AuthInfo = \"socket=/run/m.sock,cred_expire=10\"\n");
	write_file(dir, "optimus.conf",
		   "reportaddress = 0.0.0.0\nReportPort = 7000\n");
	snprintf(conf, sizeof(conf), "%s/slurm.conf", dir);
	setenv("SLURM_CONF", conf, 1);
	unsetenv("OPTIMUS_REPORT_ADDR");
	unsetenv("MUNGE_SOCKET");
	ck_assert_int_eq(report_endpoint_resolve(&ep, err, sizeof(err)), 0);
	ck_assert_int_eq(ep.port, 7000);
	ck_assert_uint_eq(ep.nhosts, 3);
	ck_assert_str_eq(ep.hosts[0], "10.0.0.1");
	ck_assert_str_eq(ep.hosts[1], "10.0.0.2");
	ck_assert_str_eq(ep.hosts[2], "backup2");
	ck_assert_str_eq(ep.munge_socket, "/run/m.sock");
	/* a file the clients cannot read is an error naming it, not the
	 * default port */
	write_file(dir, "optimus.conf", "ReportPort 7000\n");
	ck_assert_int_eq(report_endpoint_resolve(&ep, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "optimus.conf line 1"));
	snprintf(conf, sizeof(conf), "%s/optimus.conf", dir);
	unlink(conf);
	snprintf(conf, sizeof(conf), "%s/slurm.conf", dir);
	unlink(conf);
	rmdir(dir);
}
END_TEST

int main(void)
{
	const char *srcdir = getenv("srcdir");
	char path[1024];
	Suite *s = suite_create("conf_file");
	TCase *tc = tcase_create("core");
	json_object *root;

	snprintf(path, sizeof(path), "%s/testsuite/data/conf_cases.json",
		 srcdir ? srcdir : ".");
	root = json_object_from_file(path);
	if (!root || !json_object_object_get_ex(root, "cases", &cases)) {
		fprintf(stderr, "cannot read %s\n", path);
		return EXIT_FAILURE;
	}
	tcase_add_loop_test(tc, test_table_case, 0,
			    (int)json_object_array_length(cases));
	tcase_add_test(tc, test_endpoint_grammar_and_controllers);
	suite_add_tcase(s, tc);
	return check_run(s);
}
