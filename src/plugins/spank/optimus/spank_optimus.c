/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * spank_optimus.c - the spank/optimus plugin's entry points and arguments.
 *
 * plugstack.conf: required spank_optimus.so [state_dir=DIR] [submit_check=0]
 */
#include <stdio.h>
#include <string.h>
#include <gsl/gsl_errno.h>

#include "spank_optimus.h"

SPANK_PLUGIN(optimus, 1);

spank_optimus_conf_t spank_optimus_conf = {
	.state_dir = "/run/slurm-optimus",
	.submit_check = true,
};

/* state_dir= must be absolute (a job's working folder is no place for
 * the node's state) and fit whole: a cut path would be another folder. */
static int conf_state_dir(const char *dir)
{
	size_t n = strlen(dir), max = sizeof(spank_optimus_conf.state_dir) - 1;

	if (dir[0] != '/') {
		slurm_error("optimus: plugstack.conf: state_dir='%s' is not an "
			    "absolute path (state_dir=/ABS/PATH)", dir);
		return -1;
	}
	if (n > max) {
		slurm_error("optimus: plugstack.conf: state_dir is %zu characters "
			    "long, at most %zu", n, max);
		return -1;
	}
	memcpy(spank_optimus_conf.state_dir, dir, n + 1);
	return 0;
}

static int conf_parse(int ac, char **av)
{
	for (int i = 0; i < ac; i++) {
		if (!strncmp(av[i], "state_dir=", 10)) {
			if (conf_state_dir(av[i] + 10))
				return -1;
		} else if (!strcmp(av[i], "submit_check=0")) {
			spank_optimus_conf.submit_check = false;
		} else if (!strcmp(av[i], "submit_check=1")) {
			spank_optimus_conf.submit_check = true;
		} else {
			slurm_error("optimus: unknown plugstack.conf argument "
				    "'%s' (accepted: state_dir=/ABS/PATH, "
				    "submit_check=0|1)", av[i]);
			return -1;
		}
	}
	return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	/* GSL's default error handler aborts the process: the models check
	 * every result and return errors instead. */
	gsl_set_error_handler_off();
	if (conf_parse(ac, av))
		return -1;
	if (spank_options_register(sp))
		return -1;
	return spank_roles_step_init(sp);
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	return spank_options_post_opt(sp);
}

int slurm_spank_job_prolog(spank_t sp, int ac, char **av)
{
	if (conf_parse(ac, av))
		return -1;
	return spank_topology_prolog(sp);
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
	if (conf_parse(ac, av))
		return -1;
	return spank_topology_epilog(sp);
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	return spank_roles_task_init(sp);
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	spank_options_free();
	return 0;
}
