// SPDX-License-Identifier: MIT
// The measurement hooks the benchmark reads: VKCOL_BATCH_TIMESTAMPS (device
// time per pass, host upload and readback), vkcol_batch_stats.device_bytes
// and vkcol_mesh_info's build times. A timed batch answers as an untimed
// one; each mode's time lands in the stages it runs and nowhere else; an
// untimed batch reports no time. Validation on.
#include "gpu_util.h"

#define PAIRS 3000

typedef struct fixture {
	vkcol_context *ctx;
	vkcol_mesh torus;
	vkcol_pair pairs[PAIRS];
	vkcol_pair_result plain[PAIRS], timed[PAIRS];
} fixture;

static fixture fx;

// Two tori (1,920 triangles each) at random poses within 3 units: about
// half the pairs collide, so every stage of both modes has work.
static bool setup(void)
{
	fx.ctx = gpu_context();
	if (!fx.ctx)
		return false;
	meshgen_mesh t;
	ENSURE(meshgen_torus(&t, 1.0f, 0.35f, 48, 20));
	fx.torus = gpu_mesh(fx.ctx, &t, 64, "torus");
	meshgen_free(&t);
	uint64_t state = 27;
	for (int i = 0; i < PAIRS; i++)
		fx.pairs[i] = (vkcol_pair){fx.torus, fx.torus, pose_identity(), meshgen_random_pose(&state, 2.2f)};
	return fx.torus.id != 0;
}

static double sum(const double *v, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s;
}

// Runs the pairs untimed and timed in `mode` (with flags), checks what
// holds in both modes and returns the timed statistics.
static vkcol_batch_stats run_both(vkcol_mode mode, uint32_t flags)
{
	vkcol_batch_stats plain, timed;
	vkcol_batch_desc bd = {.pairs = fx.pairs, .pair_count = PAIRS, .mode = mode, .stats = &plain, .flags = flags};
	ENSURE(vkcol_batch_run(fx.ctx, &bd, fx.plain) == VKCOL_SUCCESS);
	bd.stats = &timed;
	bd.flags = flags | VKCOL_BATCH_TIMESTAMPS;
	ENSURE(vkcol_batch_run(fx.ctx, &bd, fx.timed) == VKCOL_SUCCESS);
	// The same answers, timed or not.
	uint64_t collisions = 0;
	for (int i = 0; i < PAIRS; i++) {
		ENSURE_MSG(fx.plain[i].collide == fx.timed[i].collide && fx.plain[i].stage == fx.timed[i].stage,
		           "pair %d: %u/%u untimed, %u/%u timed", i, fx.plain[i].collide, fx.plain[i].stage,
		           fx.timed[i].collide, fx.timed[i].stage);
		collisions += fx.plain[i].collide;
	}
	ENSURE_MSG(collisions > PAIRS / 5 && collisions < PAIRS * 4 / 5, "%llu of %d pairs collide",
	           (unsigned long long)collisions, PAIRS);
	// Untimed: no time at all.
	ENSURE(!plain.timestamps);
	ENSURE(plain.gpu_seconds == 0 && plain.upload_seconds == 0 && plain.readback_seconds == 0);
	ENSURE(sum(plain.stage_seconds, VKCOL_TIMED_STAGE_COUNT) == 0 && sum(plain.level_seconds, 128) == 0);
	// Timed: the stages add up to the device time, which fits in the call
	// (approx mode's two frames in flight may overlap on a GPU: twice).
	ENSURE(timed.timestamps);
	ENSURE_MSG(timed.gpu_seconds > 0 && timed.gpu_seconds <= 2 * timed.seconds, "device %g s, call %g s",
	           timed.gpu_seconds, timed.seconds);
	ENSURE_SMALL(sum(timed.stage_seconds, VKCOL_TIMED_STAGE_COUNT) - timed.gpu_seconds, 1e-9 + 1e-9 * timed.gpu_seconds);
	ENSURE(timed.upload_seconds > 0 && timed.readback_seconds > 0);
	ENSURE(timed.upload_seconds + timed.readback_seconds < timed.seconds);
	ENSURE(timed.stage_seconds[VKCOL_TIMED_BOUNDS] > 0 && timed.stage_seconds[VKCOL_TIMED_SETUP] > 0);
	// The meshes and the pool at least.
	vkcol_mesh_info info;
	ENSURE(vkcol_mesh_get_info(fx.ctx, fx.torus, &info) == VKCOL_SUCCESS);
	ENSURE_MSG(timed.device_bytes > info.device_bytes && plain.device_bytes > info.device_bytes,
	           "batch %llu bytes, mesh %llu", (unsigned long long)timed.device_bytes,
	           (unsigned long long)info.device_bytes);
	return timed;
}

static void test_approx_timed(void)
{
	vkcol_batch_stats t = run_both(VKCOL_MODE_APPROX, 0);
	ENSURE(t.stage_seconds[VKCOL_TIMED_CUBE_MAP] > 0);
	// Approx mode has no traversal: its time is nowhere there.
	ENSURE(t.stage_seconds[VKCOL_TIMED_TRAVERSAL] == 0 && t.stage_seconds[VKCOL_TIMED_LEAVES] == 0);
	ENSURE(t.stage_seconds[VKCOL_TIMED_CONTAINMENT] == 0 && sum(t.level_seconds, 128) == 0);
}

static void test_exact_timed(void)
{
	// Without the early accepts every pair the bounds leave goes through
	// the traversal, its leaves and the answer pass.
	vkcol_batch_stats t = run_both(VKCOL_MODE_EXACT, VKCOL_BATCH_NO_EARLY_ACCEPT);
	ENSURE(t.levels > 2);
	ENSURE(t.stage_seconds[VKCOL_TIMED_TRAVERSAL] > 0 && t.stage_seconds[VKCOL_TIMED_LEAVES] > 0);
	ENSURE(t.stage_seconds[VKCOL_TIMED_CONTAINMENT] > 0 && t.stage_seconds[VKCOL_TIMED_CUBE_MAP] > 0);
	// The levels hold the traversal, its leaves and their sizing passes,
	// and nothing of the passes before or after them.
	double levels = sum(t.level_seconds, 128);
	double inside = t.stage_seconds[VKCOL_TIMED_TRAVERSAL] + t.stage_seconds[VKCOL_TIMED_LEAVES];
	ENSURE_MSG(levels >= inside * (1 - 1e-9) && levels <= inside + t.stage_seconds[VKCOL_TIMED_SETUP] + 1e-9,
	           "levels %g s, traversal and leaves %g s", levels, inside);
	ENSURE(t.level_seconds[0] > 0 && t.level_seconds[127] == 0);
	// vkcol_batch_run submits the levels eight at a time and stops once
	// the next has nothing to do (exact.c): no level is timed past the
	// first multiple of eight after the last level with items and the two
	// after it (their triangle tests and confirmations), although the
	// trees' depths allow more.
	int last_timed = -1;
	for (int l = 0; l < 128; l++)
		if (t.level_seconds[l] > 0)
			last_timed = l;
	int bound = ((int)t.levels + 3 + 7) / 8 * 8;
	printf("     levels with items %u, last level timed %d (bound %d)\n", t.levels, last_timed, bound);
	ENSURE_MSG(last_timed >= (int)t.levels - 1 && last_timed < bound, "last level timed %d, levels with items %u",
	           last_timed, t.levels);
}

// VKCOL_BATCH_TIMESTAMPS writes to the statistics: without them it is an error.
static void test_timestamps_need_stats(void)
{
	vkcol_pair_result r[1];
	vkcol_batch_desc bd = {.pairs = fx.pairs, .pair_count = 1, .flags = VKCOL_BATCH_TIMESTAMPS};
	gpu_log_expected = 1;
	ENSURE_EQ_INT(vkcol_batch_run(fx.ctx, &bd, r), VKCOL_ERROR_INVALID_ARGUMENT);
	ENSURE_EQ_INT(gpu_log_expected, 0);
}

// device_bytes follows the batch's buffers: approx mode's chunk buffers for
// 2^16 pairs are tens of MiB, for 100 pairs tens of KiB.
static void test_device_bytes(void)
{
	static vkcol_pair many[70000];
	static vkcol_pair_result r[70000];
	for (size_t i = 0; i < 70000; i++)
		many[i] = fx.pairs[i % PAIRS];
	vkcol_batch_stats small, large;
	vkcol_batch_desc bd = {.pairs = many, .pair_count = 100, .mode = VKCOL_MODE_APPROX, .stats = &small};
	ENSURE(vkcol_batch_run(fx.ctx, &bd, r) == VKCOL_SUCCESS);
	bd.pair_count = 70000;
	bd.stats = &large;
	ENSURE(vkcol_batch_run(fx.ctx, &bd, r) == VKCOL_SUCCESS);
	ENSURE_MSG(large.device_bytes > small.device_bytes + (16u << 20), "%llu bytes for 70,000 pairs, %llu for 100",
	           (unsigned long long)large.device_bytes, (unsigned long long)small.device_bytes);
}

static void test_mesh_build_times(void)
{
	vkcol_mesh_info info;
	ENSURE(vkcol_mesh_get_info(fx.ctx, fx.torus, &info) == VKCOL_SUCCESS);
	ENSURE_MSG(info.tree_seconds > 0 && info.tree_seconds <= info.analysis_seconds && info.cube_map_seconds > 0,
	           "tree %g s, analysis %g s, cube map %g s", info.tree_seconds, info.analysis_seconds,
	           info.cube_map_seconds);
}

static void test_no_validation_messages(void)
{
	ENSURE_EQ_INT(vkcol_context_validation_message_count(fx.ctx), 0);
}

int main(int argc, char **argv)
{
	TEST_INIT(argc, argv);
	if (!gpu_probe()) {
		printf("no Vulkan device: skipped\n");
		return 77;
	}
	if (!setup())
		return TEST_SUMMARY();
	RUN_TEST(test_approx_timed);
	RUN_TEST(test_exact_timed);
	RUN_TEST(test_timestamps_need_stats);
	RUN_TEST(test_device_bytes);
	RUN_TEST(test_mesh_build_times);
	RUN_TEST(test_no_validation_messages);
	RUN_TEST(test_no_unexpected_log_messages);
	vkcol_context_destroy(fx.ctx);
	return TEST_SUMMARY();
}
