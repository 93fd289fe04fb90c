/*
 * query.h - answers to optimusctl's queries (status, job N, plan) from the
 * planner's registry. Called from the listener thread.
 */
#ifndef OPTIMUS_QUERY_H
#define OPTIMUS_QUERY_H

#include <sys/types.h>

#include <json-c/json.h>

#include "report/protocol.h"

extern json_object *query_answer(const query_t *q, uid_t uid);

#endif
