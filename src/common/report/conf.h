/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * report/conf.h - where optimus.conf is and the report listener's address
 * and port in it: the one reader for sched/optimus (which listens there)
 * and the clients (which connect there: report/client.c).
 */
#ifndef OPTIMUS_REPORT_CONF_H
#define OPTIMUS_REPORT_CONF_H

#include <stddef.h>
#include <stdint.h>

#define REPORT_DEFAULT_PORT 6830
#define REPORT_DEFAULT_ADDRESS "127.0.0.1"

/*
 * optimus.conf beside slurm_conf (the path of slurm.conf): its folder
 * followed by "optimus.conf", or "optimus.conf" for a path without a
 * folder. 0, or -ENAMETOOLONG when out (len bytes) cannot hold it.
 */
int report_conf_path(const char *slurm_conf, char *out, size_t len);

/* A port number, 0..65535 (0: the listener disabled): 0 or -EINVAL. */
int report_conf_port(const char *s, uint16_t *port);

/*
 * ReportAddress and ReportPort of the optimus.conf at path, each
 * REPORT_DEFAULT_ADDRESS / REPORT_DEFAULT_PORT when not given (or no file).
 * A port of 0 (the listener disabled) is returned as such. 0, or a negative
 * errno with a message naming the file: a file that cannot be parsed, an
 * address longer than addrlen, a port that is not a number in 0..65535.
 */
int report_conf_listener(const char *path, char *addr, size_t addrlen,
			 uint16_t *port, char *err, size_t errlen);

#endif
