// SPDX-License-Identifier: MIT
// The device's raw cube-sampling rate and memory bandwidth (raw_rates.h), as
// one JSON object: what `vkcollide bench` divides each batch stage's rate
// by. Installed beside the benchmark peers (libexec/vkcollide).
// Usage: device_rates [--device I|NAME] [--resolution N] [--repeat R]
//   [--min-seconds S] [--out FILE]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meshgen.h"
#include "raw_rates.h"

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

// {"median": m, "min": a, "max": b, "samples": [...]}: the benchmark
// report's figure, so the rates read as every other figure does.
static void print_figure(FILE *out, const char *name, const char *unit, const double *v, int n)
{
	double sorted[64];
	memcpy(sorted, v, (size_t)n * sizeof(double));
	qsort(sorted, (size_t)n, sizeof(double), compare_double);
	double median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
	fprintf(out, "  \"%s\": {\"unit\": \"%s\", \"better\": \"higher\", \"median\": %.6g, \"min\": %.6g, \"max\": %.6g, "
	             "\"samples\": [", name, unit, median, sorted[0], sorted[n - 1]);
	for (int i = 0; i < n; i++)
		fprintf(out, "%s%.6g", i ? ", " : "", v[i]);
	fprintf(out, "]}");
}

int main(int argc, char **argv)
{
	const char *device = NULL, *out_path = NULL;
	int repeat = 5;
	uint32_t resolution = 64;
	double min_seconds = 0.05;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--device") && i + 1 < argc)
			device = argv[++i];
		else if (!strcmp(argv[i], "--resolution") && i + 1 < argc)
			resolution = (uint32_t)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
			repeat = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--min-seconds") && i + 1 < argc)
			min_seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out_path = argv[++i];
		else {
			fprintf(stderr, "usage: device_rates [--device I|NAME] [--resolution N] [--repeat R] [--min-seconds S] "
			                "[--out FILE]\n");
			return 2;
		}
	}
	if (repeat < 1 || repeat > 64 || resolution < 4 || resolution > 1024 || !(min_seconds > 0))
		return 2;
	vkcol_context_desc cd = {.device = device};
	vkcol_context *ctx = NULL;
	vkcol_result r = vkcol_context_create(&cd, &ctx);
	if (r != VKCOL_SUCCESS) {
		fprintf(stderr, "device_rates: no context: %s\n", vkcol_result_string(r));
		return 1;
	}
	// The sampling kernel reads the batch pool's cube array: one mesh of
	// the resolution fills it.
	meshgen_mesh sphere;
	const float c[3] = {0, 0, 0};
	vkcol_mesh m;
	if (!meshgen_sphere(&sphere, c, 1.0f, 24, 48))
		return 1;
	vkcol_mesh_desc md = meshgen_desc(&sphere, "sphere");
	md.cube_resolution = resolution;
	double sampling[64], bandwidth[64];
	uint64_t buffer_bytes = 0;
	bool sampling_timed = false, bandwidth_timed = false;
	if ((r = vkcol_mesh_create(ctx, &md, &m)) != VKCOL_SUCCESS ||
	    (r = raw_sampling_rates(ctx, resolution, min_seconds, repeat, sampling, &sampling_timed)) != VKCOL_SUCCESS ||
	    (r = raw_bandwidth_rates(ctx, min_seconds, repeat, bandwidth, &buffer_bytes, &bandwidth_timed)) !=
	        VKCOL_SUCCESS) {
		fprintf(stderr, "device_rates: %s\n", vkcol_result_string(r));
		return 1;
	}
	vkcol_device_info info;
	vkcol_context_get_device_info(ctx, &info);
	FILE *out = out_path ? fopen(out_path, "w") : stdout;
	if (!out)
		return 1;
	fprintf(out, "{\n  \"device\": \"");
	for (const char *p = info.name; *p; p++)
		fprintf(out, *p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
	fprintf(out, "\",\n  \"sampling_resolution\": %u,\n  \"sampling_timed_by\": \"%s\",\n", resolution,
	        sampling_timed ? "timestamps" : "host clock");
	fprintf(out, "  \"bandwidth_buffer_bytes\": %llu,\n  \"bandwidth_timed_by\": \"%s\",\n",
	        (unsigned long long)buffer_bytes, bandwidth_timed ? "timestamps" : "host clock");
	print_figure(out, "raw_samples_per_second", "samples/s", sampling, repeat);
	fprintf(out, ",\n");
	print_figure(out, "bandwidth_bytes_per_second", "bytes/s", bandwidth, repeat);
	uint64_t messages = vkcol_context_validation_message_count(ctx);
	fprintf(out, ",\n  \"validation_messages\": %llu\n}\n", (unsigned long long)messages);
	// Like the tool's commands, a run the validation layer spoke in fails.
	int status = (out != stdout && fclose(out) != 0) || messages > 0;
	meshgen_free(&sphere);
	vkcol_context_destroy(ctx);
	return status;
}
