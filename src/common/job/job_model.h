/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * job_model.h - everything the scheduler knows about one training job.
 *
 * The same record is fed by the sched/optimus plugin (from progress reports
 * and from what slurmctld says about the job) and by optimus-sim (from its
 * simulated jobs), and planned by plan.h: so the plugin and the simulator
 * run one policy code path.
 *
 * A job_model owns its models: the convergence curve (remaining steps), the
 * speed function f(p,w) fitted from (p, w, speed) samples, and the
 * quality-driven loss model. It also keeps the allocation history and the
 * timing needed to report the true completion time (counted from the first
 * submission, which Slurm resets on requeue).
 */
#ifndef OPTIMUS_JOB_MODEL_H
#define OPTIMUS_JOB_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <json-c/json.h>

#include "models/convergence.h"
#include "models/efficiency.h"
#include "models/goodput.h"
#include "hints/hints.h"
#include "models/quality_model.h"
#include "models/speed_model.h"
#include "models/speed_profiles.h"
#include "models/straggler.h"

/* The reason of a plan's decision (plan_decision_t.reason), kept. */
#define JOB_STOP_REASON_LEN 128

/* JM_: Slurm already names JOB_PENDING etc. in slurm.h */
typedef enum job_phase {
	JM_PENDING = 0,	/* waiting for a (first or new) start */
	JM_RUNNING,		/* running with cur_ps/cur_workers */
	JM_CHECKPOINTING,	/* signalled, waiting for checkpoint/grace */
	JM_REQUEUED,		/* requeued for a resize, pending again */
	JM_DONE,		/* completed, failed or cancelled */
} job_phase_t;

/* One run of the job with a given topology. */
typedef struct job_run {
	time_t start, end;	/* end 0 while running */
	int ps, workers;
	int nodes;
	double steps_done;	/* steps made during the run */
} job_run_t;

#define JOB_MODEL_MAX_RUNS 64	/* history kept (oldest dropped) */

/* Distinct step-time configurations (workers, nodes, local batch,
 * accumulation) an adaptive job keeps, the oldest dropped. */
#define JOB_BATCH_SAMPLES_MAX 32
/* Most extra gradient-accumulation micro-steps a limit may allow. */
#define JOB_BATCH_MAX_ACCUM 64

/*
 * A batch change at the job's GPUs sent to the running job in the reply
 * to its reports (job/job_rebatch.c, doc/design/reports.md "Re-batch in place"):
 * global = local x workers x (accum + 1), and the factor for a learning
 * rate tuned at the submitted batch (AdaScale's gain of global over the
 * submitted batch from the record's gradient statistics, efficiency_gain;
 * 1 before any). global 0: none sent in this run.
 */
typedef struct job_rebatch {
	double global;
	int local, accum;
	double lr_scale;
	time_t sent;	/* when the plan sent it */
	/* Sent until the job runs at it or the bound passes (a late one is
	 * still taken: the record follows what the job runs at). */
	bool open;
} job_rebatch_t;

/*
 * Adaptive batch (job/job_batch.c): what the record knows to
 * choose a job's global batch with its GPUs. Set up by
 * job_model_batch_limits(); a record without it (adaptive false) keeps
 * its submitted batch and is planned as before.
 */
typedef struct job_batch {
	bool adaptive;
	double submitted;	/* the global batch the user submitted */
	goodput_limits_t limits;	/* the range the job accepts */
	/* Efficiency relative to B0 = limits.min_batch, the smallest batch
	 * the job accepts (Pollux's initial batch). */
	efficiency_model_t eff;
	/* The batch the current (or last) run uses; 0: the submitted. */
	double global;
	int local, accum;
	/* Progress in B0-steps (one step at B0 is 1): each reported step
	 * counts its batch's gain (efficiency_gain) at the time. */
	double progress;
	/* Where an epoch began on that progress, for a target of epochs=
	 * without epoch_steps=: epoch_mark epochs took epoch_mark_progress
	 * (0: no epoch >= 1 reported yet); marked at any batch, as the
	 * step mark of job_model_t is at the submitted one alone
	 * (job_model_epoch_marked). */
	double epoch_mark, epoch_mark_progress;
	/* Measured steps at any batch (one per configuration, the latest)
	 * and the step-time model fitted to them (goodput_fit). */
	goodput_sample_t samples[JOB_BATCH_SAMPLES_MAX];
	size_t nsamples;
	speed_model_t speed;
	bool fitted;
	/*
	 * Re-batch in place (job/job_rebatch.c). in_place: the job's
	 * progress reports say the batch they run at (its trainer takes a
	 * batch change in place); missed: changes it did not take within
	 * the bound (RebatchTimeout), after which its changes go the
	 * restart path; offer: the change sent in this run; rebatches:
	 * changes taken in place, rebatch_seconds their time (the mean is
	 * what the plan prices one at).
	 */
	bool in_place;
	unsigned missed;
	job_rebatch_t offer;
	unsigned rebatches;
	double rebatch_seconds;
} job_batch_t;

/*
 * What the job's speed reports claimed in its current run, and what the
 * record saw of the run to check them by (job/job_claims.c). Not in the
 * state file: a restarted slurmctld checks the claims afresh.
 */
typedef struct job_claims {
	time_t first_report;	/* the run's first progress report, 0: none */
	double first_step;	/* the step that report gave */
	/* Claims the run may still make now (JOB_CLAIM_BURST at its start,
	 * JOB_CLAIM_RATE more a second up to it), as of tokens_at. */
	double tokens;
	time_t tokens_at;
	uint64_t taken, refused;	/* over every run of the job */
	char last_refusal[160];	/* why the last one was refused */
} job_claims_t;

/* A speed claim is checked against the steps the run reported over at
 * least this many seconds of wall time (between its first progress
 * report and its last). */
#define JOB_CLAIM_WINDOW 3
/* ... and is refused when it is more than this factor away from them. */
#define JOB_CLAIM_FACTOR 2.0
/* Speed claims a run may make: JOB_CLAIM_BURST at once, and JOB_CLAIM_RATE
 * a second on average (a trainer reports its speed with its progress,
 * about once a second): a bucket of JOB_CLAIM_BURST claims refilled at
 * JOB_CLAIM_RATE a second. */
#define JOB_CLAIM_BURST 8
#define JOB_CLAIM_RATE 1.0

typedef struct job_model {
	uint32_t job_id;
	uint32_t uid;
	optimus_hints_t hints;
	job_phase_t phase;

	/* Models. */
	convergence_t *conv;
	speed_model_t speed;	/* this job's own samples */
	quality_model_t quality;

	/* Latest progress. */
	double step;		/* last reported step (cumulative) */
	double loss;		/* last reported loss */
	double steps_per_sec;	/* last reported speed */
	time_t last_report;
	uint64_t reports;

	/* Allocation: current and planned. */
	int cur_ps, cur_workers, cur_nodes;
	int plan_ps, plan_workers;

	/* Timing. */
	time_t first_submit;	/* never reset by requeues */
	time_t end_time;	/* 0 until done */
	time_t last_resize;	/* last time a resize was started */
	time_t resize_began;	/* checkpoint signal time of a resize */
	/*
	 * The same, kept from the new run's start to its first report: a
	 * restart costs the job until its first step, not until Slurm starts
	 * it (its processes start, load the checkpoint, join the
	 * all-reduce). 0: no restart being timed.
	 */
	time_t restart_from;
	double resize_seconds;	/* total time lost in resizes */
	unsigned restarts;	/* completed restarts (a run after a run) */
	/* The restarts whose time resize_seconds holds: a resize's, timed
	 * from its signal (a preempted job's restart is a restart, but the
	 * wait in it is the queue's, not timed). */
	unsigned restarts_timed;
	unsigned resizes;	/* resizes begun (job_model_resizing) */
	/*
	 * Runs Slurm ended and requeued itself (a node failed under the job,
	 * an admin's requeue): neither counted in restarts nor charged to
	 * resize_seconds. fault_requeue: such a requeue awaits
	 * its next run.
	 */
	unsigned fault_restarts;
	bool fault_requeue;
	/*
	 * A finished job requeued (its owner's `scontrol requeue`): its next
	 * run is a new pending run, planned like any pending job's, neither
	 * a restart (a resize's) nor a fault's; reruns counts them.
	 */
	bool rerun;
	unsigned reruns;
	/*
	 * Found running without a record (state file lost or unreadable):
	 * taken at its real size, and not resized before it reported after
	 * this time. 0: not adopted.
	 */
	time_t adopted;
	/*
	 * How a job that did not complete ended, as its adapter words it
	 * ("FAILED exit=0:10"); empty for a completed job. A failed job's
	 * summary says this instead of a finished prediction.
	 */
	char failed[48];
	/*
	 * Checkpoints: a running job is resized or preempted only once its
	 * current run declared that it can checkpoint (a `checkpoint` report
	 * received at or after the run's start: its reporter's declaration
	 * at every start, or a confirmation after a signal), and never again
	 * once a run resumed below the step the previous one had reached.
	 */
	time_t ckpt_confirmed;	/* last confirmation, 0: never */
	double ckpt_step;	/* the step it confirmed */
	bool resize_ckpt;	/* confirmed after this resize's signal */
	double resize_ckpt_step;	/* ... holding this step */
	double resume_floor;	/* the current run must resume at or above */
	bool not_resumable;	/* a run resumed below the step reached */

	job_run_t runs[JOB_MODEL_MAX_RUNS];
	size_t nruns;

	/* Added: bookkeeping of the lazy refit and of the reports. */
	double epoch;		/* last reported epoch (0: not reported) */
	/* Where an epoch began, for a target of epochs= without
	 * epoch_steps=: epoch_mark epochs took epoch_mark_step steps (0: no
	 * epoch >= 1 reported yet). job_model_epoch_marked() says how. */
	double epoch_mark, epoch_mark_step;
	unsigned dirty;		/* JOB_MODEL_DIRTY_* models to refit */
	bool explicit_cost;	/* quality cost given by job_model_cost_sample */

	/* Straggler detection over the current run's workers (allocated at
	 * the first worker report, reset by every start); not in the state
	 * file: a restarted slurmctld detects again from new reports. */
	straggler_t straggler;
	/* The node of the last straggler found, closed to the job until it
	 * ends (plan_job_t.closed_server); "" when none. */
	char avoid_node[STRAGGLER_NODE_LEN];
	double avoid_slowdown;	/* that straggler's step time over the median */

	job_batch_t batch;	/* adaptive batch (job/job_batch.c) */
	job_claims_t claims;	/* its speed reports, checked */

	/*
	 * Preemption with aging (plan/plan_preempt.c). attained:
	 * the GPU-seconds of its closed runs (job_model_run_service), added as each run closes so that the
	 * history's trimming loses none (job_model_attained adds the open
	 * run). waiting_since: the time its wait is aged from, its submission
	 * or the last time it lost its GPUs (the requeue of a preemption, a
	 * run lost to a fault). preempt_began: the
	 * checkpoint signal of the preemption under way (0: none), until its
	 * requeue. preemptions: begun (job_model_preempting).
	 */
	double attained;
	time_t waiting_since;
	time_t preempt_began;
	unsigned preemptions;

	/*
	 * Why the plan last stopped the job (job/job_stop.c), for its owner:
	 * the job it gave its GPUs to (a preemption, a shrink for a pending
	 * job; 0: none, a resize for its own sake) and the decision's reason
	 * naming the rule; "" when never stopped by a plan.
	 */
	uint32_t stop_for;
	char stop_reason[JOB_STOP_REASON_LEN];
} job_model_t;

/* Bits of job_model_t.dirty. */
enum {
	JOB_MODEL_DIRTY_CONV = 1u << 0,
	JOB_MODEL_DIRTY_SPEED = 1u << 1,
	JOB_MODEL_DIRTY_QUALITY = 1u << 2,
	JOB_MODEL_DIRTY_BATCH = 1u << 3,
	/* Every bit above: the state file's bound for 'dirty'. */
	JOB_MODEL_DIRTY_ALL = (1u << 4) - 1,
};

/*
 * Priors and thresholds (doc/design/planning.md). A prior is what the allocator
 * uses for a job that has no fit yet, so that it still chooses sensibly.
 */
#define JOB_MODEL_PRIOR_STEPS 10000.0	/* remaining steps, nothing known */
/* Share of its first epoch an adaptive job that declared epochs= is taken
 * to have run until a report says the share or the epoch's end
 * (job_model_batch_target): half, as the prior takes a job to be at most
 * half-way through. */
#define JOB_MODEL_FIRST_EPOCH_SHARE 0.5
#define JOB_MODEL_PRIOR_SPEED 1.0	/* steps/s of (1 PS, 1 worker) */
#define JOB_MODEL_QUALITY_DECAY 0.999	/* per-iteration loss weight */
#define JOB_MODEL_QUALITY_CAP 256	/* loss points kept (quality) */
/* Where job_model_speed() took its answer from. */
typedef enum job_speed_source {
	JOB_SPEED_FIT = 0,	/* the job's own fit */
	JOB_SPEED_PROFILE,	/* the shared profile of hints.model */
	JOB_SPEED_SCALED,	/* prior shape scaled to the job's samples */
	JOB_SPEED_PRIOR,	/* prior alone */
} job_speed_source_t;

/* The speed model's mode for the hints' mode (async, sync, allreduce). */
speed_mode_t job_model_speed_mode(const optimus_hints_t *h);

/*
 * The first coordinate of the job's speed model for ps PS and w workers:
 * ps for a PS job; for an all-reduce job (no PS) the nodes its w workers
 * span, placed on the fewest nodes (placement.h) with at most node_workers
 * per node; node_workers 0: as many per node as its last run had, else
 * all on one node. Every caller of job_model_speed*() and of
 * job_model_speed_sample() passes its `ps` through this.
 */
int job_model_speed_p(const job_model_t *m, int ps, int workers,
		      int node_workers);

/* Added: "pending", "running", ...; parse gives 0 or -EINVAL. */
const char *job_phase_name(job_phase_t p);
int job_phase_parse(const char *name, job_phase_t *out);

/* A new record for a job with the given hints; NULL on error. */
job_model_t *job_model_new(uint32_t job_id, uint32_t uid,
			   const optimus_hints_t *hints, time_t submit);
void job_model_free(job_model_t *m);
/* A deep copy with its own models (fit a copy while readers use the
 * original, then swap); NULL on no memory. */
job_model_t *job_model_clone(const job_model_t *m);

/*
 * A progress report: cumulative step, loss, and (if > 0) the measured speed
 * in steps per second with the job's current (cur_ps, cur_workers), which
 * is also added as a speed sample. Returns 0 or -EINVAL for bad values
 * (a step or speed above PROTOCOL_MAX_STEP among them).
 */
int job_model_report(job_model_t *m, time_t now, double step, double loss,
		     double steps_per_sec, double epoch);

/*
 * A progress report without a loss (a job that reports its steps and
 * epochs only, as the measured workloads' jobs do): what
 * job_model_report() records, its speed (steps_per_sec, 0: none) as
 * there, but the loss models are not fed and the last loss is kept. A
 * report that carries the run's speed lets the record take the steps run
 * since a restart off the time it measures for the restart. 0 or -EINVAL.
 */
int job_model_progress(job_model_t *m, time_t now, double step,
		       double steps_per_sec, double epoch);

/*
 * A speed report is a claim about the run slurmctld started, checked
 * before the record takes it (job/job_claims.c): refused while the job
 * does not run; for another configuration than the run's (its PS and
 * workers; the nodes are the run's); beyond JOB_CLAIM_BURST at once or
 * JOB_CLAIM_RATE a second on average; before the run's progress reports
 * span JOB_CLAIM_WINDOW seconds; and more than JOB_CLAIM_FACTOR away
 * from the steps they show over that time: at the run's batch
 * (local_batch 0) the speed itself, at a per-worker batch of its own
 * (local_batch, accum) the step time, which lies between the run's step
 * time and that time scaled by the ratio of the two batches. 0 when the
 * record may take it (counted in m->claims), else -EPERM with why (also
 * kept in m->claims.last_refusal).
 */
int job_model_speed_claim(job_model_t *m, time_t now, int ps, int workers,
			  int local_batch, int accum, double steps_per_sec,
			  char *why, size_t len);
/*
 * What a speed must be for the record to take it as a sample at all, the
 * first check of a claim and the one the listener makes before queuing a
 * speed report (job/job_admit.h): a speed above 0, no negative batch or
 * accumulation and, at the run's batch (local_batch 0), a configuration
 * the job's speed model holds (job_model_speed_p of it,
 * speed_model_sample_valid). 0, or -EINVAL with why.
 */
int job_model_speed_check(const job_model_t *m, int ps, int workers,
			  int local_batch, int accum, double steps_per_sec,
			  char *why, size_t len);
/* The steps per second the current run's progress reports show over
 * their wall time (JOB_CLAIM_WINDOW at least), or 0 when not yet. */
double job_model_observed_speed(const job_model_t *m);

/*
 * sum + steps, saturated at the protocol's bound on steps
 * (PROTOCOL_MAX_STEP): every count of steps the record adds up from
 * reports stays within what the state file loads back.
 */
double job_model_steps_add(double sum, double steps);

/* An explicit speed sample (pre-run or measured): 0 or -EINVAL. For an
 * all-reduce job `ps` is the number of nodes (job_model_speed_p). */
int job_model_speed_sample(job_model_t *m, int ps, int workers,
			   double steps_per_sec);

/*
 * Added: an explicit quality-driven cost sample, one iteration processing
 * data_size units in cpu_seconds CPU time (quality_model_add_cost). Once
 * one is given, reports no longer derive cost samples from their speed.
 * 0 or -EINVAL.
 */
int job_model_cost_sample(job_model_t *m, double data_size,
			  double cpu_seconds);

/*
 * Refit every model from its points (cheap when nothing changed: only the
 * models marked dirty by reports are refitted). Predictions read the last
 * fit: call this once per interval, before plan_run().
 */
void job_model_refit(job_model_t *m);

/* Record a start with (ps, workers) on nodes; closes any open run. */
void job_model_started(job_model_t *m, time_t now, int ps, int workers,
		       int nodes);
/* Record the end of the current run (resize, completion). */
void job_model_stopped(job_model_t *m, time_t now);
/*
 * Back to pending after a requeue (a resize's, or an admin's): a running or
 * checkpointing job's run ends at now and its phase becomes REQUEUED;
 * a job in any other phase is left as it is.
 */
void job_model_requeued(job_model_t *m, time_t now);
/*
 * Slurm requeued the job itself, not for a plan's resize (a node failed
 * under it, an admin's requeue), while it ran or checkpointed for a
 * resize: the run is lost, a resize under way is abandoned, and the next
 * run is a fault restart that resumes from the last confirmed checkpoint.
 */
void job_model_lost_run(job_model_t *m, time_t now);
/*
 * A finished job back to pending (requeued by its owner, or an admin): a
 * new pending run (rerun), waiting since now with no planned size; its
 * end and how it ended are forgotten. Its next start counts neither as a
 * restart nor as a fault restart, and sets no resume floor (the owner
 * chose where it starts from). A job in any other phase is left as it is.
 */
void job_model_rerun(job_model_t *m, time_t now);
/*
 * Added: a resize decided by the plan begins (checkpoint signal sent):
 * phase CHECKPOINTING, last_resize = resize_began = now, resizes + 1.
 * The next run's first report adds the time lost to resize_seconds: from
 * the signal to the first step that report shows (its steps at the
 * reported speed taken off), at least to the run's start; a run that ends
 * before any report lost all of it.
 */
void job_model_resizing(job_model_t *m, time_t now);
/*
 * A preemption decided by the plan begins (PLAN_PREEMPT; checkpoint
 * signal sent): phase CHECKPOINTING as for a resize, but not a resize
 * (neither resizes nor resize_seconds count it); preemptions + 1. Its
 * checkpoint confirmed from now is the one the next run resumes from.
 * job_model_requeued() then ends the run: the job is pending (REQUEUED),
 * waiting since that requeue, with no planned size.
 */
void job_model_preempting(job_model_t *m, time_t now);
/*
 * When the checkpoint signal of the resize or preemption under way was
 * sent (0: none): the requeue waits for the checkpoint, or the grace, from
 * then (job_model_requeue_due).
 */
time_t job_model_signalled(const job_model_t *m);
/*
 * Is the job stopping for a resize or a preemption (CHECKPOINTING) due
 * to be requeued at `now`: its checkpoint confirmed (`acked`: the feed's
 * checkpoint_acked, job/job_feed.h), or its grace (ckpt_grace) from the
 * signal run out? (sched/optimus planner_requeue.c collect_requeue.)
 */
bool job_model_requeue_due(const job_model_t *m, bool acked, time_t now);
/*
 * The job's attained service in GPU-seconds: its closed runs' and, while
 * it runs or checkpoints, the open run's up to now.
 */
double job_model_attained(const job_model_t *m, time_t now);
/* The GPUs ps PS and workers take (hints_gpus), or the workers for a job
 * that declares no GPU: the unit of its service. */
double job_model_gpus(const job_model_t *m, int ps, int workers);
/* One run's service up to `until`: job_model_gpus of the run x the
 * seconds. */
double job_model_run_service(const job_model_t *m, const job_run_t *r,
			     time_t until);

/*
 * One worker's own step time (plus the lag a PS saw for it) for straggler
 * detection (job_model_straggler.c). rank must be below cur_workers.
 * Returns 1 when this report completed the detection of a straggler
 * (m->straggler names it), 0, -ESRCH when no run is going (pending,
 * requeued, done: a report of a run that is over, such as one a node
 * Slurm took for dead still sends), or -EINVAL (bad value).
 */
int job_model_worker_report(job_model_t *m, const straggler_params_t *p,
			    int rank, const char *node, double step_time);
/* Whether the running run has a worker of this rank: 0, or -EINVAL with
 * the reason (job_model_worker_report's rule, also asked at admission:
 * job/job_admit.h). */
int job_model_worker_check(const job_model_t *m, int64_t rank, char *err,
			   size_t errlen);

/* " straggler=NODE(2.5x)" for SystemComment, or "" when none; buf. */
const char *job_model_straggler_text(const job_model_t *m, char *buf,
				     size_t len);

/* The straggler finding in the record's JSON ("straggler": {"node",
 * "slowdown"}, absent when none): 0 or -ENOMEM; from: 0 or -EINVAL. */
int job_model_straggler_to_json(json_object *o, const job_model_t *m);
int job_model_straggler_from_json(const json_object *o, job_model_t *m,
				  char *err, size_t len);

/* Record completion; the JCT is end - first_submit. */
void job_model_done(job_model_t *m, time_t now);
/* The job ended without completing: `how` (state and exit) is kept for its
 * summary. Call after job_model_done(). */
void job_model_failed(job_model_t *m, const char *how);

/*
 * Predictions. Speed uses the job's own fit, else the shared profile of
 * hints.model in `profiles` (may be NULL), else a prior. Remaining steps use
 * the convergence fit, else the hints' target steps, else a prior; *fitted
 * tells whether the fit was used (false: an early-stage job).
 */
double job_model_speed(const job_model_t *m, const speed_profiles_t *profiles,
		       int ps, int workers);
/* Added: job_model_speed() and where its answer comes from. */
double job_model_speed_from(const job_model_t *m,
			    const speed_profiles_t *profiles, int ps,
			    int workers, job_speed_source_t *src);
const char *job_speed_source_name(job_speed_source_t s);
/* Added: the target steps from the hints (or epochs), 0 if unknown. */
double job_model_target_steps(const job_model_t *m);
/*
 * Added: predicted loss after the next T seconds with `units` workers
 * (quality-driven allocation); a prior curve when the loss model is not
 * fitted yet, so the result is always finite.
 */
double job_model_loss_after(const job_model_t *m,
			    const speed_profiles_t *profiles, double T,
			    int units);
double job_model_remaining_steps(const job_model_t *m, bool *fitted);
/* Predicted remaining seconds with (ps, workers); INFINITY if unknown. */
double job_model_remaining_time(const job_model_t *m,
				const speed_profiles_t *profiles,
				int ps, int workers);

/*
 * Record a running job found without a record at its real size: a run
 * from `start` at the size planned, and no resize before it reports
 * after `now` nor before the minimum resize interval from `now`
 * (last_resize = now).
 */
void job_model_adopted(job_model_t *m, time_t start, time_t now, int ps,
		       int workers, int nodes);
/*
 * A checkpoint report: the job holds a checkpoint of `step`. 0 or
 * -EINVAL (step not finite or negative).
 */
int job_model_checkpoint(job_model_t *m, time_t now, double step);
/*
 * Has the job's current run declared that it can checkpoint (a checkpoint
 * report at or after its start)? False when no run is going.
 */
bool job_model_run_declared(const job_model_t *m);
/*
 * Why the job may not be resized or preempted at all for now (never
 * confirmed a checkpoint, its current run has not declared yet, resumed
 * below its step, adopted and silent since), or NULL.
 */
const char *job_model_not_resizable(const job_model_t *m);
/* What would make it resizable, for SystemComment: " (...)" after the
 * reason of job_model_not_resizable(), or "" when nothing the job can do. */
const char *job_model_not_resizable_help(const job_model_t *m);
/*
 * May the plan resize this running job now? NULL if so, else why not
 * (written into why). The one home of the rules that keep a resize from
 * throwing work away.
 */
const char *job_model_why_not_resizable(const job_model_t *m, time_t now,
					double min_interval, char *why,
					size_t len);

/*
 * The plan stops the job (its checkpoint signal is sent: a resize, a
 * preemption, a move): for job `for_job` (0: for its own sake), as the
 * decision's `reason` says (job/job_stop.c).
 */
void job_model_stop_reason(job_model_t *m, uint32_t for_job,
			   const char *reason);
/*
 * " last stop: <reason>" for SystemComment, or "" when the plan never
 * stopped the job; buf.
 */
const char *job_model_stop_text(const job_model_t *m, char *buf, size_t len);
/*
 * The step to show the job's owner: the last reported one, but while the
 * job is stopped with a checkpoint confirmed for that stop (checkpointing
 * or requeued for a resize or a preemption), the checkpoint's step, the
 * one its next run resumes from.
 */
double job_model_step_shown(const job_model_t *m);
/* The last stop in the record's JSON ("stopped_for", "stop_reason",
 * absent when none): 0 or -ENOMEM; from: absent leaves none; 0 or
 * -EINVAL with a message. */
int job_model_stop_to_json(json_object *o, const job_model_t *m);
int job_model_stop_from_json(const json_object *o, job_model_t *m,
			     char *err, size_t len);

/* Share of the job's time since its first start lost to resizes, 0..1. */
double job_model_resize_share(const job_model_t *m);

/* A one-line summary for Slurm's SystemComment (at most len bytes). */
int job_model_summary(const job_model_t *m, const speed_profiles_t *profiles,
		      char *buf, size_t len);

/*
 * What a job with a batch= hint runs at now (SystemComment, optimusctl
 * show job): the global batch of its current or last run, split into
 * local x workers x (accum + 1) (the submitted batch over `workers` when
 * the run had none of its own); its statistical efficiency against B0
 * from the gradient statistics reported (models/efficiency.h), the noise
 * scale, and the measured goodput, efficiency x batch x the measured step
 * rate (B0-worth examples per second); NAN before a figure exists.
 * 0, or -ENOENT for a job without a batch.
 */
typedef struct job_batch_now {
	double global;
	int local, accum;
	double efficiency, goodput, noise_scale;
} job_batch_now_t;

int job_model_batch_now(const job_model_t *m, int workers,
			job_batch_now_t *out);
/* The global batch the run trains at: the one a plan chose, else the
 * submitted one. */
double job_model_batch_global(const job_model_t *m);

/*
 * Adaptive batch (job/job_batch.c). The statistical efficiency
 * of a batch and the goodput are models/efficiency.h and models/goodput.h;
 * the record feeds them with what the job reports and answers for an
 * allocation.
 */
/*
 * Enable adaptive batch for the job: `submitted` is its global batch,
 * lim the range it accepts (min_batch <= submitted <= max_batch, per-GPU
 * batch min_local..max_local with min_local >= 1, max_accum in
 * 0..JOB_BATCH_MAX_ACCUM). The efficiency is relative to lim->min_batch.
 * Called again with other limits, it keeps the statistics and samples.
 * 0, or -EINVAL with a message in err (nothing changed).
 */
int job_model_batch_limits(job_model_t *m, double submitted,
			   const goodput_limits_t *lim, char *err,
			   size_t errlen);
/*
 * One report of gradient statistics (efficiency.h: grad_sqr = |G|^2,
 * grad_var the variance of a gradient averaged over var_batch examples),
 * standing for `estimates` estimates of those values (0 or 1: one;
 * efficiency_report_many). Accepted for any job (a job not adaptive keeps
 * them for show). 0, or -EINVAL with a message in err (a bad value:
 * nothing stored).
 */
int job_model_gradients(job_model_t *m, double grad_sqr, double grad_var,
			double var_batch, uint32_t estimates, char *err,
			size_t errlen);
/*
 * One measured step of w workers on n nodes at per-GPU batch `local` with
 * `accum` extra micro-steps, `seconds` for the whole step. A progress
 * report of an adaptive job adds one itself at its current batch
 * (job_model_report); the simulator's and pre-runs' measurements come
 * here. 0 or -EINVAL.
 */
int job_model_batch_sample(job_model_t *m, int w, int n, int local,
			   int accum, double seconds);
/* The same with the step's all-reduce seconds as the job measured them
 * (goodput_sample_t sync, 0 <= sync < seconds; 0: not measured, and the
 * configuration keeps the part last measured there if it is below
 * `seconds`). 0 or -EINVAL. */
int job_model_batch_sample_sync(job_model_t *m, int w, int n, int local,
				int accum, double seconds, double sync);
/*
 * The batch the run starting now uses (global = local * w * (accum + 1)
 * is not checked against w here); global 0: the submitted batch. Call
 * after job_model_started() with what the plan decided (plan_decision_t
 * batch, local_batch, accum). 0 or -EINVAL.
 */
int job_model_batch_run(job_model_t *m, double global, int local,
			int accum);
/*
 * The best batch for `workers` GPUs on `nodes` nodes: the highest goodput
 * within the limits (goodput_best) once the job's step-time fit exists;
 * before it, and for a job not adaptive, its submitted batch (local =
 * ceil(submitted / workers), accum 0; step_time, efficiency, goodput from
 * the record's speed model, or NAN when it has none). 0, -EINVAL, or
 * goodput_best's error.
 */
int job_model_batch_for(const job_model_t *m, int workers, int nodes,
			goodput_choice_t *out);
/*
 * Exploring scaling (job/job_explore.c; doc/design/planning.md "Exploring
 * scaling"), Pollux's rule. A job's explored extent: the most workers
 * and the most nodes over the configurations it measured: its recorded
 * runs, its speed samples (pre-runs included) and its step times at any
 * batch (0, 0: none).
 */
#define JOB_EXPLORE_GROWTH 2	/* a grant: at most twice the most GPUs */
typedef struct job_explore {
	int workers, nodes;	/* the explored extent */
	/* The best rate per worker over the configurations it measured,
	 * from its model there (which its measurements fit or scale); 0:
	 * none known, no optimism. */
	double per_gpu;
} job_explore_t;
typedef void (*job_explore_fn)(void *ctx, int workers, int nodes);
/* fn on every configuration the job measured (nodes within 1..workers). */
void job_model_explored_each(const job_model_t *m, job_explore_fn fn,
			     void *ctx);
void job_model_explored(const job_model_t *m, int *workers, int *nodes);
/* The most workers a grant may hold while the job explores:
 * JOB_EXPLORE_GROWTH times the most it measured, 1 before any
 * (the plan never goes below the job's minimum). */
int job_model_explore_cap(const job_model_t *m);
/* The optimistic speed (or rate) of `workers` on `nodes`: `predicted`
 * within the extent x; beyond it, the larger of `predicted` and perfect
 * scaling from x->per_gpu (workers * per_gpu). */
double job_model_explore_speed(double predicted, int workers, int nodes,
			       const job_explore_t *x);
/* Is (workers, nodes) a growth beyond the extent x (more workers than
 * the job runs now, beyond the most workers or nodes it measured)? Such a
 * step is not held to the minimum resize interval: the cap bounds their
 * number (one per doubling), and each is the measurement the model lacks. */
bool job_model_explore_growth(int cur_workers, int workers, int nodes,
			      const job_explore_t *x);
/*
 * Progress rate at `workers` on `nodes` in B0-steps per second at the
 * batch job_model_batch_for() chooses (its goodput / B0); before the fit,
 * the record's speed at the submitted batch times that batch's gain.
 * 0 when unknown. Only for an adaptive job.
 */
double job_model_batch_rate(const job_model_t *m,
			    const speed_profiles_t *profiles, int workers,
			    int nodes);
/* The same rate at a given batch (the current one: local, accum). */
double job_model_batch_rate_at(const job_model_t *m, int workers, int nodes,
			       int local, int accum);
/*
 * The progress (B0-steps) an adaptive job runs to: steps= or epochs= with
 * epoch_steps= (a step at the submitted batch holds submitted / B0
 * B0-steps of examples: the target's examples, at B0's efficiency of 1),
 * else epochs= times the progress an epoch took (the batch's epoch mark,
 * job_model_epoch_marked), else, in its first epoch, epochs= times its
 * progress over the share of that epoch run (a fractional epoch
 * reported, else JOB_MODEL_FIRST_EPOCH_SHARE); 0: unknown.
 */
double job_model_batch_target(const job_model_t *m);
/*
 * Progress left in B0-steps: the target (job_model_batch_target) less
 * the progress counted, or the remaining steps (job_model_remaining_steps)
 * at the submitted batch as examples over B0 when no target is known or
 * the job has run past it; at least 1.
 */
double job_model_batch_remaining(const job_model_t *m);

/* Called by job_model_report(): `steps` new steps at the current batch
 * (progress), and the step time of the current run as a sample. */
void job_model_batch_progress(job_model_t *m, double steps,
			      double steps_per_sec);
/*
 * The all-reduce part of the running configuration's step as the job
 * timed it (a progress report's sync_seconds), onto that configuration's
 * sample; the goodput fit splits compute from all-reduce once every
 * multi-worker sample has it (models/goodput.h). Nothing for a job not
 * adaptive, sync <= 0 (not said), or before a sample of the configuration
 * exists. -EINVAL (nothing kept) when sync is not below the step time
 * the record measured there.
 */
int job_model_batch_sync(job_model_t *m, double sync);
/* Does the current run use the submitted batch (or is the job not
 * adaptive)? Only such speeds are samples of the record's speed model. */
bool job_model_batch_at_submitted(const job_model_t *m);
/* Refit the step-time model of any batch (job_model_refit calls it). */
void job_model_batch_refit(job_model_t *m);

/*
 * Re-batch in place (job/job_rebatch.c; doc/design/reports.md "Re-batch in
 * place", doc/design/planning.md "Goodput"). A batch change at the same GPUs goes
 * to the running job in the reply to its next report instead of a
 * checkpoint-requeue-restart; the job takes it at its next step and says
 * so in its next progress report
 * (the batch it runs at). A job whose reports never said their batch (a
 * client that does not know the reply's field), or that did not take one
 * within the bound, is re-batched by a restart.
 */
/* May a batch change reach this job in place: its reports say their
 * batch and it never missed one? */
bool job_model_rebatch_in_place(const job_model_t *m);
/* The change sent and not taken yet (the reply's field), or NULL. */
const job_rebatch_t *job_model_rebatch_open(const job_model_t *m);
/*
 * The plan's change of a running job's batch at its GPUs, sent now:
 * global = local x cur_workers x (accum + 1) within the job's limits,
 * the job adaptive and running. 0, or -EINVAL with a message in err
 * (nothing sent).
 */
int job_model_rebatch_send(job_model_t *m, time_t now, double global,
			   int local, int accum, char *err, size_t errlen);
/*
 * A progress report of a running job saying the global batch it runs at
 * (`seconds` >= 0: how long its change to that batch took, as it timed
 * it; < 0: not said). The job takes changes in place from now on. Its
 * batch being the change sent: taken (its run's batch from now, one more
 * re-batch, its time the job's own within the time since it was sent,
 * else that time); returns 1. Its run's batch: 0. Any other: -EINVAL
 * (a claim the record does not follow; nothing changed).
 */
int job_model_rebatch_said(job_model_t *m, time_t now, double global,
			   double seconds);
/* The change sent `bound` seconds ago or more and not taken: closed, one
 * more missed (the job's changes go the restart path from now); 1 when
 * this call closed it, else 0. */
int job_model_rebatch_expire(job_model_t *m, time_t now, double bound);
/* What a re-batch in place costs the job (seconds): the mean of its
 * re-batches taken, else `fallback` (RebatchCost). */
double job_model_rebatch_cost(const job_model_t *m, double fallback);
/* The run ends or another begins: the change sent is void. */
void job_model_rebatch_void(job_model_t *m);
/* The re-batch record in the batch JSON (job_model_batch_to_json's
 * object): 0 or -ENOMEM; from: absent keys leave it off; 0 or -EINVAL. */
int job_model_rebatch_to_json(json_object *batch, const job_model_t *m);
int job_model_rebatch_from_json(const json_object *batch, job_model_t *m,
				char *err, size_t len);

/* The adaptive batch in the record's JSON ("batch": {...}, absent when
 * not adaptive): 0 or -ENOMEM; from: absent leaves it off; 0 or -EINVAL. */
int job_model_batch_to_json(json_object *o, const job_model_t *m);
int job_model_batch_from_json(const json_object *o, job_model_t *m,
			      char *err, size_t len);

/* The whole record as JSON (state file, optimusctl); NULL on no memory. */
json_object *job_model_to_json(const job_model_t *m);
/*
 * The record back from JSON. Returns NULL and a message in err for
 * malformed or out-of-range input, never crashing on it.
 */
job_model_t *job_model_from_json(const json_object *o, char *err, size_t len);
/*
 * The record back from JSON, losing only what is out of its bounds (the
 * state file: one bad value must not lose a job's whole record): each
 * part job_model_from_json() refuses is taken as a new record has it (a
 * field, a model, the straggler, the batch; a run's field: 0) or left out
 * (a run that is no run), and said in `refused` ("" when nothing was). NULL only when the record
 * cannot be told (its job_id, uid or hints), with the reason in refused.
 */
job_model_t *job_model_from_json_salvaged(const json_object *o,
					  char *refused, size_t len);

#endif
