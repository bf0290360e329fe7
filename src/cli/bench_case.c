// SPDX-License-Identifier: MIT
// One case of `vkcollide bench` (bench_case.h): its meshes imported or
// generated and built, its poses made, each mode timed at each batch size
// and cube resolution, approx mode's answers set against exact mode's, and
// the peers run on the same poses, every run's speed then divided by
// theirs.
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_case.h"
#include "bench_poses.h"
#include "import.h"

// ---------------------------------------------------------------------------
// Meshes

typedef struct loaded_mesh {
	char source[160];
	char path[PATH_MAX];
	char name[64];
	import_mesh im;
	pose_frame frame;
	vkcol_mesh handle;
	vkcol_mesh_info info;
} loaded_mesh;

// A torus around z (bench/meshes/generate.py's torus: tube radius 0.35 of
// the ring's), as OBJ with every float written exactly.
static bool write_torus(const char *path, uint32_t nu, uint32_t nv, double major)
{
	if (bench_is_file(path))
		return true;
	char tmp[PATH_MAX + 8];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return false;
	const double pi = 3.141592653589793, minor = 0.35 * major;
	fprintf(f, "# torus of %u triangles written by vkcollide bench\no torus\n", 2 * nu * nv);
	for (uint32_t i = 0; i < nu; i++) {
		double u = 2 * pi * i / nu;
		for (uint32_t j = 0; j < nv; j++) {
			double v = 2 * pi * j / nv, ring = major + minor * cos(v);
			fprintf(f, "v %.9g %.9g %.9g\n", (float)(ring * cos(u)), (float)(ring * sin(u)), (float)(minor * sin(v)));
		}
	}
	for (uint32_t i = 0; i < nu; i++) {
		for (uint32_t j = 0; j < nv; j++) {
			uint32_t a = i * nv + j, bb = ((i + 1) % nu) * nv + j, c = ((i + 1) % nu) * nv + (j + 1) % nv,
			         d = i * nv + (j + 1) % nv;
			fprintf(f, "f %u %u %u\nf %u %u %u\n", a + 1, bb + 1, c + 1, a + 1, c + 1, d + 1);
		}
	}
	if (fclose(f) != 0)
		return false;
	return rename(tmp, path) == 0;
}

// The file of a mesh source (see build_suite), written first when it is a
// generated torus; false with *why set when it does not exist. `other`: the
// pair's mesh A, which "mover" is sized by.
static bool mesh_path(bench *b, const char *source, const loaded_mesh *other, char *out, size_t size,
                      const char **why)
{
	unsigned nu, nv;
	if (!strncmp(source, "bench:", 6)) {
		if (!*b->data_dir) {
			*why = "the benchmark meshes (share/vkcollide/meshes) were not found";
			return false;
		}
		bench_pathf(out, size, "%s/meshes/%s", b->data_dir, source + 6);
	} else if (!strncmp(source, "models:", 7)) {
		bench_pathf(out, size, "%s/%s", b->models, source + 7);
	} else if (sscanf(source, "torus:%ux%u", &nu, &nv) == 2) {
		bench_pathf(out, size, "%s/torus-%ux%u.obj", b->work_dir, nu, nv);
		if (!write_torus(out, nu, nv, 1.0)) {
			*why = "cannot write the torus into the work folder";
			return false;
		}
	} else if (!strcmp(source, "mover") && other) {
		bench_pathf(out, size, "%s/mover.obj", b->work_dir);
		remove(out); // sized by this case's mesh A
		if (!write_torus(out, 48, 20, 0.1 * other->frame.radius / 1.35)) {
			*why = "cannot write the mover into the work folder";
			return false;
		}
	} else {
		*why = "unknown mesh source";
		return false;
	}
	if (!bench_is_file(out)) {
		*why = "file not found (assimp-testmodels missing? --models DIR)";
		return false;
	}
	return true;
}

static bool mesh_import(bench *b, const char *source, const loaded_mesh *other, loaded_mesh *m, const char **why)
{
	static char error[256];
	memset(m, 0, sizeof(*m));
	snprintf(m->source, sizeof m->source, "%s", source);
	if (!mesh_path(b, source, other, m->path, sizeof m->path, why))
		return false;
	const char *base = strrchr(m->path, '/');
	bench_pathf(m->name, sizeof m->name, "%s", base ? base + 1 : m->path); // cut short in log messages only
	if (import_mesh_load(m->path, &m->im, error, sizeof error) != 0) {
		*why = error;
		return false;
	}
	pose_frame_of(m->im.positions, m->im.vertex_count, &m->frame);
	return true;
}

static vkcol_result mesh_build(bench *b, loaded_mesh *m, uint32_t resolution)
{
	vkcol_mesh_desc md = {.positions = m->im.positions,
	                      .vertex_count = m->im.vertex_count,
	                      .indices = m->im.indices,
	                      .triangle_count = m->im.triangle_count,
	                      .cube_resolution = resolution,
	                      .name = m->name};
	vkcol_result r = vkcol_mesh_create(b->ctx, &md, &m->handle);
	if (r == VKCOL_SUCCESS)
		r = vkcol_mesh_get_info(b->ctx, m->handle, &m->info);
	return r;
}

static void mesh_drop(bench *b, loaded_mesh *m)
{
	if (m->handle.id)
		vkcol_mesh_destroy(b->ctx, m->handle);
	m->handle.id = 0;
}

// ---------------------------------------------------------------------------
// Measurements

static const char *const stage_names[VKCOL_TIMED_STAGE_COUNT] = {"bounds",   "cube_map", "setup",
                                                                 "traversal", "leaves",   "containment"};

// Bytes a pass must move at the least, for its fraction of the bandwidth:
// a pair read and its answer written; a traversal item read with the boxes
// of its two nodes.
#define BYTES_PER_PAIR (sizeof(vkcol_pair) + sizeof(vkcol_pair_result))
#define BYTES_PER_ITEM (16 + 2 * 32)

static json_object *stats_json(const vkcol_batch_stats *st, double wall)
{
	json_object *t = json_object_new_object();
	bench_add(t, "wall_seconds", bench_number(wall));
	bench_add(t, "gpu_seconds", bench_number(st->gpu_seconds));
	bench_add(t, "upload_seconds", bench_number(st->upload_seconds));
	bench_add(t, "readback_seconds", bench_number(st->readback_seconds));
	bench_add(t, "device_bytes", bench_number((double)st->device_bytes));
	json_object *stages = json_object_new_object();
	for (int k = 0; k < VKCOL_TIMED_STAGE_COUNT; k++)
		bench_add(stages, stage_names[k], bench_number(st->stage_seconds[k]));
	bench_add(t, "stage_seconds", stages);
	int last = -1;
	for (int l = 0; l < 128; l++)
		if (st->level_seconds[l] > 0 || (l < (int)st->levels && st->level_items[l]))
			last = l;
	json_object *levels = json_object_new_array(), *items = json_object_new_array();
	for (int l = 0; l <= last; l++) {
		json_object_array_add(levels, bench_number(st->level_seconds[l]));
		json_object_array_add(items, bench_number((double)st->level_items[l]));
	}
	bench_add(t, "level_seconds", levels);
	bench_add(t, "level_items", items);
	const struct {
		const char *name;
		uint64_t v;
	} counters[] = {{"sphere_rejected", st->sphere_rejected},         {"witness_accepted", st->witness_accepted},
	                {"inner_ball_accepted", st->inner_ball_accepted}, {"vertex_tests", st->vertex_tests},
	                {"cube_samples", st->cube_samples},               {"reruns", st->reruns},
	                {"cpu_fallbacks", st->cpu_fallbacks},             {"float_undecided", st->float_undecided}};
	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
		bench_add(t, counters[i].name, bench_number((double)counters[i].v));
	return t;
}

static double traversal_items(const vkcol_batch_stats *st)
{
	double items = 0;
	for (uint32_t l = 0; l < st->levels && l < 128; l++)
		items += (double)st->level_items[l];
	return items;
}

typedef struct measurement {
	vkcol_mode mode;
	uint64_t batch;
	uint32_t resolution;
	uint32_t vertex_budget;  // approx mode's, 0 = every vertex
	const vkcol_pair *pairs; // batch pairs
	vkcol_pair_result *results;
	uint64_t answered; // out: pairs the last run answered (all but after an interruption)
	uint32_t flags;    // vkcol_batch_flags of every run
} measurement;

// A run longer than the suite's max_seconds stops at its next chunk: its
// rate is then the pairs answered over the time spent.
typedef struct deadline {
	double start, limit;
	uint64_t done;
} deadline;

static bool before_deadline(void *user, uint64_t done, uint64_t total)
{
	deadline *d = user;
	d->done = done;
	return now_seconds() - d->start < d->limit;
}

// One run of bd (its progress hook set here); *seconds its wall time.
static vkcol_result timed_run(bench *b, vkcol_batch_desc *bd, vkcol_pair_result *results, double *seconds,
                              uint64_t *done, int *interrupted)
{
	deadline d = {now_seconds(), b->set.max_seconds, 0};
	bd->progress = before_deadline;
	bd->progress_user = &d;
	vkcol_result r = vkcol_batch_run(b->ctx, bd, results);
	*seconds = now_seconds() - d.start;
	*done = r == VKCOL_SUCCESS ? bd->pair_count : d.done;
	if (r == VKCOL_ERROR_INTERRUPTED) {
		(*interrupted)++;
		r = d.done > 0 ? VKCOL_SUCCESS : r;
	}
	return r;
}

// What the runs of one measurement collected.
typedef struct samples {
	vkcol_batch_desc bd;
	int warm_runs, interrupted;
	double warmup_spent; // seconds of full batches in the warm-up
	double spent, rates[MAX_REPEAT];
	int n;
	vkcol_batch_stats timed[MAX_REPEAT];
	double walls[MAX_REPEAT];
	int nt;
} samples;

// The warm-up of one measurement: one batch of at most 4,096 pairs (it
// compiles pipelines and fills the pool after a mesh change), then on a
// GPU full batches until its clocks are up again after the peers and the
// pool has grown to the batch. Without them the first runs of a case ran
// 3-5 times slower than the same code in the runs after (H100); with a
// fixed 0.5 s a case's first measurement still ran 1.3-1.6x slower than
// its later ones, warm-up and speed runs alike (H200). So the batches go
// on in windows of half b->warmup_seconds, for at least b->warmup_seconds,
// until a window's rate is within WARMUP_SETTLED of the window before, and
// for at most WARMUP_LONGEST times b->warmup_seconds.
#define WARMUP_SETTLED 0.03
#define WARMUP_LONGEST 6.0
static vkcol_result warm_up(bench *b, measurement *m, samples *sm)
{
	sm->bd = (vkcol_batch_desc){.pairs = m->pairs, .mode = m->mode, .vertex_budget = m->vertex_budget, .flags = m->flags};
	double dt, window_seconds = 0, last_rate = 0;
	uint64_t done = 0, window_pairs = 0;
	vkcol_result r;
	sm->bd.pair_count = m->batch < 4096 ? m->batch : 4096;
	if ((r = timed_run(b, &sm->bd, m->results, &dt, &done, &sm->interrupted)) != VKCOL_SUCCESS)
		return r;
	sm->bd.pair_count = m->batch;
	while (b->warmup_seconds > 0 && sm->warmup_spent < WARMUP_LONGEST * b->warmup_seconds && sm->warm_runs < 10000) {
		if ((r = timed_run(b, &sm->bd, m->results, &dt, &done, &sm->interrupted)) != VKCOL_SUCCESS)
			return r;
		sm->warmup_spent += dt;
		sm->warm_runs++;
		window_seconds += dt;
		window_pairs += done;
		if (window_seconds < 0.5 * b->warmup_seconds)
			continue;
		double rate = (double)window_pairs / window_seconds;
		if (sm->warmup_spent >= b->warmup_seconds && last_rate > 0 && fabs(rate - last_rate) <= WARMUP_SETTLED * last_rate)
			break;
		last_rate = rate;
		window_seconds = 0;
		window_pairs = 0;
	}
	sm->interrupted = 0;
	return VKCOL_SUCCESS;
}

// One speed run (timed: false) or one run with timestamps (true).
static vkcol_result sample(bench *b, measurement *m, samples *sm, bool timed)
{
	uint64_t done = 0;
	double dt;
	vkcol_result r;
	if (!timed) {
		sm->bd.flags = m->flags;
		sm->bd.stats = NULL;
		if ((r = timed_run(b, &sm->bd, m->results, &dt, &done, &sm->interrupted)) != VKCOL_SUCCESS)
			return r;
		sm->spent += dt;
		sm->rates[sm->n++] = (double)done / (dt > 0 ? dt : 1e-9);
	} else {
		sm->bd.flags = m->flags | VKCOL_BATCH_TIMESTAMPS;
		sm->bd.stats = &sm->timed[sm->nt];
		// Its answers go to the same array: they are the same (tests/test_timing.c).
		if ((r = timed_run(b, &sm->bd, m->results, &sm->walls[sm->nt], &done, &sm->interrupted)) != VKCOL_SUCCESS)
			return r;
		sm->spent += sm->walls[sm->nt++];
	}
	m->answered = done;
	return VKCOL_SUCCESS;
}

static json_object *run_json(bench *b, const measurement *m, const char *id, const samples *sm);

// Times `count` measurements (one batch size in one mode each) side by
// side: each one's warm-up, then `repeat` speed runs (fewer when they pass
// max_seconds) and `timed_repeat` runs with timestamps, taking turns, so
// that a device whose clocks drift during a case (a GPU after the peers'
// idle seconds) weighs on each alike. Leaves each one's answers in its
// results. runs[i] gets measurement i's JSON; returns false after a device
// failure (*status set, runs all NULL).
#define MAX_SIDE_BY_SIDE 2
static bool measure_side_by_side(bench *b, measurement *ms, const char *const *ids, int count, json_object **runs,
                                 int *status)
{
	samples sm[MAX_SIDE_BY_SIDE] = {0};
	vkcol_result r = VKCOL_SUCCESS;
	int at = 0;
	assert(count >= 1 && count <= MAX_SIDE_BY_SIDE);
	for (at = 0; at < count; at++)
		if ((r = warm_up(b, &ms[at], &sm[at])) != VKCOL_SUCCESS)
			goto failed;
	for (int timed = 0; timed < 2; timed++) {
		int repeat = timed ? b->set.timed_repeat : b->set.repeat;
		for (int k = 0; k < repeat; k++) {
			bool over = false;
			for (int i = 0; i < count; i++)
				over |= sm[i].spent >= b->set.max_seconds;
			if (k > 0 && over)
				break;
			for (at = 0; at < count; at++)
				if ((r = sample(b, &ms[at], &sm[at], timed)) != VKCOL_SUCCESS)
					goto failed;
		}
		for (int i = 0; i < count; i++)
			sm[i].spent = 0;
	}
	for (int i = 0; i < count; i++)
		runs[i] = run_json(b, &ms[i], ids[i], &sm[i]);
	return true;
failed:
	for (int i = 0; i < count; i++)
		runs[i] = NULL;
	*status = report_failure(&b->log, ids[at], r);
	return false;
}

static json_object *measure(bench *b, measurement *m, const char *id, int *status)
{
	json_object *run;
	return measure_side_by_side(b, m, &id, 1, &run, status) ? run : NULL;
}

// A measurement's run as the report holds it.
static json_object *run_json(bench *b, const measurement *m, const char *id, const samples *sm)
{
	const bool exact = m->mode == VKCOL_MODE_EXACT;
	const int warm_runs = sm->warm_runs, interrupted = sm->interrupted, n = sm->n, nt = sm->nt;
	const double *rates = sm->rates, *walls = sm->walls;
	const vkcol_batch_stats *timed = sm->timed;
	json_object *run = json_object_new_object();
	json_object_object_add(run, "id", json_object_new_string(id));
	json_object_object_add(run, "mode", json_object_new_string(exact ? "exact" : "approx"));
	bench_add(run, "batch", bench_number((double)m->batch));
	bench_add(run, "resolution", bench_number(m->resolution));
	if (m->vertex_budget)
		bench_add(run, "vertex_budget", bench_number(m->vertex_budget));
	if (m->flags & VKCOL_BATCH_NO_EARLY_ACCEPT)
		json_object_object_add(run, "early_accept", json_object_new_boolean(false));
	if (warm_runs) {
		bench_add(run, "warmup_runs", bench_number(warm_runs));
		bench_add(run, "warmup_seconds", bench_number(sm->warmup_spent));
	}
	if (interrupted) {
		bench_add(run, "interrupted_runs", bench_number(interrupted));
		bench_add(run, "answered", bench_number((double)m->answered));
	}
	uint64_t collide = 0, by_stage[5] = {0};
	for (uint64_t i = 0; i < m->answered; i++) {
		collide += m->results[i].collide != 0;
		by_stage[m->results[i].stage < 5 ? m->results[i].stage : 0]++;
	}
	bench_add(run, "collide_fraction", bench_number((double)collide / (double)(m->answered ? m->answered : 1)));
	json_object *decided = json_object_new_object();
	const char *stage_keys[5] = {"none", "bounds", "cube_map", "tree", "containment"};
	for (int k = 0; k < 5; k++)
		bench_add(decided, stage_keys[k], bench_number((double)by_stage[k]));
	bench_add(run, "decided_by", decided);

	json_object *f = json_object_new_object();
	bench_add(f, "pairs_per_second", bench_figure("pairs/s", "higher", rates, n));
	double v[MAX_REPEAT];
	// Per pair answered: an interrupted run counts the pairs it answered.
#define TIMED_FIGURE(name, unit, better, expr)                                   \
	do {                                                                         \
		for (int k = 0; k < nt; k++) {                                           \
			const vkcol_batch_stats *st = &timed[k];                             \
			double wall = walls[k];                                              \
			double per_pair = 1e9 / (double)(st->pairs ? st->pairs : 1);         \
			(void)st;                                                            \
			(void)wall;                                                          \
			(void)per_pair;                                                      \
			v[k] = (expr);                                                       \
		}                                                                        \
		bench_add(f, name, bench_figure(unit, better, v, nt));                         \
	} while (0)
	if (timed[0].timestamps) {
		TIMED_FIGURE("device_ns_per_pair", "ns", "lower", st->gpu_seconds * per_pair);
		// The time the device was idle during the call: recording,
		// submission, waiting, the host's share of the work.
		TIMED_FIGURE("host_ns_per_pair", "ns", "lower", fmax(0.0, wall - st->gpu_seconds) * per_pair);
		TIMED_FIGURE("upload_ns_per_pair", "ns", "lower", st->upload_seconds * per_pair);
		TIMED_FIGURE("readback_ns_per_pair", "ns", "lower", st->readback_seconds * per_pair);
		TIMED_FIGURE("timed_pairs_per_second", "pairs/s", "higher", (double)st->pairs / wall);
		for (int s = 0; s < VKCOL_TIMED_STAGE_COUNT; s++) {
			if (!exact && (s == VKCOL_TIMED_TRAVERSAL || s == VKCOL_TIMED_LEAVES || s == VKCOL_TIMED_CONTAINMENT))
				continue; // approx mode has none
			char name[64];
			snprintf(name, sizeof name, "stage_ns_per_pair.%s", stage_names[s]);
			TIMED_FIGURE(name, "ns", "lower", st->stage_seconds[s] * per_pair);
		}
		// Each stage against what the device can do (device_rates).
		if (isfinite(b->bandwidth)) {
			TIMED_FIGURE("bounds_fraction_of_bandwidth", "fraction", "higher",
			             st->stage_seconds[VKCOL_TIMED_BOUNDS] > 0
			                 ? (double)st->pairs * BYTES_PER_PAIR / st->stage_seconds[VKCOL_TIMED_BOUNDS] / b->bandwidth
			                 : NAN);
			if (exact) {
				TIMED_FIGURE("traversal_fraction_of_bandwidth", "fraction", "higher",
				             st->stage_seconds[VKCOL_TIMED_TRAVERSAL] > 0
				                 ? traversal_items(st) * BYTES_PER_ITEM / st->stage_seconds[VKCOL_TIMED_TRAVERSAL] /
				                       b->bandwidth
				                 : NAN);
			}
		}
		if (!exact && isfinite(b->raw_sampling))
			TIMED_FIGURE("cube_map_fraction_of_raw_sampling", "fraction", "higher",
			             st->stage_seconds[VKCOL_TIMED_CUBE_MAP] > 0
			                 ? (double)st->cube_samples / st->stage_seconds[VKCOL_TIMED_CUBE_MAP] / b->raw_sampling
			                 : NAN);
	}
	TIMED_FIGURE("device_bytes", "bytes", "lower", (double)st->device_bytes);
#undef TIMED_FIGURE
	json_object_object_add(run, "figures", f);
	json_object_object_add(run, "timed", stats_json(&timed[nt - 1], walls[nt - 1]));
	return run;
}

// ---------------------------------------------------------------------------
// Peers

// One peer run (fcl_peer or bullet_peer) on the case's pose file: its rate
// per pass as a figure, its answers against exact mode's.
static json_object *run_peer(bench *b, const char *program, const char *peer, unsigned threads, const char *slug,
                             const loaded_mesh *ma, const loaded_mesh *mb, const char *poses, uint64_t count,
                             const vkcol_pair_result *exact_answers, uint64_t compared)
{
	char id[64], out[PATH_MAX + 64], answers[PATH_MAX + 64], log[PATH_MAX + 64], count_s[32], threads_s[16],
	    repeat_s[16];
	snprintf(id, sizeof id, "%s-%s", peer, threads == 1 ? "1" : "all");
	bench_pathf(out, sizeof out, "%s/%s.%s.json", b->work_dir, slug, id);
	bench_pathf(answers, sizeof answers, "%s/%s.%s.answers", b->work_dir, slug, id);
	bench_pathf(log, sizeof log, "%s/peers.log", b->work_dir);
	snprintf(count_s, sizeof count_s, "%" PRIu64, count);
	snprintf(threads_s, sizeof threads_s, "%u", threads);
	snprintf(repeat_s, sizeof repeat_s, "%d", b->set.peer_repeat);
	char *argv[] = {(char *)program, (char *)ma->path, (char *)mb->path, "--poses", (char *)poses, "--count",
	                count_s, "--threads", threads_s, "--repeat", repeat_s, "--answers", answers, "--out", out,
	                "--name", (char *)slug, NULL};
	json_object *p = json_object_new_object();
	json_object_object_add(p, "id", json_object_new_string(id));
	json_object_object_add(p, "peer", json_object_new_string(peer));
	bench_add(p, "threads", bench_number(threads));
	bench_add(p, "poses", bench_number((double)count));
	remove(out);
	int rc = bench_run_program(argv, log);
	json_object *r = bench_read_json(out);
	if (rc != 0 || !r) {
		char why[96];
		snprintf(why, sizeof why, "%s exited with status %d (see %s)", program, rc, "work/peers.log");
		json_object_object_add(p, "error", json_object_new_string(why));
		json_object_put(r);
		return p;
	}
	json_object *v;
	const char *version_key = !strcmp(peer, "fcl") ? "fcl_version" : "bullet_version";
	if (json_object_object_get_ex(r, version_key, &v))
		json_object_object_add(p, "version", json_object_get(v));
	json_object *f = json_object_new_object();
	double rates[MAX_REPEAT];
	int n = 0;
	if (json_object_object_get_ex(r, "repeat_seconds", &v) && json_object_is_type(v, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(v) && n < MAX_REPEAT; i++) {
			double s = json_object_get_double(json_object_array_get_idx(v, i));
			if (s > 0)
				rates[n++] = (double)count / s;
		}
	}
	bench_add(f, "pairs_per_second", bench_figure("pairs/s", "higher", rates, n));
	json_object *mesh;
	if (json_object_object_get_ex(r, "mesh_a", &mesh))
		bench_add(f, "build_seconds_a", bench_figure_exact("s", bench_number_at(mesh, "bvh_build_median_seconds")));
	if (json_object_object_get_ex(r, "mesh_b", &mesh))
		bench_add(f, "build_seconds_b", bench_figure_exact("s", bench_number_at(mesh, "bvh_build_median_seconds")));
	// Its answers against exact mode's, pose by pose (the peers test
	// surfaces: a mesh wholly inside the other is a disagreement that is
	// theirs by design).
	FILE *fa = compared ? fopen(answers, "r") : NULL;
	if (fa) {
		uint64_t collide = 0, only_exact = 0, only_peer = 0, i = 0;
		int c;
		while (i < compared && (c = fgetc(fa)) != EOF) {
			if (c != '0' && c != '1')
				continue;
			bool yes = c == '1', ex = exact_answers[i].collide != 0;
			collide += yes;
			only_exact += ex && !yes;
			only_peer += yes && !ex;
			i++;
		}
		fclose(fa);
		bench_add(p, "collide_fraction", bench_number((double)collide / (double)(i ? i : 1)));
		bench_add(p, "compared_with_exact", bench_number((double)i));
		bench_add(f, "disagreements_exact_collides", bench_figure_exact("pairs", (double)only_exact));
		bench_add(f, "disagreements_peer_collides", bench_figure_exact("pairs", (double)only_peer));
	}
	json_object_object_add(p, "figures", f);
	json_object_put(r);
	return p;
}

// ---------------------------------------------------------------------------
// Cases

static json_object *mesh_json(const char *id, const loaded_mesh *m, const double *analysis, const double *tree,
                              const double *cube, int builds)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_string(id));
	json_object_object_add(o, "source", json_object_new_string(m->source));
	json_object_object_add(o, "path", json_object_new_string(m->path));
	bench_add(o, "vertices", bench_number(m->info.unique_vertex_count));
	bench_add(o, "triangles", bench_number(m->info.triangle_count));
	json_object_object_add(o, "closed", json_object_new_boolean(m->info.closed));
	json_object_object_add(o, "star_shaped", json_object_new_boolean(m->info.star_shaped));
	bench_add(o, "tree_depth", bench_number(m->info.tree_depth));
	bench_add(o, "bounds_radius", bench_number(m->frame.radius));
	bench_add(o, "cube_resolution", bench_number(m->info.cube_resolution));
	json_object *f = json_object_new_object();
	if (analysis)
		bench_add(f, "analysis_seconds", bench_figure("s", "lower", analysis, builds));
	if (tree)
		bench_add(f, "tree_seconds", bench_figure("s", "lower", tree, builds));
	bench_add(f, "cube_map_seconds", bench_figure("s", "lower", cube, builds));
	bench_add(f, "device_bytes", bench_figure_exact("bytes", (double)m->info.device_bytes));
	json_object_object_add(o, "figures", f);
	return o;
}

// Builds a case's meshes `builds` times at `resolution` (the last build
// kept), recording each build's times.
static vkcol_result build_pair(bench *b, loaded_mesh *ma, loaded_mesh *mb, bool same, uint32_t resolution,
                               uint32_t builds, double t[6][MAX_REPEAT])
{
	vkcol_result r = VKCOL_SUCCESS;
	for (uint32_t k = 0; k < builds && k < MAX_REPEAT; k++) {
		mesh_drop(b, ma);
		mesh_drop(b, mb);
		if ((r = mesh_build(b, ma, resolution)) != VKCOL_SUCCESS)
			return r;
		if (same) {
			mb->handle = (vkcol_mesh){0};
			mb->info = ma->info;
		} else if ((r = mesh_build(b, mb, resolution)) != VKCOL_SUCCESS) {
			return r;
		}
		t[0][k] = ma->info.analysis_seconds;
		t[1][k] = ma->info.tree_seconds;
		t[2][k] = ma->info.cube_map_seconds;
		t[3][k] = mb->info.analysis_seconds;
		t[4][k] = mb->info.tree_seconds;
		t[5][k] = mb->info.cube_map_seconds;
	}
	return r;
}

static void set_meshes(vkcol_pair *pairs, uint64_t n, const loaded_mesh *ma, const loaded_mesh *mb, bool same)
{
	for (uint64_t i = 0; i < n; i++) {
		pairs[i].a = ma->handle;
		pairs[i].b = same ? ma->handle : mb->handle;
	}
}

void bench_case_id(const case_spec *cs, char *out, size_t size)
{
	if (!strcmp(cs->poses, "random"))
		snprintf(out, size, "%s/%s/random-%d", cs->group, cs->pair, (int)lround(cs->target * 100));
	else
		snprintf(out, size, "%s/%s/%s", cs->group, cs->pair, cs->poses);
}

// Approx mode's answers against exact mode's on their first `both` poses
// (cases[].accuracy[]): id rRES, or vBUDGET with a vertex budget.
static json_object *accuracy_json(const vkcol_pair_result *exact, const vkcol_pair_result *approx, uint64_t both,
                                  uint32_t resolution, uint32_t budget)
{
	uint64_t fp = 0, fn = 0, positives = 0;
	for (uint64_t i = 0; i < both; i++) {
		bool e = exact[i].collide != 0, a = approx[i].collide != 0;
		positives += e;
		fp += a && !e;
		fn += e && !a;
	}
	json_object *acc = json_object_new_object();
	char aid[32];
	if (budget)
		snprintf(aid, sizeof aid, "v%u", budget);
	else
		snprintf(aid, sizeof aid, "r%u", resolution);
	json_object_object_add(acc, "id", json_object_new_string(aid));
	bench_add(acc, "resolution", bench_number(resolution));
	if (budget)
		bench_add(acc, "vertex_budget", bench_number(budget));
	bench_add(acc, "poses", bench_number((double)both));
	bench_add(acc, "exact_collide_fraction", bench_number((double)positives / (double)both));
	json_object *f = json_object_new_object();
	bench_add(f, "false_positive_rate", bench_figure_exact("fraction", (double)fp / (double)both));
	bench_add(f, "false_negative_rate", bench_figure_exact("fraction", (double)fn / (double)both));
	bench_add(f, "disagreement_rate", bench_figure_exact("fraction", (double)(fp + fn) / (double)both));
	json_object_object_add(acc, "figures", f);
	return acc;
}

// Runs one case into `cases`. Returns 0, or the exit status of a device
// failure (the suite stops).
int bench_run_case(bench *b, const case_spec *cs, json_object *cases)
{
	char id[192], slug[192];
	bench_case_id(cs, id, sizeof id);
	snprintf(slug, sizeof slug, "%s", id);
	for (char *p = slug; *p; p++)
		if (*p == '/')
			*p = '.';
	b->done++;
	bench_progress(b, "[%d/%d] %s", b->done, b->total, id);
	json_object *c = json_object_new_object();
	json_object_array_add(cases, c);
	json_object_object_add(c, "id", json_object_new_string(id));
	json_object_object_add(c, "group", json_object_new_string(cs->group));
	json_object_object_add(c, "pair", json_object_new_string(cs->pair));
	double case_start = now_seconds();
	int status = 0;
	loaded_mesh ma, mb;
	const char *why = NULL;
	bool same = !strcmp(cs->a, cs->b);
	vkcol_pair *pairs = NULL, *batch_pairs = NULL;
	vkcol_pair_result *results = NULL, *exact_answers = NULL, *approx_answers = NULL, *peer_answers = NULL,
	                  *off_answers = NULL;
	memset(&mb, 0, sizeof(mb));
	if (!mesh_import(b, cs->a, NULL, &ma, &why) || (!same && !mesh_import(b, cs->b, &ma, &mb, &why))) {
		const loaded_mesh *failed = same || !ma.im.positions ? &ma : &mb;
		char text[PATH_MAX + 400];
		snprintf(text, sizeof text, "%s (%s): %s", failed->source, failed->path, why);
		// Said whatever --quiet says: the report lacks this case.
		error_line("warning: %s: skipped: %s", id, text);
		json_object_object_add(c, "skipped", json_object_new_string(text));
		import_mesh_free(&ma.im);
		return 0;
	}
	if (same)
		mb = ma;
	const uint32_t res0 = cs->resolutions[0] ? cs->resolutions[0] : DEFAULT_RESOLUTION;
	double t[6][MAX_REPEAT];
	uint32_t builds = cs->builds ? cs->builds : 1;
	vkcol_result r = build_pair(b, &ma, &mb, same, res0, builds, t);
	if (r != VKCOL_SUCCESS) {
		status = report_failure(&b->log, id, r);
		goto cleanup;
	}
	json_object *meshes = json_object_new_array();
	json_object_object_add(c, "meshes", meshes);
	json_object_array_add(meshes, mesh_json("a", &ma, t[0], t[1], t[2], (int)builds));
	if (!same)
		json_object_array_add(meshes, mesh_json("b", &mb, t[3], t[4], t[5], (int)builds));
	bench_add(c, "triangles", bench_number((double)ma.info.triangle_count + (same ? 0 : mb.info.triangle_count)));

	// The poses.
	uint64_t largest = cs->count;
	for (int k = 0; k < MAX_BATCHES && cs->batches[k]; k++)
		largest = cs->batches[k] > largest ? cs->batches[k] : largest;
	pairs = malloc(cs->count * sizeof(*pairs));
	batch_pairs = largest > cs->count ? malloc(largest * sizeof(*batch_pairs)) : NULL;
	results = malloc(largest * sizeof(*results));
	exact_answers = calloc(cs->count, sizeof(*exact_answers));
	approx_answers = calloc(cs->count, sizeof(*approx_answers));
	peer_answers = calloc(cs->count, sizeof(*peer_answers));
	off_answers = cs->accept_off ? calloc(cs->count, sizeof(*off_answers)) : NULL;
	if (!pairs || !results || !exact_answers || !approx_answers || !peer_answers || (cs->accept_off && !off_answers) ||
	    (largest > cs->count && !batch_pairs)) {
		error_line("%s: out of host memory for %" PRIu64 " pairs", id, largest);
		status = EXIT_RUNTIME;
		goto cleanup;
	}
	pose_pair pp = {b->ctx, ma.handle, same ? ma.handle : mb.handle, ma.frame, mb.frame};
	pose_info info = {0};
	bool ok = true;
	double pose_start = now_seconds();
	if (!strcmp(cs->poses, "random"))
		ok = poses_random(&pp, cs->target, cs->seed, cs->count, pairs, &info);
	else if (!strcmp(cs->poses, "near"))
		ok = poses_near_contact(&pp, 0.01, cs->seed, cs->count, pairs, &info);
	else
		poses_motion(&pp, cs->count, pairs);
	if (!ok) {
		error_line("%s: the poses could not be made (a device error)", id);
		log_flush(&b->log);
		status = EXIT_RUNTIME;
		goto cleanup;
	}
	json_object *po = json_object_new_object();
	json_object_object_add(c, "poses", po);
	json_object_object_add(po, "kind", json_object_new_string(cs->poses));
	bench_add(po, "seed", bench_number((double)cs->seed));
	bench_add(po, "count", bench_number((double)cs->count));
	if (!strcmp(cs->poses, "random")) {
		bench_add(po, "target_collide_fraction", bench_number(cs->target));
		bench_add(po, "radius_factor", bench_number(info.radius_factor));
		bench_add(po, "calibrated_collide_fraction", bench_number(info.expected_fraction));
		bench_add(po, "calibration_poses", bench_number(info.calibration_poses));
	} else if (!strcmp(cs->poses, "near")) {
		bench_add(po, "band", bench_number(info.band));
		bench_add(po, "directions_tried", bench_number((double)info.candidates));
		bench_add(po, "directions_without_contact", bench_number((double)info.dropped));
	}
	bench_add(po, "seconds", bench_number(now_seconds() - pose_start));

	// The runs.
	json_object *runs = json_object_new_array(), *accuracy = json_object_new_array();
	json_object_object_add(c, "runs", runs);
	uint64_t batches[MAX_BATCHES + 1] = {0};
	int nb = 0;
	for (; nb < MAX_BATCHES && cs->batches[nb]; nb++)
		batches[nb] = cs->batches[nb];
	if (nb == 0)
		batches[nb++] = cs->count;
	// The run without the early accepts is timed beside the one on the
	// whole set (case_spec.accept_off).
	bool whole_set = false;
	for (int i = 0; i < nb; i++)
		whole_set |= batches[i] == cs->count;
	assert(!cs->accept_off || whole_set);
	(void)whole_set;
	bool have_exact = false;
	uint64_t exact_answered = 0, approx_answered = 0;
	for (int k = 0; k < MAX_RESOLUTIONS && (k == 0 || cs->resolutions[k]); k++) {
		uint32_t res = k == 0 ? res0 : cs->resolutions[k];
		if (k > 0) {
			double tk[6][MAX_REPEAT];
			if ((r = build_pair(b, &ma, &mb, same, res, 1, tk)) != VKCOL_SUCCESS) {
				status = report_failure(&b->log, id, r);
				goto cleanup;
			}
			char mid[32];
			snprintf(mid, sizeof mid, "a-r%u", res);
			json_object_array_add(meshes, mesh_json(mid, &ma, NULL, NULL, tk[2], 1));
			if (!same) {
				snprintf(mid, sizeof mid, "b-r%u", res);
				json_object_array_add(meshes, mesh_json(mid, &mb, NULL, NULL, tk[5], 1));
			}
		}
		set_meshes(pairs, cs->count, &ma, &mb, same);
		for (int mode = 0; mode < 2; mode++) {
			vkcol_mode vm = mode == 0 ? VKCOL_MODE_EXACT : VKCOL_MODE_APPROX;
			if (!(cs->modes & (mode == 0 ? MODE_EXACT : MODE_APPROX)) || (vm == VKCOL_MODE_EXACT && k > 0))
				continue;
			for (int i = 0; i < nb; i++) {
				measurement m = {vm, batches[i], res, 0, pairs, results, 0, 0};
				if (batches[i] > cs->count) {
					for (uint64_t j = 0; j < batches[i]; j++)
						batch_pairs[j] = pairs[j % cs->count];
					m.pairs = batch_pairs;
				}
				char rid[64];
				if (cs->resolutions[1])
					snprintf(rid, sizeof rid, "%s-r%u-b%" PRIu64, mode == 0 ? "exact" : "approx", res, batches[i]);
				else
					snprintf(rid, sizeof rid, "%s-b%" PRIu64, mode == 0 ? "exact" : "approx", batches[i]);
				// Exact mode without its early accepts (the traversal alone:
				// issue 29 asks it to beat FCL too), at the first resolution,
				// on the whole set, timed side by side with the default.
				bool with_off = vm == VKCOL_MODE_EXACT && k == 0 && cs->accept_off && batches[i] == cs->count;
				json_object *run, *two[2];
				if (with_off) {
					measurement on_off[2] = {m, {VKCOL_MODE_EXACT, cs->count, res, 0, pairs, off_answers, 0,
					                           VKCOL_BATCH_NO_EARLY_ACCEPT}};
					char off_id[64];
					snprintf(off_id, sizeof off_id, "exact-noaccept-b%" PRIu64, cs->count);
					const char *ids[2] = {rid, off_id};
					if (!measure_side_by_side(b, on_off, ids, 2, two, &status))
						goto cleanup;
					m = on_off[0];
					run = two[0];
					// The same answers, pair by pair.
					uint64_t compared = m.answered < on_off[1].answered ? m.answered : on_off[1].answered, differ = 0;
					for (uint64_t j = 0; j < compared; j++)
						differ += (results[j].collide != 0) != (off_answers[j].collide != 0);
					bench_add(two[1], "answers_differ_from_early_accept", bench_number((double)differ));
				} else if (!(run = measure(b, &m, rid, &status))) {
					goto cleanup;
				}
				json_object_array_add(runs, run);
				if (with_off)
					json_object_array_add(runs, two[1]);
				if (batches[i] == cs->count) {
					memcpy(vm == VKCOL_MODE_EXACT ? exact_answers : approx_answers, results,
					       cs->count * sizeof(*results));
					*(vm == VKCOL_MODE_EXACT ? &exact_answered : &approx_answered) = m.answered;
					have_exact |= vm == VKCOL_MODE_EXACT;
				}
			}
			// Approx mode's answers against exact mode's on the same poses
			// (those both answered, when a run was cut short).
			uint64_t both = exact_answered < approx_answered ? exact_answered : approx_answered;
			if (vm == VKCOL_MODE_APPROX && have_exact && both > 0)
				json_object_array_add(accuracy, accuracy_json(exact_answers, approx_answers, both, res, 0));
		}
		// Approx mode's vertex budgets, at the first resolution, on the
		// whole set: speed, and the disagreement with exact mode.
		for (int v = 0; k == 0 && v < MAX_RESOLUTIONS && cs->budgets[v] && have_exact; v++) {
			measurement m = {VKCOL_MODE_APPROX, cs->count, res, cs->budgets[v], pairs, results, 0, 0};
			char rid[64];
			snprintf(rid, sizeof rid, "approx-v%u-b%" PRIu64, cs->budgets[v], cs->count);
			json_object *run = measure(b, &m, rid, &status);
			if (!run)
				goto cleanup;
			json_object_array_add(runs, run);
			uint64_t both = exact_answered < m.answered ? exact_answered : m.answered;
			if (both > 0)
				json_object_array_add(accuracy,
				                      accuracy_json(exact_answers, results, both, res, cs->budgets[v]));
		}
	}
	if (json_object_array_length(accuracy) > 0)
		json_object_object_add(c, "accuracy", accuracy);
	else
		json_object_put(accuracy);

	// The peers, on poses of the same set, then every run's ratio over each.
	if (cs->peers && (*b->fcl || *b->bullet)) {
		json_object *peers = json_object_new_array();
		json_object_object_add(c, "peers", peers);
		const struct {
			const char *program, *name;
			uint64_t n;
		} list[] = {{b->fcl, "fcl", cs->count < b->set.peer_poses ? cs->count : b->set.peer_poses},
		            {b->bullet, "bullet", cs->count < b->set.bullet_poses ? cs->count : b->set.bullet_poses}};
		for (int p = 0; p < 2; p++) {
			if (!*list[p].program)
				continue;
			// Every stride-th pose, spread over the whole set: that matters
			// for a motion, whose first poses all lie far apart.
			char poses_path[PATH_MAX + 200];
			bench_pathf(poses_path, sizeof poses_path, "%s/%s.%s.poses", b->work_dir, slug, list[p].name);
			uint64_t n = list[p].n, stride = cs->count / n, compared = 0;
			for (uint64_t i = 0; i < n && i * stride < exact_answered; i++, compared++)
				peer_answers[i] = exact_answers[i * stride];
			if (!poses_write(poses_path, pairs, n, stride)) {
				error_line("%s: %s", poses_path, strerror(errno));
				status = EXIT_RUNTIME;
				goto cleanup;
			}
			unsigned threads[2] = {1, b->threads};
			for (int k = 0; k < (b->threads > 1 ? 2 : 1); k++) {
				bench_progress(b, "  %s, %u thread%s, %" PRIu64 " poses", list[p].name, threads[k],
				         threads[k] == 1 ? "" : "s", n);
				json_object *pr = run_peer(b, list[p].program, list[p].name, threads[k], slug, &ma, &mb, poses_path,
				                           n, peer_answers, compared);
				json_object_array_add(peers, pr);
			}
		}
		for (size_t i = 0; i < json_object_array_length(runs); i++) {
			json_object *run = json_object_array_get_idx(runs, i), *rf, *rate;
			json_object_object_get_ex(run, "figures", &rf);
			if (!json_object_object_get_ex(rf, "pairs_per_second", &rate))
				continue;
			for (size_t p = 0; p < json_object_array_length(peers); p++) {
				json_object *peer = json_object_array_get_idx(peers, p), *pf, *prate;
				if (!json_object_object_get_ex(peer, "figures", &pf) ||
				    !json_object_object_get_ex(pf, "pairs_per_second", &prate))
					continue;
				char name[64];
				json_object *pid;
				json_object_object_get_ex(peer, "id", &pid);
				snprintf(name, sizeof name, "ratio_over_%s", json_object_get_string(pid));
				bench_add(rf, name, bench_figure_ratio(rate, prate));
			}
		}
	}
	bench_add(c, "seconds", bench_number(now_seconds() - case_start));
cleanup:
	mesh_drop(b, &ma);
	if (!same)
		mesh_drop(b, &mb);
	import_mesh_free(&ma.im);
	if (!same)
		import_mesh_free(&mb.im);
	free(pairs);
	free(batch_pairs);
	free(results);
	free(exact_answers);
	free(approx_answers);
	free(peer_answers);
	free(off_answers);
	return status;
}

