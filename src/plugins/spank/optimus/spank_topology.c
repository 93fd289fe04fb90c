/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * spank_topology.c - carry the scheduler's topology to the job's tasks.
 *
 * sched/optimus writes OPTIMUS_TOPOLOGY into the job's SPANK environment.
 * Slurm hands that environment only to the job prolog/epilog, never to
 * slurmstepd; so the prolog (root, before the batch script starts on the
 * first node) keeps it in a small file that the batch step reads and
 * exports as SLURM_SPANK_OPTIMUS_TOPOLOGY, which every srun step inherits.
 * The file name holds a hash of the slurm.conf path and the node name so
 * that several clusters (and multiple-slurmd nodes) on one host differ.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spank_optimus.h"
#include "util/conf_file.h"

static unsigned long fnv1a(const char *s)
{
	unsigned long h = 2166136261UL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619UL;
	return h & 0xffffffffUL;
}

static int topology_path(const char *conf, const char *node, uint32_t job_id,
			 char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%08lx-%s-%u.topology",
			 spank_optimus_conf.state_dir,
			 fnv1a(conf && *conf ? conf : CONF_DEFAULT_SLURM_CONF),
			 node ? node : "", job_id);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* The topology text in the prolog's environment (slurmctld prefixes
 * user-supplied SPANK entries with SPANK_). */
static const char *prolog_topology(void)
{
	const char *v = getenv("SPANK_" ROLES_TOPOLOGY_ENV);

	return v ? v : getenv(ROLES_TOPOLOGY_ENV);
}

static int write_file(const char *path, const char *text)
{
	char tmp[600];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	fprintf(f, "%s\n", text);
	if (fclose(f) || rename(tmp, path)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* This job's file on this node; -1 outside a job's prolog/epilog. */
static int job_topology_path(char *buf, size_t len)
{
	const char *job = getenv("SLURM_JOB_ID");

	if (!job)
		return -1;
	return topology_path(getenv("SLURM_CONF"), getenv("SLURMD_NODENAME"),
			     (uint32_t)strtoul(job, NULL, 10), buf, len);
}

int spank_topology_prolog(spank_t sp)
{
	const char *text = prolog_topology();
	roles_topology_t t;
	char path[512], err[256];

	if (job_topology_path(path, sizeof(path)))
		return 0;
	/*
	 * A file left by a job of the same id (a cluster restarted from
	 * scratch, an epilog that never ran) must not be read as this run's.
	 */
	unlink(path);
	if (!text)
		return 0;
	if (roles_topology_parse(text, &t, err, sizeof(err))) {
		slurm_error("optimus: job %s: %s", getenv("SLURM_JOB_ID"), err);
		return 0;	/* tasks will derive the topology instead */
	}
	mkdir(spank_optimus_conf.state_dir, 0755);
	if (write_file(path, text))
		slurm_error("optimus: cannot write %s: %m", path);
	return 0;
}

int spank_topology_epilog(spank_t sp)
{
	char path[512];

	if (!job_topology_path(path, sizeof(path)))
		unlink(path);
	return 0;
}

int spank_topology_load(spank_t sp, uint32_t job_id, roles_topology_t *t)
{
	char node[256] = "", conf[512] = "", path[512], line[128];
	const char *c = getenv("SLURM_CONF");
	FILE *f;
	int rc = -ENOENT;

	if (!c && spank_getenv(sp, "SLURM_CONF", conf, sizeof(conf)) ==
	    ESPANK_SUCCESS)
		c = conf;
	if (spank_getenv(sp, "SLURMD_NODENAME", node, sizeof(node)) !=
	    ESPANK_SUCCESS ||
	    topology_path(c, node, job_id, path, sizeof(path)))
		return -ENOENT;
	f = fopen(path, "r");
	if (!f)
		return -ENOENT;
	if (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		rc = roles_topology_parse(line, t, NULL, 0) ? -ENOENT : 0;
	}
	fclose(f);
	return rc;
}
