// SPDX-License-Identifier: MIT
// Exact-mode benchmark driver for one mesh pair: measures
//  (a) correctness: vkcol_batch_run in exact mode against the
//      double-precision reference (vkcol_reference_collide) on every pose,
//      with and without stage 1's early accept; each disagreement is
//      classified as inside the touching band (exact mode said collide and
//      the reference's distance between the surfaces is at most the pair's
//      touching distance, vkcol_pair_touch_distance) or outside it (any
//      other), which must never happen;
//  (b) the work: one stats-enabled batch per setting gives the traversal
//      frontier per level, reruns, CPU fallbacks, witness accepts;
//  (c) speed: median pairs per second of vkcol_batch_run per batch size,
//      with and without early accept, and the peak resident set per batch
//      size (host memory must not grow with the batch);
// and prints one JSON object (fields in bench/README.md). Other tools'
// answers on the same poses (--peer) are scored against the reference.
//
// Poses place B in A's frame (A stays at the identity): generated in memory
// with bench/gen_poses.py's sampler, bit for bit, or read with --poses (a
// speed batch larger than the file repeats its poses in order).
//
// Only the public API is used, plus the CLI's Assimp importer.
#include "bench_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PEERS 4
// Outside-band disagreements described in the JSON (all are counted).
#define MAX_REPORTED 10

typedef struct options {
	bench_options common;
	uint64_t correctness_poses;
	uint32_t resolution; // cube map of both meshes (stage 1)
	const char *peer_names[MAX_PEERS], *peer_files[MAX_PEERS];
	int peer_count;
	bool set_correctness; // given: kept by --quick
} options;

// The usage lines of bench_exact's own options.
static const char own_usage[] =
	"  --correctness N          poses checked against the reference (default 100000; 0 = skip)\n"
	"  --resolution N           cube-map resolution of both meshes (default 64)\n"
	"  --peer NAME=FILE         score another tool's 0/1 answers against the reference\n"
	"                           (up to 4; a shorter file is scored on the first poses)\n"
	"  --quick                  smoke run: 2000 correctness poses, batch sizes\n"
	"                           1000,10000, 2 repeats\n";

// bench_exact's own options (bench_option_fn).
static int exact_option(void *user, const char *arg, const char *value)
{
	options *opt = user;
	if (!value)
		return 0; // each of them takes a value
	if (!strcmp(arg, "--correctness")) {
		opt->correctness_poses = strtoull(value, NULL, 10), opt->set_correctness = true;
	} else if (!strcmp(arg, "--resolution")) {
		opt->resolution = (uint32_t)strtoul(value, NULL, 10);
	} else if (!strcmp(arg, "--peer")) {
		const char *eq = strchr(value, '=');
		if (!eq || eq == value || opt->peer_count == MAX_PEERS)
			return 0;
		// The name is the text before '='; keep it in a copy of its own.
		size_t len = (size_t)(eq - value);
		char *name = bench_calloc(len + 1, 1);
		memcpy(name, value, len);
		opt->peer_names[opt->peer_count] = name;
		opt->peer_files[opt->peer_count++] = eq + 1;
	} else {
		return 0;
	}
	return 2;
}

static void parse_options(int argc, char **argv, options *opt)
{
	*opt = (options){.correctness_poses = 100000, .resolution = 64};
	bench_options_init(&opt->common, "bench_exact");
	bench_parse_args(&opt->common, argc, argv, exact_option, opt, own_usage);
	if (!bench_options_finish(&opt->common))
		bench_usage(own_usage);
	uint32_t res = opt->resolution;
	if (res < 4 || res > 1024 || (res & (res - 1)))
		bench_die("--resolution: must be a power of two in 4..1024%s", "");
	if (opt->common.quick && !opt->set_correctness)
		opt->correctness_poses = 2000;
}

// ---------------------------------------------------------------------------
// The touching band

// Is a disagreement within the touching band: exact mode said collide where
// the reference says not, and the reference's distance between the
// surfaces is at most the pair's touching distance? A false negative never
// is. Returns 1 or 0, or -1 on a library error; *apart: that distance.
static int in_band(vkcol_context *ctx, const vkcol_pair *pair, bool want, double *apart, double *touch)
{
	*apart = *touch = 0.0;
	if (vkcol_reference_distance(ctx, pair, apart) != VKCOL_SUCCESS ||
	    vkcol_pair_touch_distance(ctx, pair, touch) != VKCOL_SUCCESS)
		return -1;
	return !want && *apart <= *touch;
}

// ---------------------------------------------------------------------------
// Correctness and work counters

static void stats_json(FILE *out, const vkcol_batch_stats *st)
{
	fprintf(out,
	        "{\"pairs\": %llu, \"sphere_rejected\": %llu, \"collisions\": %llu, \"witness_accepted\": %llu"
	        ", \"inner_ball_accepted\": %llu, \"reruns\": %llu, \"cpu_fallbacks\": %llu, \"vertex_tests\": %llu, \"cube_samples\": %llu"
	        ", \"seconds\": %.6g, \"levels\": %u, \"level_items\": [",
	        (unsigned long long)st->pairs, (unsigned long long)st->sphere_rejected,
	        (unsigned long long)st->collisions, (unsigned long long)st->witness_accepted,
	        (unsigned long long)st->inner_ball_accepted, (unsigned long long)st->reruns, (unsigned long long)st->cpu_fallbacks,
	        (unsigned long long)st->vertex_tests, (unsigned long long)st->cube_samples, st->seconds, st->levels);
	uint32_t levels = st->levels < 128 ? st->levels : 128;
	for (uint32_t k = 0; k < levels; k++)
		fprintf(out, "%s%llu", k ? ", " : "", (unsigned long long)st->level_items[k]);
	fprintf(out, "]}");
}

// One exact batch over the correctness poses, scored against the
// reference's answers. Returns 0, or 1 when a call failed or a
// disagreement lies outside the touching band.
static int check_run(FILE *out, const options *opt, vkcol_context *ctx, const bench_pair *p, const vkcol_pair *pairs,
                     size_t count, const unsigned char *answers, bool early_accept, vkcol_pair_result *results)
{
	const bench_options *o = &opt->common;
	fprintf(stderr, "%s: exact mode on %zu poses, early accept %s\n", o->name, count, early_accept ? "on" : "off");
	vkcol_batch_stats stats;
	vkcol_batch_desc desc = {
		.pairs = pairs,
		.pair_count = count,
		.mode = VKCOL_MODE_EXACT,
		.stats = &stats,
		.flags = early_accept ? 0u : VKCOL_BATCH_NO_EARLY_ACCEPT,
	};
	double t0 = bench_now();
	vkcol_result r = vkcol_batch_run(ctx, &desc, results);
	double seconds = bench_now() - t0;
	fprintf(out, "{\"early_accept\": %s, \"seconds\": %.6g", early_accept ? "true" : "false", seconds);
	if (r != VKCOL_SUCCESS) {
		fprintf(out, ", \"error\": ");
		bench_json_string(out, vkcol_result_string(r));
		fprintf(out, "}");
		fprintf(stderr, "%s: vkcol_batch_run: %s\n", bench_program, vkcol_result_string(r));
		return 1;
	}
	size_t hits = 0, fp = 0, fn = 0, band = 0, outside = 0, stages[5] = {0};
	size_t reported[MAX_REPORTED];
	double reported_apart[MAX_REPORTED], reported_touch[MAX_REPORTED];
	double band_max_apart = 0.0; // the farthest apart of the in-band disagreements
	int status = 0;
	for (size_t i = 0; i < count; i++) {
		bool exact = results[i].collide != 0, want = answers[i] != 0;
		hits += exact;
		stages[results[i].stage < 5 ? results[i].stage : 0]++;
		if (exact == want)
			continue;
		fp += exact, fn += want;
		double apart, touch;
		int near = in_band(ctx, &pairs[i], want, &apart, &touch);
		if (near < 0)
			bench_die("vkcol_reference_distance failed%s", "");
		if (near) {
			band++;
			band_max_apart = apart > band_max_apart ? apart : band_max_apart;
			continue;
		}
		if (outside < MAX_REPORTED)
			reported[outside] = i, reported_apart[outside] = apart, reported_touch[outside] = touch;
		outside++;
		status = 1;
	}
	fprintf(out,
	        ", \"collide_count\": %zu, \"disagreements\": %zu, \"false_positives\": %zu, \"false_negatives\": %zu"
	        ", \"in_band\": %zu, \"in_band_max_distance\": %.9g, \"disagreements_outside_band\": %zu"
	        ", \"outside_band_examples\": [",
	        hits, fp + fn, fp, fn, band, band_max_apart, outside);
	for (size_t k = 0; k < outside && k < MAX_REPORTED; k++) {
		size_t i = reported[k];
		const vkcol_pose *q = &pairs[i].pose_b;
		fprintf(out,
		        "%s{\"index\": %zu, \"exact\": %u, \"stage\": %u, \"triangle_pairs\": %u, \"reference\": %d"
		        ", \"distance\": %.9g, \"touch_distance\": %.9g, \"pose\": [%.9g, %.9g, %.9g, %.9g, %.9g, %.9g, %.9g]}",
		        k ? ", " : "", i, results[i].collide, results[i].stage, results[i].triangle_pairs, answers[i],
		        reported_apart[k], reported_touch[k], q->rotation[0], q->rotation[1], q->rotation[2],
		        q->rotation[3], q->translation[0], q->translation[1], q->translation[2]);
		fprintf(stderr,
		        "%s: pose %zu: exact mode says %u (stage %u), the reference %d, surfaces %.9g apart (touching "
		        "distance %.9g): outside the band\n",
		        o->name, i, results[i].collide, results[i].stage, answers[i], reported_apart[k], reported_touch[k]);
	}
	fprintf(out,
	        "], \"decided_by\": {\"bounds\": %zu, \"cube_map\": %zu, \"tree\": %zu, \"containment\": %zu, "
	        "\"none\": %zu},\n      \"stats\": ",
	        stages[VKCOL_STAGE_BOUNDS], stages[VKCOL_STAGE_CUBE_MAP], stages[VKCOL_STAGE_TREE],
	        stages[VKCOL_STAGE_CONTAINMENT], stages[VKCOL_STAGE_NONE]);
	stats_json(out, &stats);
	fprintf(out, "}");
	return status;
}

static int correctness_json(FILE *out, const options *opt, vkcol_context *ctx, const bench_pair *p,
                            const vkcol_pair *pairs, size_t count, vkcol_pair_result *results)
{
	const bench_options *o = &opt->common;
	fprintf(stderr, "%s: reference on %zu poses, %d threads\n", o->name, count, o->threads);
	unsigned char *answers = bench_calloc(count, 1);
	double t0 = bench_now();
	const char *error = bench_reference_answers(p, p->poses, count, o->threads, o->validation, answers);
	fprintf(out, "  \"correctness\": {\"poses\": %zu, \"band\": \"touching distance\", \"reference_threads\": %d"
	        ", \"reference_seconds\": %.6g",
	        count, o->threads, bench_now() - t0);
	int status = 0;
	if (error) {
		fprintf(out, ", \"error\": ");
		bench_json_string(out, error);
		fprintf(out, "},\n");
		fprintf(stderr, "%s: %s\n", bench_program, error);
		free(answers);
		return 1;
	}
	size_t positives = 0;
	for (size_t i = 0; i < count; i++)
		positives += answers[i];
	fprintf(out, ", \"reference_collide_count\": %zu, \"reference_collide_fraction\": %.6f,\n    \"peers\": [",
	        positives, (double)positives / (double)count);
	for (int k = 0; k < opt->peer_count; k++) {
		fprintf(out, "%s\n      ", k ? "," : "");
		bench_peer_json(out, opt->peer_names[k], opt->peer_files[k], answers, count, true);
	}
	fprintf(out, "%s],\n    \"runs\": [", opt->peer_count ? "\n    " : "");
	for (int early = 1; early >= 0; early--) {
		fprintf(out, "\n      ");
		status |= check_run(out, opt, ctx, p, pairs, count, answers, early, results);
		fprintf(out, "%s", early ? "," : "");
		fflush(out);
	}
	fprintf(out, "\n    ]},\n");
	free(answers);
	return status;
}

int main(int argc, char **argv)
{
	options opt;
	parse_options(argc, argv, &opt);
	bench_options *o = &opt.common;

	bench_pair pair;
	bench_pair_load(o, opt.correctness_poses, &pair);
	if (pair.pose_count == 0)
		bench_die("%s: no poses", o->poses_path ? o->poses_path : "--correctness 0 and no batch sizes");
	size_t checked = opt.correctness_poses < pair.pose_count ? (size_t)opt.correctness_poses : pair.pose_count;
	// Pairs for the larger of the two needs; a file shorter than a batch
	// repeats in order (the first `checked` pairs are each pose once).
	uint64_t largest = bench_largest_batch(o);
	uint64_t room = largest > checked ? largest : checked;

	FILE *out;
	vkcol_context *ctx = bench_begin("bench_exact", o, &pair, &out);
	int status = 0;

	// -- Meshes, once at the chosen resolution (an untimed create first
	// compiles the cube-map pipelines).
	fprintf(stderr, "%s: building meshes\n", o->name);
	bench_mesh_warmup(ctx, &pair, opt.resolution);
	vkcol_mesh ma, mb;
	double median_a, median_b;
	bench_mesh_create_timed(ctx, &pair, opt.resolution, o->repeat, &ma, &mb, &median_a, &median_b);
	fprintf(out, "  \"mesh_create\": {\"resolution\": %u, \"median_seconds_a\": %.6g, \"median_seconds_b\": %.6g},\n",
	        opt.resolution, median_a, median_b);
	fprintf(out, "  \"mesh_a\": ");
	bench_mesh_json(out, ctx, o, &pair, 0, ma);
	fprintf(out, ",\n  \"mesh_b\": ");
	bench_mesh_json(out, ctx, o, &pair, 1, mb);
	fprintf(out, ",\n");
	fflush(out);

	vkcol_pair *pairs = bench_calloc((size_t)room, sizeof *pairs);
	vkcol_pair_result *results = bench_calloc((size_t)room, sizeof *results);
	bench_fill_pairs(pairs, pair.poses, pair.pose_count, (size_t)room, ma, mb);

	// -- Correctness and work counters, both settings of early accept.
	if (checked > 0)
		status |= correctness_json(out, &opt, ctx, &pair, pairs, checked, results);

	// -- Speed, after a warm-up batch per setting.
	fprintf(out, "  \"speed\": [");
	for (int early = 1; early >= 0 && o->batch_size_count > 0; early--) {
		bench_speed speed = {
			.desc = {.mode = VKCOL_MODE_EXACT, .flags = early ? 0u : VKCOL_BATCH_NO_EARLY_ACCEPT},
			.pairs = pairs,
			.available = largest,
			.results = results,
			.label = early ? "early accept on" : "early accept off",
			.capped_passes = true,
		};
		fprintf(out, "%s\n    {\"early_accept\": %s, \"poses_repeated\": %s", early ? "" : ",",
		        early ? "true" : "false", largest > pair.pose_count ? "true" : "false");
		status |= bench_speed_json(out, o, ctx, &speed);
	}
	fprintf(out, "\n  ],\n");
	bench_end(out, ctx, o);
	free(pairs);
	free(results);
	bench_pair_free(&pair);
	for (int k = 0; k < opt.peer_count; k++)
		free((void *)opt.peer_names[k]);
	return status;
}
