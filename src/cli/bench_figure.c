// SPDX-License-Identifier: MIT
// The figures of a benchmark report (bench.h): every measured value is a
// small object with its spread over the repeats, so that any two reports
// compare figure by figure (bench_compare.c); and the JSON helpers the
// bench files share.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"

json_object *bench_number(double v)
{
	if (!isfinite(v))
		return NULL; // json-c writes a NULL member as null
	char text[32];
	snprintf(text, sizeof text, "%.6g", v);
	// Integers up to 2^53 keep every digit (pair counts, bytes).
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		return json_object_new_int64((int64_t)v);
	return json_object_new_double_s(v, text);
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static json_object *figure_object(const char *unit, const char *better, double median, double lo, double hi, int n)
{
	json_object *f = json_object_new_object();
	json_object_object_add(f, "unit", json_object_new_string(unit));
	json_object_object_add(f, "better", better ? json_object_new_string(better) : NULL);
	json_object_object_add(f, "median", bench_number(median));
	json_object_object_add(f, "min", bench_number(lo));
	json_object_object_add(f, "max", bench_number(hi));
	json_object_object_add(f, "n", json_object_new_int(n));
	return f;
}

json_object *bench_figure(const char *unit, const char *better, const double *samples, int n)
{
	if (n <= 0)
		return NULL;
	double *v = malloc((size_t)n * sizeof(double));
	if (!v)
		return NULL;
	memcpy(v, samples, (size_t)n * sizeof(double));
	qsort(v, (size_t)n, sizeof(double), compare_double);
	double median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
	json_object *f = figure_object(unit, better, median, v[0], v[n - 1], n);
	free(v);
	json_object *list = json_object_new_array();
	for (int i = 0; i < n; i++)
		json_object_array_add(list, bench_number(samples[i]));
	json_object_object_add(f, "samples", list);
	return f;
}

json_object *bench_figure_exact(const char *unit, double value)
{
	json_object *f = figure_object(unit, NULL, value, value, value, 1);
	json_object_object_add(f, "exact", json_object_new_boolean(1));
	return f;
}

static double member(json_object *f, const char *key)
{
	json_object *v;
	if (!f || !json_object_object_get_ex(f, key, &v) || !v)
		return NAN;
	return json_object_get_double(v);
}

void bench_add(json_object *o, const char *key, json_object *v)
{
	if (v)
		json_object_object_add(o, key, v);
}

json_object *bench_read_json(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? json_object_from_file(path) : NULL;
}

double bench_number_at(json_object *o, const char *key)
{
	return member(o, key);
}

double bench_figure_median(json_object *figure)
{
	return member(figure, "median");
}

json_object *bench_figure_ratio(json_object *a, json_object *b)
{
	double am = member(a, "median"), bm = member(b, "median");
	double alo = member(a, "min"), ahi = member(a, "max"), blo = member(b, "min"), bhi = member(b, "max");
	if (!(am > 0) || !(bm > 0) || !(blo > 0) || !(bhi > 0))
		return NULL;
	json_object *n;
	int na = json_object_object_get_ex(a, "n", &n) ? json_object_get_int(n) : 1;
	int nb = json_object_object_get_ex(b, "n", &n) ? json_object_get_int(n) : 1;
	return figure_object("ratio", "higher", am / bm, alo / bhi, ahi / blo, na < nb ? na : nb);
}
