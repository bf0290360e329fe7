// SPDX-License-Identifier: MIT
// `vkcollide collide A B --poses FILE`: mesh B at every pose of a file
// against mesh A.
//
// The poses are streamed: a block of poses is read, answered with one
// vkcol_batch_run call, written and flushed, then the next block is read, so
// host memory is bounded by the block size whatever the file length, and a
// failure (a bad line, an interrupt) loses nothing already answered.
#include "collide.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "import.h"
#include "outfile.h"
#include "poses.h"
#include "results.h"

// The collide mode used without --mode; the help text follows it.
#define DEFAULT_MODE_NAME "exact"

#define DEFAULT_RESOLUTION 64
#define DEFAULT_BLOCK_POSES (1u << 18)
// Host memory per pose of a block: the pair, its result and its line number
// (the library's staging buffers come on top, bounded by its own chunk).
#define BLOCK_BYTES_PER_POSE (sizeof(vkcol_pair) + sizeof(vkcol_pair_result) + sizeof(uint64_t))
#define MAX_BLOCK_POSES (1u << 22)
// Deepest useful mip level: the largest map (1024) halved ten times.
#define MAX_MIP 10

#define PROGRESS_INTERVAL_S 0.25
#define CALIBRATION_POSES 4096u
// --triangle-pairs: rows listed in all without --max-triangle-pairs, and the
// most entries the list handed to one vkcol_batch_run call holds (16 bytes
// each: 16 MiB). The library's device list holds 2^20 per chunk too.
#define DEFAULT_MAX_TRIANGLE_PAIRS 1000000u
#define TRIANGLE_BUFFER_ENTRIES (1u << 20)
#define MAX_TRIANGLE_PAIRS (UINT64_C(1) << 48)
#define TRIANGLE_CSV_HEADER "index,triangle_a,triangle_b\n"

static int cmd_collide(const command *cmd, int argc, char **argv);

static const char *const collide_help[] = {
	"Imports the meshes A and B (as mesh-info does) and answers, for every pose\n"
	"in the poses file, whether B placed at that pose intersects A. Closed meshes\n"
	"are solids (one inside the other collides); open meshes are surfaces.\n"
	"Poses are read, answered and written in blocks: memory stays bounded for\n"
	"any file length, and results appear, in input order, as they are computed.\n"
	"\n"
	"Poses file (FILE, or - for standard input): one pose of B in A's frame per\n"
	"line, 7 numbers separated by whitespace or commas:\n"
	"    qw qx qy qz tx ty tz\n"
	"(qw qx qy qz) is a Hamilton quaternion, w first, normalised before use; a\n"
	"point x of B, in B's file coordinates, is placed at R(q) x + t in A's file\n"
	"coordinates (A stays where its file puts it). Blank lines and lines whose\n"
	"first non-blank character is '#' are skipped; a '#' after a pose is not a\n"
	"comment. The numbers are read in double precision and the pose is kept in\n"
	"single precision (the library's vkcol_pose): near coordinates of 10^4 a\n"
	"translation resolves about 0.001. Example, B turned 90 degrees about z and\n"
	"moved 0.5 along x:\n"
	"    0.70710678 0 0 0.70710678  0.5 0 0\n"
	"A bad line (not 7 numbers, a field that is not a finite number, a zero\n"
	"quaternion, anything after the 7 numbers) ends the run with\n"
	"    vkcollide: FILE:LINE:COLUMN: reason\n"
	"and exit status 2, after every pose before it has been answered and\n"
	"written: fix the line, and rerun from it.\n"
	"\n",
	"Output (standard output, or --out FILE), one row per pose:\n"
	"  csv    index,collide,stage,penetration,triangle_pairs,line\n"
	"         0,1,cube_map,0.12,3\n"
	"  jsonl  {\"index\":0,\"collide\":true,\"stage\":\"cube_map\",\"penetration\":0.12,\"triangle_pairs\":0,\"line\":3}\n"
	"index     counts the poses from 0 (blank and comment lines are not counted)\n"
	"collide   1 or 0 (csv), true or false (jsonl)\n"
	"stage     what decided: bounds (bounding spheres or boxes apart), cube_map (the\n"
	"          distance cube-map vertex test), tree or containment (exact mode)\n"
	"penetration  a lower bound of how deep the meshes overlap, in mesh units:\n"
	"          the overlap of the origins' inner balls, or the depth of the\n"
	"          first vertex found inside the other mesh; 0 if apart\n"
	"triangle_pairs  exact mode: intersecting triangle pairs found (the search\n"
	"          stops early, so a lower bound; with --triangle-pairs it does not:\n"
	"          the complete count); 0 in approx mode\n"
	"line      the pose's line number in the poses file, from 1\n"
	"Every column is the same bytes on every run on the same device. One caveat\n"
	"on lavapipe: its cube samples depend in their last bits on the other lanes\n"
	"of a SIMD group of 8, so a --chunk that is not a multiple of 8 can change\n"
	"a penetration's last digits (docs/semantics.md, Results).\n"
	"A poses file with no poses gives the csv header alone (jsonl: nothing) and\n"
	"exit status 0.\n"
	"\n",
	"Triangle pairs (--triangle-pairs FILE, exact mode only): FILE gets one csv\n"
	"row per intersecting (or touching) pair of a triangle of A and one of B,\n"
	"sorted by pose, then triangle of A, then triangle of B:\n"
	"    index,triangle_a,triangle_b\n"
	"    0,17,4\n"
	"index     the pose, as in the results\n"
	"triangle_a, triangle_b  the triangle of A and of B, from 0, in the order\n"
	"          the meshes are imported (the triangles mesh-info counts): the\n"
	"          file's faces in order, a polygon of n corners as n-2 triangles\n"
	"          in a row, points and lines not counted. A file of several meshes\n"
	"          (OBJ objects, groups or materials; glTF nodes) numbers the\n"
	"          triangles of one mesh after the other's, in the order of the\n"
	"          scene Assimp reads (an instanced mesh once per instance), which\n"
	"          need not be the file's.\n"
	"The search then finds every pair, which is slower than stopping at a pose's\n"
	"first. The list stops after --max-triangle-pairs rows, or at a pose with\n"
	"more pairs than one batch lists (1048576): it holds every pair of the poses\n"
	"before one pose and some of that pose's; one warning on stderr says how\n"
	"many of how many are listed, the triangle_pairs counts in the results stay\n"
	"complete, and the exit status is 0. A run without pairs writes the header\n"
	"alone.\n"
	"\n",
	"Options:\n"
	"  --poses FILE      the poses (required); - reads standard input\n"
	"  --mode MODE       approx: the cube-map test alone; fast, may disagree with\n"
	"                    exact near contact (measure it with --verify).\n"
	"                    exact: agrees with the exact CPU reference away from the\n"
	"                    float tolerance; reports intersecting triangle pairs.\n"
	"                    Default: " DEFAULT_MODE_NAME "\n"
	"  --resolution N    distance cube map edge of both meshes in texels, a power\n"
	"                    of two in 4..1024 (default 64)\n"
	"  --mip N           cube-map mip level the vertex test samples: resolution\n"
	"                    / 2^N, clamped to the smallest level (default 0)\n"
	"  --vertex-budget N approx mode: test at most about N vertices of each mesh,\n"
	"                    sampled evenly over its surface (0 = all, the default;\n"
	"                    never fewer than 64): faster on large meshes, misses\n"
	"                    contacts shallower than the samples' spacing\n"
	"  --format FORMAT   csv (default) or jsonl\n"
	"  --out FILE        write the results to FILE (default, or -: standard\n"
	"                    output); no input may be FILE\n"
	"  --chunk N         poses per block read, answered and written, 1..4194304\n"
	"                    (default 262144; about 88 bytes of memory per pose)\n"
	"  --verify          also answer every pose with the exact CPU reference\n"
	"                    (slow) and print on stderr: poses, agreement, false\n"
	"                    positives (collide where the reference says not) and\n"
	"                    false negatives, and in exact mode how many false\n"
	"                    positives lie within the touching distance (allowed:\n"
	"                    docs/semantics.md); the exit status is unchanged\n"
	"  -q, --quiet       no progress line (it is shown on stderr only when stderr\n"
	"                    is a terminal)\n"
	"  --triangle-pairs FILE\n"
	"                    list the intersecting triangle pairs in FILE (csv, see\n"
	"                    above); exact mode only\n"
	"  --max-triangle-pairs N\n"
	"                    most rows in that list, 1..2^48 (default 1000000); the\n"
	"                    memory it takes is bounded (16 MiB at most)\n"
	"\n"
	"Interrupting (Ctrl-C, SIGTERM) stops after the work under way; the poses\n"
	"answered are written, a line names the last one, and the exit status is\n"
	"128 + the signal. A second Ctrl-C exits at once.\n"
	"\n"
	"Output files (--out, --triangle-pairs) are checked before any work and\n"
	"written to a temporary file beside them (FILE.tmp-XXXXXX), renamed over\n"
	"FILE when the run ends: a run that is killed leaves FILE as it was (and\n"
	"the temporary file). Many meshes, resuming and sharding: vkcollide run.\n",
	NULL,
};

const command collide_command = {
	"collide",
	"A B --poses FILE [--mode approx|exact] [--resolution N] [--mip N] [--vertex-budget N]\n"
	"                         [--format csv|jsonl] [--out FILE] [--chunk N] [--verify] [--quiet]\n"
	"                         [--triangle-pairs FILE [--max-triangle-pairs N]]",
	"test mesh B, at every pose of a file, against mesh A",
	collide_help,
	cmd_collide,
};

static const struct {
	const char *name;
	vkcol_mode mode;
} mode_names[] = {
	{"approx", VKCOL_MODE_APPROX},
	{"exact", VKCOL_MODE_EXACT},
};

// The shortest of %.6g .. %.9g that reads back as the same float: 0.12, not
// 0.119999997, yet every value survives a round trip.
static void format_float(float v, char *out, size_t size)
{
	for (int digits = 6; digits < 9; digits++) {
		snprintf(out, size, "%.*g", digits, (double)v);
		if (strtof(out, NULL) == v)
			return;
	}
	snprintf(out, size, "%.9g", (double)v);
}

// --- interrupts ---------------------------------------------------------------

// Set by SIGINT / SIGTERM: the block under way stops after the library's
// current chunk, the poses answered are written, and the tool exits 128+signal.
// The handler resets itself, so a second Ctrl-C kills at once (a read from a
// silent pipe would otherwise hold the first one back).
static volatile sig_atomic_t interrupt_signal;

static void on_interrupt(int sig)
{
	interrupt_signal = sig;
}

static void catch_interrupts(bool on)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on ? on_interrupt : SIG_DFL;
	sa.sa_flags = on ? SA_RESETHAND | SA_RESTART : 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

// --- progress line ------------------------------------------------------------

static void progress_show(progress_line *p, uint64_t done, uint64_t collide)
{
	if (!p->enabled)
		return;
	double now = now_seconds();
	if (now - p->last_shown < PROGRESS_INTERVAL_S)
		return;
	p->last_shown = now;
	char count[32], rate[32];
	format_count(done, count, sizeof(count));
	double elapsed = now - p->start;
	format_count(elapsed > 0.0 ? (uint64_t)((double)done / elapsed) : 0, rate, sizeof(rate));
	char text[160];
	int n = snprintf(text, sizeof(text), "  %s poses  (%.1f%% collide)  %s poses/s", count,
	                 done ? 100.0 * (double)collide / (double)done : 0.0, rate);
	if (n < 0)
		return;
	// Pad over the tail of a longer previous line.
	fprintf(stderr, "\r%s%*s", text, p->width > n ? p->width - n : 0, "");
	if (n > p->width)
		p->width = n;
	fflush(stderr);
}

// --- the command --------------------------------------------------------------

typedef struct collide_job {
	vkcol_context *ctx;
	cli_log *log;
	progress_line progress;
	vkcol_mesh a, b;
	vkcol_mode mode;
	uint32_t mip, vertex_budget;
	bool jsonl, verify;
	FILE *out;
	const char *out_name;
	bool out_is_terminal; // the progress line is wiped before results are written

	// The block: capacity poses, count read.
	vkcol_pair *pairs;
	vkcol_pair_result *results;
	uint64_t *lines;
	uint32_t capacity, count;
	uint32_t offset;  // first pose of the block in the current vkcol_batch_run call
	uint32_t counted; // results of the block already added to `collide`

	uint64_t answered;   // poses answered and written before this block
	uint64_t collide;    // of those answered (this block's counted included)
	uint64_t last_line;  // line of the last pose written
	double batch_seconds; // spent in vkcol_batch_run

	// --verify
	uint64_t verified, agree, false_positive, false_negative, reference_collide;
	uint64_t in_band; // exact mode's false positives within the pair's touching distance (allowed)
	const char *mode_name;

	// --triangle-pairs: tri_out is NULL when not listing. The rows written
	// are every intersecting pair of the poses in order until the list stops
	// (tri_stopped): at --max-triangle-pairs, or at a pose with more pairs
	// than one call can list (tri_short_pose, else UINT64_MAX).
	FILE *tri_out;
	const char *tri_name;
	vkcol_triangle_pair *tri_entries; // tri_buffer entries, one call's list
	uint64_t tri_buffer;
	uint64_t tri_max;
	uint64_t tri_listed;     // rows written
	uint64_t tri_found;      // complete counts of the poses written, summed
	bool tri_stopped;
	uint64_t tri_short_pose;
	bool tri_alone; // the next call answers one pose (take_triangles asks)
} collide_job;

// The library's per-chunk callback: results [0, done) of the call, which
// starts at the block's pose `offset`, are final.
static bool on_chunk(void *user, uint64_t done, uint64_t total)
{
	(void)total;
	collide_job *job = user;
	for (; job->counted < job->offset + done; job->counted++)
		job->collide += job->results[job->counted].collide != 0;
	if (!job->verify)
		progress_show(&job->progress, job->answered + job->counted, job->collide);
	// A call that lists triangle pairs is one chunk long and runs to its end
	// (an interrupted call's list is not defined); answer_block checks the
	// interrupt between calls.
	return !interrupt_signal || job->tri_out;
}

// Pairs per library chunk: about half a second of work at the rate seen so
// far, so that the progress line moves and an interrupt is honoured soon on
// slow meshes, without many tiny submissions on fast ones.
static uint32_t chunk_pairs(const collide_job *job)
{
	uint64_t done = job->answered + job->counted;
	double rate = done && job->batch_seconds > 0.0 ? (double)done / job->batch_seconds : 0.0;
	uint32_t chunk = 1u << 12;
	while (chunk < (1u << 18) && (double)chunk * 2.0 <= 0.5 * rate)
		chunk *= 2;
	return chunk;
}

static void write_triangle_rows(collide_job *job, uint64_t index, const vkcol_triangle_pair *entries,
                                uint64_t count)
{
	for (uint64_t k = 0; k < count; k++)
		fprintf(job->tri_out, "%" PRIu64 ",%u,%u\n", index, entries[k].triangle_a, entries[k].triangle_b);
	job->tri_listed += count;
}

// Writes the triangle pairs a call listed for the block's poses [offset,
// offset + n) and returns how many of those poses are settled: n, unless a
// pose's pairs are not all in the list and the call covered more than that
// pose: then the poses before it are settled, and the caller repeats the
// call from it.
//
// A list that overflows holds whole poses only (the library's contract), so
// the pose that does not fit the room is listed alone, whole, and only the
// room's worth of its pairs written: the call is repeated with that pose
// alone when its pairs exceed the room (or the call's list, when the call
// started at it).
static uint32_t take_triangles(collide_job *job, uint32_t n, const vkcol_triangle_list *list)
{
	if (job->tri_stopped)
		return n;
	const vkcol_pair_result *res = job->results + job->offset;
	uint64_t first_index = job->answered + job->offset;
	// The list is sorted by pair, so each pose's entries are a run of it.
	uint64_t count = list->count < list->capacity ? list->count : list->capacity;
	uint64_t e = 0, have = 0;
	uint32_t i = 0;
	for (; i < n; i++, e += have) {
		for (have = 0; e + have < count && list->entries[e + have].pair == i;)
			have++;
		if (have < res[i].triangle_pairs || job->tri_listed + have > job->tri_max)
			break;
		write_triangle_rows(job, first_index + i, list->entries + e, have);
	}
	if (i == n)
		return n;
	uint64_t room = job->tri_max - job->tri_listed;
	if (have == res[i].triangle_pairs) {
		// Pose i is listed whole but does not fit the room: the list stops
		// inside it.
		write_triangle_rows(job, first_index + i, list->entries + e, room);
		job->tri_stopped = true;
		job->tri_short_pose = UINT64_MAX;
		return n;
	}
	// Pose i is not in the list whole (the call's list was full): repeat
	// from it, alone; a lone pose larger than the whole list cannot be
	// listed (the library lists whole poses), and the list stops before it.
	if (i > 0 || n > 1) {
		job->tri_alone = true;
		return i;
	}
	job->tri_stopped = true;
	job->tri_short_pose = first_index + i;
	return n;
}

// Answers the poses of the block. *answered receives how many of them, from
// the first, have their results: all of them unless the result is an error
// (VKCOL_ERROR_INTERRUPTED included).
static vkcol_result answer_block(collide_job *job, uint32_t *answered)
{
	vkcol_result r = VKCOL_SUCCESS;
	job->counted = 0;
	for (job->offset = 0; job->offset < job->count;) {
		uint32_t n = job->count - job->offset;
		// The first poses of a run alone measure the rate that sizes the
		// library's chunks.
		if (job->answered + job->offset == 0 && n > CALIBRATION_POSES)
			n = CALIBRATION_POSES;
		uint32_t chunk = chunk_pairs(job);
		vkcol_batch_desc bd = {0};
		vkcol_triangle_list list = {0};
		if (job->tri_out) {
			// One chunk per call, and the whole buffer as the list: the
			// library keeps whole poses in it, and take_triangles writes
			// what the room allows (a list also keeps the per-pose counts
			// complete after the listing has stopped).
			if (n > chunk)
				n = chunk;
			if (job->tri_alone)
				n = 1;
			job->tri_alone = false;
			list.entries = job->tri_entries;
			list.capacity = job->tri_buffer;
			bd.triangles = &list;
		}
		bd.pairs = job->pairs + job->offset;
		bd.pair_count = n;
		bd.mode = job->mode;
		bd.mip_level = job->mip;
		bd.vertex_budget = job->vertex_budget;
		bd.chunk_pairs = chunk;
		bd.progress = on_chunk;
		bd.progress_user = job;
		double start = now_seconds();
		r = vkcol_batch_run(job->ctx, &bd, job->results + job->offset);
		job->batch_seconds += now_seconds() - start;
		if (r != VKCOL_SUCCESS)
			break;
		if (job->tri_out)
			n = take_triangles(job, n, &list);
		// The callback has counted every result it was told of; count the
		// rest (none when the library reports the last chunk).
		job->offset += n;
		for (; job->counted < job->offset; job->counted++)
			job->collide += job->results[job->counted].collide != 0;
		if (interrupt_signal && job->offset < job->count) {
			r = VKCOL_ERROR_INTERRUPTED;
			break;
		}
	}
	// Results past offset (a call take_triangles repeats) have no rows yet.
	uint32_t done = job->tri_out ? job->offset : job->counted;
	*answered = r == VKCOL_SUCCESS || r == VKCOL_ERROR_INTERRUPTED ? done : 0;
	return r;
}

// Writes the first n results of the block and flushes them.
static bool write_block(collide_job *job, uint32_t n)
{
	if (job->out_is_terminal)
		progress_clear(&job->progress);
	char penetration[32];
	for (uint32_t i = 0; i < n; i++) {
		const vkcol_pair_result *res = &job->results[i];
		uint64_t index = job->answered + i;
		format_float(res->penetration, penetration, sizeof(penetration));
		if (job->jsonl) {
			fprintf(job->out,
			        "{\"index\":%" PRIu64 ",\"collide\":%s,\"stage\":\"%s\",\"penetration\":%s,"
			        "\"triangle_pairs\":%u,\"line\":%" PRIu64 "}\n",
			        index, res->collide ? "true" : "false", stage_name(res->stage),
			        isfinite(res->penetration) ? penetration : "null", res->triangle_pairs, job->lines[i]);
		} else {
			fprintf(job->out, "%" PRIu64 ",%u,%s,%s,%u,%" PRIu64 "\n", index, res->collide ? 1u : 0u,
			        stage_name(res->stage), penetration, res->triangle_pairs, job->lines[i]);
		}
		job->tri_found += res->triangle_pairs;
	}
	if (n) {
		job->answered += n;
		job->last_line = job->lines[n - 1];
	}
	return fflush(job->out) == 0 && !ferror(job->out);
}

// Disagreements --verify describes one by one; the rest are counted.
#define VERIFY_SHOWN 10

// Answers the first n poses of the block with the reference, stopping early
// on an interrupt; *verified receives how many it answered (the poses
// written: every pose written is verified).
static vkcol_result verify_block(collide_job *job, uint32_t n, uint32_t *verified)
{
	*verified = 0;
	for (uint32_t i = 0; i < n && !interrupt_signal; i++) {
		bool exact = false;
		vkcol_result r = vkcol_reference_collide(job->ctx, &job->pairs[i], &exact);
		if (r != VKCOL_SUCCESS)
			return r;
		bool got = job->results[i].collide != 0;
		job->verified++;
		job->reference_collide += exact;
		job->agree += got == exact;
		job->false_positive += got && !exact;
		job->false_negative += !got && exact;
		// The first disagreements, with how far apart the surfaces are, so
		// that one can see whether a pose lies within the touching distance;
		// exact mode's false positives are all placed (docs/semantics.md:
		// within that distance they are allowed).
		bool exact_fp = got && !exact && job->mode != VKCOL_MODE_APPROX;
		bool shown = got != exact && job->false_positive + job->false_negative <= VERIFY_SHOWN;
		if (shown || exact_fp) {
			double apart, touch;
			r = verify_place(job->ctx, &job->pairs[i], &apart, &touch);
			if (r != VKCOL_SUCCESS)
				return r;
			job->in_band += exact_fp && apart <= touch;
			if (shown) {
				char band[64] = "";
				if (job->mode != VKCOL_MODE_APPROX)
					snprintf(band, sizeof(band), " (exact mode's touching distance %.9g)", touch);
				progress_clear(&job->progress);
				error_line("verify: pose %llu (line %llu): %s mode says %s, the reference %s; surfaces %.9g apart%s",
				           (unsigned long long)(job->answered + i), (unsigned long long)job->lines[i], job->mode_name,
				           got ? "collide" : "no collision", exact ? "collide" : "no collision", apart, band);
			}
		}
		*verified = i + 1;
		progress_show(&job->progress, job->answered + i + 1, job->collide);
	}
	return VKCOL_SUCCESS;
}

static void print_verify_summary(const collide_job *job)
{
	const char *mode_name = job->mode_name;
	char poses[32], agree[32], fp[32], fn[32], ref[32];
	format_count(job->verified, poses, sizeof(poses));
	format_count(job->agree, agree, sizeof(agree));
	format_count(job->false_positive, fp, sizeof(fp));
	format_count(job->false_negative, fn, sizeof(fn));
	format_count(job->reference_collide, ref, sizeof(ref));
	double n = job->verified ? (double)job->verified : 1.0;
	char band[96];
	verify_band_note(job->mode, job->false_positive, job->in_band, band, sizeof(band));
	error_line("verify: %s poses, %s agree (%.2f%%), %s false positives, %s false negatives (%s mode vs the exact "
	           "CPU reference, which says %s collide: %.1f%%)%s",
	           poses, agree, 100.0 * (double)job->agree / n, fp, fn, mode_name, ref,
	           100.0 * (double)job->reference_collide / n, band);
}

// The list of --triangle-pairs stopped short: one line saying how far it
// goes; the counts in the results are complete all the same.
static void print_triangles_stopped(const collide_job *job)
{
	char listed[32], found[32], why[96];
	format_count(job->tri_listed, listed, sizeof(listed));
	format_count(job->tri_found, found, sizeof(found));
	if (job->tri_short_pose == UINT64_MAX)
		snprintf(why, sizeof(why), "--max-triangle-pairs %" PRIu64, job->tri_max);
	else
		snprintf(why, sizeof(why), "pose %" PRIu64 " has more pairs than one batch can list", job->tri_short_pose);
	error_line("warning: %s lists %s of the %s intersecting triangle pairs found (%s); the triangle_pairs counts "
	           "in the results are complete",
	           job->tri_name, listed, found, why);
}

static void print_exact_unsupported(void)
{
	error_line("exact mode is not implemented yet (use --mode approx)");
}

typedef struct collide_args {
	const char *files[2];
	const char *poses;
	const char *out;
	const char *mode_name;
	const char *triangle_pairs; // --triangle-pairs FILE, NULL = none
	uint64_t max_triangle_pairs;
	bool max_triangle_pairs_given;
	uint32_t resolution, mip, chunk, vertex_budget;
	bool jsonl, verify, quiet;
} collide_args;

static int parse_collide_args(const command *cmd, int argc, char **argv, collide_args *a, cli_log *log,
                              bool *help)
{
	int file_count = 0;
	bool options_done = false;
	a->mode_name = DEFAULT_MODE_NAME;
	a->resolution = DEFAULT_RESOLUTION;
	a->chunk = DEFAULT_BLOCK_POSES;
	a->max_triangle_pairs = DEFAULT_MAX_TRIANGLE_PAIRS;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const char *value = NULL;
		if (options_done || arg[0] != '-' || arg[1] == '\0') {
			if (file_count == 2)
				return usage_error(cmd, "more than two mesh files ('%s')", arg);
			a->files[file_count++] = arg;
		} else if (strcmp(arg, "--") == 0) {
			options_done = true;
		} else if (is_help_option(arg)) {
			*help = true;
			return 0;
		} else if (is_verbose_option(arg)) {
			log->verbose = true;
		} else if (match_value_option(argc, argv, &i, "--poses", &value)) {
			if (!value || !*value)
				return usage_error(cmd, "--poses wants a file name (or - for standard input)");
			a->poses = value;
		} else if (match_value_option(argc, argv, &i, "--out", &value)) {
			if (!value || !*value)
				return usage_error(cmd, "--out wants a file name");
			a->out = value;
		} else if (match_value_option(argc, argv, &i, "--mode", &value)) {
			a->mode_name = NULL;
			for (size_t k = 0; k < sizeof(mode_names) / sizeof(mode_names[0]); k++) {
				if (value && strcmp(value, mode_names[k].name) == 0)
					a->mode_name = mode_names[k].name;
			}
			if (!a->mode_name)
				return usage_error(cmd, "--mode wants approx or exact, not '%s'", value ? value : "");
		} else if (match_value_option(argc, argv, &i, "--format", &value)) {
			if (value && strcmp(value, "csv") == 0)
				a->jsonl = false;
			else if (value && strcmp(value, "jsonl") == 0)
				a->jsonl = true;
			else
				return usage_error(cmd, "--format wants csv or jsonl, not '%s'", value ? value : "");
		} else if (match_value_option(argc, argv, &i, "--resolution", &value)) {
			if (!parse_u32(value, 4, 1024, &a->resolution) || (a->resolution & (a->resolution - 1)))
				return usage_error(cmd, "--resolution wants a power of two in 4..1024, not '%s'",
				                   value ? value : "");
		} else if (match_value_option(argc, argv, &i, "--mip", &value)) {
			if (!parse_u32(value, 0, MAX_MIP, &a->mip))
				return usage_error(cmd, "--mip wants an integer in 0..%d, not '%s'", MAX_MIP, value ? value : "");
		} else if (match_value_option(argc, argv, &i, "--vertex-budget", &value)) {
			if (!parse_u32(value, 0, UINT32_MAX, &a->vertex_budget))
				return usage_error(cmd, "--vertex-budget wants an integer in 0..%u, not '%s'", UINT32_MAX,
				                   value ? value : "");
		} else if (match_value_option(argc, argv, &i, "--chunk", &value)) {
			if (!parse_u32(value, 1, MAX_BLOCK_POSES, &a->chunk))
				return usage_error(cmd, "--chunk wants an integer in 1..%u, not '%s'", MAX_BLOCK_POSES,
				                   value ? value : "");
		} else if (match_value_option(argc, argv, &i, "--triangle-pairs", &value)) {
			if (!value || !*value)
				return usage_error(cmd, "--triangle-pairs wants a file name");
			if (strcmp(value, "-") == 0)
				return usage_error(cmd, "--triangle-pairs wants a file name, not '-' (standard output carries "
				                        "the results)");
			a->triangle_pairs = value;
		} else if (match_value_option(argc, argv, &i, "--max-triangle-pairs", &value)) {
			if (!parse_u64(value, 1, MAX_TRIANGLE_PAIRS, &a->max_triangle_pairs))
				return usage_error(cmd, "--max-triangle-pairs wants an integer in 1..%" PRIu64 ", not '%s'",
				                   (uint64_t)MAX_TRIANGLE_PAIRS, value ? value : "");
			a->max_triangle_pairs_given = true;
		} else if (strcmp(arg, "--verify") == 0) {
			a->verify = true;
		} else if (strcmp(arg, "--quiet") == 0 || strcmp(arg, "-q") == 0) {
			a->quiet = true;
		} else {
			return usage_error(cmd, "unknown option '%s'", arg);
		}
	}
	if (file_count < 2)
		return usage_error(cmd, file_count ? "one mesh file given, two needed (A and B)" : "no mesh files given");
	if (!a->poses)
		return usage_error(cmd, "no --poses FILE given");
	if (a->vertex_budget != 0 && strcmp(a->mode_name, "approx") != 0)
		return usage_error(cmd, "--vertex-budget needs --mode approx: exact mode tests triangles, not vertices");
	if (a->triangle_pairs && strcmp(a->mode_name, "approx") == 0)
		return usage_error(cmd, "--triangle-pairs needs exact mode: approx mode tests no triangles");
	if (a->max_triangle_pairs_given && !a->triangle_pairs)
		return usage_error(cmd, "--max-triangle-pairs needs --triangle-pairs FILE");
	return 0;
}

static vkcol_mode mode_of(const char *name)
{
	for (size_t k = 0; k < sizeof(mode_names) / sizeof(mode_names[0]); k++) {
		if (strcmp(name, mode_names[k].name) == 0)
			return mode_names[k].mode;
	}
	return VKCOL_MODE_DEFAULT;
}

// Imports a mesh file and checks it as mesh-info does. Returns 0 or an exit
// status.
static int load_mesh(const char *file, uint32_t resolution, import_mesh *mesh, vkcol_mesh_desc *md)
{
	char reason[256];
	if (import_mesh_load(file, mesh, reason, sizeof(reason)) != 0) {
		error_line("%s: %s", file, reason);
		return EXIT_USAGE;
	}
	memset(md, 0, sizeof(*md));
	md->positions = mesh->positions;
	md->vertex_count = mesh->vertex_count;
	md->indices = mesh->indices;
	md->triangle_count = mesh->triangle_count;
	md->cube_resolution = resolution;
	md->name = file;
	vkcol_mesh_problem problem;
	vkcol_result r = vkcol_mesh_check(md, &problem);
	if (r != VKCOL_SUCCESS) {
		error_line("%s: %s", file, problem.message[0] ? problem.message : vkcol_result_string(r));
		return is_bad_input(r) ? EXIT_USAGE : EXIT_RUNTIME;
	}
	return 0;
}

// Runs the mode on one pair before any output: exact mode reports
// VKCOL_ERROR_UNSUPPORTED until the library implements it, and the tool
// should start working the day it does, with no change here.
static int probe_mode(collide_job *job)
{
	vkcol_pair pair = {job->a, job->b, {{1, 0, 0, 0}, {0, 0, 0}}, {{1, 0, 0, 0}, {0, 0, 0}}};
	vkcol_pair_result result;
	vkcol_batch_desc bd = {0};
	bd.pairs = &pair;
	bd.pair_count = 1;
	bd.mode = job->mode;
	bd.mip_level = job->mip;
	bd.vertex_budget = job->vertex_budget;
	vkcol_result r = vkcol_batch_run(job->ctx, &bd, &result);
	if (r == VKCOL_ERROR_UNSUPPORTED && job->mode == VKCOL_MODE_EXACT) {
		job->log->has_pending = false; // the library's wording names its API, ours the option
		print_exact_unsupported();
		return EXIT_USAGE;
	}
	if (r != VKCOL_SUCCESS)
		return report_failure(job->log, "cannot run a batch", r);
	return 0;
}

// A stdio stream on a duplicate of an output's descriptor: closing the
// stream leaves the output's own descriptor to out_commit, which syncs it.
static FILE *output_stream(const out_file *f)
{
	if (f->to_stdout)
		return stdout;
	int fd = dup(f->fd);
	FILE *s = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!s && fd >= 0)
		close(fd);
	return s;
}

// Flushes and closes a stream from output_stream. False with errno on a
// write error.
static bool close_stream(FILE *s)
{
	if (!s)
		return true;
	if (s == stdout)
		return fflush(s) == 0 && !ferror(s);
	bool ok = fflush(s) == 0 && !ferror(s);
	int e = errno;
	if (fclose(s) != 0)
		ok = false;
	else
		errno = e;
	return ok;
}

// Reads, answers and writes every block. Returns the exit status.
static int stream_poses(collide_job *job, pose_reader *reader, const char *mode_name)
{
	pose_error err = {0};
	read_status status = READ_POSE;
	int exit_status = 0;
	while (status != READ_END) {
		// Read a block. An empty block waits for input; a block with poses
		// in it is answered early when the input stalls.
		job->count = 0;
		while (job->count < job->capacity) {
			vkcol_pose pose;
			uint64_t line = 0;
			status = pose_reader_read(reader, job->count > 0, &pose, &line, &err);
			if (status != READ_POSE)
				break;
			vkcol_pair *p = &job->pairs[job->count];
			p->a = job->a;
			p->b = job->b;
			p->pose_a = (vkcol_pose){{1, 0, 0, 0}, {0, 0, 0}};
			p->pose_b = pose;
			job->lines[job->count++] = line;
		}

		// Answer it; on an interrupt, only what the library finished.
		uint32_t answered = 0;
		if (job->count > 0) {
			vkcol_result r = answer_block(job, &answered);
			if (r == VKCOL_ERROR_UNSUPPORTED && job->mode == VKCOL_MODE_EXACT) {
				progress_clear(&job->progress);
				job->log->has_pending = false;
				print_exact_unsupported();
				return EXIT_USAGE;
			} else if (r != VKCOL_SUCCESS && r != VKCOL_ERROR_INTERRUPTED) {
				progress_clear(&job->progress);
				return report_failure(job->log, "cannot answer the poses", r);
			}
			if (job->verify) {
				r = verify_block(job, answered, &answered);
				if (r != VKCOL_SUCCESS) {
					progress_clear(&job->progress);
					return report_failure(job->log, "the exact reference failed", r);
				}
			}
			if (!write_block(job, answered)) {
				int e = errno; // before the progress line's own writes
				progress_clear(&job->progress);
				error_line("%s: cannot write the results: %s", job->out_name, strerror(e));
				return EXIT_RUNTIME;
			}
			if (job->tri_out && (fflush(job->tri_out) != 0 || ferror(job->tri_out))) {
				int e = errno;
				progress_clear(&job->progress);
				error_line("%s: cannot write the triangle pairs: %s", job->tri_name, strerror(e));
				return EXIT_RUNTIME;
			}
			progress_show(&job->progress, job->answered, job->collide);
		}
		// An interrupt that came after the last pose was read, answered
		// (and verified) finds the work complete.
		bool unfinished = status != READ_END || answered < job->count ||
		                  (job->verify && job->verified < job->answered);
		if ((interrupt_signal && unfinished) || status == READ_INTERRUPTED) {
			status = READ_INTERRUPTED;
			break;
		}
		if (status == READ_BAD_LINE || status == READ_FAILED)
			break;
	}
	progress_clear(&job->progress);
	if (job->verify)
		print_verify_summary(job);
	if (job->tri_stopped)
		print_triangles_stopped(job);
	switch (status) {
	case READ_BAD_LINE:
		error_line("%s:%" PRIu64 ":%" PRIu64 ": %s", reader->name, err.line, err.column, err.reason);
		exit_status = EXIT_USAGE;
		break;
	case READ_FAILED:
		error_line("%s: cannot read the poses file (line %" PRIu64 "): %s", reader->name, reader->line,
		           strerror(reader->read_errno));
		exit_status = EXIT_USAGE;
		break;
	case READ_INTERRUPTED:
		if (job->answered)
			error_line("interrupted: %" PRIu64 " poses answered and written, the last on line %" PRIu64 " of %s",
			           job->answered, job->last_line, reader->name);
		else
			error_line("interrupted before any pose was answered");
		exit_status = 128 + (int)interrupt_signal;
		break;
	default:
		break;
	}
	return exit_status;
}

static int cmd_collide(const command *cmd, int argc, char **argv)
{
	collide_args args = {0};
	cli_log log = {0};
	bool help = false;
	int status = parse_collide_args(cmd, argc, argv, &args, &log, &help);
	if (status != 0)
		return status;
	if (help) {
		print_command_help(cmd, stdout);
		return 0;
	}

	// Inputs first, cheapest first: a typo costs no import and no device
	// start-up. Meshes are imported before the context exists (the importer
	// forks).
	import_mesh meshes[2] = {{0}};
	vkcol_mesh_desc descs[2];
	collide_job job = {0};
	vkcol_context *ctx = NULL;
	bool same = strcmp(args.files[0], args.files[1]) == 0;
	pose_reader *reader = NULL;
	out_file out = {0}, tri = {0};
	out.fd = tri.fd = -1;
	input_set inputs = {0};
	bool output_began = false;
	status = pose_reader_open(args.poses, &interrupt_signal, &reader);
	if (status != 0)
		return status;
	// Every output before any work: created beside its target as a
	// temporary file, never an input, never the other output.
	input_set_add(&inputs, args.poses, "the poses file");
	input_set_add(&inputs, args.files[0], "mesh A");
	input_set_add(&inputs, args.files[1], "mesh B");
	status = out_open(&out, args.out ? args.out : "-", "--out", &inputs, NULL, false, false);
	if (status == 0 && args.triangle_pairs)
		status = out_open(&tri, args.triangle_pairs, "--triangle-pairs", &inputs, &out, false, false);
	for (int k = 0; k < (same ? 1 : 2) && status == 0; k++)
		status = load_mesh(args.files[k], args.resolution, &meshes[k], &descs[k]);
	if (status != 0)
		goto cleanup;

	vkcol_context_desc cd = context_desc(&log);
	log.progress = &job.progress;
	vkcol_result r = vkcol_context_create(&cd, &ctx);
	if (r != VKCOL_SUCCESS) {
		status = report_failure(&log, "cannot create a Vulkan context", r);
		goto cleanup;
	}
	job.ctx = ctx;
	job.log = &log;
	vkcol_mesh *handles[2] = {&job.a, &job.b};
	for (int k = 0; k < (same ? 1 : 2); k++) {
		r = vkcol_mesh_create(ctx, &descs[k], handles[k]);
		if (r != VKCOL_SUCCESS) {
			status = report_failure(&log, args.files[k], r);
			goto cleanup;
		}
	}
	if (same)
		job.b = job.a;
	job.mode = mode_of(args.mode_name);
	job.mip = args.mip;
	job.vertex_budget = args.vertex_budget;
	job.jsonl = args.jsonl;
	job.verify = args.verify;
	job.mode_name = args.mode_name;
	status = probe_mode(&job);
	if (status != 0)
		goto cleanup;

	job.tri_max = args.max_triangle_pairs;
	job.tri_short_pose = UINT64_MAX;
	if (args.triangle_pairs) {
		// The tests shrink the list of a call to reach the paths a real run
		// takes only past 2^20 pairs per call.
		uint64_t buffer = TRIANGLE_BUFFER_ENTRIES;
		const char *test_buffer = getenv("VKCOLLIDE_TEST_TRIANGLE_BUFFER");
		if (test_buffer && !parse_u64(test_buffer, 1, TRIANGLE_BUFFER_ENTRIES, &buffer))
			buffer = TRIANGLE_BUFFER_ENTRIES;
		job.tri_buffer = buffer; // whole poses are listed: not limited by the cap
		job.tri_entries = malloc((size_t)job.tri_buffer * sizeof(*job.tri_entries));
		if (!job.tri_entries) {
			error_line("out of memory for a list of %" PRIu64 " triangle pairs", job.tri_buffer);
			status = EXIT_RUNTIME;
			goto cleanup;
		}
	}
	job.capacity = args.chunk;
	job.pairs = malloc((size_t)job.capacity * sizeof(*job.pairs));
	job.results = malloc((size_t)job.capacity * sizeof(*job.results));
	job.lines = malloc((size_t)job.capacity * sizeof(*job.lines));
	if (!job.pairs || !job.results || !job.lines) {
		char bytes[32];
		format_bytes((uint64_t)job.capacity * BLOCK_BYTES_PER_POSE, bytes, sizeof(bytes));
		error_line("out of memory for a block of %u poses (%s); try a smaller --chunk", job.capacity, bytes);
		status = EXIT_RUNTIME;
		goto cleanup;
	}

	// The results go to the temporary files created above; they replace
	// the targets when the run ends, whatever the outcome from here on
	// (the answers computed are never lost), and a kill leaves the
	// targets as they were.
	job.out = output_stream(&out);
	job.out_name = out.to_stdout ? "standard output" : args.out;
	if (args.triangle_pairs) {
		job.tri_out = output_stream(&tri);
		job.tri_name = args.triangle_pairs;
	}
	if (!job.out || (args.triangle_pairs && !job.tri_out)) {
		error_line("cannot open the output: %s", strerror(errno));
		status = EXIT_RUNTIME;
		goto cleanup;
	}
	output_began = true;
	if (job.tri_out)
		fputs(TRIANGLE_CSV_HEADER, job.tri_out);
	if (!job.jsonl)
		fputs("index,collide,stage,penetration,triangle_pairs,line\n", job.out);

	job.out_is_terminal = isatty(fileno(job.out));
	job.progress.enabled = !args.quiet && isatty(STDERR_FILENO);
	job.progress.start = now_seconds();
	catch_interrupts(true);
	status = stream_poses(&job, reader, args.mode_name);
	catch_interrupts(false);
	if (!close_stream(job.out) && status == 0) {
		error_line("%s: cannot write the results: %s", job.out_name, strerror(errno));
		status = EXIT_RUNTIME;
	}
	job.out = NULL;
	if (!close_stream(job.tri_out) && status == 0) {
		error_line("%s: cannot write the triangle pairs: %s", job.tri_name, strerror(errno));
		status = EXIT_RUNTIME;
	}
	job.tri_out = NULL;
	{
		int s1 = out_commit(&out), s2 = out_commit(&tri);
		if (status == 0)
			status = s1 ? s1 : s2;
	}
	log_flush(&log);
	// Checked whatever the outcome: a bad line must not hide a validation
	// message about the poses before it.
	int validation = check_validation(ctx);
	if (status == 0)
		status = validation;

cleanup:
	close_stream(job.out);
	close_stream(job.tri_out);
	if (output_began) {
		out_commit(&out);
		out_commit(&tri);
	} else {
		out_discard(&out);
		out_discard(&tri);
	}
	input_set_free(&inputs);
	free(job.tri_entries);
	free(job.pairs);
	free(job.results);
	free(job.lines);
	vkcol_mesh_destroy(ctx, job.a);
	if (!same)
		vkcol_mesh_destroy(ctx, job.b);
	vkcol_context_destroy(ctx);
	log.progress = NULL;
	log_flush(&log);
	for (int k = 0; k < 2; k++)
		import_mesh_free(&meshes[k]);
	pose_reader_close(reader);
	return status;
}
