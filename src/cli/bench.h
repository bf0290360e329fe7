// SPDX-License-Identifier: MIT
// `vkcollide bench`: the benchmark suite (bench.c), its report's figures
// (bench_figure.c) and the comparison of two reports (bench_compare.c).
// The report's schema is BENCHMARKS.md's "The report".
#pragma once

#include <json-c/json.h>

#include "cli.h"

extern const command bench_command;

// The report's schema name and version: a reader refuses another name, and
// a version it does not know; a version changes whenever a field changes
// meaning or goes away (a new field alone does not change it).
#define BENCH_SCHEMA "vkcollide-bench"
#define BENCH_SCHEMA_VERSION 1

// A number for the report: 6 significant digits, null when not finite.
json_object *bench_number(double v);

// A figure: {"unit", "better", "median", "min", "max", "n", "samples"}.
// better: "higher", "lower" or NULL (neither: a count that describes the
// workload). exact: the figure is a deterministic count or rate of
// answers, compared as equal or not rather than by its spread.
json_object *bench_figure(const char *unit, const char *better, const double *samples, int n);
json_object *bench_figure_exact(const char *unit, double value);
// a / b as a figure: median over median, and the range from the extremes
// (a.min / b.max .. a.max / b.min); NULL when either is missing or zero.
json_object *bench_figure_ratio(json_object *a, json_object *b);
// Adds key: v to o unless v is NULL.
void bench_add(json_object *o, const char *key, json_object *v);
// The JSON of a file, or NULL when it is missing or not JSON.
json_object *bench_read_json(const char *path);
// A member as a number, NaN when absent or null.
double bench_number_at(json_object *o, const char *key);

// A figure's median, or NaN.
double bench_figure_median(json_object *figure);

// `vkcollide bench --compare A B`: prints every figure the two reports
// share with its ratio B / A, and flags the changes beyond their spread.
int bench_compare(const char *path_a, const char *path_b, bool as_json);
