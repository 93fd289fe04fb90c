/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/app.c - reading a measured model's traces and the truth drawn
 * from them (see measured/app.h).
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/errmsg.h"
#include "measured/app.h"
#include "measured/csv.h"

typedef struct app_def {
	const char *name;
	int max_epochs;
	double max_local;	/* 0: the largest measured */
} app_def_t;

static const app_def_t app_defs[] = {
	{ "bert", 2, 0 }, { "cifar10", 100, 0 }, { "ncf", 10, 0 },
	{ "imagenet", 90, 0 }, { "deepspeech2", 80, 0 },
	{ "yolov3", 50, 8 },
};
#define NAPPS (sizeof(app_defs) / sizeof(app_defs[0]))

/* Memo of step times: (placement id, local batch) -> (step, sync). */
typedef struct tput_slot {
	long long id;
	double bsz, step, sync;
	int used;
} tput_slot_t;

struct px_tput_cache {
	size_t cap, n;
	tput_slot_t *v;
};

static size_t tput_hash(long long id, double bsz, size_t cap)
{
	unsigned long long h = (unsigned long long)id * 0x9E3779B97F4A7C15ULL;
	h ^= (unsigned long long)llround(bsz * 16.0) + 0x7F4A7C15ULL +
	     (h << 6) + (h >> 2);
	return (size_t)(h % cap);
}

static tput_slot_t *tput_find(px_tput_cache_t *c, long long id, double bsz)
{
	size_t i = tput_hash(id, bsz, c->cap);

	while (c->v[i].used && !(c->v[i].id == id && c->v[i].bsz == bsz))
		i = (i + 1) % c->cap;
	return &c->v[i];
}

static int tput_put(px_tput_cache_t *c, long long id, double bsz,
		    double step, double sync)
{
	if (2 * (c->n + 1) > c->cap) {
		px_tput_cache_t g = { c->cap ? 2 * c->cap : 1024, 0, NULL };
		g.v = calloc(g.cap, sizeof(*g.v));
		if (!g.v)
			return -ENOMEM;
		for (size_t i = 0; i < c->cap; i++)
			if (c->v[i].used)
				*tput_find(&g, c->v[i].id, c->v[i].bsz) =
					c->v[i];
		g.n = c->n;
		free(c->v);
		*c = g;
	}
	tput_slot_t *s = tput_find(c, id, bsz);
	*s = (tput_slot_t){ id, bsz, step, sync, 1 };
	c->n++;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int valid_read(const char *dir, double bsz, px_valid_t *v, char *err,
		      size_t errlen)
{
	static const char *names[] = { "progress", "iteration", "metric",
				       "grad_sqr", "grad_var" };
	char path[600];
	px_csv_t t;
	double **dst[] = { &v->progress, &v->iteration, &v->metric,
			   &v->grad_sqr, &v->grad_var };
	int rc;

	snprintf(path, sizeof(path), "%s/validation-%.0f.csv", dir, bsz);
	if ((rc = px_csv_read(path, &t, err, errlen)))
		return rc;
	v->bsz = bsz;
	v->n = t.nrows;
	for (int k = 0; k < 5 && !rc; k++) {
		int col = px_csv_col(&t, names[k], err, errlen);
		*dst[k] = calloc(t.nrows + 1, sizeof(double));
		if (col < 0 || !*dst[k]) {
			rc = col < 0 ? col : -ENOMEM;
			break;
		}
		/* The metric may be negative; nothing else. */
		double lo = k == 2 ? -1e300 : 0.0;
		for (size_t r = 0; r < t.nrows && !rc; r++)
			rc = px_csv_num(&t, r, col, lo, 1e300, &(*dst[k])[r],
					err, errlen);
	}
	px_csv_free(&t);
	return rc;
}

/* Batch sizes of validation-<B>.csv files in dir, sorted. */
static int valid_list(const char *dir, double *out, size_t cap, size_t *n,
		      char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	*n = 0;
	if (!d)
		return errmsg_set(err, errlen, -errno, "%s: %s", dir,
				  strerror(errno));
	while ((e = readdir(d))) {
		unsigned b;
		char tail[8];
		if (sscanf(e->d_name, "validation-%u%7s", &b, tail) == 2 &&
		    !strcmp(tail, ".csv") && b >= 1 && *n < cap)
			out[(*n)++] = b;
	}
	closedir(d);
	qsort(out, *n, sizeof(double), cmp_double);
	if (!*n)
		return errmsg_set(err, errlen, -ENOENT,
				  "%s: no validation-<batch>.csv", dir);
	return 0;
}

static long long digits_id(const int *p, size_t n)
{
	long long id = 0;

	for (size_t i = 0; i < n; i++)
		id = id * 10 + p[i];
	return id;
}

static int place_add(px_app_t *a, long long id, double bsz, double step,
		     double sync)
{
	px_place_t *p = NULL;

	for (size_t i = 0; i < a->nplaces && !p; i++)
		if (a->places[i].id == id)
			p = &a->places[i];
	if (!p) {
		px_place_t *v = realloc(a->places,
					(a->nplaces + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		a->places = v;
		p = &v[a->nplaces++];
		memset(p, 0, sizeof(*p));
		p->id = id;
	}
	double *b = realloc(p->bsz, (p->n + 1) * sizeof(double));
	if (b)
		p->bsz = b;
	double *s = realloc(p->step, (p->n + 1) * sizeof(double));
	if (s)
		p->step = s;
	double *y = realloc(p->sync, (p->n + 1) * sizeof(double));
	if (y)
		p->sync = y;
	if (!b || !s || !y)
		return -ENOMEM;
	/* Insertion by local_bsz: the rows are interpolated over it. */
	size_t k = p->n;
	while (k > 0 && p->bsz[k - 1] > bsz) {
		p->bsz[k] = p->bsz[k - 1];
		p->step[k] = p->step[k - 1];
		p->sync[k] = p->sync[k - 1];
		k--;
	}
	p->bsz[k] = bsz;
	p->step[k] = step;
	p->sync[k] = sync;
	p->n++;
	return 0;
}

/* One point of the scattered set, merged with equal keys (a mean). */
typedef struct nd_pt {
	double x[3], y[2];
	int count;
} nd_pt_t;

static int cmp_pt(const void *a, const void *b)
{
	const nd_pt_t *p = a, *q = b;

	for (int k = 0; k < 3; k++)
		if (p->x[k] != q->x[k])
			return p->x[k] < q->x[k] ? -1 : 1;
	return 0;
}

/*
 * placements.csv: each row kept per placement and, averaged over the
 * placements with equal (nodes, replicas, local_bsz), as a point of the
 * scattered set, ordered by that key (the order matters to how Qhull
 * splits ties); then scalability.csv's rows as they come.
 */
static int places_read(const char *dir, px_app_t *a, nd_pt_t **pts,
		       size_t *npts, char *err, size_t errlen)
{
	char path[600];
	px_csv_t t;
	int rc, c[4];
	static const char *names[] = { "placement", "local_bsz", "step_time",
				       "sync_time" };

	snprintf(path, sizeof(path), "%s/placements.csv", dir);
	if ((rc = px_csv_read(path, &t, err, errlen)))
		return rc;
	for (int k = 0; k < 4 && !rc; k++)
		if ((c[k] = px_csv_col(&t, names[k], err, errlen)) < 0)
			rc = c[k];
	nd_pt_t *v = calloc(t.nrows + 1, sizeof(*v));
	size_t n = 0;
	if (!rc && !v)
		rc = -ENOMEM;
	a->min_local = INFINITY;
	a->max_local = 0;
	for (size_t r = 0; r < t.nrows && !rc; r++) {
		const char *ps = px_csv_str(&t, r, c[0]);
		int gp[PX_MAX_NODES];
		size_t nn = strlen(ps);
		double bsz, step, sync;
		if (!nn || nn > 9)
			rc = -EINVAL;
		for (size_t i = 0; i < nn && !rc; i++) {
			gp[i] = ps[i] - '0';
			if (gp[i] < 1 || gp[i] > PX_NODE_GPUS)
				rc = -EINVAL;
		}
		if (rc) {
			rc = errmsg_set(err, errlen, -EINVAL, "%s: row %zu: "
					"placement '%s': expected 1 to 9 digits "
					"of 1..%d GPUs per node", path, r + 1,
					ps, PX_NODE_GPUS);
			break;
		}
		if ((rc = px_csv_num(&t, r, c[1], 1, 1e7, &bsz, err, errlen)) ||
		    (rc = px_csv_num(&t, r, c[2], 1e-9, 1e5, &step, err,
				     errlen)) ||
		    (rc = px_csv_num(&t, r, c[3], 0, 1e5, &sync, err, errlen)))
			break;
		a->min_local = fmin(a->min_local, bsz);
		a->max_local = fmax(a->max_local, bsz);
		rc = place_add(a, digits_id(gp, nn), bsz, step, sync);
		int reps = 0;
		for (size_t i = 0; i < nn; i++)
			reps += gp[i];
		v[n++] = (nd_pt_t){ { (double)nn, reps, bsz }, { step, sync },
				    1 };
	}
	px_csv_free(&t);
	if (!rc) {
		qsort(v, n, sizeof(*v), cmp_pt);
		size_t m = 0;
		for (size_t i = 0; i < n; i++) {
			if (m && !cmp_pt(&v[m - 1], &v[i])) {
				nd_pt_t *p = &v[m - 1];
				for (int k = 0; k < 2; k++)
					p->y[k] += v[i].y[k];
				p->count++;
				continue;
			}
			v[m++] = v[i];
		}
		for (size_t i = 0; i < m; i++)
			for (int k = 0; k < 2; k++)
				v[i].y[k] /= v[i].count;
		n = m;
	}
	if (rc) {
		free(v);
		return rc;
	}
	*pts = v;
	*npts = n;
	return 0;
}

static int scal_read(const char *dir, nd_pt_t **pts, size_t *npts, char *err,
		     size_t errlen)
{
	static const char *names[] = { "num_nodes", "num_replicas",
				       "local_bsz", "step_time", "sync_time" };
	static const double lo[] = { 1, 1, 1, 1e-9, 0 };
	static const double hi[] = { 1e4, 1e6, 1e7, 1e5, 1e5 };
	char path[600];
	px_csv_t t;
	int rc, c[5];

	snprintf(path, sizeof(path), "%s/scalability.csv", dir);
	if ((rc = px_csv_read(path, &t, err, errlen)))
		return rc;
	for (int k = 0; k < 5 && !rc; k++)
		if ((c[k] = px_csv_col(&t, names[k], err, errlen)) < 0)
			rc = c[k];
	nd_pt_t *v = rc ? NULL : realloc(*pts, (*npts + t.nrows + 1) *
					 sizeof(*v));
	if (!rc && !v)
		rc = -ENOMEM;
	if (v)
		*pts = v;
	for (size_t r = 0; r < t.nrows && !rc; r++) {
		double f[5];
		for (int k = 0; k < 5 && !rc; k++)
			rc = px_csv_num(&t, r, c[k], lo[k], hi[k], &f[k], err,
					errlen);
		if (!rc)
			v[(*npts)++] = (nd_pt_t){ { f[0], f[1], f[2] },
						  { f[3], f[4] }, 1 };
	}
	px_csv_free(&t);
	return rc;
}

static int app_load(const char *traces, const app_def_t *def, px_app_t *a,
		    char *err, size_t errlen)
{
	char dir[512];
	double bszs[64];
	nd_pt_t *pts = NULL;
	size_t npts = 0;
	int rc;

	memset(a, 0, sizeof(*a));
	snprintf(a->name, sizeof(a->name), "%s", def->name);
	snprintf(dir, sizeof(dir), "%s/%s", traces, def->name);
	a->max_epochs = def->max_epochs;
	if ((rc = valid_list(dir, bszs, 64, &a->nvalid, err, errlen)))
		return rc;
	a->valid = calloc(a->nvalid, sizeof(*a->valid));
	if (!a->valid)
		return -ENOMEM;
	for (size_t i = 0; i < a->nvalid && !rc; i++) {
		rc = valid_read(dir, bszs[i], &a->valid[i], err, errlen);
		if (!rc && a->valid[i].n < (size_t)a->max_epochs)
			rc = errmsg_set(err, errlen, -EINVAL, "%s/validation-"
					"%.0f.csv: %zu epochs, %d are counted",
					dir, bszs[i], a->valid[i].n,
					a->max_epochs);
	}
	if (rc)
		return rc;
	a->init_bsz = a->valid[0].bsz;
	a->max_bsz = a->valid[a->nvalid - 1].bsz;
	if ((rc = places_read(dir, a, &pts, &npts, err, errlen)) ||
	    (rc = scal_read(dir, &pts, &npts, err, errlen))) {
		free(pts);
		return rc;
	}
	if (def->max_local > 0)
		a->max_local = def->max_local;
	double (*x)[3] = malloc(npts * sizeof(*x));
	double (*y)[2] = malloc(npts * sizeof(*y));
	if (!x || !y)
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < npts; i++) {
		memcpy(x[i], pts[i].x, sizeof(x[i]));
		memcpy(y[i], pts[i].y, sizeof(y[i]));
	}
	if (!rc)
		rc = px_nd_build(&a->nd, (const double (*)[3])x,
				 (const double (*)[2])y, npts, err, errlen);
	free(x);
	free(y);
	free(pts);
	a->cache = calloc(1, sizeof(*a->cache));
	if (a->cache) {
		a->cache->cap = 1024;
		a->cache->v = calloc(a->cache->cap, sizeof(*a->cache->v));
	}
	return rc ? rc : a->cache && a->cache->v ? 0 : -ENOMEM;
}

int px_apps_load(const char *traces_dir, px_app_t **apps, size_t *napps,
		 char *err, size_t errlen)
{
	px_app_t *v = calloc(NAPPS, sizeof(*v));
	int rc = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < NAPPS && !rc; i++) {
		rc = app_load(traces_dir, &app_defs[i], &v[i], err, errlen);
		*napps = i + 1;
	}
	*apps = v;
	if (rc) {
		px_apps_free(v, *napps);
		*apps = NULL;
		*napps = 0;
	}
	*napps = rc ? 0 : NAPPS;
	return rc;
}

void px_apps_free(px_app_t *apps, size_t napps)
{
	for (size_t i = 0; apps && i < napps; i++) {
		px_app_t *a = &apps[i];
		for (size_t k = 0; a->valid && k < a->nvalid; k++) {
			px_valid_t *v = &a->valid[k];
			free(v->progress);
			free(v->iteration);
			free(v->metric);
			free(v->grad_sqr);
			free(v->grad_var);
		}
		for (size_t k = 0; k < a->nplaces; k++) {
			free(a->places[k].bsz);
			free(a->places[k].step);
			free(a->places[k].sync);
		}
		free(a->valid);
		free(a->places);
		px_nd_free(&a->nd);
		if (a->cache)
			free(a->cache->v);
		free(a->cache);
	}
	free(apps);
}

const px_app_t *px_app_find(const px_app_t *apps, size_t n, const char *name)
{
	for (size_t i = 0; name && i < n; i++)
		if (!strcmp(apps[i].name, name))
			return &apps[i];
	return NULL;
}

/* Linear in local_bsz within one measured placement; -EDOM outside. */
static int place_interp(const px_place_t *p, double bsz, double *step,
			double *sync)
{
	if (p->n == 0 || bsz < p->bsz[0] || bsz > p->bsz[p->n - 1])
		return -EDOM;
	size_t k = 0;
	while (k + 1 < p->n && p->bsz[k + 1] < bsz)
		k++;
	if (k + 1 == p->n || p->bsz[k] == bsz) {
		*step = p->step[k];
		*sync = p->sync[k];
		return 0;
	}
	double f = (bsz - p->bsz[k]) / (p->bsz[k + 1] - p->bsz[k]);
	*step = p->step[k] + f * (p->step[k + 1] - p->step[k]);
	*sync = p->sync[k] + f * (p->sync[k + 1] - p->sync[k]);
	return 0;
}

/* The rotation of p that reads smallest (the measured files list each
 * placement once, in that rotation). */
static void smallest_rotation(const int *p, size_t n, int *out)
{
	memcpy(out, p, n * sizeof(*p));
	for (size_t r = 1; r < n; r++) {
		int c = 0;
		for (size_t i = 0; i < n && !c; i++)
			c = p[(r + i) % n] - out[i];
		if (c < 0)
			for (size_t i = 0; i < n; i++)
				out[i] = p[(r + i) % n];
	}
}

int px_app_step_time(const px_app_t *a, const int *placement, size_t nnodes,
		     double local_bsz, double *step, double *sync, char *err,
		     size_t errlen)
{
	int p[PX_NODES * PX_NODE_GPUS], q[PX_NODES * PX_NODE_GPUS];
	size_t n = 0;
	int reps = 0, rc = -EDOM;

	for (size_t i = 0; i < nnodes && n < PX_NODES * PX_NODE_GPUS; i++)
		if (placement[i] > 0) {
			p[n++] = placement[i];
			reps += placement[i];
		}
	if (!n)
		return errmsg_set(err, errlen, -EINVAL, "%s: no GPU", a->name);
	smallest_rotation(p, n, q);
	/* Ids of more than 18 nodes overflow and are measured nowhere. */
	long long id = n <= 18 ? digits_id(q, n) : -1;
	tput_slot_t *hit = tput_find(a->cache, id, local_bsz);
	if (hit->used) {
		*step = hit->step;
		*sync = hit->sync;
		return 0;
	}
	const px_place_t *pl = NULL;
	for (size_t i = 0; i < a->nplaces && !pl; i++)
		if (a->places[i].id == id)
			pl = &a->places[i];
	if (pl) {
		rc = place_interp(pl, local_bsz, step, sync);
	} else {
		double x[3] = { n > PX_MAX_NODES ? PX_MAX_NODES : (double)n,
				reps, local_bsz }, y[2];
		rc = px_nd_eval(&a->nd, x, y);
		*step = y[0];
		*sync = y[1];
	}
	if (rc)
		return errmsg_set(err, errlen, rc, "%s: no step time measured "
				  "near %d GPUs on %zu nodes at %g per GPU",
				  a->name, reps, n, local_bsz);
	return tput_put(a->cache, id, local_bsz, *step, *sync);
}

/* Validated batch sizes around bsz: indices lo <= hi, or -EDOM. */
static int bracket(const px_app_t *a, double bsz, size_t *lo, size_t *hi)
{
	if (!(bsz >= a->init_bsz && bsz <= a->max_bsz))
		return -EDOM;
	*lo = 0;
	while (*lo + 1 < a->nvalid && a->valid[*lo + 1].bsz <= bsz)
		(*lo)++;
	*hi = a->valid[*lo].bsz == bsz ? *lo : *lo + 1;
	return 0;
}

static double lerp_bsz(const px_app_t *a, size_t lo, size_t hi, double bsz,
		       double ylo, double yhi)
{
	double bl = a->valid[lo].bsz, bh = a->valid[hi].bsz;

	if (lo == hi)
		return ylo;
	return ((bsz - bl) * yhi + (bh - bsz) * ylo) / (bh - bl);
}

int px_app_grad_stats(const px_app_t *a, double bsz, int epoch, double *sqr,
		      double *var)
{
	size_t lo, hi;

	if (bracket(a, bsz, &lo, &hi) || epoch < 0 ||
	    (size_t)epoch >= a->valid[lo].n || (size_t)epoch >= a->valid[hi].n)
		return -EDOM;
	*sqr = lerp_bsz(a, lo, hi, bsz, a->valid[lo].grad_sqr[epoch],
			a->valid[hi].grad_sqr[epoch]);
	*var = lerp_bsz(a, lo, hi, bsz, a->valid[lo].grad_var[epoch],
			a->valid[hi].grad_var[epoch]);
	return 0;
}

int px_app_gain(const px_app_t *a, double bsz, int epoch, double *gain)
{
	double sqr, var, scale = bsz / a->init_bsz;

	if (px_app_grad_stats(a, bsz, epoch, &sqr, &var))
		return -EDOM;
	*gain = (var + sqr) / (var / scale + sqr);
	/* No gradient signal at all (both 0): no efficiency loss. */
	if (!isfinite(*gain))
		*gain = 1.0;
	return 0;
}

double px_app_iteration_time(double step, double sync, int accum)
{
	return step + (step - sync) * accum;
}

/* m replicas within 1..PX_NODES * PX_NODE_GPUS; NCF one (the artifact's
 * rule). */
static int replicas_within(const px_app_t *a, int m)
{
	if (!strcmp(a->name, "ncf"))
		return 1;
	return m < 1 ? 1 : m > PX_NODES * PX_NODE_GPUS ?
		PX_NODES * PX_NODE_GPUS : m;
}

double px_app_adaptive_batch(const px_app_t *a)
{
	if (!strcmp(a->name, "ncf"))
		return fmin(fmax(PX_NCF_BATCH, a->init_bsz), a->max_bsz);
	return a->init_bsz;
}

int px_app_max_replicas(const px_app_t *a, double bsz)
{
	return replicas_within(a, (int)(bsz / a->min_local));
}

int px_app_max_replicas_any_batch(const px_app_t *a)
{
	return replicas_within(a,
			       (int)(a->max_bsz / ceil(a->min_local - 1e-9)));
}

double px_app_progress(const px_app_t *a, int epoch)
{
	double m = INFINITY;

	if (epoch <= 0)
		return 0.0;
	for (size_t i = 0; i < a->nvalid; i++)
		m = fmin(m, a->valid[i].progress[epoch - 1]);
	return m;
}

double px_app_epoch_steps(const px_app_t *a, double bsz)
{
	return px_app_progress(a, 1) * a->init_bsz / bsz;
}

double px_app_iteration(const px_app_t *a, double bsz, int epoch)
{
	size_t lo, hi;

	if (bracket(a, bsz, &lo, &hi) || epoch < 0 ||
	    (size_t)epoch >= a->valid[lo].n || (size_t)epoch >= a->valid[hi].n)
		return -1.0;
	return lerp_bsz(a, lo, hi, bsz, a->valid[lo].iteration[epoch],
			a->valid[hi].iteration[epoch]);
}

void px_app_split_batch(const px_app_t *a, double bsz, int replicas,
			bool force_accum, int *atomic, int *accum)
{
	/* The 1e-8 keeps exact quotients from rounding up. */
	double local = ceil(bsz / replicas - 1e-8);
	int acc = (int)ceil(local / a->max_local - 1e-8) - 1;

	if (acc < 0)
		acc = 0;
	if (replicas == 1 && force_accum && acc < 1)
		acc = 1;
	int at = (int)ceil(local / (acc + 1) - 1e-8);
	int cap = (int)(a->max_bsz / (replicas * (acc + 1)));
	*atomic = at < cap ? at : cap;
	*accum = acc;
}

void px_app_split_job(const px_app_t *a, double bsz, int replicas,
		      int *atomic, int *accum)
{
	px_app_split_batch(a, bsz, replicas, bsz > a->init_bsz, atomic,
			   accum);
}
