/* json_strict.c - non-finite numbers become null (json_strict.h). */
#include <math.h>

#include "util/json_strict.h"

static int json_nonfinite(json_object *v)
{
	return json_object_is_type(v, json_type_double) &&
	       !isfinite(json_object_get_double(v));
}

json_object *json_strict(json_object *o)
{
	if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, key, val) {
			if (json_nonfinite(val))
				json_object_object_add(o, key, NULL);
			else
				json_strict(val);
		}
	} else if (json_object_is_type(o, json_type_array)) {
		size_t n = json_object_array_length(o);

		for (size_t i = 0; i < n; i++) {
			json_object *v = json_object_array_get_idx(o, i);

			if (json_nonfinite(v))
				json_object_array_put_idx(o, i, NULL);
			else
				json_strict(v);
		}
	}
	return o;
}
