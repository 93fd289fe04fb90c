/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* allreduce_speed.c - all-reduce speed model (see allreduce_speed.h). */
#include <errno.h>

#include "models/allreduce_speed.h"

void allreduce_speed_features(double batch, int w, int n, double *phi)
{
	double W = w, ring = (W - 1.0) / W;

	phi[0] = batch / W;
	phi[1] = 1.0;
	phi[2] = ring;
	phi[3] = n > 1 ? ring : 0.0;
	phi[4] = W;
}

int allreduce_speed_init(speed_model_t *m, double batch)
{
	return speed_model_init(m, SPEED_ALLREDUCE, batch);
}

int allreduce_speed_add_sample(speed_model_t *m, int w, int n, double speed)
{
	if (!m || m->mode != SPEED_ALLREDUCE || n < 1 || n > w)
		return -EINVAL;
	return speed_model_add_sample(m, n, w, speed);
}

int allreduce_speed_fit(speed_model_t *m)
{
	if (!m || m->mode != SPEED_ALLREDUCE)
		return -EINVAL;
	return speed_model_fit(m);
}

double allreduce_speed_predict(const speed_model_t *m, int w, int n)
{
	if (!m || m->mode != SPEED_ALLREDUCE || n < 1 || n > w)
		return 0.0;
	return speed_model_eval(m, n, w);
}

int allreduce_min_nodes(int w, int gpn)
{
	if (w < 1)
		return 0;
	if (gpn < 1)
		return w;
	return (w + gpn - 1) / gpn;
}
