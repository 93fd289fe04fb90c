/*
 * spank_optimus.c - the spank/optimus plugin: the `--scheduler` option.
 *
 * In sbatch/salloc/srun (allocator and local contexts) the option's value is
 * passed to slurmctld through the job's SPANK environment, where
 * job_submit/optimus validates it.
 */
#include <stdlib.h>
#include <string.h>

#include <slurm/spank.h>

SPANK_PLUGIN(optimus, 1);

#define OPTIMUS_SPANK_ENV_HINTS "OPTIMUS_SCHEDULER"

static char *scheduler_arg;

static int scheduler_option_cb(int val, const char *optarg, int remote)
{
	if (!optarg || !*optarg) {
		slurm_error("optimus: --scheduler needs a value, e.g. --scheduler=optimus");
		return -1;
	}
	free(scheduler_arg);
	scheduler_arg = strdup(optarg);
	return scheduler_arg ? 0 : -1;
}

static struct spank_option scheduler_option = {
	.name = "scheduler",
	.arginfo = "POLICY[,KEY=VALUE...]",
	.usage = "Schedule this training job with sched/optimus: POLICY is "
		 "'optimus' or 'quality'; see optimus_hints(5) for the keys.",
	.has_arg = 1,
	.val = 0,
	.cb = scheduler_option_cb,
};

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	if (spank_option_register(sp, &scheduler_option) != ESPANK_SUCCESS) {
		slurm_error("optimus: cannot register the --scheduler option");
		return -1;
	}
	return 0;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();

	if (!scheduler_arg)
		return 0;
	if (ctx != S_CTX_ALLOCATOR && ctx != S_CTX_LOCAL)
		return 0;
	if (spank_job_control_setenv(sp, OPTIMUS_SPANK_ENV_HINTS,
				     scheduler_arg, 1) != ESPANK_SUCCESS) {
		slurm_error("optimus: cannot pass --scheduler=%s to slurmctld",
			    scheduler_arg);
		return -1;
	}
	return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	free(scheduler_arg);
	scheduler_arg = NULL;
	return 0;
}
