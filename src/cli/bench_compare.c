// SPDX-License-Identifier: MIT
// `vkcollide bench --compare A.json B.json` (bench.h): every figure the two
// reports share, by its key (the workload's id, then the figure's name),
// with the ratio of the medians B / A. A change is flagged when it lies
// beyond the reports' own spread: when the ranges [min, max] of the two
// figures, each over its repeats, do not overlap; for an exact figure (a
// count of answers) when the values differ. A figure measured once in
// either report has no spread and is never flagged.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct entry {
	char *key;
	json_object *figure;
} entry;

typedef struct entries {
	entry *v;
	size_t n, cap;
} entries;

static void add(entries *e, const char *prefix, const char *name, json_object *figure)
{
	if (e->n == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 256;
		entry *v = realloc(e->v, cap * sizeof(*v));
		if (!v)
			return;
		e->v = v;
		e->cap = cap;
	}
	size_t len = strlen(prefix) + strlen(name) + 2;
	char *key = malloc(len);
	if (!key)
		return;
	snprintf(key, len, "%s:%s", prefix, name);
	e->v[e->n++] = (entry){key, figure};
}

// Every member of a "figures" object under prefix.
static void add_figures(entries *e, const char *prefix, json_object *holder)
{
	json_object *figures;
	if (!holder || !json_object_object_get_ex(holder, "figures", &figures) || !figures)
		return;
	json_object_object_foreach(figures, name, figure)
	{
		if (figure && json_object_is_type(figure, json_type_object))
			add(e, prefix, name, figure);
	}
}

static const char *string_of(json_object *o, const char *key, const char *fallback)
{
	json_object *v;
	if (o && json_object_object_get_ex(o, key, &v) && v && json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return fallback;
}

// The figures of a report, keyed: "device:NAME", then per case
// "CASE/SUB:NAME" with SUB a mesh, a peer, a run or an accuracy entry (each
// has an "id").
static void collect(json_object *report, entries *e)
{
	json_object *device_rates, *cases;
	if (json_object_object_get_ex(report, "device_rates", &device_rates))
		add_figures(e, "device", device_rates);
	if (!json_object_object_get_ex(report, "cases", &cases) || !json_object_is_type(cases, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(cases); i++) {
		json_object *c = json_object_array_get_idx(cases, i);
		const char *id = string_of(c, "id", "?");
		const char *lists[] = {"meshes", "peers", "runs", "accuracy"};
		for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
			json_object *list;
			if (!json_object_object_get_ex(c, lists[l], &list) || !json_object_is_type(list, json_type_array))
				continue;
			for (size_t k = 0; k < json_object_array_length(list); k++) {
				json_object *item = json_object_array_get_idx(list, k);
				char prefix[512];
				snprintf(prefix, sizeof prefix, "%s/%s", id, string_of(item, "id", "?"));
				add_figures(e, prefix, item);
			}
		}
	}
}

static double get(json_object *f, const char *key)
{
	json_object *v;
	if (!json_object_object_get_ex(f, key, &v) || !v)
		return NAN;
	return json_object_get_double(v);
}

static json_object *load(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		error_line("%s: cannot read it: %s", path, strerror(errno));
		return NULL;
	}
	fclose(f);
	json_object *r = json_object_from_file(path);
	if (!r) {
		// json-c's message ends with a newline.
		const char *why = json_util_get_last_err();
		error_line("%s: not a JSON file (%.*s)", path, why ? (int)strcspn(why, "\n") : 0, why ? why : "");
		return NULL;
	}
	const char *schema = string_of(r, "schema", "");
	json_object *v;
	int version = json_object_object_get_ex(r, "schema_version", &v) ? json_object_get_int(v) : 0;
	if (strcmp(schema, BENCH_SCHEMA) != 0 || version < 1 || version > BENCH_SCHEMA_VERSION) {
		error_line("%s: not a vkcollide bench report of schema version 1..%d (schema \"%s\", version %d)", path,
		           BENCH_SCHEMA_VERSION, schema, version);
		json_object_put(r);
		return NULL;
	}
	return r;
}

static void describe(const char *label, const char *path, json_object *r)
{
	json_object *device = NULL, *tool = NULL;
	json_object_object_get_ex(r, "device", &device);
	json_object_object_get_ex(r, "tool", &tool);
	printf("%s: %s\n   %s, driver %s; vkcollide %s (%s); %s suite, %s\n", label, path,
	       string_of(device, "name", "?"), string_of(device, "driver", "?"), string_of(tool, "version", "?"),
	       string_of(tool, "commit", "?"), string_of(r, "suite", "?"), string_of(r, "created", "?"));
}

int bench_compare(const char *path_a, const char *path_b, bool as_json)
{
	json_object *a = load(path_a), *b = a ? load(path_b) : NULL;
	if (!a || !b) {
		json_object_put(a);
		return EXIT_USAGE;
	}
	entries ea = {0}, eb = {0};
	collect(a, &ea);
	collect(b, &eb);
	json_object *out = as_json ? json_object_new_array() : NULL;
	if (!as_json) {
		describe("A", path_a, a);
		describe("B", path_b, b);
		printf("\n%-72s %12s %12s %8s  %s\n", "figure", "A", "B", "B/A", "beyond spread");
	}
	size_t shared = 0, flagged = 0, better = 0, worse = 0, only_b = 0;
	for (size_t j = 0; j < eb.n; j++) {
		size_t i = 0;
		while (i < ea.n && strcmp(ea.v[i].key, eb.v[j].key) != 0)
			i++;
		if (i == ea.n) {
			only_b++;
			continue;
		}
		shared++;
		json_object *fa = ea.v[i].figure, *fb = eb.v[j].figure, *v;
		double am = get(fa, "median"), bm = get(fb, "median");
		int na = json_object_object_get_ex(fa, "n", &v) ? json_object_get_int(v) : 1;
		int nb = json_object_object_get_ex(fb, "n", &v) ? json_object_get_int(v) : 1;
		bool exact = json_object_object_get_ex(fa, "exact", &v) && json_object_get_boolean(v);
		const char *dir = string_of(fa, "better", "");
		double ratio = am != 0 ? bm / am : (bm == 0 ? 1.0 : INFINITY);
		const char *flag = "";
		if (exact) {
			if (am != bm && !(isnan(am) && isnan(bm)))
				flag = "changed";
		} else if (na >= 2 && nb >= 2) {
			double alo = get(fa, "min"), ahi = get(fa, "max"), blo = get(fb, "min"), bhi = get(fb, "max");
			if (blo > ahi || bhi < alo) {
				bool up = blo > ahi;
				if (!strcmp(dir, "higher"))
					flag = up ? "better" : "worse";
				else if (!strcmp(dir, "lower"))
					flag = up ? "worse" : "better";
				else
					flag = "changed";
			}
		}
		if (*flag) {
			flagged++;
			better += !strcmp(flag, "better");
			worse += !strcmp(flag, "worse");
		}
		if (as_json) {
			json_object *row = json_object_new_object();
			json_object_object_add(row, "figure", json_object_new_string(eb.v[j].key));
			json_object_object_add(row, "a", bench_number(am));
			json_object_object_add(row, "b", bench_number(bm));
			json_object_object_add(row, "ratio", bench_number(ratio));
			json_object_object_add(row, "flag", *flag ? json_object_new_string(flag) : NULL);
			json_object_array_add(out, row);
		} else {
			printf("%-72s %12.4g %12.4g %8.3f  %s\n", eb.v[j].key, am, bm, ratio, flag);
		}
	}
	size_t only_a = ea.n - shared;
	if (as_json) {
		json_object *top = json_object_new_object();
		json_object_object_add(top, "a", json_object_new_string(path_a));
		json_object_object_add(top, "b", json_object_new_string(path_b));
		json_object_object_add(top, "figures", out);
		json_object_object_add(top, "beyond_spread", json_object_new_int64((int64_t)flagged));
		json_object_object_add(top, "only_in_a", json_object_new_int64((int64_t)only_a));
		json_object_object_add(top, "only_in_b", json_object_new_int64((int64_t)only_b));
		printf("%s\n", json_object_to_json_string_ext(top, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(top);
	} else {
		printf("\n%zu figures in both, %zu beyond the reports' spread (%zu better, %zu worse, %zu changed); "
		       "%zu only in A, %zu only in B\n",
		       shared, flagged, better, worse, flagged - better - worse, only_a, only_b);
	}
	for (size_t i = 0; i < ea.n; i++)
		free(ea.v[i].key);
	for (size_t i = 0; i < eb.n; i++)
		free(eb.v[i].key);
	free(ea.v);
	free(eb.v);
	json_object_put(a);
	json_object_put(b);
	return 0;
}
