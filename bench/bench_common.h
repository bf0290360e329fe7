// SPDX-License-Identifier: MIT
// What the vkcollide benchmark drivers (bench_approx.c, bench_exact.c) share:
// options common to both, mesh import and bounds, the pose sampler of
// bench/gen_poses.py (bit for bit) and the pose-file reader, the JSON
// header and mesh descriptions, the multi-threaded reference runner, and
// the timed batch loop. Only the public API is used, plus the CLI's
// Assimp importer. Error paths print "PROGRAM: ..." and exit(1): these are
// benchmark programs, not library code.
#pragma once

#include "import.h"

#include <vkcollide.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define BENCH_MAX_LIST 16
// Pairs in the untimed batch that precedes timing: lavapipe compiles a
// pipeline on its first dispatch, and the library rebuilds its mesh pool on
// the first batch after meshes were created or destroyed.
#define BENCH_WARMUP_PAIRS 1000u

/// The program's name, set once by bench_options_init: prefixes every
/// error message.
extern const char *bench_program;

// ---------------------------------------------------------------------------
// Small helpers

double bench_now(void); ///< CLOCK_MONOTONIC, seconds
/// Median of the first count (at most 64) values; 0 when count <= 0.
double bench_median(const double *values, int count);
/// Prints "PROGRAM: " fmt (one %s for arg) and exits with status 1.
_Noreturn void bench_die(const char *fmt, const char *arg);
void *bench_calloc(size_t count, size_t size); ///< dies when out of memory
/// "8,16,32" -> values; returns the count, or -1 on a malformed list.
int bench_parse_list(const char *text, uint64_t *out, int capacity);
/// The high-water mark of the resident set, KiB (getrusage ru_maxrss).
long bench_peak_rss_kib(void);
/// Restarts that high-water mark at the current resident set (Linux:
/// /proc/self/clear_refs); false where that is not possible.
bool bench_reset_peak_rss(void);

void bench_json_string(FILE *f, const char *s);
void bench_json_doubles(FILE *f, const double *v, int n); ///< [a, b, ...] with %.6g

// ---------------------------------------------------------------------------
// Options both drivers take (their usage text: BENCH_USAGE_COMMON)

typedef struct bench_options {
	const char *path_a, *path_b, *name; // name NULL = A-B from the file stems
	const char *poses_path;             // NULL = generated in memory
	const char *out_path;               // NULL = stdout
	double radius_factor;               // 1
	uint64_t seed;                      // 1
	uint64_t batch_sizes[BENCH_MAX_LIST];
	int batch_size_count;               // 1000,10000,100000,1000000
	int repeat;                         // 5, 1..64
	double max_seconds;                 // per batch size: stop repeating once spent (120)
	int threads;                        // reference threads: online CPUs
	uint64_t dump_poses;
	bool describe; // --describe: print the pose sampler's parameters and exit
	bool validation;
	bool quick;
	bool batches_given, repeat_given; // --batch-sizes, --repeat: kept by --quick
} bench_options;

#define BENCH_USAGE_COMMON                                                                                        \
	"  --name NAME              label of the pair (default A-B from the file names)\n"                            \
	"  --poses FILE             read poses (CLI format) instead of generating them\n"                             \
	"  --radius-factor K        generated poses: offset ball radius / (rA + rB) (default 1)\n"                    \
	"  --seed S                 generated poses: splitmix64 seed (default 1)\n"                                   \
	"  --batch-sizes LIST       pairs per vkcol_batch_run (default 1000,10000,100000,1000000)\n"                  \
	"  --repeat R               timed runs per measurement (default 5); the median is reported\n"                 \
	"  --max-seconds S          stop repeating a batch size after S seconds (default 120)\n"                      \
	"  --threads T              reference threads (default: online CPUs)\n"                                       \
	"  --validation             Vulkan validation layer on (slower; off by default)\n"                            \
	"  --dump-poses N           print the first N poses as gen_poses.py would, and exit\n"                        \
	"  --describe               print the sampler's parameters (bounds of A and B) as JSON, and exit\n"          \
	"  --out FILE               write the JSON there instead of stdout\n"

/// The defaults above; also sets bench_program to `program`.
void bench_options_init(bench_options *o, const char *program);
/// A driver's own options: `value` is the argument after `arg` (NULL at the
/// end). Returns 2 when it used both, 1 when only arg, 0 when it does not
/// know arg (or its value is missing).
typedef int (*bench_option_fn)(void *user, const char *arg, const char *value);
/// Parses the command line: the common options and the two mesh paths
/// here, the rest through `own`; on anything unknown or malformed prints
/// the usage (bench_usage) and exits.
void bench_parse_args(bench_options *o, int argc, char **argv, bench_option_fn own, void *user,
                      const char *own_usage);
/// Prints "usage: PROGRAM A B [options]", the common options and then
/// own_usage (the driver's own option lines) on stderr; exits with status 2.
_Noreturn void bench_usage(const char *own_usage);
/// The largest of o->batch_sizes (0 when there are none).
uint64_t bench_largest_batch(const bench_options *o);
/// After parsing: false when the options are unusable (the caller prints
/// its usage). With --quick, shrinks the batch sizes (1000,10000) and
/// repeats (2) unless they were given.
bool bench_options_finish(bench_options *o);

// ---------------------------------------------------------------------------
// The pair: meshes, their bounds, and the poses of B in A's frame

typedef struct bench_bounds {
	double centre[3]; // of the axis-aligned bounding box
	double radius;    // largest distance from centre to a vertex
} bench_bounds;

typedef struct bench_pair {
	import_mesh mesh_a, mesh_b;
	bench_bounds bounds_a, bounds_b;
	char name_a[128], name_b[128];
	bool same_mesh; // one file: B's handles are A's
	vkcol_pose *poses;
	size_t pose_count;
} bench_pair;

/// Imports both meshes, then generates `want` poses with gen_poses.py's
/// sampler or reads at most `want` from o->poses_path, where `want` is the
/// largest of `also` and the batch sizes. With --describe, prints the
/// meshes' bounds as gen_poses.py --describe would and exits; with
/// --dump-poses N, generates (or reads) only N poses, prints them as
/// gen_poses.py would and exits. Sets o->name when it was not given.
void bench_pair_load(bench_options *o, uint64_t also, bench_pair *p);
void bench_pair_free(bench_pair *p);

/// pairs[i] = (a at the identity, b at poses[i % pose_count]) for i < count:
/// a batch larger than the pose list repeats it in order.
void bench_fill_pairs(vkcol_pair *pairs, const vkcol_pose *poses, size_t pose_count, size_t count, vkcol_mesh a,
                      vkcol_mesh b);

// ---------------------------------------------------------------------------
// Library objects (every failure dies)

vkcol_context *bench_context_create(bool validation);
vkcol_result bench_mesh_create(vkcol_context *ctx, const import_mesh *m, uint32_t resolution, const char *name,
                               vkcol_mesh *out);
/// Creates A and B (B = A for one file) `repeat` times at `resolution`,
/// keeping the last, and gives the median creation times. The first call
/// should follow bench_mesh_warmup, which absorbs pipeline compilation.
void bench_mesh_create_timed(vkcol_context *ctx, const bench_pair *p, uint32_t resolution, int repeat,
                             vkcol_mesh *a, vkcol_mesh *b, double *median_a, double *median_b);
void bench_mesh_warmup(vkcol_context *ctx, const bench_pair *p, uint32_t resolution);

// ---------------------------------------------------------------------------
// JSON

/// Opens o->out_path (stdout when NULL) as *out, creates the context and
/// writes "{\n  \"tool\": TOOL, ..." through the "poses" object and its
/// ",\n": version, device, validation, quick, pair and the pose source.
vkcol_context *bench_begin(const char *tool, const bench_options *o, const bench_pair *p, FILE **out);
/// Writes the last field ("validation_messages") and the closing brace,
/// destroys the context and closes *out.
void bench_end(FILE *out, vkcol_context *ctx, const bench_options *o);
/// Writes mesh A's (which = 0) or B's description: name, path, counts,
/// vkcol_mesh_get_info's analysis (when handle is live), bounds.
void bench_mesh_json(FILE *out, vkcol_context *ctx, const bench_options *o, const bench_pair *p, int which,
                     vkcol_mesh handle);
/// Scores another tool's answers file (one 0/1 per pose) against the
/// reference's answers[0..count): writes {"name", "answers_file",
/// "collide_count", "false_positives", "false_negatives"}, or an error when
/// the file holds fewer answers. With `prefix`, a file of n < count answers
/// (n > 0) is scored on the first n poses, and "poses": n added.
void bench_peer_json(FILE *out, const char *name, const char *path, const unsigned char *answers, size_t count,
                     bool prefix);

// ---------------------------------------------------------------------------
// The reference (vkcol_reference_collide) on several threads. A context is
// externally synchronised, so each thread creates its own context and its
// own copies of the meshes (at the smallest cube map: the reference does
// not use it).

/// answers[i] = the reference's answer (0/1) for B at poses[i], i < count.
/// Returns NULL on success, else a message (static storage).
const char *bench_reference_answers(const bench_pair *p, const vkcol_pose *poses, size_t count, int threads,
                                    bool validation, unsigned char *answers);

// ---------------------------------------------------------------------------
// Speed: median pairs per second of vkcol_batch_run per batch size

typedef struct bench_speed {
	vkcol_batch_desc desc;       ///< mode and flags; the rest is set per call
	const vkcol_pair *pairs;     ///< filled for the largest batch
	uint64_t available;          ///< pairs filled; larger batch sizes are skipped
	vkcol_pair_result *results;  ///< room for `available`
	const char *label;           ///< progress lines on stderr, e.g. "resolution 64"
	/// Exact-mode extras: a pass stops at the first chunk boundary after
	/// max_seconds (its rate is then over the pairs answered), and each
	/// batch size reports its peak resident set.
	bool capped_passes;
} bench_speed;

/// Writes, after the caller's opening "{\"key\": value" of one speed entry,
/// the warm-up (", \"warmup_pairs\": ..., \"warmup_seconds\": ...") and
/// either ", \"error\": ...}" or ", \"batches\": [...]}". Returns 0, or 1
/// when a batch failed.
int bench_speed_json(FILE *out, const bench_options *o, vkcol_context *ctx, const bench_speed *s);
