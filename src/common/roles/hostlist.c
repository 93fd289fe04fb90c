/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * roles/hostlist.c - Slurm's compact host and task-count lists, without
 * Slurm: a SPANK plugin may only use the public API, and parsing here
 * keeps the step layout logic unit-testable.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "roles/roles.h"

typedef struct strvec {
	char **v;
	size_t n, cap;
} strvec_t;

static int strvec_add(strvec_t *s, const char *prefix, size_t plen,
		      const char *mid, const char *suffix, size_t slen)
{
	size_t mlen = mid ? strlen(mid) : 0;
	char *h;

	char **v = grow_array(s->v, &s->cap, s->n, sizeof(*v), 16);

	if (!v)
		return -ENOMEM;
	s->v = v;
	h = malloc(plen + mlen + slen + 1);
	if (!h)
		return -ENOMEM;
	memcpy(h, prefix, plen);
	memcpy(h + plen, mid, mlen);
	memcpy(h + plen + mlen, suffix, slen);
	h[plen + mlen + slen] = '\0';
	s->v[s->n++] = h;
	return 0;
}

/* One range "07" or "1-12" of a bracket; zero padding from the low end. */
static int expand_range(strvec_t *s, const char *prefix, size_t plen,
			const char *r, size_t rlen, const char *suffix,
			size_t slen)
{
	char lo_s[24], *end;
	const char *dash = memchr(r, '-', rlen);
	size_t lo_len = dash ? (size_t)(dash - r) : rlen;
	unsigned long lo, hi;
	int width = (int)lo_len;

	if (!lo_len || lo_len >= sizeof(lo_s) || !isdigit((unsigned char)*r))
		return -EINVAL;
	lo = strtoul(r, &end, 10);
	if (end != r + lo_len)
		return -EINVAL;
	hi = lo;
	if (dash) {
		if (!isdigit((unsigned char)dash[1]))
			return -EINVAL;
		hi = strtoul(dash + 1, &end, 10);
		if (end != r + rlen || hi < lo || hi - lo > 1000000)
			return -EINVAL;
	}
	for (unsigned long i = lo; i <= hi; i++) {
		snprintf(lo_s, sizeof(lo_s), "%0*lu", width, i);
		if (strvec_add(s, prefix, plen, lo_s, suffix, slen))
			return -ENOMEM;
	}
	return 0;
}

/* "prefix[ranges]suffix" or a plain name. */
static int expand_one(strvec_t *s, const char *e, size_t len)
{
	const char *open = memchr(e, '[', len), *close, *r, *comma;

	if (!open)
		return strvec_add(s, e, len, NULL, "", 0);
	close = memchr(open, ']', len - (open - e));
	if (!close || memchr(close + 1, '[', len - (close + 1 - e)))
		return -EINVAL;	/* one bracket per name is all Slurm makes here */
	for (r = open + 1; r < close; r = comma + 1) {
		comma = memchr(r, ',', close - r);
		if (!comma)
			comma = close;
		if (expand_range(s, e, open - e, r, comma - r, close + 1,
				 len - (close + 1 - e)))
			return -EINVAL;
	}
	return 0;
}

int roles_hostlist_expand(const char *list, char ***hosts, size_t *n)
{
	strvec_t s = { NULL, 0, 0 };
	const char *p = list;

	while (p && *p) {
		/* an item ends at a comma outside brackets */
		const char *q = p;
		int depth = 0;

		for (; *q && (depth || *q != ','); q++)
			depth += (*q == '[') - (*q == ']');
		if (q == p || depth || expand_one(&s, p, q - p)) {
			roles_hostlist_free(s.v, s.n);
			return -EINVAL;
		}
		p = *q ? q + 1 : q;
	}
	if (!s.n)
		return -EINVAL;
	*hosts = s.v;
	*n = s.n;
	return 0;
}

void roles_hostlist_free(char **hosts, size_t n)
{
	for (size_t i = 0; hosts && i < n; i++)
		free(hosts[i]);
	free(hosts);
}

/* A parsed list of numbers handed over: 0, or -EINVAL (v freed) when it
 * holds none (Slurm writes no empty list). */
static int list_take(uint32_t *v, size_t used, uint32_t **out, size_t *n)
{
	if (!used) {
		free(v);
		return -EINVAL;
	}
	*out = v;
	*n = used;
	return 0;
}

int roles_tasks_per_node(const char *text, uint32_t **counts, size_t *n)
{
	uint32_t *v = NULL;
	size_t used = 0;
	const char *p = text;
	char *end;

	while (p && *p) {
		unsigned long c, rep = 1;
		uint32_t *bigger;

		if (!isdigit((unsigned char)*p))
			goto bad;
		c = strtoul(p, &end, 10);
		if (!strncmp(end, "(x", 2)) {
			rep = strtoul(end + 2, &end, 10);
			if (*end++ != ')' || !rep || rep > 1000000)
				goto bad;
		}
		if (*end && *end != ',')
			goto bad;
		bigger = realloc(v, (used + rep) * sizeof(*v));
		if (!bigger)
			goto bad;
		v = bigger;
		while (rep--)
			v[used++] = (uint32_t)c;
		p = *end ? end + 1 : end;
	}
	return list_take(v, used, counts, n);
bad:
	free(v);
	return -EINVAL;
}

/* Ports are TCP's, 1 to 65535; a reservation holds a few per task. */
#define PORT_MAX 65535

int roles_ports_parse(const char *text, uint32_t **ports, size_t *n)
{
	uint32_t *v = NULL;
	size_t used = 0, cap = 0;
	const char *p = text;

	while (p && *p) {
		unsigned long lo, hi;
		char *end;

		if (!isdigit((unsigned char)*p))
			goto bad;
		lo = hi = strtoul(p, &end, 10);
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				goto bad;
			hi = strtoul(end + 1, &end, 10);
		}
		if ((*end && (*end != ',' || !end[1])) || !lo || hi < lo ||
		    hi > PORT_MAX || (used && lo <= v[used - 1]))
			goto bad;	/* Slurm's list is ascending */
		for (unsigned long port = lo; port <= hi; port++) {
			uint32_t *bigger = grow_array(v, &cap, used,
						      sizeof(*v), 16);

			if (!bigger) {
				free(v);
				return -ENOMEM;
			}
			v = bigger;
			v[used++] = (uint32_t)port;
		}
		p = *end ? end + 1 : end;
	}
	return list_take(v, used, ports, n);
bad:
	free(v);
	return -EINVAL;
}
