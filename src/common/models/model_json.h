/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* model_json.h - JSON (json-c) state of the models, for saving the
 * scheduler's state to a file and showing it.
 *
 * *_to_json() returns a new object (NULL on no memory). *_from_json()
 * validates strictly (types, ranges, finite numbers, sizes, ordering) and
 * returns 0 or -EINVAL / -ENOMEM with a message in err (may be NULL); on
 * error nothing is allocated for the caller.
 */
#ifndef OPTIMUS_MODEL_JSON_H
#define OPTIMUS_MODEL_JSON_H

#include <json-c/json.h>

#include "models/convergence.h"
#include "models/quality_model.h"
#include "models/speed_model.h"
#include "models/speed_profiles.h"

json_object *convergence_to_json(const convergence_t *c);
int convergence_from_json(json_object *o, convergence_t **out, char *err,
			  size_t errlen);

json_object *speed_model_to_json(const speed_model_t *m);
/* out is initialised here; speed_model_clear() it afterwards. */
int speed_model_from_json(json_object *o, speed_model_t *out, char *err,
			  size_t errlen);

json_object *speed_profiles_to_json(const speed_profiles_t *reg);
int speed_profiles_from_json(json_object *o, speed_profiles_t **out,
			     char *err, size_t errlen);

json_object *quality_model_to_json(const quality_model_t *q);
/* out is initialised here; quality_model_clear() it afterwards. */
int quality_model_from_json(json_object *o, quality_model_t *out, char *err,
			    size_t errlen);

#endif
