/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* speed_profiles.c - registry of speed samples by owner and model name,
 * and the names an administrator published (speed_profiles.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/errmsg.h"
#include "util/grow.h"
#include "models/speed_profiles.h"

speed_profiles_t *speed_profiles_new(void)
{
	return calloc(1, sizeof(speed_profiles_t));
}

void speed_profiles_free(speed_profiles_t *reg)
{
	size_t i;

	if (!reg)
		return;
	for (i = 0; i < reg->n; i++) {
		free(reg->v[i].name);
		speed_model_clear(&reg->v[i].model);
	}
	free(reg->v);
	free(reg);
}

static int speed_profiles_name_ok(const char *name)
{
	size_t i;

	if (!name || !name[0])
		return 0;
	for (i = 0; name[i]; i++)
		if (i >= SPEED_PROFILE_NAME_MAX - 1 ||
		    !isprint((unsigned char)name[i]))
			return 0;
	return 1;
}

/* (owner, name) against a profile: the order of the registry. */
static int speed_profiles_cmp(const speed_profile_t *p, uint32_t owner,
			      const char *name)
{
	int cmp = strcmp(p->name, name);

	if (cmp)
		return cmp;
	return (p->owner > owner) - (p->owner < owner);
}

/* Index of (owner, name), or of where it would be inserted (*found = 0). */
static size_t speed_profiles_find(const speed_profiles_t *reg, uint32_t owner,
				  const char *name, int *found)
{
	size_t lo = 0, hi = reg->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int cmp = speed_profiles_cmp(&reg->v[mid], owner, name);

		if (!cmp) {
			*found = 1;
			return mid;
		}
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = 0;
	return lo;
}

const speed_model_t *speed_profiles_own(const speed_profiles_t *reg,
					uint32_t owner, const char *name)
{
	int found;
	size_t i;

	if (!reg || !speed_profiles_name_ok(name))
		return NULL;
	i = speed_profiles_find(reg, owner, name, &found);
	return found ? &reg->v[i].model : NULL;
}

const speed_model_t *speed_profiles_get(const speed_profiles_t *reg,
					uint32_t uid, const char *name)
{
	const speed_model_t *own = speed_profiles_own(reg, uid, name);

	if (own || !reg)
		return own;
	for (size_t k = 0; k < reg->npub; k++)
		if (!strcmp(reg->pub[k].name, name))
			return speed_profiles_own(reg, reg->pub[k].owner, name);
	return NULL;
}

static int speed_profiles_insert(speed_profiles_t *reg, size_t at,
				 uint32_t owner, const char *name,
				 const speed_model_t *like)
{
	speed_profile_t *slot;
	speed_profile_t *v = grow_array(reg->v, &reg->cap, reg->n, sizeof(*v),
					8);

	if (!v)
		return -ENOMEM;
	reg->v = v;
	memmove(&reg->v[at + 1], &reg->v[at], (reg->n - at) * sizeof(*slot));
	slot = &reg->v[at];
	if (!(slot->name = strdup(name))) {
		memmove(&reg->v[at], &reg->v[at + 1],
			(reg->n - at) * sizeof(*slot));
		return -ENOMEM;
	}
	slot->owner = owner;
	speed_model_init(&slot->model, like->mode,
			 like->mode != SPEED_ASYNC ? like->batch : 1.0);
	reg->n++;
	return 0;
}

int speed_profiles_merge(speed_profiles_t *reg, uint32_t owner,
			 const char *name, const speed_model_t *job)
{
	int found, rc;
	size_t i;
	speed_model_t *m;

	if (!reg || !job || !speed_profiles_name_ok(name))
		return -EINVAL;
	i = speed_profiles_find(reg, owner, name, &found);
	if (!found && (rc = speed_profiles_insert(reg, i, owner, name, job)))
		return rc;
	m = &reg->v[i].model;
	if ((rc = speed_model_merge(m, job)))
		return rc;
	return m->nsamples ? speed_model_fit(m) : 0;
}

int speed_profiles_publish(speed_profiles_t *reg,
			   const speed_profile_pub_t *pub, size_t n)
{
	if (!reg || (n && !pub) || n > SPEED_PROFILES_PUBLISHED_MAX)
		return -EINVAL;
	for (size_t k = 0; k < n; k++) {
		if (!speed_profiles_name_ok(pub[k].name))
			return -EINVAL;
		for (size_t j = 0; j < k; j++)
			if (!strcmp(pub[j].name, pub[k].name))
				return -EINVAL;
	}
	for (size_t k = 0; k < n; k++)
		reg->pub[k] = pub[k];
	reg->npub = n;
	return 0;
}

/* One "NAME@USER" of len characters at text into *p. */
static int speed_profiles_parse_one(const char *text, size_t len,
				    speed_profiles_uid_fn uid_of, void *arg,
				    speed_profile_pub_t *p, char *err,
				    size_t errlen)
{
	const char *at = memchr(text, '@', len);
	char user[SPEED_PROFILE_NAME_MAX];
	size_t nlen = at ? (size_t)(at - text) : 0;
	size_t ulen = at ? len - nlen - 1 : 0;

	/* One word a pair: optimus.conf's text and `optimusctl show
	 * config` separate keys by spaces. */
	if (!at || !nlen || !ulen || nlen >= sizeof(p->name) ||
	    ulen >= sizeof(user) || memchr(text, ' ', len) ||
	    memchr(text, '\t', len))
		return errmsg_set(err, errlen, -EINVAL, "PublishProfiles: "
				  "'%.*s' is not NAME@USER", (int)len, text);
	memcpy(p->name, text, nlen);
	p->name[nlen] = '\0';
	memcpy(user, at + 1, ulen);
	user[ulen] = '\0';
	if (!speed_profiles_name_ok(p->name))
		return errmsg_set(err, errlen, -EINVAL, "PublishProfiles: "
				  "'%.*s': not a model name", (int)len, text);
	if (uid_of(arg, user, &p->owner))
		return errmsg_set(err, errlen, -EINVAL, "PublishProfiles: "
				  "'%.*s': no such user", (int)len, text);
	return 0;
}

int speed_profiles_parse_pub(const char *text, speed_profiles_uid_fn uid_of,
			     void *arg, speed_profile_pub_t *pub, size_t *n,
			     char *err, size_t errlen)
{
	const char *s = text;
	int rc;

	*n = 0;
	while (s && *s) {
		size_t len = strcspn(s, ",");

		if (*n == SPEED_PROFILES_PUBLISHED_MAX)
			return errmsg_set(err, errlen, -EINVAL,
					  "PublishProfiles: more than %d "
					  "names", SPEED_PROFILES_PUBLISHED_MAX);
		if ((rc = speed_profiles_parse_one(s, len, uid_of, arg,
						   &pub[*n], err, errlen)))
			return rc;
		for (size_t k = 0; k < *n; k++)
			if (!strcmp(pub[k].name, pub[*n].name))
				return errmsg_set(err, errlen, -EINVAL,
						  "PublishProfiles: %s "
						  "published twice",
						  pub[k].name);
		(*n)++;
		s += len;
		if (*s == ',')
			s++;
	}
	return 0;
}
