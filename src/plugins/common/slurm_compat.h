/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * slurm_compat.h - the one place where the plugins meet the differences
 * between the Slurm releases they build against (tested: 22.05 and 24.11).
 *
 * configure reads the Slurm source tree given with --with-slurm-source and
 * defines, in config.h:
 *   OPTIMUS_SLURM_VERSION   the tree's version as SLURM_VERSION_NUM(a,b,c)
 *   HAVE_SLURM_INTERFACES   the tree has src/interfaces/ (plugin interfaces
 *                           such as accounting_storage.h and gres.h moved
 *                           there from src/common/)
 *   HAVE_SLURM_LIST_T       list.h names its types list_t / list_itr_t
 *   HAVE_JOB_MODIFY_ERR_MSG job_submit's job_modify() takes char **err_msg
 *   HAVE_SLURM_GET_NEXT_TRES the tree parses TRES requests by TRES name
 *                           (slurm_get_next_tres(): "gres/gpu:2")
 * Plugins include this header instead of the moved headers and use the
 * names below; no other plugin file tests the Slurm version.
 */
#ifndef OPTIMUS_SLURM_COMPAT_H
#define OPTIMUS_SLURM_COMPAT_H

#include "config.h"

#include "slurm/slurm.h"
#include "src/common/list.h"

#ifdef HAVE_SLURM_INTERFACES
#include "src/interfaces/accounting_storage.h"
#include "src/interfaces/gres.h"
#else
#include "src/common/gres.h"
#include "src/common/slurm_accounting_storage.h"
#endif

/* 22.05 has only the pointer typedefs List/ListIterator of the same structs. */
#ifndef HAVE_SLURM_LIST_T
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
#endif

/*
 * The parameters of job_submit's job_modify(): 24.11 passes an error
 * message back to the user as job_submit() does.
 */
#ifdef HAVE_JOB_MODIFY_ERR_MSG
#define COMPAT_JOB_MODIFY_PARAMS job_desc_msg_t *job_desc, \
	job_record_t *job_ptr, uint32_t submit_uid, char **err_msg
#else
#define COMPAT_JOB_MODIFY_PARAMS job_desc_msg_t *job_desc, \
	job_record_t *job_ptr, uint32_t submit_uid
#endif

/*
 * How a GRES is named in a TRES request string (tres_per_node): 22.05
 * parses "gres:gpu:2" and refuses "gres/gpu:2"; 24.11 refuses the former
 * ("Invalid Trackable RESource (TRES) specification") and wants the TRES
 * name "gres/gpu". Used by slurm_gpus.c:gpus_tres_per_node() only.
 */
#ifdef HAVE_SLURM_GET_NEXT_TRES
#define COMPAT_TRES_GRES_PREFIX "gres/"
#else
#define COMPAT_TRES_GRES_PREFIX "gres:"
#endif

/*
 * s_p_parse_file()'s fourth argument was `bool ignore_new` (22.05) and is
 * a flags word (24.11); 0 means strict (unknown keys are errors) in both.
 */
#define COMPAT_PARSE_STRICT 0

#endif
