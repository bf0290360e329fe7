// SPDX-License-Identifier: MIT
// Exact mode against the double-precision CPU reference, pose by pose, on
// random poses for convex, non-star-shaped, open, containing and multi-piece
// pairs. A disagreement is allowed only where the reference itself changes
// its answer when the offset is scaled by 1 +- 1e-4 (the pose is within the
// float tolerance of touching); every such pose is counted and printed.
// Also: containment stages, frontier overflow (reruns in smaller chunks, and
// the CPU fallback for a lone pair), statistics. Validation on.
#include "device.h"
#include "gpu_util.h"
#include "shared.h"

#define PI 3.14159265358979323846

static vkcol_pose random_rotation(uint64_t *state)
{
	double u1 = meshgen_random_unit(state), u2 = meshgen_random_unit(state), u3 = meshgen_random_unit(state);
	double a = sqrt(1 - u1), b = sqrt(u1);
	vkcol_pose p = {{(float)(b * cos(2 * PI * u3)), (float)(a * sin(2 * PI * u2)), (float)(a * cos(2 * PI * u2)),
	                 (float)(b * sin(2 * PI * u3))},
	                {0, 0, 0}};
	return p;
}

// B's pose: a random rotation, and B's bounding-sphere centre placed at a
// random offset from A's, uniform in a ball of radius `reach`.
static vkcol_pose random_pose(uint64_t *state, const vkcol_mesh_info *a, const vkcol_mesh_info *b, float reach,
                              float offset_scale)
{
	vkcol_pose p = random_rotation(state);
	double x, y, z;
	do {
		x = 2 * meshgen_random_unit(state) - 1;
		y = 2 * meshgen_random_unit(state) - 1;
		z = 2 * meshgen_random_unit(state) - 1;
	} while (x * x + y * y + z * z > 1);
	// R(q) cb, so that B's sphere centre lands at a's centre + offset.
	float qw = p.rotation[0], qx = p.rotation[1], qy = p.rotation[2], qz = p.rotation[3];
	const float *c = b->sphere_center;
	float tx = 2 * (qy * c[2] - qz * c[1]), ty = 2 * (qz * c[0] - qx * c[2]), tz = 2 * (qx * c[1] - qy * c[0]);
	float rc[3] = {c[0] + qw * tx + (qy * tz - qz * ty), c[1] + qw * ty + (qz * tx - qx * tz),
	               c[2] + qw * tz + (qx * ty - qy * tx)};
	float off[3] = {(float)x * reach * offset_scale, (float)y * reach * offset_scale, (float)z * reach * offset_scale};
	for (int k = 0; k < 3; k++)
		p.translation[k] = a->sphere_center[k] + off[k] - rc[k];
	return p;
}

typedef struct agreement {
	uint64_t poses, collide, disagree, near_touching;
} agreement;

// Runs n random poses of (a, b) in exact mode and compares with the
// reference. reach_factor scales the offset ball to (ra + rb).
static agreement compare(vkcol_context *ctx, vkcol_mesh a, vkcol_mesh b, uint32_t n, float reach_factor, uint64_t seed,
                         uint32_t chunk)
{
	agreement g = {0};
	vkcol_mesh_info ia, ib;
	ENSURE(vkcol_mesh_get_info(ctx, a, &ia) == VKCOL_SUCCESS);
	ENSURE(vkcol_mesh_get_info(ctx, b, &ib) == VKCOL_SUCCESS);
	float reach = reach_factor * (ia.sphere_radius + ib.sphere_radius);
	vkcol_pair *pairs = malloc(n * sizeof(*pairs));
	vkcol_pair_result *results = malloc(n * sizeof(*results));
	uint64_t state = seed;
	for (uint32_t i = 0; i < n; i++)
		pairs[i] = (vkcol_pair){a, b, pose_identity(), random_pose(&state, &ia, &ib, reach, 1.0f)};
	vkcol_batch_desc bd = {.pairs = pairs, .pair_count = n, .mode = VKCOL_MODE_EXACT, .chunk_pairs = chunk};
	ENSURE(vkcol_batch_run(ctx, &bd, results) == VKCOL_SUCCESS);
	for (uint32_t i = 0; i < n; i++) {
		bool want = false;
		ENSURE(vkcol_reference_collide(ctx, &pairs[i], &want) == VKCOL_SUCCESS);
		ENSURE(results[i].stage != VKCOL_STAGE_NONE);
		g.poses++;
		g.collide += want;
		if ((bool)results[i].collide == want)
			continue;
		// Is the pose within the tolerance band? Move B's offset by 1e-4.
		bool flips = false;
		for (int s = -1; s <= 1; s += 2) {
			vkcol_pair moved = pairs[i];
			vkcol_pose *pb = &moved.pose_b;
			// A radial nudge of 1e-4 of the placement about A's sphere centre.
			for (int k = 0; k < 3; k++)
				pb->translation[k] = pairs[i].pose_b.translation[k] +
				                     (float)s * 1e-4f * (pairs[i].pose_b.translation[k] - ia.sphere_center[k]);
			bool other = false;
			ENSURE(vkcol_reference_collide(ctx, &moved, &other) == VKCOL_SUCCESS);
			flips |= other != want;
		}
		if (flips) {
			g.near_touching++;
		} else {
			g.disagree++;
			if (g.disagree <= 5)
				fprintf(stderr, "pose %u: exact mode says %u (stage %u, %u triangle pairs), reference %d\n", i,
				        results[i].collide, results[i].stage, results[i].triangle_pairs, want);
		}
	}
	free(pairs);
	free(results);
	return g;
}

static void report(const char *name, agreement g)
{
	printf("     %-22s %llu poses, %.1f%% collide, %llu disagree, %llu near touching\n", name,
	       (unsigned long long)g.poses, 100.0 * (double)g.collide / (double)g.poses, (unsigned long long)g.disagree,
	       (unsigned long long)g.near_touching);
	ENSURE_EQ_INT(g.disagree, 0);
	// The band is narrow: at most 1 % of random poses fall in it.
	ENSURE(g.near_touching * 100 <= g.poses);
	// Sampling gave both answers in fair numbers.
	ENSURE(g.collide * 10 >= g.poses && g.collide * 10 <= 9 * g.poses);
}

static void test_against_reference(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh sphere, torus, box, open_box, star;
	const float c[3] = {0.1f, -0.2f, 0.05f}, lo[3] = {-1, -0.5f, -0.7f}, hi[3] = {1, 0.5f, 0.7f};
	ENSURE(meshgen_sphere(&sphere, c, 1.0f, 16, 32));
	ENSURE(meshgen_torus(&torus, 1.0f, 0.3f, 32, 12));
	ENSURE(meshgen_box(&box, lo, hi, 3, false));
	ENSURE(meshgen_box_open(&open_box, lo, hi, 3));
	ENSURE(meshgen_sphere(&star, c, 1.0f, 12, 24));
	// A star-shaped, non-convex mesh: every other ring pushed out.
	for (uint32_t v = 0; v < star.vertex_count; v++)
		if (v % 2) {
			for (int k = 0; k < 3; k++)
				star.positions[3 * v + k] = c[k] + 1.4f * (star.positions[3 * v + k] - c[k]);
		}
	vkcol_mesh ms = gpu_mesh(ctx, &sphere, 32, "sphere"), mt = gpu_mesh(ctx, &torus, 32, "torus"),
	           mb = gpu_mesh(ctx, &box, 32, "box"), mo = gpu_mesh(ctx, &open_box, 32, "open box"),
	           mst = gpu_mesh(ctx, &star, 32, "star");
	// Offset balls of about 1.0-1.3 (ra + rb) make 30-60 % of poses collide.
	report("sphere-sphere", compare(ctx, ms, ms, 2000, 1.3f, 1, 0));
	report("box-sphere", compare(ctx, mb, ms, 2000, 1.1f, 2, 0));
	report("star-star", compare(ctx, mst, mst, 2000, 1.05f, 3, 0));
	report("torus-torus", compare(ctx, mt, mt, 2000, 1.03f, 4, 0));
	report("open box-torus", compare(ctx, mo, mt, 2000, 1.05f, 5, 0));
	// Small chunks: same answers through many submissions.
	report("torus-box, chunk 37", compare(ctx, mt, mb, 500, 1.05f, 6, 37));
	meshgen_free(&sphere);
	meshgen_free(&torus);
	meshgen_free(&box);
	meshgen_free(&open_box);
	meshgen_free(&star);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// Containment: a small closed box inside a big one collides (no surfaces
// cross); an open box inside does not; a two-piece mesh whose small piece
// sits inside the other mesh collides although its first piece is far away.
static void test_containment(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh big, small, open_small, far_piece, two;
	const float blo[3] = {-2, -2, -2}, bhi[3] = {2, 2, 2}, slo[3] = {-0.5f, -0.4f, -0.3f}, shi[3] = {0.5f, 0.4f, 0.3f};
	// The far piece is the larger, so the origin (deepest inside point) lies in it
	// and the inner balls cannot decide: only the piece test finds the small one.
	const float flo[3] = {20, 20, 20}, fhi[3] = {23, 23, 23};
	ENSURE(meshgen_box(&big, blo, bhi, 2, false));
	ENSURE(meshgen_box(&small, slo, shi, 1, false));
	ENSURE(meshgen_box_open(&open_small, slo, shi, 1));
	ENSURE(meshgen_box(&far_piece, flo, fhi, 1, false));
	ENSURE(meshgen_merge(&two, &far_piece, &small));
	vkcol_mesh mbig = gpu_mesh(ctx, &big, 16, "big"), msmall = gpu_mesh(ctx, &small, 16, "small"),
	           mopen = gpu_mesh(ctx, &open_small, 16, "open small"), mtwo = gpu_mesh(ctx, &two, 16, "two pieces");
	vkcol_pair pairs[6] = {
	    {mbig, msmall, pose_identity(), pose_rot(0.4f, 0, 0, 1, 0.3f, 0.2f, 0.1f)},
	    {msmall, mbig, pose_identity(), pose_rot(-0.4f, 0, 1, 0, -0.3f, 0.2f, 0.1f)},
	    {mbig, mopen, pose_identity(), pose_rot(0.4f, 0, 0, 1, 0.3f, 0.2f, 0.1f)},
	    {mbig, mtwo, pose_identity(), pose_identity()},
	    {mbig, msmall, pose_identity(), pose_at(1.0f, 0, 0)},   // inside, not centred
	    {mbig, msmall, pose_identity(), pose_at(2.6f, 0, 0)},   // apart
	};
	vkcol_pair_result r[6];
	vkcol_batch_desc bd = {.pairs = pairs, .pair_count = 6, .mode = VKCOL_MODE_EXACT};
	ENSURE(vkcol_batch_run(ctx, &bd, r) == VKCOL_SUCCESS);
	const int want[6] = {1, 1, 0, 1, 1, 0};
	for (int i = 0; i < 6; i++) {
		bool ref = false;
		ENSURE(vkcol_reference_collide(ctx, &pairs[i], &ref) == VKCOL_SUCCESS);
		ENSURE_MSG((int)r[i].collide == want[i] && ref == (want[i] != 0), "pair %d: exact %u (stage %u), reference %d",
		           i, r[i].collide, r[i].stage, ref);
	}
	// No surface crossing in pairs 2 and 3: containment (or, when the small
	// box's inner ball sits inside the big one's, the inner-ball accept).
	ENSURE_MSG(r[3].stage == VKCOL_STAGE_CONTAINMENT, "stage %u, %u triangle pairs", r[3].stage, r[3].triangle_pairs);
	ENSURE(r[4].stage == VKCOL_STAGE_CONTAINMENT || r[4].stage == VKCOL_STAGE_CUBE_MAP);
	ENSURE(r[2].stage == VKCOL_STAGE_TREE);
	meshgen_free(&big);
	meshgen_free(&small);
	meshgen_free(&open_small);
	meshgen_free(&far_piece);
	meshgen_free(&two);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// Frontiers far too small: every pair overflows and is rerun in smaller
// chunks; with room for only the seeds, lone pairs still overflow and the
// CPU answers them. The answers never change.
static void test_overflow_reruns(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh torus;
	ENSURE(meshgen_torus(&torus, 1.0f, 0.3f, 24, 12));
	vkcol_mesh m = gpu_mesh(ctx, &torus, 16, "torus");
	vkcol_mesh_info info;
	ENSURE(vkcol_mesh_get_info(ctx, m, &info) == VKCOL_SUCCESS);
	uint32_t n = 200;
	vkcol_pair *pairs = malloc(n * sizeof(*pairs));
	vkcol_pair_result *normal = malloc(n * sizeof(*normal)), *small = malloc(n * sizeof(*small));
	uint64_t state = 99;
	for (uint32_t i = 0; i < n; i++)
		pairs[i] = (vkcol_pair){m, m, pose_identity(), random_pose(&state, &info, &info, 2.6f, 1.0f)};
	vkcol_batch_stats stats;
	vkcol_batch_desc bd = {.pairs = pairs, .pair_count = n, .mode = VKCOL_MODE_EXACT, .stats = &stats};
	ENSURE(vkcol_batch_run(ctx, &bd, normal) == VKCOL_SUCCESS);
	ENSURE_EQ_INT(stats.reruns, 0);
	ENSURE(stats.levels >= 2 && stats.level_items[0] > 0);
	// 2048 items: too few for 200 pairs at once, enough for each alone.
	const uint32_t capacities[2] = {2048, 1};
	for (int c = 0; c < 2; c++) {
		ctx->frontier_capacity_override = capacities[c];
		gpu_log_expected = c == 1 ? 1 : 0; // the CPU-fallback warning
		ENSURE(vkcol_batch_run(ctx, &bd, small) == VKCOL_SUCCESS);
		gpu_log_expected = 0;
		ENSURE(stats.reruns > 0);
		ENSURE(c == 1 ? stats.cpu_fallbacks > 0 : stats.cpu_fallbacks == 0);
		uint32_t differ = 0;
		for (uint32_t i = 0; i < n; i++)
			differ += small[i].collide != normal[i].collide;
		ENSURE_MSG(differ == 0, "capacity %u: %u answers changed", capacities[c], differ);
	}
	ctx->frontier_capacity_override = 0;
	free(pairs);
	free(normal);
	free(small);
	meshgen_free(&torus);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

int main(int argc, char **argv)
{
	TEST_INIT(argc, argv);
	if (!gpu_probe()) {
		printf("no Vulkan device: skipped\n");
		return 77;
	}
	RUN_TEST(test_containment);
	RUN_TEST(test_against_reference);
	RUN_TEST(test_overflow_reruns);
	RUN_TEST(test_no_unexpected_log_messages);
	return TEST_SUMMARY();
}
