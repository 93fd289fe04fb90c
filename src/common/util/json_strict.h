/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * json_strict.h - make a json-c tree strict JSON before it is printed.
 *
 * json-c prints a non-finite double as Infinity, -Infinity or NaN, which
 * no strict JSON parser accepts (RFC 8259 has no such numbers); a waiting
 * job's remaining time is infinite. Every JSON text the project prints or
 * sends goes through json_strict() first: non-finite numbers become null.
 * Strings carry user text (hints, report fields): one that is not valid
 * UTF-8 or holds a character escape.h calls unsafe is replaced by its
 * escape (str_escape), the one rule of the logs, so that the state file
 * and every reply stay valid UTF-8 for a strict reader. Object keys are
 * the project's own names and are left as they are.
 */
#ifndef OPTIMUS_JSON_STRICT_H
#define OPTIMUS_JSON_STRICT_H

#include <json-c/json.h>

/* Replace, in place and at any depth, every non-finite double under o by
 * null and every unsafe string by its escape. Returns o. */
json_object *json_strict(json_object *o);

/* Only the strings' part of json_strict(): for the plugin's own state
 * file, which json-c reads back with its non-finite numbers. */
json_object *json_strict_strings(json_object *o);

#endif
