/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * state_file.c - sched/optimus' state in StateSaveLocation.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "registry.h"
#include "state_file.h"
#include "util/json_strict.h"

extern char *state_file_path(void)
{
	return xstrdup_printf("%s/optimus_state.json",
			      slurm_conf.state_save_location);
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= n;
	}
	return 0;
}

/*
 * Set-aside copies: "<path>.corrupt.<UTC time>[-<n>]", so that a second
 * fault never overwrites the first copy (a state file set aside must not
 * be replaced by an empty one), and a name that cannot collide, so that a
 * path turned into a directory is set aside even when an older copy
 * exists. The newest STATE_FILE_KEEP_ASIDE are kept: the names sort by
 * time.
 */
#define STATE_FILE_KEEP_ASIDE 5
#define ASIDE_SUFFIX ".corrupt."

static int aside_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Remove the oldest set-aside copies beyond the bound. */
static void prune_aside(const char *path)
{
	char *dir_path = xstrdup(path), *slash = strrchr(dir_path, '/');
	const char *base = slash ? slash + 1 : path;
	char *prefix = xstrdup_printf("%s" ASIDE_SUFFIX, base);
	size_t plen = strlen(prefix);
	char **names = NULL;
	int n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	if (slash)
		*slash = '\0';
	if (!(d = opendir(slash ? dir_path : "."))) {
		error("sched/optimus: cannot list %s: %m", dir_path);
		goto out;
	}
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, prefix, plen))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			xrecalloc(names, cap, sizeof(*names));
		}
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), aside_cmp);
	for (int i = 0; i < n - STATE_FILE_KEEP_ASIDE; i++) {
		char *old = xstrdup_printf("%s/%s", dir_path, names[i]);
		struct stat st;

		/* A set-aside directory goes only when empty: its content
		 * is the admin's, not ours to delete. */
		if (!lstat(old, &st) && S_ISDIR(st.st_mode) ? rmdir(old) :
		    unlink(old))
			error("sched/optimus: cannot remove the old set-aside copy %s: %m",
			      old);
		else
			info("sched/optimus: removed the old set-aside copy %s (the newest %d are kept)",
			     old, STATE_FILE_KEEP_ASIDE);
		xfree(old);
	}
	for (int i = 0; i < n; i++)
		xfree(names[i]);
	xfree(names);
out:
	xfree(prefix);
	xfree(dir_path);
}

/*
 * Keep a corrupt file (or whatever took the path) for the admin. Logged
 * here, unless kept is given: it then receives the copy's name (to free)
 * for the caller's one line.
 */
static int set_aside_as(const char *path, char **kept)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	char *aside = NULL;
	struct stat st;
	int rc = -1;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	for (int i = 0; i < 1000; i++) {
		xfree(aside);
		aside = i ? xstrdup_printf("%s" ASIDE_SUFFIX "%s-%d", path,
					   stamp, i) :
			    xstrdup_printf("%s" ASIDE_SUFFIX "%s", path, stamp);
		if (lstat(aside, &st) && errno == ENOENT)
			break;
	}
	if (rename(path, aside)) {
		error("sched/optimus: cannot rename %s to %s: %m", path, aside);
	} else {
		if (!kept)
			error("sched/optimus: corrupt state kept as %s", aside);
		rc = 0;
		prune_aside(path);
	}
	if (kept && !rc)
		*kept = aside;
	else
		xfree(aside);
	return rc;
}

static int set_aside(const char *path)
{
	return set_aside_as(path, NULL);
}

/*
 * The last whole save stays as "<path>.prev" (a hard link, so that the
 * path itself is never missing): a state file cut short, by a controller
 * stopped mid-save on a shared StateSaveLocation that does not rename
 * atomically, is then replaced by it instead of by nothing.
 */
static void keep_previous(const char *path)
{
	char *prev = xstrdup_printf("%s.prev", path);
	struct stat st;

	if (!lstat(path, &st) && S_ISREG(st.st_mode) &&
	    ((unlink(prev) && errno != ENOENT) || link(path, prev)))
		debug("sched/optimus: cannot keep %s as %s: %m", path, prev);
	xfree(prev);
}

static int save_to(const char *path, const char *text)
{
	char *tmp = xstrdup_printf("%s.new", path);
	int rc = SLURM_ERROR;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	struct stat st;

	if (fd < 0) {
		error("sched/optimus: cannot create %s: %m", tmp);
	} else if (write_all(fd, text, strlen(text)) || fsync(fd)) {
		error("sched/optimus: cannot write %s: %m", tmp);
		close(fd);
	} else if (close(fd)) {
		error("sched/optimus: cannot write %s: %m", tmp);
	} else if (keep_previous(path), !rename(tmp, path)) {
		rc = SLURM_SUCCESS;
	} else if (!lstat(path, &st) && S_ISDIR(st.st_mode) &&
		   !set_aside(path) && !rename(tmp, path)) {
		/* The path became a directory: set aside, saved (else nothing
		 * would ever be saved again). */
		rc = SLURM_SUCCESS;
	} else {
		error("sched/optimus: cannot replace %s: %m", path);
	}
	if (rc != SLURM_SUCCESS)
		(void) unlink(tmp);
	xfree(tmp);
	return rc;
}

extern int state_file_save(void)
{
	char *path = state_file_path();
	/* user text (hints) escaped by the one rule: valid UTF-8 on disk */
	json_object *root = json_strict_strings(registry_to_json());
	int rc = save_to(path, json_object_to_json_string_ext(
				 root, JSON_C_TO_STRING_PLAIN));

	json_object_put(root);
	xfree(path);
	return rc;
}

/* After an unreadable state file: the last whole save, if any (the
 * registry is empty); what was recovered, for the one log line. */
static const char *load_previous(const char *path)
{
	static char said[300];
	char *prev = xstrdup_printf("%s.prev", path);
	char err[160] = "";
	json_object *root = json_object_from_file(prev);

	if (!root)
		snprintf(said, sizeof(said), "no previous save (%s) to recover from; starting without saved model state",
			 prev);
	else if (registry_from_json(root, err, sizeof(err)) != 0)
		snprintf(said, sizeof(said), "recovered %d jobs from the previous save %s (%s)",
			 registry_count(), prev, err);
	else
		snprintf(said, sizeof(said), "recovered model state of %d jobs from the previous save %s",
			 registry_count(), prev);
	if (root)
		json_object_put(root);
	xfree(prev);
	return said;
}

extern void state_file_load(void)
{
	char *path = state_file_path();
	char err[256] = "";
	json_object *root;
	struct stat st;
	int rc;

	if (stat(path, &st) && errno == ENOENT) {
		info("sched/optimus: no saved state in %s, starting empty", path);
		xfree(path);
		return;
	}
	root = json_object_from_file(path);
	if (!root) {
		char *why = xstrdup(json_util_get_last_err()), *kept = NULL;

		/* json-c's message ends with a newline */
		why[strcspn(why, "\n")] = '\0';
		set_aside_as(path, &kept);
		error("sched/optimus: cannot parse state file %s (%s; cut short mid-save?): corrupt state kept as %s; %s",
		      path, why, kept ? kept : "(cannot rename it)",
		      load_previous(path));
		xfree(kept);
		xfree(why);
	} else if ((rc = registry_from_json(root, err, sizeof(err))) < 0) {
		error("sched/optimus: state file %s: %s", path, err);
		set_aside(path);
	} else if (rc > 0) {
		/*
		 * Records skipped (each logged): the file itself is readable,
		 * so it is not set aside. Set-aside copies are for files
		 * nothing can be read from: a copy per skipped record would
		 * let one user's repeated faults, one per restart, rotate
		 * out every copy kept for the admin (STATE_FILE_KEEP_ASIDE).
		 */
		error("sched/optimus: state file %s: %s; recovered model state of %d jobs",
		      path, err, registry_count());
	} else {
		info("sched/optimus: recovered model state of %d jobs from %s",
		     registry_count(), path);
	}
	if (root)
		json_object_put(root);
	xfree(path);
}
