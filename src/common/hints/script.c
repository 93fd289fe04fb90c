/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* hints/script.c - what a batch script's text tells before it runs. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hints/keys.h"
#include "hints/script.h"

bool hints_elastic(const optimus_hints_t *h)
{
	return h->min_ps < h->max_ps || h->min_workers < h->max_workers;
}

/* Does the word (quotes stripped) name the signal? */
static bool word_names_signal(const char *w, size_t n, int signum)
{
	const char *name = hints_signal_name(signum);
	char buf[32];

	while (n && (*w == '\'' || *w == '"')) {
		w++;
		n--;
	}
	while (n && (w[n - 1] == '\'' || w[n - 1] == '"'))
		n--;
	if (!n || n >= sizeof(buf))
		return false;
	memcpy(buf, w, n);
	buf[n] = '\0';
	if (isdigit((unsigned char)buf[0]))
		return atoi(buf) == signum;
	if (!strncasecmp(buf, "SIG", 3))
		memmove(buf, buf + 3, n - 2);
	return name && !strcasecmp(buf, name);
}

/* One line, comment already cut: a trap of the signal, or an exec of a
 * command (not `exec >log 2>&1`, which only redirects). */
static bool line_survives(const char *s, size_t len, int signum)
{
	const char *end = s + len, *w;
	bool in_trap = false, after_exec = false, cmd_pos = true;

	while (s < end) {
		while (s < end && isspace((unsigned char)*s))
			s++;
		if (s < end && strchr(";&|()", *s)) {
			in_trap = after_exec = false;
			cmd_pos = true;
			s++;
			continue;
		}
		/* a word; quoted text (a trap's action) is part of it */
		for (w = s; s < end && !isspace((unsigned char)*s) &&
			    !strchr(";&|()", *s); s++) {
			if (*s == '\'' || *s == '"') {
				const char *q = memchr(s + 1, *s,
						       (size_t)(end - s - 1));

				s = q ? q : end - 1;
			}
		}
		if (s == w)
			continue;
		if (after_exec)
			return !strchr("<>0123456789", *w);
		if (in_trap && word_names_signal(w, (size_t)(s - w), signum))
			return true;
		if (cmd_pos && (size_t)(s - w) == 4 && !strncmp(w, "trap", 4))
			in_trap = true;
		else if (cmd_pos && (size_t)(s - w) == 4 && !strncmp(w, "exec", 4))
			after_exec = true;
		cmd_pos = false;
	}
	return false;
}

bool hints_script_survives_signal(const char *script, int signum)
{
	const char *s = script;

	while (s && *s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		const char *hash = memchr(s, '#', len);

		/* a comment starts a line or follows a blank (not ${#x}) */
		if (hash && (hash == s || isspace((unsigned char)hash[-1])))
			len = (size_t)(hash - s);
		if (line_survives(s, len, signum))
			return true;
		s = nl ? nl + 1 : NULL;
	}
	return false;
}

void hints_script_warning(const optimus_hints_t *h, char *buf, size_t len)
{
	const char *name = hints_signal_name(h->ckpt_signal);
	char sig[16];

	if (name)
		snprintf(sig, sizeof(sig), "%s", name);
	else
		snprintf(sig, sizeof(sig), "%d", h->ckpt_signal);
	snprintf(buf, len,
		 "optimus: warning: this job asks to be resized (ps %u..%u, "
		 "workers %u..%u) but is not resizable: its batch script "
		 "neither traps the checkpoint signal (%s) nor execs its "
		 "command, so that signal would end it. A job is resized only "
		 "if it: declares at every start, once its handler is in "
		 "place, that it can checkpoint "
		 "(optimus-report checkpoint --step S, or "
		 "Reporter.handle_checkpoints in Python); survives the signal "
		 "(trap 'echo checkpoint >&2' %s before srun, or exec srun); "
		 "confirms each checkpoint it writes on the signal "
		 "(optimus-report checkpoint --step S); resumes from "
		 "$OPTIMUS_CHECKPOINT_DIR. Until then it keeps its size "
		 "(SystemComment: resizable=no). See optimus_hints(5).",
		 h->min_ps, h->max_ps, h->min_workers, h->max_workers, sig, sig);
}
