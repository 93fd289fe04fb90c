/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * fuzz_protocol.c - libFuzzer target for everything a peer's bytes reach
 * before and after the credential check: the frame header, the envelope,
 * the message parser, the reply parser, and the whole report service
 * (replay cache, authorisation, queue, history, queries) with a fake
 * credential checker that accepts "FAKE:<uid>:<payload>" so the fuzzer can
 * get past authentication. Build and run: testsuite/fuzz/run.sh.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/protocol.h"
#include "report/service.h"

static munge_auth_status_t fake_verify(const char *socket, const char *cred,
				       const char *payload, size_t len,
				       uid_t *uid, char *err, size_t errlen)
{
	unsigned u;
	int off = 0;

	if (sscanf(cred, "FAKE:%u:%n", &u, &off) != 1 || !off)
		return MUNGE_AUTH_INVALID;
	if (strlen(cred + off) != len || memcmp(cred + off, payload, len))
		return MUNGE_AUTH_MISMATCH;
	*uid = u % 4;
	return MUNGE_AUTH_OK;
}

static int job_owner(uint32_t job_id, uid_t *uid, uint32_t *run)
{
	if (job_id % 3 == 0)
		return -ENOENT;
	*uid = job_id % 4;
	*run = job_id % 5;
	return 0;
}

static report_service_t *service(void)
{
	static report_service_t *s;

	if (!s) {
		report_service_conf_t c = REPORT_SERVICE_CONF_DEFAULT;
		report_callbacks_t cb = { .job_owner = job_owner };

		c.verify = fake_verify;
		c.queue_capacity = 64;
		c.replay_capacity = 4096;
		c.history_jobs = 16;
		c.history_per_job = 8;
		s = report_service_create(&c, &cb);
		report_service_attach_consumer(s);
	}
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256], *payload, *cred, *reply;
	report_outcome_t out;
	json_object *res;
	report_t drained[64];
	message_t m;
	uint32_t len;

	if (size >= PROTOCOL_HEADER_LEN)
		protocol_header_decode(data, &len);
	if (protocol_envelope_parse((const char *)data, size, &payload, &cred,
				    err, sizeof(err)) == 0) {
		free(payload);
		free(cred);
	}
	if (protocol_message_parse((const char *)data, size, &m, err,
				   sizeof(err)) == 0) {
		char *again = protocol_message_build(&m);

		free(again);
	}
	if (protocol_reply_parse((const char *)data, size, &res, err,
				 sizeof(err)) == 0)
		json_object_put(res);
	/* The time is taken from the message's own range to reach the
	 * replay cache: 1700000000 is what the seed corpus uses. */
	reply = report_service_handle(service(), (const char *)data, size,
				      1700000000.0, &out);
	free(reply);
	report_queue_drain(report_service_attach_consumer(service()), drained, 64);
	return 0;
}
