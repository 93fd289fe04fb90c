/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * test_hints.c - --scheduler hints: every key parsed into its field, every
 * bad value refused with a message naming the key, the canonical format
 * round-trips, and the initial request fits the node capacity.
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hints/bounds.h"
#include "hints/hints.h"
#include "hints/script.h"
#include "alloc/placement.h"
#include "check_run.h"

static optimus_hints_t h;
static char err[512];

static int parse(const char *text)
{
	err[0] = '\0';
	return hints_parse(text, &h, err, sizeof(err));
}

START_TEST(test_defaults)
{
	ck_assert_int_eq(parse("optimus"), 0);
	ck_assert_int_eq(h.policy, HINTS_POLICY_OPTIMUS);
	ck_assert_int_eq(h.mode, HINTS_MODE_ASYNC);
	ck_assert_uint_eq(h.min_ps, 1);
	ck_assert_uint_eq(h.max_workers, 1);
	ck_assert_int_eq(h.form, CURVE_INVERSE);
	ck_assert_int_eq(h.ckpt_signal, SIGUSR1);
	ck_assert_uint_eq(h.set, 0);
	ck_assert_int_eq(parse("quality"), 0);
	ck_assert_int_eq(h.policy, HINTS_POLICY_QUALITY);
	ck_assert_int_eq(h.form, CURVE_POWER);
}
END_TEST

START_TEST(test_every_key)
{
	ck_assert_msg(!parse("quality,mode=sync,min_ps=2,max_ps=4,"
			     "min_workers=3,max_workers=9,ps_cpus=2,ps_mem=2G,"
			     "ps_gpus=0,worker_cpus=4,worker_mem=512,"
			     "worker_gpus=1,batch=256,delta=0.01,model=resnet-50,"
			     "form=exp,steps=1000,epochs=10,epoch_steps=100,"
			     "ckpt_signal=SIGUSR2,ckpt_grace=120,"
			     "ckpt_dir=/scratch/ck,layout=separate,weight=2.5"),
		      "%s", err);
	ck_assert_int_eq(h.mode, HINTS_MODE_SYNC);
	ck_assert_uint_eq(h.min_ps, 2);
	ck_assert_uint_eq(h.max_ps, 4);
	ck_assert_uint_eq(h.min_workers, 3);
	ck_assert_uint_eq(h.max_workers, 9);
	ck_assert_uint_eq(h.ps_res.cpus, 2);
	ck_assert_uint_eq(h.ps_res.mem_mb, 2048);
	ck_assert_uint_eq(h.worker_res.cpus, 4);
	ck_assert_uint_eq(h.worker_res.mem_mb, 512);
	ck_assert_uint_eq(h.worker_res.gpus, 1);
	ck_assert_uint_eq(h.batch, 256);
	ck_assert_double_eq(h.delta, 0.01);
	ck_assert_str_eq(h.model, "resnet-50");
	ck_assert_int_eq(h.form, CURVE_EXP);
	ck_assert_uint_eq(h.steps, 1000);
	ck_assert_uint_eq(h.epochs, 10);
	ck_assert_uint_eq(h.epoch_steps, 100);
	ck_assert_int_eq(h.ckpt_signal, SIGUSR2);
	ck_assert_uint_eq(h.ckpt_grace, 120);
	ck_assert_str_eq(h.ckpt_dir, "/scratch/ck");
	ck_assert_int_eq(h.layout, HINTS_LAYOUT_SEPARATE);
	ck_assert_double_eq(h.weight, 2.5);
	ck_assert_uint_eq(h.set & (1u << HK_PS), 0);
	ck_assert(h.set & (1u << HK_WEIGHT));
}
END_TEST

START_TEST(test_aliases_and_ranges)
{
	ck_assert_int_eq(parse("optimus,ps=3,workers=5"), 0);
	ck_assert_uint_eq(h.min_ps, 3);
	ck_assert_uint_eq(h.max_ps, 3);
	ck_assert_uint_eq(h.min_workers, 5);
	ck_assert_uint_eq(h.max_workers, 5);
	/* one end of a range widens the other end with it */
	ck_assert_int_eq(parse("optimus,min_workers=4"), 0);
	ck_assert_uint_eq(h.max_workers, 4);
	ck_assert_int_eq(parse("optimus,max_ps=4"), 0);
	ck_assert_uint_eq(h.min_ps, 1);
	ck_assert_uint_eq(h.max_ps, 4);
	ck_assert_int_eq(parse("optimus,ckpt_signal=10"), 0);
	ck_assert_int_eq(h.ckpt_signal, 10);
	ck_assert_int_eq(parse("optimus,ps_mem=1536K"), 0);
	ck_assert_uint_eq(h.ps_res.mem_mb, 2);
	ck_assert_int_eq(parse("optimus,worker_mem=1T"), 0);
	ck_assert_uint_eq(h.worker_res.mem_mb, 1u << 20);
	ck_assert_int_eq(parse("OPTIMUS,ckpt_signal=term"), 0);
	ck_assert_int_eq(h.ckpt_signal, SIGTERM);
}
END_TEST

/* Each bad input, and a word its message must contain. */
static const struct { const char *text, *needle; } bad[] = {
	{ "", "needs a value" },
	{ "fifo", "optimus or quality" },
	{ "ps=2", "optimus or quality" },
	{ "optimus,", "empty item" },
	{ "optimus,,ps=1", "empty item" },
	{ "optimus,ps", "KEY=VALUE" },
	{ "optimus,colour=red", "unknown --scheduler key 'colour'" },
	{ "optimus,ps=", "'ps' needs a value" },
	{ "optimus,ps=0", "ps must be an integer from 1 to 256" },
	{ "optimus,ps=257", "from 1 to 256" },
	{ "optimus,ps=-1", "ps must be" },
	{ "optimus,ps=2x", "ps must be" },
	{ "optimus,ps= 2", "ps must be" },
	{ "optimus,workers=4097", "workers must be an integer from 1 to 4096" },
	{ "optimus,min_ps=3,max_ps=2", "min_ps=3 and max_ps=2" },
	{ "optimus,max_workers=2,min_workers=5", "min_workers=5" },
	{ "optimus,ps=2,ps=3", "'ps' given twice" },
	{ "optimus,ps=2,min_ps=1", "give either ps=N" },
	{ "optimus,max_workers=3,workers=2", "give either workers=N" },
	{ "optimus,mode=fast", "mode must be one of: async, sync" },
	{ "optimus,ps_cpus=0", "ps_cpus must be an integer from 1 to 1024" },
	{ "optimus,worker_cpus=1025", "worker_cpus must be" },
	{ "optimus,ps_mem=0", "ps_mem must be a size from 1M to 16T" },
	{ "optimus,ps_mem=17T", "ps_mem must be" },
	{ "optimus,worker_mem=4Q", "worker_mem must be" },
	{ "optimus,worker_mem=G", "worker_mem must be" },
	{ "optimus,ps_gpus=65", "ps_gpus must be an integer from 0 to 64" },
	{ "optimus,batch=64", "use it with mode=sync" },
	{ "optimus,mode=sync,batch=0", "batch must be an integer from 1" },
	{ "optimus,mode=sync,workers=8,batch=4", "smaller than min_workers=8" },
	{ "optimus,delta=0", "delta must be a number greater than 0" },
	{ "optimus,delta=1.5", "at most 1" },
	{ "optimus,delta=nan", "delta must be" },
	{ "optimus,delta=1e-3x", "delta must be" },
	{ "optimus,model=a/b", "model must be 1 to 63 characters" },
	{ "optimus,model=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	  "model must be" },
	{ "optimus,form=linear", "form must be one of: inverse, power, exp" },
	{ "optimus,steps=0", "steps must be an integer from 1" },
	{ "optimus,epochs=x", "epochs must be" },
	{ "optimus,epoch_steps=-5", "epoch_steps must be" },
	{ "optimus,ckpt_signal=FOO", "ckpt_signal must be a signal name" },
	{ "optimus,ckpt_signal=65", "ckpt_signal must be" },
	/* one rule for names and numbers: SIGKILL/SIGSTOP cannot be caught */
	{ "optimus,ckpt_signal=KILL", "ckpt_signal must be a signal name" },
	{ "optimus,ckpt_signal=9", "ckpt_signal must be a signal name" },
	{ "optimus,ckpt_signal=STOP", "ckpt_signal must be a signal name" },
	{ "optimus,ckpt_signal=19", "ckpt_signal must be a signal name" },
	{ "optimus,ckpt_signal=SIGSEGV", "ckpt_signal must be a signal name" },
	{ "optimus,ckpt_signal=11", "ckpt_signal must be a signal name" },
	/* control characters (log and environment injection) */
	{ "optimus,ckpt_dir=/tmp/x\n[2026-12-03T06:00:00.000] error: FORGED",
	  "control character \\n in the value of ckpt_dir" },
	{ "optimus,model=a\tb", "control character \\t in the value of model" },
	{ "optimus,ckpt_dir=/tmp/x\x1b[31m", "control character \\x1b" },
	{ "optimus\r,ps=1", "control character \\r" },
	/* the one rule of escape.h: C1, bidi overrides, separators, not UTF-8 */
	{ "optimus,ckpt_dir=/tmp/a\xc2\x9b" "31m",
	  "control character \\u009b in the value of ckpt_dir" },
	{ "optimus,ckpt_dir=/tmp/\xe2\x80\xaegpj",
	  "control character \\u202e in the value of ckpt_dir" },
	{ "optimus,model=a\xe2\x80\xa8" "b",
	  "control character \\u2028 in the value of model" },
	{ "optimus,ckpt_dir=/tmp/a\x9b" "31m",
	  "invalid UTF-8 byte \\x9b in the value of ckpt_dir" },
	{ "optimus,ckpt_dir=/tmp/\xff\xfe",
	  "invalid UTF-8 byte \\xff in the value of ckpt_dir" },
	{ "optimus,\xff=1", "invalid UTF-8 byte \\xff in the key of" },
	{ "optimus,ckpt_grace=3601", "ckpt_grace must be an integer from 0 to 3600" },
	{ "optimus,ckpt_dir=relative/dir", "ckpt_dir must be an absolute path" },
	{ "optimus,layout=mixed", "layout must be one of: colocated, separate" },
	{ "optimus,weight=2", "weight= applies only to the quality policy" },
	{ "quality,weight=0", "weight must be a number greater than 0" },
	{ "quality,weight=1001", "at most 1000" },
	/* all-reduce: workers only */
	{ "optimus,ps=0", "ps=0, no parameter server, is for mode=allreduce" },
	{ "optimus,mode=sync,min_ps=0", "min_ps=0: ps must be an integer" },
	{ "optimus,mode=allreduce,ps=2", "mode=allreduce has no parameter "
	  "servers: leave ps out or give ps=0" },
	{ "optimus,ps=1,mode=allreduce", "leave ps out or give ps=0" },
	{ "optimus,mode=allreduce,max_ps=3", "leave ps out" },
	{ "optimus,mode=allreduce,ps_cpus=2", "ps_cpus, ps_mem and ps_gpus "
	  "describe parameter servers" },
	{ "optimus,mode=allreduce,ps_gpus=0", "give worker_cpus" },
	{ "optimus,mode=allreduce,layout=separate", "mode=allreduce has no "
	  "parameter servers" },
	{ "optimus,mode=allreduce,workers=8,batch=4", "smaller than "
	  "min_workers=8" },
	{ "optimus,mode=allreduce,ps=257", "from 1 to 256" },
	/* the batch the job accepts */
	{ "optimus,mode=allreduce,max_batch=64", "max_batch= needs batch=" },
	{ "optimus,mode=allreduce,adaptive_batch=yes", "adaptive_batch= "
	  "needs batch=" },
	{ "optimus,mode=allreduce,max_local_batch=8", "needs batch=" },
	{ "optimus,mode=allreduce,batch=32,adaptive_batch=maybe", "yes or no" },
	{ "optimus,mode=allreduce,batch=32,min_batch=64,max_batch=128,"
	  "adaptive_batch=yes", "outside min_batch=64..max_batch=128" },
	{ "optimus,mode=allreduce,batch=32,min_batch=16,max_batch=8,"
	  "adaptive_batch=yes", "min_batch <= max_batch" },
	{ "optimus,mode=allreduce,batch=32,max_batch=256", "add "
	  "adaptive_batch=yes" },
	{ "optimus,mode=allreduce,batch=32,adaptive_batch=yes", "needs a "
	  "range" },
	{ "optimus,mode=sync,batch=32,max_batch=64,adaptive_batch=yes",
	  "adaptive_batch=yes is for mode=allreduce" },
	{ "optimus,mode=allreduce,workers=4,batch=32,min_batch=2,max_batch=64,"
	  "adaptive_batch=yes", "min_batch=2 is smaller than min_workers=4" },
	{ "optimus,mode=allreduce,max_workers=8,batch=4,max_batch=6,"
	  "adaptive_batch=yes", "max_batch=6 is smaller than max_workers=8" },
	{ "optimus,mode=allreduce,batch=32,max_accum=2", "max_accum= needs "
	  "max_local_batch=" },
	{ "optimus,mode=allreduce,workers=2,batch=100,max_local_batch=10,"
	  "max_accum=3", "raise min_workers to 3" },
	{ "optimus,mode=allreduce,batch=32,max_accum=65,max_local_batch=1",
	  "max_accum must be an integer from 0 to 64" },
};

START_TEST(test_refused)
{
	optimus_hints_t before;

	hints_init(&h, HINTS_POLICY_QUALITY);
	before = h;
	ck_assert_msg(parse(bad[_i].text) == -EINVAL, "'%s' accepted",
		      bad[_i].text);
	ck_assert_msg(strstr(err, bad[_i].needle), "'%s': message '%s' lacks "
		      "'%s'", bad[_i].text, err, bad[_i].needle);
	/* the output is untouched on error */
	ck_assert(!memcmp(&h, &before, sizeof(h)));
}
END_TEST

/* UTF-8 letters are text like any other (doc/hints.md) */
START_TEST(test_utf8_letters_accepted)
{
	optimus_hints_t h;
	char err[256] = "";

	ck_assert_int_eq(hints_parse("optimus,ckpt_dir=/scratch/\xc3\xa9t\xc3\xa9_"
				     "\xe6\xa8\xa1\xe5\x9e\x8b", &h, err,
				     sizeof(err)), 0);
	ck_assert_str_eq(h.ckpt_dir, "/scratch/\xc3\xa9t\xc3\xa9_\xe6\xa8\xa1\xe5\x9e\x8b");
}
END_TEST

START_TEST(test_null_err_buffer)
{
	ck_assert_int_eq(hints_parse("optimus,ps=0", &h, NULL, 0), -EINVAL);
	ck_assert_int_eq(hints_parse(NULL, &h, NULL, 0), -EINVAL);
}
END_TEST

static const char *const roundtrip[] = {
	"optimus",
	"quality,weight=0.3333333333333333,delta=0.0001",
	"optimus,mode=sync,workers=7,batch=700,ps_mem=3G,ckpt_signal=40",
	"optimus,model=vgg.16_b,steps=99999,ckpt_dir=/a,b=c/d",
	"quality,layout=separate,form=inverse,max_ps=9,ckpt_grace=0",
	"optimus,mode=allreduce,min_workers=2,max_workers=16,batch=512",
	"quality,workers=3,ps=0,mode=allreduce,worker_gpus=2",
	"optimus,mode=allreduce,max_workers=8,batch=32,max_batch=512,"
	"max_local_batch=64,max_accum=3,adaptive_batch=yes",
	"optimus,mode=allreduce,workers=2,batch=32,min_batch=8,max_batch=32,"
	"adaptive_batch=yes",
	"optimus,mode=sync,batch=32,max_local_batch=32,max_accum=0,"
	"adaptive_batch=no",
};

START_TEST(test_format_roundtrip)
{
	const char *in = roundtrip[_i];
	optimus_hints_t a, b;
	char text[HINTS_TEXT_MAX], again[HINTS_TEXT_MAX];
	int n;

	/* "ckpt_dir=/a,b=c/d": commas end a value, so b=c/d is a key */
	if (strstr(in, "b=c/d")) {
		ck_assert_int_eq(hints_parse(in, &a, err, sizeof(err)), -EINVAL);
		ck_assert_ptr_nonnull(strstr(err, "'b'"));
		return;
	}
	ck_assert_msg(!hints_parse(in, &a, err, sizeof(err)), "%s", err);
	n = hints_format(&a, text, sizeof(text));
	ck_assert_int_eq(n, (int)strlen(text));
	ck_assert_msg(!hints_parse(text, &b, err, sizeof(err)), "%s: %s", text,
		      err);
	a.set = b.set = 0;
	ck_assert_msg(!memcmp(&a, &b, sizeof(a)), "%s -> %s", in, text);
	/* canonical: formatting again gives the same text */
	hints_format(&b, again, sizeof(again));
	ck_assert_str_eq(text, again);
}
END_TEST

START_TEST(test_format_small_buffer)
{
	char text[16];

	ck_assert_int_eq(parse("optimus,model=longish_model_name"), 0);
	ck_assert_int_eq(hints_format(&h, text, sizeof(text)), -ENOSPC);
	ck_assert_uint_eq(strlen(text), sizeof(text) - 1);
}
END_TEST

/* The batch keys: the range defaults to the submitted batch, and only the
 * keys that differ from their defaults are in the canonical text. */
START_TEST(test_batch_keys)
{
	char text[HINTS_TEXT_MAX];

	ck_assert_msg(!parse("optimus,mode=allreduce,max_workers=8,batch=32,"
			     "max_batch=512,max_local_batch=64,max_accum=3,"
			     "adaptive_batch=yes"), "%s", err);
	ck_assert_uint_eq(h.batch, 32);
	ck_assert_uint_eq(h.min_batch, 32);
	ck_assert_uint_eq(h.max_batch, 512);
	ck_assert_uint_eq(h.max_local_batch, 64);
	ck_assert_uint_eq(h.max_accum, 3);
	ck_assert(h.adaptive_batch);
	ck_assert_msg(!parse("optimus,mode=allreduce,batch=48"), "%s", err);
	ck_assert_uint_eq(h.min_batch, 48);
	ck_assert_uint_eq(h.max_batch, 48);
	ck_assert(!h.adaptive_batch);
	ck_assert_int_gt(hints_format(&h, text, sizeof(text)), 0);
	ck_assert_ptr_null(strstr(text, "min_batch"));
	ck_assert_ptr_null(strstr(text, "max_batch"));
	ck_assert_ptr_null(strstr(text, "adaptive_batch"));
	/* no batch at all: nothing about it */
	ck_assert_msg(!parse("optimus,mode=allreduce,adaptive_batch=no"), "%s",
		      err);
	ck_assert_uint_eq(h.min_batch, 0);
	ck_assert_uint_eq(h.max_batch, 0);
	/* hints built by hand (the simulator) leave the range 0: = batch */
	hints_init(&h, HINTS_POLICY_OPTIMUS);
	h.mode = HINTS_MODE_SYNC;
	h.batch = 64;
	ck_assert_msg(!hints_validate(&h, err, sizeof(err)), "%s", err);
}
END_TEST

/* The submitted batch over w workers: ceil(B/w) each, in the fewest
 * micro-steps that keep the per-GPU batch within max_local_batch. */
START_TEST(test_batch_split)
{
	hints_batch_t b;

	ck_assert_msg(!parse("optimus,mode=allreduce,max_workers=8,batch=32"),
		      "%s", err);
	ck_assert_int_eq(hints_batch_split(&h, 4, &b, err, sizeof(err)), 0);
	ck_assert_uint_eq(b.batch, 32);
	ck_assert_uint_eq(b.local, 8);
	ck_assert_uint_eq(b.accum, 0);
	/* 32 on 3: 11 each, 33 trained */
	ck_assert_int_eq(hints_batch_split(&h, 3, &b, err, sizeof(err)), 0);
	ck_assert_uint_eq(b.local, 11);
	ck_assert_uint_eq(b.batch, 33);
	ck_assert_int_eq(hints_batch_split(&h, 0, &b, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(!parse("optimus,mode=allreduce,min_workers=2,max_workers=8,batch=100,"
			     "max_local_batch=10,max_accum=4"), "%s", err);
	/* 100 on 1: 100 samples, 10 micro-steps needed, 5 allowed */
	ck_assert_int_eq(hints_batch_split(&h, 1, &b, err, sizeof(err)),
			 -ERANGE);
	ck_assert_ptr_nonnull(strstr(err, "max_accum=4"));
	/* 100 on 3: 34 each in 4 micro-steps of 9 (36 each, 108 trained) */
	ck_assert_int_eq(hints_batch_split(&h, 3, &b, err, sizeof(err)), 0);
	ck_assert_uint_eq(b.accum, 3);
	ck_assert_uint_eq(b.local, 9);
	ck_assert_uint_eq(b.batch, 108);
	/* 100 on 5: 20 each, 2 micro-steps of 10 */
	ck_assert_int_eq(hints_batch_split(&h, 5, &b, err, sizeof(err)), 0);
	ck_assert_uint_eq(b.accum, 1);
	ck_assert_uint_eq(b.local, 10);
	ck_assert_uint_eq(b.batch, 100);
	ck_assert_msg(!parse("optimus,mode=allreduce"), "%s", err);
	ck_assert_int_eq(hints_batch_split(&h, 2, &b, NULL, 0), -ENOENT);
}
END_TEST

/* Check a request against the capacity from first principles. */
static void assert_request_fits(const optimus_hints_t *hh, uint32_t p,
				uint32_t w, const hints_res_t *cap,
				const hints_request_t *r)
{
	uint32_t cpt = r->cpus_per_task, fullest = 0;

	ck_assert_uint_eq(r->tasks, p + w);
	ck_assert_uint_eq(r->task_slots, p + w);	/* colocated */
	ck_assert_uint_ge(cpt, hh->ps_res.cpus);
	ck_assert_uint_ge(cpt, hh->worker_res.cpus);
	for (uint32_t i = 0; i < r->nodes; i++) {
		uint32_t ps = placement_share_front(p, r->nodes, i);
		uint32_t wk = placement_share_back(w, r->nodes, i);
		ck_assert_uint_le(cpt * (ps + wk), cap->cpus);
		if (ps + wk > fullest)
			fullest = ps + wk;
		ck_assert_uint_le(ps * hh->ps_res.mem_mb +
				  wk * hh->worker_res.mem_mb, r->mem_per_node_mb);
		ck_assert_uint_le(ps * hh->ps_res.gpus +
				  wk * hh->worker_res.gpus, r->gpus_per_node);
	}
	ck_assert_uint_le(r->mem_per_node_mb, cap->mem_mb);
	ck_assert_uint_le(r->gpus_per_node, cap->gpus);
	ck_assert_uint_eq(r->max_tasks_per_node, fullest);
}

START_TEST(test_size_fewest_nodes)
{
	hints_res_t cap = { 8, 16000, 4 };
	hints_request_t r, fewer;
	uint32_t p = 1 + _i % 4, w = 1 + _i * 3 % 17;

	ck_assert_int_eq(parse("optimus,worker_cpus=2,worker_mem=3G,"
			       "worker_gpus=1,ps_mem=2G"), 0);
	ck_assert_msg(!hints_size(&h, p, w, &cap, 0, &r, err, sizeof(err)),
		      "%s", err);
	assert_request_fits(&h, p, w, &cap, &r);
	/* fewest: one node less does not fit */
	if (r.nodes > 1)
		ck_assert_int_eq(hints_size(&h, p, w, &cap, r.nodes - 1,
					    &fewer, err, sizeof(err)), -ERANGE);
}
END_TEST

START_TEST(test_size_given_nodes_and_unfit)
{
	hints_res_t cap = { 8, 16000, 4 };
	hints_request_t r;

	ck_assert_int_eq(parse("optimus,ps=2,workers=2"), 0);
	ck_assert_int_eq(hints_size(&h, 2, 2, &cap, 0, &r, err, sizeof(err)), 0);
	ck_assert_uint_eq(r.nodes, 1);
	ck_assert_uint_eq(r.mem_per_node_mb, 4096);
	ck_assert_int_eq(hints_size(&h, 2, 2, &cap, 2, &r, err, sizeof(err)), 0);
	ck_assert_uint_eq(r.nodes, 2);
	ck_assert_uint_eq(r.mem_per_node_mb, 2048);
	/* more nodes than tasks, and a task larger than any node */
	ck_assert_int_eq(hints_size(&h, 2, 2, &cap, 5, &r, err, sizeof(err)),
			 -ERANGE);
	ck_assert_int_eq(parse("optimus,worker_gpus=5"), 0);
	ck_assert_int_eq(hints_size(&h, 1, 1, &cap, 0, &r, err, sizeof(err)),
			 -ERANGE);
	ck_assert_ptr_nonnull(strstr(err, "do not fit"));
}
END_TEST

START_TEST(test_size_separate)
{
	hints_res_t cap = { 8, 16000, 4 };
	hints_request_t r;

	ck_assert_int_eq(parse("optimus,layout=separate,worker_cpus=4"), 0);
	/* 2 PS (4 CPUs each as tasks are uniform) on 1 node, 4 workers on 2 */
	ck_assert_int_eq(hints_size(&h, 2, 4, &cap, 0, &r, err, sizeof(err)), 0);
	ck_assert_uint_eq(r.nodes, 3);
	ck_assert_uint_eq(r.cpus_per_task, 4);
	ck_assert_uint_eq(r.max_tasks_per_node, 2);
	/* each node holds the fullest node's share: 3 x 2 task slots */
	ck_assert_uint_eq(r.tasks, 6);
	ck_assert_uint_eq(r.task_slots, 6);
	ck_assert_int_eq(hints_size(&h, 2, 4, &cap, 5, &r, err, sizeof(err)), 0);
	ck_assert_uint_eq(r.nodes, 5);
	/* 2 PS on 1 node, 4 workers on 4: 6 tasks on 5 x 2 slots */
	ck_assert_uint_eq(r.tasks, 6);
	ck_assert_uint_eq(r.task_slots, 10);
	ck_assert_int_eq(hints_size(&h, 2, 4, &cap, 2, &r, err, sizeof(err)),
			 -ERANGE);
}
END_TEST

/* mode=allreduce: no PS whether ps is left out or 0; batch allowed. */
START_TEST(test_allreduce)
{
	char text[HINTS_TEXT_MAX];

	ck_assert_msg(!parse("optimus,mode=allreduce,min_workers=2,"
			     "max_workers=8,worker_gpus=1,batch=256"), "%s", err);
	ck_assert_int_eq(h.mode, HINTS_MODE_ALLREDUCE);
	ck_assert(hints_is_allreduce(&h));
	ck_assert_uint_eq(h.min_ps, 0);
	ck_assert_uint_eq(h.max_ps, 0);
	ck_assert_uint_eq(h.batch, 256);
	ck_assert_int_eq(hints_validate(&h, err, sizeof(err)), 0);
	ck_assert_int_eq(parse("optimus,ps=0,mode=allreduce"), 0);
	ck_assert_uint_eq(h.max_ps, 0);
	ck_assert_int_eq(parse("optimus,mode=allreduce,min_ps=0,max_ps=0"), 0);
	ck_assert_str_eq(hints_mode_name(h.mode), "allreduce");
	/* the canonical text has no PS key */
	ck_assert_int_gt(hints_format(&h, text, sizeof(text)), 0);
	ck_assert_ptr_null(strstr(text, "ps"));
	ck_assert_ptr_nonnull(strstr(text, "mode=allreduce"));
	/* a structure built by hand must say ps 0 */
	h.min_ps = h.max_ps = 1;
	ck_assert_int_eq(hints_validate(&h, err, sizeof(err)), -EINVAL);
	/* the PS modes are unchanged */
	ck_assert_int_eq(parse("optimus,mode=sync"), 0);
	ck_assert_uint_eq(h.min_ps, 1);
}
END_TEST

/* One task per worker, workers' resources only, even on fewest nodes. */
START_TEST(test_size_allreduce)
{
	hints_res_t cap = { 8, 16000, 4 };
	hints_request_t r;

	ck_assert_int_eq(parse("optimus,mode=allreduce,worker_cpus=2,"
			       "worker_gpus=1,worker_mem=2G"), 0);
	ck_assert_msg(!hints_size(&h, 0, 6, &cap, 0, &r, err, sizeof(err)),
		      "%s", err);
	ck_assert_uint_eq(r.nodes, 2);		/* 4 GPUs per node */
	ck_assert_uint_eq(r.tasks, 6);
	ck_assert_uint_eq(r.max_tasks_per_node, 3);
	ck_assert_uint_eq(r.cpus_per_task, 2);
	ck_assert_uint_eq(r.gpus_per_node, 3);
	ck_assert_uint_eq(r.mem_per_node_mb, 3 * 2048);
	assert_request_fits(&h, 0, 6, &cap, &r);
	/* a PS count is refused for an all-reduce job */
	ck_assert_int_eq(hints_size(&h, 1, 6, &cap, 0, &r, err, sizeof(err)),
			 -ERANGE);
	ck_assert_int_eq(parse("optimus,mode=allreduce,worker_gpus=5"), 0);
	ck_assert_int_eq(hints_size(&h, 0, 2, &cap, 0, &r, err, sizeof(err)),
			 -ERANGE);
	ck_assert_msg(strstr(err, "all-reduce workers"), "%s", err);
	/* the PS modes still need a PS */
	ck_assert_int_eq(parse("optimus"), 0);
	ck_assert_int_eq(hints_size(&h, 0, 2, &cap, 0, &r, err, sizeof(err)),
			 -ERANGE);
}
END_TEST

/* Does the batch shell survive the checkpoint signal? */
START_TEST(test_script_survives_signal)
{
	static const struct { const char *script; int sig; bool ok; } c[] = {
		{ "#!/bin/sh\nsleep 60\n", SIGUSR1, false },
		{ "#!/bin/sh\ntrap 'echo ck >&2' USR1\nsrun x\n", SIGUSR1, true },
		{ "#!/bin/sh\n  trap \"echo ck\" SIGUSR1 TERM; srun x\n", SIGUSR1, true },
		{ "#!/bin/sh\ntrap 'echo ck' 10\nsrun x\n", SIGUSR1, true },
		{ "#!/bin/sh\ntrap 'echo ck' usr2\n", SIGUSR2, true },
		/* another signal, a comment, a word in a message */
		{ "#!/bin/sh\ntrap 'echo ck' USR2\nsrun x\n", SIGUSR1, false },
		{ "#!/bin/sh\n# trap 'echo ck' USR1\nsrun x\n", SIGUSR1, false },
		{ "#!/bin/sh\necho trap USR1\nsrun x\n", SIGUSR1, false },
		{ "#!/bin/sh\nsrun x # trap USR1\n", SIGUSR1, false },
		/* exec replaces the shell; exec with redirections only does not */
		{ "#!/bin/sh\nexec srun x\n", SIGUSR1, true },
		{ "#!/bin/sh\ncd /tmp && exec python3 t.py\n", SIGUSR1, true },
		{ "#!/bin/sh\nexec >log 2>&1\nsrun x\n", SIGUSR1, false },
		{ "#!/bin/sh\nexec 2>&1\nsrun x\n", SIGUSR1, false },
		{ "", SIGUSR1, false },
	};
	optimus_hints_t h;
	char err[128], warn[1024];

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		ck_assert_msg(hints_script_survives_signal(c[i].script,
							   c[i].sig) == c[i].ok,
			      "case %zu: %s", i, c[i].script);
	ck_assert_int_eq(hints_parse("optimus,workers=2", &h, err, sizeof(err)), 0);
	ck_assert(!hints_elastic(&h));
	ck_assert_int_eq(hints_parse("optimus,min_workers=1,max_workers=4", &h,
				     err, sizeof(err)), 0);
	ck_assert(hints_elastic(&h));
	hints_script_warning(&h, warn, sizeof(warn));
	ck_assert_ptr_nonnull(strstr(warn, "workers 1..4"));
	ck_assert_ptr_nonnull(strstr(warn, "(USR1)"));
	ck_assert_ptr_nonnull(strstr(warn, "$OPTIMUS_CHECKPOINT_DIR. Until"));
}
END_TEST

/* Replace what the file f holds by text; then read its bounds into *b. */
static int bounds_from(FILE *f, const char *path, const char *text,
		       hints_bounds_t *b)
{
	ck_assert(!ftruncate(fileno(f), 0));
	rewind(f);
	fputs(text, f);
	fflush(f);
	return hints_bounds_read(path, b, err, sizeof(err));
}

/* The site's bounds: read from optimus.conf (defaults without the keys or
 * the file; a bad value refused, naming it, the bounds unchanged); above
 * them, weight= and ckpt_grace= refused for an ordinary user, naming the
 * bound; below or at them, taken. */
START_TEST(test_site_bounds)
{
	char path[] = "/tmp/test_hints_boundsXXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	hints_bounds_t b;

	ck_assert_ptr_nonnull(f);
	hints_bounds_init(&b);
	ck_assert_int_eq(hints_bounds_read("/nonexistent/optimus.conf", &b,
					   err, sizeof(err)), 0);
	ck_assert_double_eq(b.max_user_weight, 1.0);
	ck_assert_uint_eq(b.max_ckpt_grace, 300);
	ck_assert_int_eq(parse("quality,weight=1000"), 0);
	ck_assert_int_eq(hints_bounds_check(&h, &b, err, sizeof(err)), -EPERM);
	ck_assert_msg(strstr(err, "weight=1000 is above this site's "
			     "MaxUserWeight=1"), "%s", err);
	ck_assert_int_eq(parse("quality,weight=0.5"), 0);
	ck_assert_int_eq(hints_bounds_check(&h, &b, err, sizeof(err)), 0);
	ck_assert_int_eq(parse("optimus,ckpt_grace=301"), 0);
	ck_assert_int_eq(hints_bounds_check(&h, &b, err, sizeof(err)), -EPERM);
	ck_assert_msg(strstr(err, "ckpt_grace=301 is above this site's "
			     "MaxCkptGrace=300"), "%s", err);
	ck_assert_int_eq(parse("optimus,ckpt_grace=300"), 0);
	ck_assert_int_eq(hints_bounds_check(&h, &b, err, sizeof(err)), 0);
	ck_assert_int_eq(bounds_from(f, path, "MaxUserWeight=1000\n"
				     "MaxCkptGrace=3600\n", &b), 0);
	ck_assert_double_eq(b.max_user_weight, 1000.0);
	ck_assert_uint_eq(b.max_ckpt_grace, 3600);
	ck_assert_int_eq(parse("quality,weight=1000,ckpt_grace=3600"), 0);
	ck_assert_int_eq(hints_bounds_check(&h, &b, err, sizeof(err)), 0);
	/* bad values: refused, the bounds in force kept */
	ck_assert_int_eq(bounds_from(f, path, "MaxUserWeight=0\n", &b),
			 -EINVAL);
	ck_assert_msg(strstr(err, "MaxUserWeight=0"), "%s", err);
	ck_assert_double_eq(b.max_user_weight, 1000.0);
	ck_assert_int_eq(bounds_from(f, path, "MaxCkptGrace=3601\n", &b),
			 -EINVAL);
	ck_assert_msg(strstr(err, "MaxCkptGrace=3601"), "%s", err);
	ck_assert_uint_eq(b.max_ckpt_grace, 3600);
	fclose(f);
	unlink(path);
}
END_TEST

static Suite *hints_suite(void)
{
	Suite *s = suite_create("hints");
	TCase *tc = tcase_create("core");
	int nbad = sizeof(bad) / sizeof(bad[0]);
	int nrt = sizeof(roundtrip) / sizeof(roundtrip[0]);

	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_every_key);
	tcase_add_test(tc, test_aliases_and_ranges);
	tcase_add_loop_test(tc, test_refused, 0, nbad);
	tcase_add_test(tc, test_null_err_buffer);
	tcase_add_test(tc, test_utf8_letters_accepted);
	tcase_add_loop_test(tc, test_format_roundtrip, 0, nrt);
	tcase_add_test(tc, test_format_small_buffer);
	tcase_add_test(tc, test_batch_keys);
	tcase_add_test(tc, test_batch_split);
	tcase_add_loop_test(tc, test_size_fewest_nodes, 0, 24);
	tcase_add_test(tc, test_size_given_nodes_and_unfit);
	tcase_add_test(tc, test_size_separate);
	tcase_add_test(tc, test_allreduce);
	tcase_add_test(tc, test_size_allreduce);
	tcase_add_test(tc, test_script_survives_signal);
	tcase_add_test(tc, test_site_bounds);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(hints_suite());
}
