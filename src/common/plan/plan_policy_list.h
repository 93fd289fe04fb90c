/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_policy_list.h - the policies of the plan, a row each: the value
 * of plan_policy_t it is (plan.h) and its operations (plan_priv.h's
 * plan_policy_ops_t, defined in its own file, plan_policy_NAME.c). The
 * one list that the enum, the operations' declarations and the table of
 * plan_policy.c are made from, so adding a policy is its file, its row
 * here and its tests. A row's place is its value: rows are added at the
 * end.
 *
 * Included with PLAN_POLICY(value, operations) defined, which it does
 * not undefine; no include guard.
 */
PLAN_POLICY(PLAN_OPTIMUS, plan_policy_optimus)
PLAN_POLICY(PLAN_QUALITY, plan_policy_quality)
PLAN_POLICY(PLAN_DRF, plan_policy_drf)
PLAN_POLICY(PLAN_TETRIS, plan_policy_tetris)
PLAN_POLICY(PLAN_FIFO, plan_policy_fifo)
/* Adaptive-batch jobs sized by goodput, GPUs and batch together
 * (doc/design/planning.md "Goodput"). */
PLAN_POLICY(PLAN_GOODPUT, plan_policy_goodput)
