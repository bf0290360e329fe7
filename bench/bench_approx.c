// SPDX-License-Identifier: MIT
// Approx-mode benchmark driver for one mesh pair: measures
//  (a) accuracy: vkcol_batch_run in approx mode against the exact
//      double-precision reference (vkcol_reference_collide), per cube-map
//      resolution, as false-positive and false-negative counts and rates;
//  (b) speed: median pairs per second of vkcol_batch_run per batch size, and
//      the median time of vkcol_mesh_create (tree + cube map) per resolution
//      and of the first approx batch after it (the clearance field);
// and prints one JSON object (fields in bench/README.md).
//
// Poses place B in A's frame (A stays at the identity). By default they are
// generated in memory with bench/gen_poses.py's sampler, bit for bit: the
// same seed and radius factor give the same poses as the file the FCL peer
// reads (--dump-poses prints them to check). --poses reads a file instead.
//
// Only the public API is used, plus the CLI's Assimp importer.
#include "bench_common.h"

#include <stdlib.h>
#include <string.h>

typedef struct options {
	bench_options common;
	const char *peer_answers; // another tool's 0/1 answers to score against the reference
	const char *peer_name;
	uint64_t accuracy_poses;
	uint32_t resolutions[BENCH_MAX_LIST];
	int resolution_count;
	uint32_t speed_resolutions[BENCH_MAX_LIST];
	int speed_resolution_count;
	uint32_t budgets[BENCH_MAX_LIST]; // vkcol_batch_desc.vertex_budget values
	int budget_count;
	bool set_accuracy, set_resolutions; // given: kept by --quick
} options;

static vkcol_result run_approx(vkcol_context *ctx, const vkcol_pair *pairs, uint64_t count, uint32_t budget,
                               vkcol_pair_result *results)
{
	vkcol_batch_desc desc = {.pairs = pairs, .pair_count = count, .mode = VKCOL_MODE_APPROX, .vertex_budget = budget};
	return vkcol_batch_run(ctx, &desc, results);
}

// The median time, over `repeat` runs, of the first approx batch after a
// mesh is created (one far pair of it against itself): the library copies
// the context's meshes into its pool again and builds the new mesh's
// clearance field, which vkcol_mesh_create leaves to the first approx batch.
// The pipelines are compiled by then (the caller has run an approx batch).
static double first_batch_timed(vkcol_context *ctx, const import_mesh *m, uint32_t resolution, const char *name,
                                int repeat)
{
	double times[64];
	int n = repeat < 64 ? repeat : 64;
	for (int rep = 0; rep < n; rep++) {
		vkcol_mesh mesh;
		vkcol_result r = bench_mesh_create(ctx, m, resolution, name, &mesh);
		if (r != VKCOL_SUCCESS)
			bench_die("vkcol_mesh_create: %s", vkcol_result_string(r));
		vkcol_pair far = {mesh, mesh, {{1, 0, 0, 0}, {0, 0, 0}}, {{1, 0, 0, 0}, {1e6f, 0, 0}}};
		vkcol_pair_result result;
		double t0 = bench_now();
		r = run_approx(ctx, &far, 1, 0, &result);
		times[rep] = bench_now() - t0;
		if (r != VKCOL_SUCCESS)
			bench_die("vkcol_batch_run: %s", vkcol_result_string(r));
		vkcol_mesh_destroy(ctx, mesh);
	}
	return bench_median(times, n);
}

// The usage lines of bench_approx's own options.
static const char own_usage[] =
	"  --accuracy N             poses checked against the reference (default 20000; 0 = skip)\n"
	"  --resolutions LIST       cube-map resolutions for accuracy and build times\n"
	"                           (default 8,16,32,64,128,256)\n"
	"  --speed-resolutions LIST resolutions timed for speed (default 64; empty = skip)\n"
	"  --vertex-budgets LIST    vertex budgets (vkcol_batch_desc.vertex_budget) for\n"
	"                           accuracy and speed, at the first speed resolution\n"
	"                           (default 0: every vertex)\n"
	"  --peer-answers FILE      score another tool's 0/1 answers against the reference\n"
	"  --peer-name NAME         its label (default fcl)\n"
	"  --quick                  smoke run: 2000 accuracy poses, resolutions 8,64,\n"
	"                           batch sizes 1000,10000, 2 repeats\n";

// bench_approx's own options (bench_option_fn).
static int approx_option(void *user, const char *arg, const char *value)
{
	options *opt = user;
	if (!value)
		return 0; // each of them takes a value
	if (!strcmp(arg, "--accuracy")) {
		opt->accuracy_poses = strtoull(value, NULL, 10), opt->set_accuracy = true;
	} else if (!strcmp(arg, "--resolutions") || !strcmp(arg, "--speed-resolutions")) {
		bool speed = arg[2] == 's';
		uint64_t list[BENCH_MAX_LIST];
		int n = *value ? bench_parse_list(value, list, BENCH_MAX_LIST) : 0;
		if (n < 0 || (!speed && n == 0))
			return 0;
		for (int k = 0; k < n; k++) {
			if (list[k] < 4 || list[k] > 1024 || (list[k] & (list[k] - 1)))
				bench_die("resolution %s: must be a power of two in 4..1024", value);
			if (speed)
				opt->speed_resolutions[k] = (uint32_t)list[k];
			else
				opt->resolutions[k] = (uint32_t)list[k];
		}
		if (speed)
			opt->speed_resolution_count = n;
		else
			opt->resolution_count = n, opt->set_resolutions = true;
	} else if (!strcmp(arg, "--vertex-budgets")) {
		uint64_t list[BENCH_MAX_LIST];
		int n = bench_parse_list(value, list, BENCH_MAX_LIST);
		if (n <= 0)
			return 0;
		for (int k = 0; k < n; k++) {
			if (list[k] > UINT32_MAX)
				bench_die("vertex budget %s: must fit 32 bits", value);
			opt->budgets[k] = (uint32_t)list[k];
		}
		opt->budget_count = n;
	} else if (!strcmp(arg, "--peer-answers")) {
		opt->peer_answers = value;
	} else if (!strcmp(arg, "--peer-name")) {
		opt->peer_name = value;
	} else {
		return 0;
	}
	return 2;
}

static void parse_options(int argc, char **argv, options *opt)
{
	*opt = (options){
		.accuracy_poses = 20000,
		.resolutions = {8, 16, 32, 64, 128, 256},
		.resolution_count = 6,
		.speed_resolutions = {64},
		.speed_resolution_count = 1,
		.budgets = {0},
		.budget_count = 1,
		.peer_name = "fcl",
	};
	bench_options_init(&opt->common, "bench_approx");
	bench_parse_args(&opt->common, argc, argv, approx_option, opt, own_usage);
	if (!bench_options_finish(&opt->common))
		bench_usage(own_usage);
	// --quick shrinks only what was not set explicitly.
	if (opt->common.quick) {
		if (!opt->set_accuracy)
			opt->accuracy_poses = 2000;
		if (!opt->set_resolutions)
			opt->resolutions[0] = 8, opt->resolutions[1] = 64, opt->resolution_count = 2;
	}
}

int main(int argc, char **argv)
{
	options opt;
	parse_options(argc, argv, &opt);
	bench_options *o = &opt.common;

	// One pose array serves every measurement: accuracy uses its first
	// accuracy_poses, a speed batch of n pairs its first n.
	bench_pair pair;
	bench_pair_load(o, opt.accuracy_poses, &pair);
	const vkcol_pose *poses = pair.poses;
	size_t pose_count = pair.pose_count;
	FILE *out;
	vkcol_context *ctx = bench_begin("bench_approx", o, &pair, &out);
	int status = 0;

	// -- Mesh creation per resolution. The first create also compiles the
	// cube-map pipelines, so one untimed create comes first.
	fprintf(stderr, "%s: building meshes\n", o->name);
	vkcol_mesh handles_a[BENCH_MAX_LIST] = {{0}}, handles_b[BENCH_MAX_LIST] = {{0}};
	bench_mesh_warmup(ctx, &pair, opt.resolutions[0]);
	fprintf(out, "  \"mesh_create\": [");
	for (int k = 0; k < opt.resolution_count; k++) {
		double median_a, median_b;
		bench_mesh_create_timed(ctx, &pair, opt.resolutions[k], o->repeat, &handles_a[k], &handles_b[k], &median_a,
		                        &median_b);
		fprintf(out, "%s\n    {\"resolution\": %u, \"median_seconds_a\": %.6g, \"median_seconds_b\": %.6g}",
		        k ? "," : "", opt.resolutions[k], median_a, median_b);
	}
	fprintf(out, "\n  ],\n");
	{
		// Compiles the approx pipelines and builds the fields of the meshes
		// above, untimed.
		vkcol_pair far = {handles_a[0], handles_a[0], {{1, 0, 0, 0}, {0, 0, 0}}, {{1, 0, 0, 0}, {1e6f, 0, 0}}};
		vkcol_pair_result result;
		vkcol_result r = run_approx(ctx, &far, 1, 0, &result);
		if (r != VKCOL_SUCCESS)
			bench_die("vkcol_batch_run: %s", vkcol_result_string(r));
		// At the resolution timed for speed (the filter's reach, and so
		// the field's work, depends on it).
		uint32_t res = opt.speed_resolution_count ? opt.speed_resolutions[0] : opt.resolutions[0];
		double first_a = first_batch_timed(ctx, &pair.mesh_a, res, pair.name_a, o->repeat);
		double first_b = pair.same_mesh ? first_a : first_batch_timed(ctx, &pair.mesh_b, res, pair.name_b, o->repeat);
		fprintf(out, "  \"first_approx_batch\": {\"resolution\": %u, \"median_seconds_a\": %.6g, "
		             "\"median_seconds_b\": %.6g},\n",
		        res, first_a, first_b);
	}
	fprintf(out, "  \"mesh_a\": ");
	bench_mesh_json(out, ctx, o, &pair, 0, handles_a[0]);
	fprintf(out, ",\n  \"mesh_b\": ");
	bench_mesh_json(out, ctx, o, &pair, 1, handles_b[0]);
	fprintf(out, ",\n");
	fflush(out);

	// -- Accuracy against the reference.
	size_t acc = opt.accuracy_poses < pose_count ? (size_t)opt.accuracy_poses : pose_count;
	if (acc > 0) {
		fprintf(stderr, "%s: reference on %zu poses, %d threads\n", o->name, acc, o->threads);
		unsigned char *answers = bench_calloc(acc, 1);
		double t0 = bench_now();
		const char *error = bench_reference_answers(&pair, poses, acc, o->threads, o->validation, answers);
		double reference_seconds = bench_now() - t0;
		fprintf(out, "  \"accuracy\": {\"poses\": %zu, \"reference_threads\": %d, \"reference_seconds\": %.6g", acc,
		        o->threads, reference_seconds);
		if (error) {
			fprintf(out, ", \"error\": ");
			bench_json_string(out, error);
			fprintf(out, "},\n");
			fprintf(stderr, "bench_approx: %s\n", error);
			status = 1;
		} else {
			size_t positives = 0;
			for (size_t i = 0; i < acc; i++)
				positives += answers[i];
			size_t negatives = acc - positives;
			fprintf(out, ", \"reference_collide_count\": %zu, \"reference_collide_fraction\": %.6f,\n", positives,
			        (double)positives / (double)acc);

			if (opt.peer_answers) {
				fprintf(out, "    \"peer\": ");
				bench_peer_json(out, opt.peer_name, opt.peer_answers, answers, acc, false);
				fprintf(out, ",\n");
			}

			vkcol_pair *pairs = bench_calloc(acc, sizeof *pairs);
			vkcol_pair_result *results = bench_calloc(acc, sizeof *results);
			fprintf(out, "    \"resolutions\": [");
			for (int k = 0; k < opt.resolution_count; k++) {
				fprintf(stderr, "%s: approx at resolution %u\n", o->name, opt.resolutions[k]);
				bench_fill_pairs(pairs, poses, pose_count, acc, handles_a[k], handles_b[k]);
				t0 = bench_now();
				vkcol_result r = run_approx(ctx, pairs, acc, 0, results);
				double seconds = bench_now() - t0;
				fprintf(out, "%s\n      {\"resolution\": %u", k ? "," : "", opt.resolutions[k]);
				if (r != VKCOL_SUCCESS) {
					fprintf(out, ", \"error\": ");
					bench_json_string(out, vkcol_result_string(r));
					fprintf(out, "}");
					fprintf(stderr, "bench_approx: vkcol_batch_run: %s\n", vkcol_result_string(r));
					status = 1;
					continue;
				}
				size_t approx = 0, fp = 0, fn = 0, by_bounds = 0;
				for (size_t i = 0; i < acc; i++) {
					int a = results[i].collide != 0;
					approx += (size_t)a;
					fp += (size_t)(a && !answers[i]);
					fn += (size_t)(!a && answers[i]);
					by_bounds += (size_t)(results[i].stage == VKCOL_STAGE_BOUNDS);
				}
				fprintf(out,
				        ", \"approx_collide_count\": %zu, \"false_positives\": %zu, \"false_negatives\": %zu"
				        ", \"false_positive_rate\": %.6f, \"false_negative_rate\": %.6f"
				        ", \"false_positive_rate_of_negatives\": %.6f, \"false_negative_rate_of_positives\": %.6f"
				        ", \"decided_by_bounds\": %zu, \"seconds\": %.6g}",
				        approx, fp, fn, (double)fp / (double)acc, (double)fn / (double)acc,
				        negatives ? (double)fp / (double)negatives : 0.0,
				        positives ? (double)fn / (double)positives : 0.0, by_bounds, seconds);
				fflush(out);
			}
			fprintf(out, "\n    ]");
			// Per vertex budget, at the first speed resolution (if it is
			// among the accuracy resolutions).
			int kb = -1;
			for (int k = 0; k < opt.resolution_count && opt.speed_resolution_count; k++)
				if (opt.resolutions[k] == opt.speed_resolutions[0])
					kb = k;
			if (kb >= 0 && (opt.budget_count > 1 || opt.budgets[0] != 0)) {
				fprintf(out, ",\n    \"vertex_budgets\": [");
				bench_fill_pairs(pairs, poses, pose_count, acc, handles_a[kb], handles_b[kb]);
				for (int k = 0; k < opt.budget_count; k++) {
					fprintf(stderr, "%s: approx with a vertex budget of %u\n", o->name, opt.budgets[k]);
					vkcol_result r = run_approx(ctx, pairs, acc, opt.budgets[k], results);
					if (r != VKCOL_SUCCESS)
						bench_die("vkcol_batch_run: %s", vkcol_result_string(r));
					size_t fp = 0, fn = 0;
					for (size_t i = 0; i < acc; i++) {
						int a = results[i].collide != 0;
						fp += (size_t)(a && !answers[i]);
						fn += (size_t)(!a && answers[i]);
					}
					fprintf(out,
					        "%s\n      {\"resolution\": %u, \"vertex_budget\": %u, \"false_positives\": %zu, "
					        "\"false_negatives\": %zu, \"disagreement_rate\": %.6f, "
					        "\"false_negative_rate_of_positives\": %.6f}",
					        k ? "," : "", opt.resolutions[kb], opt.budgets[k], fp, fn, (double)(fp + fn) / (double)acc,
					        positives ? (double)fn / (double)positives : 0.0);
				}
				fprintf(out, "\n    ]");
			}
			fprintf(out, "},\n");
			free(pairs);
			free(results);
		}
		free(answers);
	}

	// The speed runs get meshes of their own; the library pools the live
	// meshes' data for its batches, so the accuracy meshes would only make
	// that pool larger than the pair needs.
	for (int k = 0; k < opt.resolution_count; k++) {
		vkcol_mesh_destroy(ctx, handles_a[k]);
		if (!pair.same_mesh)
			vkcol_mesh_destroy(ctx, handles_b[k]);
	}

	// -- Speed, after a warm-up batch per resolution.
	fprintf(out, "  \"speed\": [");
	uint64_t largest = bench_largest_batch(o);
	largest = largest < pose_count ? largest : pose_count;
	vkcol_pair *pairs = bench_calloc((size_t)largest, sizeof *pairs);
	vkcol_pair_result *results = bench_calloc((size_t)largest, sizeof *results);
	for (int s = 0; s < opt.speed_resolution_count; s++) {
		uint32_t res = opt.speed_resolutions[s];
		vkcol_mesh sa = {0}, sb = {0};
		vkcol_result r = bench_mesh_create(ctx, &pair.mesh_a, res, pair.name_a, &sa);
		if (r == VKCOL_SUCCESS)
			r = pair.same_mesh ? (sb = sa, VKCOL_SUCCESS) : bench_mesh_create(ctx, &pair.mesh_b, res, pair.name_b, &sb);
		if (r != VKCOL_SUCCESS)
			bench_die("vkcol_mesh_create: %s", vkcol_result_string(r));
		bench_fill_pairs(pairs, poses, pose_count, (size_t)largest, sa, sb);
		// Every budget at the first resolution, none at the others.
		for (int k = 0; k < (s == 0 ? opt.budget_count : 1); k++) {
			uint32_t budget = s == 0 ? opt.budgets[k] : 0;
			char label[64];
			snprintf(label, sizeof label, "resolution %u, vertex budget %u", res, budget);
			bench_speed speed = {
				.desc = {.mode = VKCOL_MODE_APPROX, .vertex_budget = budget},
				.pairs = pairs,
				.available = largest,
				.results = results,
				.label = label,
			};
			fprintf(out, "%s\n    {\"resolution\": %u, \"vertex_budget\": %u", s || k ? "," : "", res, budget);
			status |= bench_speed_json(out, o, ctx, &speed);
		}
		vkcol_mesh_destroy(ctx, sa);
		if (!pair.same_mesh)
			vkcol_mesh_destroy(ctx, sb);
	}
	fprintf(out, "\n  ],\n");
	bench_end(out, ctx, o);
	free(pairs);
	free(results);
	bench_pair_free(&pair);
	return status;
}
