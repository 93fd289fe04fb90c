/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* version.h - the one place the core states its own version. */
#ifndef OPTIMUS_VERSION_H
#define OPTIMUS_VERSION_H
#define OPTIMUS_VERSION "0.1.0"
#endif
