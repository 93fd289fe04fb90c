/*
 * state_file.c - sched/optimus' state in StateSaveLocation.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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

extern int state_file_save(void)
{
	char *path = state_file_path();
	char *tmp = xstrdup_printf("%s.new", path);
	/* user text (hints) escaped by the one rule: valid UTF-8 on disk */
	json_object *root = json_strict_strings(registry_to_json());
	const char *text = json_object_to_json_string_ext(root,
							  JSON_C_TO_STRING_PLAIN);
	int rc = SLURM_ERROR;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0) {
		error("sched/optimus: cannot create %s: %m", tmp);
	} else if (write_all(fd, text, strlen(text)) || fsync(fd)) {
		error("sched/optimus: cannot write %s: %m", tmp);
		close(fd);
	} else if (close(fd) || rename(tmp, path)) {
		error("sched/optimus: cannot replace %s: %m", path);
	} else {
		rc = SLURM_SUCCESS;
	}
	if (rc != SLURM_SUCCESS)
		(void) unlink(tmp);
	json_object_put(root);
	xfree(tmp);
	xfree(path);
	return rc;
}

/* Keep a corrupt file for the admin instead of overwriting it. */
static void set_aside(const char *path)
{
	char *aside = xstrdup_printf("%s.corrupt", path);

	if (rename(path, aside))
		error("sched/optimus: cannot rename %s to %s: %m", path, aside);
	else
		error("sched/optimus: corrupt state kept as %s", aside);
	xfree(aside);
}

extern void state_file_load(void)
{
	char *path = state_file_path();
	char err[256] = "";
	json_object *root;
	struct stat st;

	if (stat(path, &st) && errno == ENOENT) {
		info("sched/optimus: no saved state in %s, starting empty", path);
		xfree(path);
		return;
	}
	root = json_object_from_file(path);
	if (!root) {
		error("sched/optimus: cannot parse state file %s: %s; starting without saved model state",
		      path, json_util_get_last_err());
		set_aside(path);
	} else if (registry_from_json(root, err, sizeof(err))) {
		error("sched/optimus: state file %s: %s", path, err);
		set_aside(path);
	} else {
		info("sched/optimus: recovered model state of %d jobs from %s",
		     registry_count(), path);
	}
	if (root)
		json_object_put(root);
	xfree(path);
}
