/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* conf_file.c - Slurm's configuration grammar for the clients (conf_file.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/conf_file.h"
#include "util/errmsg.h"

typedef struct conf_read {
	conf_file_fn fn;
	void *arg;
	char cluster[256];	/* ClusterName so far, for %c in Include */
	char *err;
	size_t errlen;
} conf_read_t;

static int read_file(conf_read_t *r, const char *path, int depth);

/* Strip an unescaped '#' and what follows (Slurm's _strip_comments). */
static void strip_comment(char *line)
{
	int bs = 0;

	for (char *p = line; *p; p++) {
		if (*p == '#' && bs % 2 == 0) {
			*p = '\0';
			return;
		}
		bs = *p == '\\' ? bs + 1 : 0;
	}
}

/* Length without a continuation backslash, or -1 when none. */
static long continuation(const char *s, size_t len)
{
	size_t end = len, bs = 0;

	while (end && isspace((unsigned char)s[end - 1]))
		end--;
	while (end > bs && s[end - 1 - bs] == '\\')
		bs++;
	return bs % 2 ? (long)(end - 1) : -1;
}

/* "\x" -> "x" (Slurm's _strip_escapes, after comments and joins). */
static void strip_escapes(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (*s == '\\' && s[1])
			s++;
		*o++ = *s;
	}
	*o = '\0';
}

/* One logical line (joined continuations) into a malloc'd *out; the
 * number of physical lines read, 0 at the end. */
static int next_line(FILE *f, char **out)
{
	char *buf = NULL, *line = NULL;
	size_t cap = 0, len = 0;
	int lines = 0;

	while (getline(&line, &cap, f) >= 0) {
		size_t n;
		long keep;
		char *nb;

		lines++;
		strip_comment(line);
		n = strlen(line);
		keep = continuation(line, n);
		nb = realloc(buf, len + n + 1);
		if (!nb)
			break;
		buf = nb;
		memcpy(buf + len, line, keep >= 0 ? (size_t)keep : n);
		len += keep >= 0 ? (size_t)keep : n;
		buf[len] = '\0';
		if (keep < 0)
			break;
	}
	free(line);
	if (buf)
		strip_escapes(buf);
	*out = buf;
	return buf ? lines : 0;
}

static int is_key_char(int c)
{
	return isalnum(c) || c == '_' || c == '.';
}

/* The path of an included file: relative to the including file's folder,
 * %c replaced by the cluster name. */
static void include_path(const conf_read_t *r, const char *from,
			 const char *name, char *out, size_t len)
{
	char file[4096] = "";
	const char *slash = strrchr(from, '/');
	size_t o = 0;

	for (const char *p = name; *p && o + 1 < sizeof(file); p++) {
		if (p[0] == '%' && p[1] == 'c') {
			for (const char *c = r->cluster; *c && o + 1 < sizeof(file); c++)
				file[o++] = (char)tolower((unsigned char)*c);
			p++;
		} else {
			file[o++] = *p;
		}
	}
	file[o] = '\0';
	if (file[0] == '/' || !slash)
		snprintf(out, len, "%s", file);
	else
		snprintf(out, len, "%.*s/%s", (int)(slash - from), from, file);
}

/* "Include FILE" (Slurm: at the start of the line, any case): 1 done,
 * 0 not an include, negative errno. */
static int parse_include(conf_read_t *r, const char *from, const char *line,
			 int lineno, int depth)
{
	char name[4096], path[4096];
	const char *p = line + 7, *end;
	int rc;

	if (strncasecmp(line, "include", 7) || !isspace((unsigned char)*p))
		return 0;
	while (isspace((unsigned char)*p))
		p++;
	for (end = p; *end && !isspace((unsigned char)*end); end++)
		;
	snprintf(name, sizeof(name), "%.*s", (int)(end - p), p);
	for (; *end; end++)
		if (!isspace((unsigned char)*end))
			return errmsg_set(r->err, r->errlen, -EINVAL, "%s line %d: "
					  "Include takes one file name", from,
					  lineno);
	if (strstr(name, "%c") && !r->cluster[0])
		return errmsg_set(r->err, r->errlen, -EINVAL, "%s line %d: "
				  "Include %s needs ClusterName", from, lineno,
				  name);
	include_path(r, from, name, path, sizeof(path));
	rc = read_file(r, path, depth + 1);
	if (rc == -ENOENT)	/* only the top file may be missing */
		return errmsg_set(r->err, r->errlen, -EINVAL, "%s line %d: "
				  "Include %s: no such file", from, lineno, path);
	return rc ? rc : 1;
}

/* Key=Value pairs until the end of the line (Slurm's keyvalue regex). */
static int parse_pairs(conf_read_t *r, const char *from, char *p, int lineno)
{
	for (;;) {
		char *key, *val, *vend;
		int rc;

		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			return 0;
		for (key = p; is_key_char((unsigned char)*p); p++)
			;
		if (p == key)
			goto bad;
		vend = p;	/* end of key */
		while (isspace((unsigned char)*p))
			p++;
		if (strchr("-*+/", *p) && *p && p[1] == '=')
			p++;
		if (*p != '=')
			goto bad;
		*vend = '\0';
		for (p++; isspace((unsigned char)*p); p++)
			;
		if (*p == '"') {
			val = ++p;
			if (!(vend = strchr(p, '"')))
				goto bad;
			p = vend + 1;
		} else {
			for (val = p; *p && !isspace((unsigned char)*p); p++)
				;
			if (p == val)
				goto bad;
			vend = p;
		}
		if (*p && !isspace((unsigned char)*p))
			goto bad;
		if (*p)
			p++;
		*vend = '\0';
		if (!strcasecmp(key, "ClusterName"))
			snprintf(r->cluster, sizeof(r->cluster), "%s", val);
		if ((rc = r->fn(key, val, r->arg)))
			return rc;
	}
bad:
	return errmsg_set(r->err, r->errlen, -EINVAL, "%s line %d: parse error "
			  "at \"%.40s\" (expected Key=Value)", from, lineno, p);
}

static int read_file(conf_read_t *r, const char *path, int depth)
{
	FILE *f;
	char *line;
	int lineno = 1, n, rc = 0;

	if (depth > CONF_MAX_DEPTH)
		return errmsg_set(r->err, r->errlen, -ELOOP, "%s: Include nested "
				  "more than %d deep", path, CONF_MAX_DEPTH);
	if (!(f = fopen(path, "r")))
		return errno == ENOENT ? -ENOENT :
		       errmsg_set(r->err, r->errlen, -errno, "%s: %s", path,
				  strerror(errno));
	while (rc == 0 && (n = next_line(f, &line)) > 0) {
		rc = parse_include(r, path, line, lineno, depth);
		if (rc == 0)
			rc = parse_pairs(r, path, line, lineno);
		rc = rc > 0 ? 0 : rc;
		free(line);
		lineno += n;
	}
	fclose(f);
	return rc;
}

int conf_file_read(const char *path, conf_file_fn fn, void *arg, char *err,
		   size_t errlen)
{
	conf_read_t r = { .fn = fn, .arg = arg, .err = err, .errlen = errlen };
	int rc = read_file(&r, path, 0);

	if (rc == -ENOENT && err && errlen && !err[0])
		errmsg_set(err, errlen, 0, "%s: no such file", path);
	return rc;
}

typedef struct conf_get {
	const char *key;
	char *val;
	size_t vlen;
	int found;
} conf_get_t;

static int get_one(const char *key, const char *value, void *arg)
{
	conf_get_t *g = arg;

	if (!strcasecmp(key, g->key)) {
		snprintf(g->val, g->vlen, "%s", value);
		g->found = 1;
	}
	return 0;
}

int conf_file_get(const char *path, const char *key, char *val, size_t vlen,
		  char *err, size_t errlen)
{
	conf_get_t g = { key, val, vlen, 0 };
	int rc;

	if (err && errlen)
		err[0] = '\0';
	rc = conf_file_read(path, get_one, &g, err, errlen);
	if (rc == -ENOENT && !g.found)
		return 0;
	return rc < 0 ? rc : g.found;
}
