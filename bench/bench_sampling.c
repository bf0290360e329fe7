// SPDX-License-Identifier: MIT
// Stage 1 against the device's raw cube-sampling rate, in one run on the same
// cube-array image and sampler: the raw rate from sample_raw.comp (random
// directions, nothing else), stage 1's from an approx batch's counters
// (cube samples / wall time of the whole batch call, so uploads, stage 0 and
// readback count against it: a lower bound of stage 1's own rate). Stage 1
// culls vertices by cluster balls, boxes and cone bounds before it samples,
// so it takes well under one sample per pair; two more rates say what that
// buys: the vertices it tests one by one per second, and the vertices of
// both meshes of the pairs it answers per second (the samples per second a
// stage 1 that sampled every vertex would need to keep up).
// Output: one JSON object. Usage: bench_sampling [--pairs N] [--repeat R]
//   [--resolution N] [--out FILE]
#include <math.h>
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

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), compare_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
	uint64_t pair_count = 200000;
	int repeat = 5;
	uint32_t resolution = 64;
	const char *out_path = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--pairs") && i + 1 < argc)
			pair_count = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
			repeat = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--resolution") && i + 1 < argc)
			resolution = (uint32_t)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out_path = argv[++i];
		else {
			fprintf(stderr, "usage: bench_sampling [--pairs N] [--repeat R] [--resolution N] [--out FILE]\n");
			return 2;
		}
	}
	if (repeat < 1 || repeat > 64 || pair_count == 0)
		return 2;
	vkcol_context *ctx = NULL;
	if (vkcol_context_create(NULL, &ctx) != VKCOL_SUCCESS)
		return 1;
	// A star-free convex mesh of about 2,000 triangles, as in the target.
	meshgen_mesh sphere;
	const float c[3] = {0, 0, 0};
	if (!meshgen_sphere(&sphere, c, 1.0f, 24, 48))
		return 1;
	vkcol_mesh_desc md = meshgen_desc(&sphere, "sphere");
	md.cube_resolution = resolution;
	vkcol_mesh m;
	if (vkcol_mesh_create(ctx, &md, &m) != VKCOL_SUCCESS)
		return 1;
	vkcol_pair *pairs = malloc(pair_count * sizeof(*pairs));
	vkcol_pair_result *results = malloc(pair_count * sizeof(*results));
	uint64_t state = 12345;
	// Translation radius 2.4 r: about 45 % of pairs collide.
	for (uint64_t i = 0; i < pair_count; i++)
		pairs[i] = (vkcol_pair){m, m, meshgen_random_pose(&state, 0.0f), meshgen_random_pose(&state, 2.4f)};
	vkcol_batch_stats stats;
	vkcol_batch_desc bd = {.pairs = pairs, .pair_count = pair_count, .mode = VKCOL_MODE_APPROX, .stats = &stats};
	if (vkcol_batch_run(ctx, &bd, results) != VKCOL_SUCCESS) // warm-up: pipeline compile, pool
		return 1;
	double stage1[64], raw[64], pairs_per_s[64], tests_per_s[64], vertices_per_s[64];
	// Both meshes' vertices, for every pair stage 0 leaves to stage 1.
	const double vertices_per_pair = 2.0 * sphere.vertex_count;
	for (int r = 0; r < repeat; r++) {
		// Alternate the two measurements so drift affects both alike.
		if (vkcol_batch_run(ctx, &bd, results) != VKCOL_SUCCESS)
			return 1;
		stage1[r] = (double)stats.cube_samples / stats.seconds;
		pairs_per_s[r] = (double)stats.pairs / stats.seconds;
		tests_per_s[r] = (double)stats.vertex_tests / stats.seconds;
		vertices_per_s[r] = (double)(stats.pairs - stats.sphere_rejected) * vertices_per_pair / stats.seconds;
		bool device_timed;
		if (raw_sampling_rates(ctx, resolution, 0.05, 1, &raw[r], &device_timed) != VKCOL_SUCCESS)
			return 1;
	}
	vkcol_device_info info;
	vkcol_context_get_device_info(ctx, &info);
	double s1 = median(stage1, repeat), rw = median(raw, repeat), pps = median(pairs_per_s, repeat);
	double tps = median(tests_per_s, repeat), vps = median(vertices_per_s, repeat);
	FILE *out = out_path ? fopen(out_path, "w") : stdout;
	if (!out)
		return 1;
	fprintf(out,
	        "{\"bench\":\"sampling\",\"device\":\"%s\",\"mesh\":\"uv sphere\",\"triangles\":%u,\"resolution\":%u,"
	        "\"pairs\":%llu,\"repeat\":%d,\"collide_fraction\":%.4f,\"sphere_rejected_fraction\":%.4f,"
	        "\"samples_per_pair\":%.2f,\"median_pairs_per_s\":%.0f,\"median_stage1_samples_per_s\":%.0f,"
	        "\"median_raw_samples_per_s\":%.0f,\"stage1_fraction_of_raw\":%.3f,"
	        "\"median_stage1_vertex_tests_per_s\":%.0f,\"vertex_tests_fraction_of_raw\":%.3f,"
	        "\"median_stage1_vertices_answered_per_s\":%.0f,\"vertices_answered_fraction_of_raw\":%.3f}\n",
	        info.name, sphere.triangle_count, resolution, (unsigned long long)pair_count, repeat,
	        (double)stats.collisions / (double)stats.pairs, (double)stats.sphere_rejected / (double)stats.pairs,
	        (double)stats.cube_samples / (double)stats.pairs, pps, s1, rw, s1 / rw, tps, tps / rw, vps, vps / rw);
	if (out != stdout)
		fclose(out);
	free(pairs);
	free(results);
	meshgen_free(&sphere);
	vkcol_context_destroy(ctx);
	return 0;
}
