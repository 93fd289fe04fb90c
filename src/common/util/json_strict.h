/*
 * json_strict.h - make a json-c tree strict JSON before it is printed.
 *
 * json-c prints a non-finite double as Infinity, -Infinity or NaN, which
 * no strict JSON parser accepts (RFC 8259 has no such numbers); a waiting
 * job's remaining time is infinite. Every JSON text the project prints or
 * sends goes through json_strict() first: non-finite numbers become null.
 */
#ifndef OPTIMUS_JSON_STRICT_H
#define OPTIMUS_JSON_STRICT_H

#include <json-c/json.h>

/* Replace, in place and at any depth, every non-finite double under o by
 * null. Returns o. */
json_object *json_strict(json_object *o);

#endif
