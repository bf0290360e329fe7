// SPDX-License-Identifier: MIT
// What the command (bench.c: the suite, the report) and one case of it
// (bench_case.c: meshes, poses, runs, peers) share.
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench.h"

#define MODE_EXACT 1u
#define MODE_APPROX 2u
#define MAX_BATCHES 6
#define MAX_RESOLUTIONS 6
#define MAX_CASES 48
#define MAX_REPEAT 16
#define DEFAULT_RESOLUTION 64

// How large a suite is.
typedef struct settings {
	const char *name;
	int repeat, timed_repeat; // speed runs and timestamped runs per measurement
	double max_seconds;       // a measurement stops repeating after this much
	uint64_t peer_poses;      // FCL's poses per case (the first of the case's)
	uint64_t bullet_poses;    // Bullet's (GImpact is 10-100 times slower)
	int peer_repeat;
	int device_repeat;
	double device_min_seconds;
	double gpu_warmup_seconds; // full batches before a measurement's timed runs, on a GPU
} settings;

typedef struct case_spec {
	const char *group;
	const char *pair;
	const char *a, *b;  // mesh sources (mesh_path)
	const char *poses;  // "random", "near" or "motion"
	double target;      // random: collide fraction
	uint64_t seed;
	uint64_t count;     // poses
	uint64_t batches[MAX_BATCHES];         // 0-terminated; none = {count}
	uint32_t modes;
	uint32_t resolutions[MAX_RESOLUTIONS]; // 0-terminated; none = {64}; exact mode at the first only
	uint32_t builds;    // mesh builds timed (their spread), at the first resolution
	bool peers;
	uint32_t budgets[MAX_RESOLUTIONS]; // 0-terminated: approx mode's vertex budgets, at the first resolution
	bool accept_off;    // exact mode also without its early accepts (VKCOL_BATCH_NO_EARLY_ACCEPT), on the whole set,
	                    // timed side by side with the run on it (count must be among the batches)
} case_spec;

// The suite's run: its settings, the device's context, where things are.
typedef struct bench {
	settings set;
	vkcol_context *ctx;
	cli_log log;
	bool quiet, keep_work, no_peers;
	const char *device;
	const char *models;
	char out_dir[PATH_MAX], work_dir[PATH_MAX];
	char data_dir[PATH_MAX];  // meshes/ and bench_report.py, "" when not found
	char fcl[PATH_MAX], bullet[PATH_MAX], rates[PATH_MAX]; // helper programs, "" when not found
	unsigned threads;
	double raw_sampling, bandwidth; // the device's medians, NaN when not measured
	double warmup_seconds; // set.gpu_warmup_seconds on a GPU, 0 on a CPU device
	double start;
	int done, total;
} bench;

// A case's id in the report: GROUP/PAIR/POSES ("random-50" for half
// colliding).
void bench_case_id(const case_spec *cs, char *out, size_t size);

// Runs one case into `cases` (a JSON array). Returns 0, or the exit status
// of a device failure (the suite stops).
int bench_run_case(bench *b, const case_spec *cs, json_object *cases);

// A progress line on stderr unless --quiet.
void bench_progress(bench *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// snprintf into a path buffer; false (and out cut short) when it does not
// fit.
bool bench_pathf(char *out, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

bool bench_is_file(const char *path);
bool bench_is_executable(const char *path);

// Runs argv[0] with argv, its output (both streams) appended to log_path.
// Returns its exit status, or -1 when it could not run or was killed.
int bench_run_program(char *const argv[], const char *log_path);
