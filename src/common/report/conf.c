/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * report/conf.c - optimus.conf's place and the listener's address and port
 * (report/conf.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/conf.h"
#include "util/conf_file.h"
#include "util/errmsg.h"

int report_conf_path(const char *slurm_conf, char *out, size_t len)
{
	const char *slash = strrchr(slurm_conf, '/');
	int dirlen = slash ? (int)(slash - slurm_conf + 1) : 0;
	int n = snprintf(out, len, "%.*soptimus.conf", dirlen, slurm_conf);

	return n < 0 || (size_t) n >= len ? -ENAMETOOLONG : 0;
}

int report_conf_port(const char *s, uint16_t *port)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 65535)
		return -EINVAL;
	*port = (uint16_t) v;
	return 0;
}

int report_conf_listener(const char *path, char *addr, size_t addrlen,
			 uint16_t *port, char *err, size_t errlen)
{
	char val[256];
	int rc;

	snprintf(addr, addrlen, "%s", REPORT_DEFAULT_ADDRESS);
	*port = REPORT_DEFAULT_PORT;
	if ((rc = conf_file_get(path, "ReportAddress", val, sizeof(val), err,
				errlen)) < 0)
		return rc;
	if (rc > 0 && (size_t) snprintf(addr, addrlen, "%s", val) >= addrlen)
		return errmsg_set(err, errlen, -ENAMETOOLONG,
				  "%s: ReportAddress=%s is too long", path, val);
	if ((rc = conf_file_get(path, "ReportPort", val, sizeof(val), err,
				errlen)) < 0)
		return rc;
	if (rc > 0 && report_conf_port(val, port))
		return errmsg_set(err, errlen, -EINVAL,
				  "%s: ReportPort=%s is not a port", path, val);
	return 0;
}
