// SPDX-License-Identifier: MIT
// Exact mode against the double-precision CPU reference, pose by pose, on
// random poses for convex, non-star-shaped, open, containing and multi-piece
// pairs. A disagreement is allowed only where the reference itself changes
// its answer when the offset is scaled by 1 +- 1e-4 (the pose is within the
// float tolerance of touching); every such pose is counted and printed.
// Also: containment stages, frontier overflow (reruns in smaller chunks, and
// the CPU fallback for a lone pair), statistics, the early accept, and the
// list of intersecting triangle pairs. Validation on.
#include "batch/exact.h"
#include "batch/pool.h"
#include "context.h"
#include "gpu_util.h"
#include "shared.h"


// R(q) c for the unit quaternion of pose p.
static void rotate(const vkcol_pose *p, const float c[3], float rc[3])
{
	float qw = p->rotation[0], qx = p->rotation[1], qy = p->rotation[2], qz = p->rotation[3];
	float tx = 2 * (qy * c[2] - qz * c[1]), ty = 2 * (qz * c[0] - qx * c[2]), tz = 2 * (qx * c[1] - qy * c[0]);
	rc[0] = c[0] + qw * tx + (qy * tz - qz * ty);
	rc[1] = c[1] + qw * ty + (qz * tx - qx * tz);
	rc[2] = c[2] + qw * tz + (qx * ty - qy * tx);
}

// B's pose: a random rotation, and B's bounding-sphere centre placed at a
// random offset from A's, uniform in a ball of radius `reach`.
static vkcol_pose random_pose(uint64_t *state, const vkcol_mesh_info *a, const vkcol_mesh_info *b, float reach,
                              float offset_scale)
{
	vkcol_pose p = meshgen_random_rotation(state);
	double x[3];
	meshgen_random_in_ball(state, x);
	// R(q) cb, so that B's sphere centre lands at a's centre + offset.
	float rc[3];
	rotate(&p, b->sphere_center, rc);
	float off[3] = {(float)x[0] * reach * offset_scale, (float)x[1] * reach * offset_scale,
	                (float)x[2] * reach * offset_scale};
	for (int k = 0; k < 3; k++)
		p.translation[k] = a->sphere_center[k] + off[k] - rc[k];
	return p;
}

// n pairs of (a, b) at random poses from `seed`: B's sphere centre in a ball
// of radius reach_factor x (ra + rb) about A's. The caller frees them.
static vkcol_pair *random_pairs(vkcol_context *ctx, vkcol_mesh a, vkcol_mesh b, uint32_t n, float reach_factor,
                                uint64_t seed)
{
	vkcol_mesh_info ia, ib;
	ENSURE(vkcol_mesh_get_info(ctx, a, &ia) == VKCOL_SUCCESS);
	ENSURE(vkcol_mesh_get_info(ctx, b, &ib) == VKCOL_SUCCESS);
	float reach = reach_factor * (ia.sphere_radius + ib.sphere_radius);
	vkcol_pair *pairs = malloc(n * sizeof(*pairs));
	uint64_t state = seed;
	for (uint32_t i = 0; i < n; i++)
		pairs[i] = (vkcol_pair){a, b, pose_identity(), random_pose(&state, &ia, &ib, reach, 1.0f)};
	return pairs;
}

typedef struct agreement {
	uint64_t poses, collide, disagree, near_touching;
} agreement;

// Runs n random poses of (a, b) in exact mode with batch flags `flags` and
// compares with the reference. reach_factor scales the offset ball to
// (ra + rb).
static agreement compare_flags(vkcol_context *ctx, vkcol_mesh a, vkcol_mesh b, uint32_t n, float reach_factor,
                               uint64_t seed, uint32_t chunk, uint32_t flags, vkcol_batch_stats *stats)
{
	agreement g = {0};
	vkcol_mesh_info ia, ib; // the sphere centres: the nudges below are radial about A's
	ENSURE(vkcol_mesh_get_info(ctx, a, &ia) == VKCOL_SUCCESS);
	ENSURE(vkcol_mesh_get_info(ctx, b, &ib) == VKCOL_SUCCESS);
	vkcol_pair *pairs = random_pairs(ctx, a, b, n, reach_factor, seed);
	vkcol_pair_result *results = malloc(n * sizeof(*results));
	vkcol_batch_desc bd = {.pairs = pairs,
	                       .pair_count = n,
	                       .mode = VKCOL_MODE_EXACT,
	                       .flags = flags,
	                       .chunk_pairs = chunk,
	                       .stats = stats};
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
		float rc[3];
		rotate(&pairs[i].pose_b, ib.sphere_center, rc);
		for (int s = -1; s <= 1; s += 2) {
			vkcol_pair moved = pairs[i];
			vkcol_pose *pb = &moved.pose_b;
			// A radial nudge of 1e-4 of the offset of B's sphere centre
			// from A's (A at the identity).
			for (int k = 0; k < 3; k++) {
				float offset = rc[k] + pairs[i].pose_b.translation[k] - ia.sphere_center[k];
				pb->translation[k] = pairs[i].pose_b.translation[k] + (float)s * 1e-4f * offset;
			}
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

static agreement compare(vkcol_context *ctx, vkcol_mesh a, vkcol_mesh b, uint32_t n, float reach_factor, uint64_t seed,
                         uint32_t chunk, vkcol_batch_stats *stats)
{
	return compare_flags(ctx, a, b, n, reach_factor, seed, chunk, 0, stats);
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
	report("sphere-sphere", compare(ctx, ms, ms, 2000, 1.3f, 1, 0, NULL));
	report("box-sphere", compare(ctx, mb, ms, 2000, 1.1f, 2, 0, NULL));
	report("star-star", compare(ctx, mst, mst, 2000, 1.05f, 3, 0, NULL));
	report("torus-torus", compare(ctx, mt, mt, 2000, 1.03f, 4, 0, NULL));
	report("open box-torus", compare(ctx, mo, mt, 2000, 1.05f, 5, 0, NULL));
	// Small chunks: same answers through many submissions.
	report("torus-box, chunk 37", compare(ctx, mt, mb, 500, 1.05f, 6, 37, NULL));
	// Trees of one leaf (a quad of two triangles, a soup of three): the
	// traversal starts at a leaf-leaf item, or reaches leaves of one tree
	// at once.
	meshgen_mesh quad, few;
	ENSURE(meshgen_grid(&quad, 1, 1, 1.5f, 1.5f));
	ENSURE(meshgen_soup(&few, 3, 0.5f, 0.6f, 8));
	vkcol_mesh mq = gpu_mesh(ctx, &quad, 16, "quad"), mf = gpu_mesh(ctx, &few, 16, "soup of three");
	report("quad-soup of three", compare(ctx, mq, mf, 2000, 0.9f, 7, 0, NULL));
	report("quad-torus", compare(ctx, mq, mt, 2000, 1.0f, 8, 0, NULL));
	// Breadth first only (otherwise pairs without a witness search dive).
	ctx->batch.knobs.traverse_budget = 1;
	report("quad-soup, no dive", compare(ctx, mq, mf, 2000, 0.9f, 7, 0, NULL));
	report("quad-torus, no dive", compare(ctx, mq, mt, 2000, 1.0f, 8, 0, NULL));
	ctx->batch.knobs.traverse_budget = 0;
	meshgen_free(&quad);
	meshgen_free(&few);
	meshgen_free(&sphere);
	meshgen_free(&torus);
	meshgen_free(&box);
	meshgen_free(&open_box);
	meshgen_free(&star);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// Meshes far from their coordinate origin (world coordinates of a scene)
// are recentred inside the library, so exact mode keeps the precision of
// the meshes' size: a torus 2e4 from the origin agrees with the reference
// as one at the origin does (before recentring, float frames at those
// coordinates made 8.5 % of such poses false positives). Its info stays in
// the caller's coordinates. And a world frame far from the origin (both
// poses turned and moved 1e4 away) changes nothing either.
static void test_far_from_origin(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh torus;
	ENSURE(meshgen_torus(&torus, 1.0f, 0.35f, 48, 16));
	const float far[3] = {1.0e4f, -2.0e4f, 5.0e3f};
	meshgen_transform(&torus, 1.0f, far);
	vkcol_mesh m = gpu_mesh(ctx, &torus, 32, "far torus");
	vkcol_mesh_info info;
	ENSURE(vkcol_mesh_get_info(ctx, m, &info) == VKCOL_SUCCESS);
	for (int k = 0; k < 3; k++)
		ENSURE_MSG(fabsf(info.sphere_center[k] - far[k]) < 0.01f && info.aabb_min[k] < far[k] &&
		               info.aabb_max[k] > far[k] && fabsf(info.origin[k] - far[k]) < 1.5f,
		           "axis %d: centre %g, box %g..%g, origin %g", k, info.sphere_center[k], info.aabb_min[k],
		           info.aabb_max[k], info.origin[k]);
	report("far torus", compare(ctx, m, m, 1500, 1.03f, 21, 0, NULL));
	// The same poses in a world frame turned by w and moved 1e4 away: each
	// pose p becomes w p (quaternion product, rotated translation plus w's).
	vkcol_pair *pairs = random_pairs(ctx, m, m, 1500, 1.03f, 21);
	vkcol_pair_result *here = malloc(1500 * sizeof(*here)), *there = malloc(1500 * sizeof(*there));
	vkcol_batch_desc bd = {.pairs = pairs, .pair_count = 1500, .mode = VKCOL_MODE_EXACT};
	ENSURE(vkcol_batch_run(ctx, &bd, here) == VKCOL_SUCCESS);
	uint32_t differ = 0, wrong = 0;
	const vkcol_pose w = pose_rot(0.7f, 0.36f, -0.48f, 0.8f, 1.0e4f, -3.0e3f, 2.0e3f); // a unit axis
	const float *qw = w.rotation;
	for (uint32_t i = 0; i < 1500; i++) {
		vkcol_pose *poses[2] = {&pairs[i].pose_a, &pairs[i].pose_b};
		for (int p = 0; p < 2; p++) {
			const float *q = poses[p]->rotation;
			float prod[4] = {qw[0] * q[0] - qw[1] * q[1] - qw[2] * q[2] - qw[3] * q[3],
			                 qw[0] * q[1] + qw[1] * q[0] + qw[2] * q[3] - qw[3] * q[2],
			                 qw[0] * q[2] - qw[1] * q[3] + qw[2] * q[0] + qw[3] * q[1],
			                 qw[0] * q[3] + qw[1] * q[2] - qw[2] * q[1] + qw[3] * q[0]};
			float rt[3];
			rotate(&w, poses[p]->translation, rt);
			for (int k = 0; k < 4; k++)
				poses[p]->rotation[k] = prod[k];
			for (int k = 0; k < 3; k++)
				poses[p]->translation[k] = rt[k] + w.translation[k];
		}
	}
	ENSURE(vkcol_batch_run(ctx, &bd, there) == VKCOL_SUCCESS);
	for (uint32_t i = 0; i < 1500; i++) {
		bool want = false;
		ENSURE(vkcol_reference_collide(ctx, &pairs[i], &want) == VKCOL_SUCCESS);
		differ += here[i].collide != there[i].collide;
		wrong += (bool)there[i].collide != want;
	}
	printf("     world frame turned and 1e4 away: %u of 1500 answers differ, %u from the reference\n", differ, wrong);
	// Moving both poses by 1e4 in float moves them by up to 1e-3 apart:
	// only poses within that of touching may change.
	ENSURE(differ <= 15 && wrong <= 15);
	free(pairs);
	free(here);
	free(there);
	meshgen_free(&torus);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// Leaves of other sizes than the default 4: the leaf-leaf test takes A's
// triangles in windows of 4 and B's in batches of 8, so leaves of 7 (two
// windows, the second partial) and of up to 64 (many windows and batches)
// take other paths through it. Both agree with the reference, breadth first
// only too (then every leaf pair goes through exact_leaves).
static void test_leaf_sizes(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh torus;
	ENSURE(meshgen_torus(&torus, 1.0f, 0.3f, 32, 12));
	const uint32_t sizes[2] = {7, 64};
	for (int k = 0; k < 2; k++) {
		vkcol_mesh_desc d = meshgen_desc(&torus, "torus");
		d.cube_resolution = 32;
		d.leaf_size = sizes[k];
		vkcol_mesh m = {0};
		ENSURE(vkcol_mesh_create(ctx, &d, &m) == VKCOL_SUCCESS);
		vkcol_mesh_info info;
		ENSURE(vkcol_mesh_get_info(ctx, m, &info) == VKCOL_SUCCESS);
		printf("     leaf size %u: leaves of %u..%u triangles\n", sizes[k], info.tree_leaf_min, info.tree_leaf_max);
		ENSURE(info.tree_leaf_max > (k == 0 ? 4u : 8u));
		char name[64];
		snprintf(name, sizeof(name), "torus, leaves of %u", sizes[k]);
		report(name, compare(ctx, m, m, 1500, 1.03f, 11 + (uint64_t)k, 0, NULL));
		ctx->batch.knobs.traverse_budget = 1;
		snprintf(name, sizeof(name), "torus, leaves of %u, no dive", sizes[k]);
		report(name, compare(ctx, m, m, 1500, 1.03f, 13 + (uint64_t)k, 0, NULL));
		ctx->batch.knobs.traverse_budget = 0;
		vkcol_mesh_destroy(ctx, m);
	}
	meshgen_free(&torus);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// The depth-first steps below the items of pairs without an early accept
// search change no answer and save traversal items: the same poses of two
// open boxes with a budget of 1 (breadth first only), the default and the
// largest budget all agree with the reference, and the default visits
// fewer frontier items than 1 (early accepts off, which would take most of
// the colliding pairs) and than without scouts; so do closed boxes
// touching face to face, and two closed tori with seeds that may reach the
// leaves. The open boxes run under the policy of every device but a
// discrete GPU (probe on, open pairs breadth first): a discrete GPU's
// policy sends open pairs depth first from the roots, where no scout runs.
static void test_depth_first(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	ctx->batch.knobs.exact_policy = EXACT_POLICY_SET;
	meshgen_mesh box;
	const float lo[3] = {-1, -0.3f, -0.6f}, hi[3] = {1, 0.3f, 0.6f};
	ENSURE(meshgen_box_open(&box, lo, hi, 12));
	vkcol_mesh m = gpu_mesh(ctx, &box, 32, "open box");
	const uint32_t budgets[3] = {1, 0, VKCOL_TRAVERSE_BUDGET_MAX};
	const char *names[3] = {"budget 1", "default budget", "largest budget"};
	uint64_t items[3] = {0};
	for (int k = 0; k < 3; k++) {
		ctx->batch.knobs.traverse_budget = budgets[k];
		vkcol_batch_stats stats;
		report(names[k], compare_flags(ctx, m, m, 1500, 1.03f, 7, 0, VKCOL_BATCH_NO_EARLY_ACCEPT, &stats));
		for (uint32_t l = 0; l < stats.levels; l++)
			items[k] += stats.level_items[l];
	}
	ctx->batch.knobs.traverse_budget = 0;
	printf("     frontier items: %llu breadth first, %llu default, %llu at the largest budget\n",
	       (unsigned long long)items[0], (unsigned long long)items[1], (unsigned long long)items[2]);
	ENSURE(items[1] < items[0]);

	// The same pairs without scouts (a budget of 1 step): each pair then
	// starts level by level from the roots, and its colliding poses expand
	// the overlap region before their first hit instead of reaching it on
	// the scout's path.
	ctx->batch.knobs.scout_budget = 1;
	vkcol_batch_stats no_scouts;
	report("no scouts", compare_flags(ctx, m, m, 1500, 1.03f, 7, 0, VKCOL_BATCH_NO_EARLY_ACCEPT, &no_scouts));
	ctx->batch.knobs.scout_budget = 0;
	uint64_t unscouted = 0;
	for (uint32_t l = 0; l < no_scouts.levels; l++)
		unscouted += no_scouts.level_items[l];
	printf("     frontier items: %llu with scouts, %llu without\n", (unsigned long long)items[1],
	       (unsigned long long)unscouted);
	ENSURE(items[1] < unscouted);
	ctx->batch.knobs.exact_policy = 0;
	meshgen_free(&box);

	// Closed boxes stacked face to face (touching counts): the witness
	// search finds no vertex inside, the balls do not meet, and the contact
	// covers a whole face. A breadth-first pair past VKCOL_DIVE_AFTER items
	// goes on depth first and stops at its first hit, instead of expanding
	// the face down to its leaves.
	meshgen_mesh slab;
	const float slo[3] = {-1, -1, -0.25f}, shi[3] = {1, 1, 0.25f};
	ENSURE(meshgen_box(&slab, slo, shi, 48, false));
	vkcol_mesh ms = gpu_mesh(ctx, &slab, 16, "box of 48 divisions");
	vkcol_pair stacked[4];
	for (int i = 0; i < 4; i++) {
		stacked[i] = (vkcol_pair){ms, ms, pose_identity(), pose_identity()};
		stacked[i].pose_b.translation[0] = 0.25f * (float)i;
		stacked[i].pose_b.translation[1] = -0.125f * (float)i;
		stacked[i].pose_b.translation[2] = 0.5f;
	}
	uint64_t stacked_items[2] = {0};
	for (int k = 0; k < 2; k++) {
		ctx->batch.knobs.traverse_budget = budgets[k];
		vkcol_pair_result res[4];
		vkcol_batch_stats stats;
		vkcol_batch_desc bd = {.pairs = stacked, .pair_count = 4, .mode = VKCOL_MODE_EXACT, .stats = &stats};
		ENSURE(vkcol_batch_run(ctx, &bd, res) == VKCOL_SUCCESS);
		for (int i = 0; i < 4; i++) {
			bool ref = false;
			ENSURE(vkcol_reference_collide(ctx, &stacked[i], &ref) == VKCOL_SUCCESS);
			ENSURE_MSG(ref && res[i].collide == 1 && res[i].stage == VKCOL_STAGE_TREE,
			           "%s, stacked pair %d: collide %u, stage %u, reference %d", names[k], i, res[i].collide,
			           res[i].stage, ref);
		}
		for (uint32_t l = 0; l < stats.levels; l++)
			stacked_items[k] += stats.level_items[l];
	}
	ctx->batch.knobs.traverse_budget = 0;
	printf("     stacked boxes, frontier items: %llu breadth first, %llu default\n",
	       (unsigned long long)stacked_items[0], (unsigned long long)stacked_items[1]);
	ENSURE(2 * stacked_items[1] < stacked_items[0]);
	meshgen_free(&slab);

	// Two closed tori, most poses colliding, early accepts off (so every
	// pair dives from the roots): a seed that may reach the leaves (the
	// default seed budget) finds most crossings before it hands its stack
	// on, so the pairs spawn fewer frontier items than with seeds held to
	// 16 steps, as every later item is.
	meshgen_mesh torus;
	ENSURE(meshgen_torus(&torus, 1.0f, 0.35f, 48, 20));
	vkcol_mesh mt = gpu_mesh(ctx, &torus, 32, "torus");
	const uint32_t seeds[2] = {0, 16};
	uint64_t seed_items[2] = {0};
	for (int k = 0; k < 2; k++) {
		ctx->batch.knobs.seed_budget = seeds[k];
		vkcol_batch_stats stats;
		report(k ? "tori, seeds of 16 steps" : "tori, default seeds",
		       compare_flags(ctx, mt, mt, 800, 0.9f, 11, 0, VKCOL_BATCH_NO_EARLY_ACCEPT, &stats));
		for (uint32_t l = 0; l < stats.levels; l++)
			seed_items[k] += stats.level_items[l];
	}
	ctx->batch.knobs.seed_budget = 0;
	printf("     tori, frontier items: %llu default seeds, %llu seeds of 16 steps\n",
	       (unsigned long long)seed_items[0], (unsigned long long)seed_items[1]);
	ENSURE(seed_items[0] < seed_items[1]);
	meshgen_free(&torus);
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
	meshgen_mesh big, small, open_small, far_piece, two, open_far, open_two;
	const float blo[3] = {-2, -2, -2}, bhi[3] = {2, 2, 2}, slo[3] = {-0.5f, -0.4f, -0.3f}, shi[3] = {0.5f, 0.4f, 0.3f};
	// The far piece is the larger, so the origin (deepest inside point) lies in it
	// and the inner balls cannot decide: only the piece test finds the small one.
	const float flo[3] = {20, 20, 20}, fhi[3] = {23, 23, 23};
	ENSURE(meshgen_box(&big, blo, bhi, 2, false));
	ENSURE(meshgen_box(&small, slo, shi, 1, false));
	ENSURE(meshgen_box_open(&open_small, slo, shi, 1));
	ENSURE(meshgen_box(&far_piece, flo, fhi, 1, false));
	ENSURE(meshgen_merge(&two, &far_piece, &small));
	ENSURE(meshgen_box_open(&open_far, flo, fhi, 1));
	ENSURE(meshgen_merge(&open_two, &open_far, &open_small));
	vkcol_mesh mbig = gpu_mesh(ctx, &big, 16, "big"), msmall = gpu_mesh(ctx, &small, 16, "small"),
	           mopen = gpu_mesh(ctx, &open_small, 16, "open small"), mtwo = gpu_mesh(ctx, &two, 16, "two pieces"),
	           mopen_two = gpu_mesh(ctx, &open_two, 16, "two open pieces");
	enum { PAIRS = 9 };
	vkcol_pair pairs[PAIRS] = {
	    {mbig, msmall, pose_identity(), pose_rot(0.4f, 0, 0, 1, 0.3f, 0.2f, 0.1f)},
	    {msmall, mbig, pose_identity(), pose_rot(-0.4f, 0, 1, 0, -0.3f, 0.2f, 0.1f)},
	    {mbig, mopen, pose_identity(), pose_rot(0.4f, 0, 0, 1, 0.3f, 0.2f, 0.1f)},
	    {mbig, mtwo, pose_identity(), pose_identity()},
	    {mbig, msmall, pose_identity(), pose_at(1.0f, 0, 0)},   // inside, not centred
	    {mbig, msmall, pose_identity(), pose_at(2.6f, 0, 0)},   // apart
	    // An open mesh of two pieces, one inside the big box and one far
	    // outside: no surface crossing, so no collision, though it has
	    // vertices inside and outside. Then the other piece inside.
	    {mbig, mopen_two, pose_identity(), pose_identity()},
	    {mbig, mopen_two, pose_identity(), pose_at(-21.5f, -21.5f, -21.5f)},
	    // The open box across the big box's face at x = 2: a witness (a
	    // vertex inside, an extreme vertex outside, one piece).
	    {mbig, mopen, pose_identity(), pose_at(2.0f, 0, 0)},
	};
	vkcol_pair_result r[PAIRS], early[PAIRS];
	// Without the early accept, so that the stages below are the
	// containment test's (a witness finds the small piece inside too).
	vkcol_batch_desc bd = {.pairs = pairs, .pair_count = PAIRS, .mode = VKCOL_MODE_EXACT,
	                       .flags = VKCOL_BATCH_NO_EARLY_ACCEPT};
	ENSURE(vkcol_batch_run(ctx, &bd, r) == VKCOL_SUCCESS);
	bd.flags = 0;
	ENSURE(vkcol_batch_run(ctx, &bd, early) == VKCOL_SUCCESS);
	for (int i = 0; i < PAIRS; i++)
		ENSURE_MSG(early[i].collide == r[i].collide, "pair %d: %u with the early accept (stage %u), %u without", i,
		           early[i].collide, early[i].stage, r[i].collide);
	const int want[PAIRS] = {1, 1, 0, 1, 1, 0, 0, 0, 1};
	for (int i = 0; i < PAIRS; i++) {
		bool ref = false;
		ENSURE(vkcol_reference_collide(ctx, &pairs[i], &ref) == VKCOL_SUCCESS);
		ENSURE_MSG((int)r[i].collide == want[i] && ref == (want[i] != 0), "pair %d: exact %u (stage %u), reference %d",
		           i, r[i].collide, r[i].stage, ref);
	}
	// No surface crossing in pairs 3 and 4: containment.
	ENSURE_MSG(r[3].stage == VKCOL_STAGE_CONTAINMENT, "stage %u, %u triangle pairs", r[3].stage, r[3].triangle_pairs);
	ENSURE(r[4].stage == VKCOL_STAGE_CONTAINMENT);
	ENSURE(r[2].stage == VKCOL_STAGE_TREE);
	// An open mesh wholly inside, or whose piece inside stays inside: no
	// witness.
	ENSURE(early[2].stage == VKCOL_STAGE_TREE);
	ENSURE(early[6].stage == VKCOL_STAGE_TREE);
	ENSURE_MSG(early[7].stage == VKCOL_STAGE_TREE, "stage %u, collide %u", early[7].stage, early[7].collide);
	ENSURE_MSG(early[8].stage == VKCOL_STAGE_CUBE_MAP, "stage %u", early[8].stage);
	meshgen_free(&open_far);
	meshgen_free(&open_two);
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
	// lavapipe's policy on every device: the pairs the witness search leaves
	// go breadth first, and overflow.
	ctx->batch.knobs.exact_policy = EXACT_POLICY_SET;
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
	// 128 items (32 breadth first): too few for 200 pairs at once, enough
	// for each alone.
	const uint32_t capacities[2] = {128, 1};
	for (int c = 0; c < 2; c++) {
		ctx->batch.knobs.frontier_capacity = capacities[c];
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
	ctx->batch.knobs.frontier_capacity = 0;
	ctx->batch.knobs.exact_policy = 0;
	free(pairs);
	free(normal);
	free(small);
	meshgen_free(&torus);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// Stage 1's early accept (inner balls, cube-map witnesses confirmed by an
// exact segment test) changes no answer: the same poses with and without
// it, and every pair it accepts collides for the reference too.
// n random poses of each pair of meshes (as[m], bs[m]), alternating, B's
// sphere centre within reach_factor x (ra + rb) of A's, with and without
// the early accept: the same answers, every pose decided early colliding in
// the reference, and a witness for at least witness_share of the colliding
// pairs whose inner balls do not overlap (and for one at least).
static void check_early_accept(vkcol_context *ctx, const vkcol_mesh *as, const vkcol_mesh *bs, uint32_t mesh_count,
                               uint32_t n, uint64_t seed, float reach_factor, double witness_share, const char *what)
{
	vkcol_mesh_info ia[2], ib[2];
	for (uint32_t m = 0; m < mesh_count; m++) {
		ENSURE(vkcol_mesh_get_info(ctx, as[m], &ia[m]) == VKCOL_SUCCESS);
		ENSURE(vkcol_mesh_get_info(ctx, bs[m], &ib[m]) == VKCOL_SUCCESS);
	}
	vkcol_pair *pairs = malloc(n * sizeof(*pairs));
	vkcol_pair_result *with = malloc(n * sizeof(*with)), *without = malloc(n * sizeof(*without));
	uint64_t state = seed;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t m = i % mesh_count;
		float reach = reach_factor * (ia[m].sphere_radius + ib[m].sphere_radius);
		pairs[i] = (vkcol_pair){as[m], bs[m], pose_identity(), random_pose(&state, &ia[m], &ib[m], reach, 1.0f)};
	}
	vkcol_batch_stats s1, s2;
	vkcol_batch_desc bd = {.pairs = pairs, .pair_count = n, .mode = VKCOL_MODE_EXACT, .stats = &s1};
	ENSURE(vkcol_batch_run(ctx, &bd, with) == VKCOL_SUCCESS);
	bd.stats = &s2;
	bd.flags = VKCOL_BATCH_NO_EARLY_ACCEPT;
	ENSURE(vkcol_batch_run(ctx, &bd, without) == VKCOL_SUCCESS);
	uint64_t left = s1.collisions - s1.inner_ball_accepted;
	printf("     %s: %llu of the %llu colliding pairs without overlapping inner balls accepted on a witness\n", what,
	       (unsigned long long)s1.witness_accepted, (unsigned long long)left);
	ENSURE(s1.witness_accepted > 0);
	ENSURE_MSG((double)s1.witness_accepted >= witness_share * (double)left, "%s: a witness for %llu of %llu", what,
	           (unsigned long long)s1.witness_accepted, (unsigned long long)left);
	ENSURE_EQ_INT(s2.witness_accepted, 0);
	ENSURE_EQ_INT(s2.inner_ball_accepted, 0);
	ENSURE_EQ_INT(s1.collisions, s2.collisions);
	uint32_t cube = 0, wrong = 0;
	for (uint32_t i = 0; i < n; i++) {
		ENSURE_MSG(with[i].collide == without[i].collide, "%s, pose %u: %u with early accept, %u without", what, i,
		           with[i].collide, without[i].collide);
		ENSURE(without[i].stage != VKCOL_STAGE_CUBE_MAP);
		if (with[i].stage == VKCOL_STAGE_CUBE_MAP) {
			cube++;
			bool ref = false;
			ENSURE(vkcol_reference_collide(ctx, &pairs[i], &ref) == VKCOL_SUCCESS);
			wrong += !ref;
		}
	}
	printf("     %s: %u of %llu colliding pairs accepted early\n", what, cube, (unsigned long long)s1.collisions);
	// Most colliding pairs of these poses have overlapping inner balls or a
	// vertex inside.
	ENSURE(cube * 3 >= s1.collisions);
	// Every early accept is counted as one or the other.
	ENSURE_EQ_INT(cube, s1.witness_accepted + s1.inner_ball_accepted);
	ENSURE_EQ_INT(wrong, 0);
	free(pairs);
	free(with);
	free(without);
}

// n poses of B against A at the edge of contact, as the benchmark's
// near-contact poses: a random rotation and direction, the offset of B's
// sphere centre along the direction at which the reference stops
// colliding (bisection, 24 steps), less a push of push_lo..push_hi.
// Only the poses the reference calls colliding are kept; *count says how
// many. The caller frees them.
static vkcol_pair *grazing_pairs(vkcol_context *ctx, vkcol_mesh a, vkcol_mesh b, uint32_t n, uint64_t seed,
                                 float push_lo, float push_hi, uint32_t *count)
{
	vkcol_mesh_info ia, ib;
	ENSURE(vkcol_mesh_get_info(ctx, a, &ia) == VKCOL_SUCCESS);
	ENSURE(vkcol_mesh_get_info(ctx, b, &ib) == VKCOL_SUCCESS);
	vkcol_pair *pairs = malloc(n * sizeof(*pairs));
	uint64_t state = seed;
	*count = 0;
	for (uint32_t i = 0; i < n; i++) {
		vkcol_pose p = meshgen_random_rotation(&state);
		double d[3], len = 0;
		meshgen_random_in_ball(&state, d);
		for (int k = 0; k < 3; k++)
			len += d[k] * d[k];
		len = sqrt(len);
		float rc[3];
		rotate(&p, ib.sphere_center, rc);
		vkcol_pair pair = {a, b, pose_identity(), p};
		bool hit = false;
		double lo = 0, hi = ia.sphere_radius + ib.sphere_radius, push = push_lo + (push_hi - push_lo) * meshgen_random_unit(&state);
		for (int step = 0; step <= 24 && len > 0; step++) {
			double at = step == 0 ? lo : 0.5 * (lo + hi);
			if (step == 24)
				at = lo - push;
			for (int k = 0; k < 3; k++)
				pair.pose_b.translation[k] = ia.sphere_center[k] + (float)(d[k] / len * at) - rc[k];
			ENSURE(vkcol_reference_collide(ctx, &pair, &hit) == VKCOL_SUCCESS);
			if (step == 0 && !hit)
				break; // centres together and apart: not a pose to push
			if (step > 0 && step < 24)
				*(hit ? &lo : &hi) = at;
		}
		if (hit && len > 0)
			pairs[(*count)++] = pair;
	}
	return pairs;
}

static void test_early_accept(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh torus, star, large, bowl;
	const float c[3] = {0, 0, 0};
	ENSURE(meshgen_torus(&torus, 1.0f, 0.35f, 32, 12));
	ENSURE(meshgen_sphere(&star, c, 1.0f, 12, 24));
	for (uint32_t v = 0; v < star.vertex_count; v++)
		if (v % 2)
			for (int k = 0; k < 3; k++)
				star.positions[3 * v + k] *= 1.4f;
	// 6,144 vertices: 384 clusters, more than exact_setup.comp scans, so its
	// witness search descends the tree instead.
	ENSURE(meshgen_torus(&large, 1.0f, 0.35f, 128, 48));
	const vkcol_mesh small[2] = {gpu_mesh(ctx, &torus, 32, "torus"), gpu_mesh(ctx, &star, 32, "star")};
	check_early_accept(ctx, small, small, 2, 3000, 7, 0.9f, 0.5, "torus and star");
	const vkcol_mesh big = gpu_mesh(ctx, &large, 32, "large torus");
	check_early_accept(ctx, &big, &big, 1, 600, 11, 0.9f, 0.5, "large torus");
	// Poses as the benchmark's, where many colliding tori only graze: the
	// witness search's vertex nearest the nearest inner balls (a torus is
	// not star-shaped) accepts most of those the balls leave (54 of 63;
	// from the origin's map, as before, 29).
	check_early_accept(ctx, &big, &big, 1, 1500, 19, 1.02f, 0.7, "large torus, grazing poses");
	// A finer torus (24,576 vertices) at the edge of contact, pushed
	// 0.0005-0.005 past touching (the tube's radius is 0.35, its edges
	// 0.023-0.033 long): the surfaces graze, and the vertex nearest the
	// nearest inner balls is often outside; the walk of exact_setup.comp's
	// tangent_candidate finds one inside for more of them (106 of 160
	// against 66 without the walk).
	uint32_t grazing = 0;
	meshgen_mesh fine_torus;
	ENSURE(meshgen_torus(&fine_torus, 1.0f, 0.35f, 256, 96));
	const vkcol_mesh fine = gpu_mesh(ctx, &fine_torus, 32, "fine torus");
	vkcol_pair *graze = grazing_pairs(ctx, fine, fine, 160, 23, 0.0005f, 0.005f, &grazing);
	vkcol_pair_result *graze_results = malloc(grazing * sizeof(*graze_results));
	vkcol_batch_stats gs;
	vkcol_batch_desc gd = {.pairs = graze, .pair_count = grazing, .mode = VKCOL_MODE_EXACT, .stats = &gs};
	ENSURE(vkcol_batch_run(ctx, &gd, graze_results) == VKCOL_SUCCESS);
	uint64_t graze_left = gs.collisions - gs.inner_ball_accepted;
	printf("     large torus, near contact: %u colliding poses, %llu of the %llu without overlapping inner balls "
	       "accepted on a witness\n",
	       grazing, (unsigned long long)gs.witness_accepted, (unsigned long long)graze_left);
	ENSURE(grazing >= 100);
	ENSURE_EQ_INT(gs.collisions, grazing);
	ENSURE_MSG((double)gs.witness_accepted >= 0.55 * (double)graze_left, "near contact: a witness for %llu of %llu",
	           (unsigned long long)gs.witness_accepted, (unsigned long long)graze_left);
	free(graze);
	free(graze_results);
	meshgen_free(&fine_torus);
	// An open mesh (one piece) against closed ones, both ways round: its
	// vertices are witnesses when another of them lies outside.
	const float lo[3] = {-0.8f, -0.6f, -0.7f}, hi[3] = {0.8f, 0.6f, 0.7f};
	ENSURE(meshgen_box_open(&bowl, lo, hi, 4));
	const vkcol_mesh open = gpu_mesh(ctx, &bowl, 32, "open box");
	const vkcol_mesh opens[2] = {open, small[1]}, closeds[2] = {small[0], open};
	check_early_accept(ctx, opens, closeds, 2, 2000, 13, 0.9f, 0.5, "open box and torus, star and open box");
	// An open mesh of three pieces, as real assets are (a body, and eyes
	// inside it): a witness counts when its own piece reaches outside the
	// solid; an eye inside does not make the pair collide.
	meshgen_mesh eye_l, eye_r, one_eye, eyed;
	const float el_lo[3] = {-0.5f, 0.1f, 0.2f}, el_hi[3] = {-0.2f, 0.3f, 0.4f};
	const float er_lo[3] = {0.2f, 0.1f, 0.2f}, er_hi[3] = {0.5f, 0.3f, 0.4f};
	ENSURE(meshgen_box(&eye_l, el_lo, el_hi, 1, false));
	ENSURE(meshgen_box(&eye_r, er_lo, er_hi, 1, false));
	ENSURE(meshgen_merge(&one_eye, &bowl, &eye_l));
	ENSURE(meshgen_merge(&eyed, &one_eye, &eye_r));
	const vkcol_mesh with_eyes = gpu_mesh(ctx, &eyed, 32, "open box with eyes");
	const vkcol_mesh eyed_opens[2] = {with_eyes, small[1]}, eyed_closeds[2] = {small[0], with_eyes};
	check_early_accept(ctx, eyed_opens, eyed_closeds, 2, 2000, 17, 0.9f, 0.5,
	                   "open box with eyes and torus, star and open box with eyes");
	// Two open meshes: the probe (a cluster of one across the other's
	// sampled surface, then a few depth-first steps there) accepts on a
	// sure crossing only. lavapipe's policy on every device (a discrete
	// GPU's has no probe: exact_policy, exact.c) probes only a small mesh
	// against a large one (test_probe_surface); the knob probes two small
	// ones too, from the clusters nearest the other's origin.
	const vkcol_mesh bowls[1] = {gpu_mesh(ctx, &bowl, 32, "open box, probed")};
	ctx->batch.knobs.exact_policy = EXACT_POLICY_SET | VKCOL_EXACT_ORIGIN_PROBE;
	check_early_accept(ctx, bowls, bowls, 1, 2000, 29, 0.9f, 0.5, "two open boxes, probed from the origin");
	// Without the knob two small open meshes are not probed: no accept,
	// the same answers.
	{
		const uint32_t n = 1000;
		vkcol_pair *pairs = random_pairs(ctx, bowls[0], bowls[0], n, 0.9f, 31);
		vkcol_pair_result *probed = malloc(n * sizeof(*probed)), *plain = malloc(n * sizeof(*plain));
		vkcol_batch_stats sp, sn;
		vkcol_batch_desc bd = {.pairs = pairs, .pair_count = n, .mode = VKCOL_MODE_EXACT, .stats = &sp};
		ENSURE(vkcol_batch_run(ctx, &bd, probed) == VKCOL_SUCCESS);
		ctx->batch.knobs.exact_policy = EXACT_POLICY_SET;
		bd.stats = &sn;
		ENSURE(vkcol_batch_run(ctx, &bd, plain) == VKCOL_SUCCESS);
		printf("     two open boxes: the origin's probe accepts %llu of %llu colliding pairs, the policy %llu\n",
		       (unsigned long long)sp.witness_accepted, (unsigned long long)sp.collisions,
		       (unsigned long long)sn.witness_accepted);
		ENSURE(sp.witness_accepted > 0);
		ENSURE_EQ_INT(sn.witness_accepted, 0);
		ENSURE_EQ_INT(sn.collisions, sp.collisions);
		for (uint32_t i = 0; i < n; i++)
			ENSURE_MSG(probed[i].collide == plain[i].collide, "two open boxes, pose %u: %u probed, %u not", i,
			           probed[i].collide, plain[i].collide);
		free(pairs);
		free(probed);
		free(plain);
	}
	ctx->batch.knobs.exact_policy = 0;
	meshgen_free(&eye_l);
	meshgen_free(&eye_r);
	meshgen_free(&one_eye);
	meshgen_free(&eyed);
	meshgen_free(&bowl);
	meshgen_free(&torus);
	meshgen_free(&star);
	meshgen_free(&large);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// Node pairs a batch visited (its statistics' items over all levels).
static uint64_t items_of(const vkcol_batch_stats *s)
{
	uint64_t n = 0;
	for (uint32_t l = 0; l < s->levels && l < 128; l++)
		n += s->level_items[l];
	return n;
}

// A coarse, curved mesh (a torus of 480 triangles) against one of much
// smaller triangles (a small sphere): exact mode traverses the torus's fine
// tree (one triangle a leaf: mesh_cpu.fine_tree), chosen per pair by
// pool_exact_pair for the coarse side only, and answers as the reference
// and as the same torus whose leaf size the caller set (no fine tree), pose
// for pose, in fewer traversal items; a flat mesh, a grid of 8 x 8 squares,
// is not traversed by its fine tree (its leaves' triangles lie in one
// plane).
static void test_fine_tree(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh ring, small, sheet;
	const float c[3] = {0, 0, 0};
	ENSURE(meshgen_torus(&ring, 1.0f, 0.4f, 24, 10));
	ENSURE(meshgen_sphere(&small, c, 0.15f, 24, 48));
	ENSURE(meshgen_grid(&sheet, 8, 8, 2.0f, 2.0f));
	const vkcol_mesh coarse = gpu_mesh(ctx, &ring, 32, "coarse torus"), fine = gpu_mesh(ctx, &small, 32, "small sphere"),
	                 grid = gpu_mesh(ctx, &sheet, 32, "flat grid");
	vkcol_mesh_desc d = meshgen_desc(&ring, "coarse torus, leaves of 4");
	d.cube_resolution = 32;
	d.leaf_size = 4;
	vkcol_mesh given = {0};
	ENSURE(vkcol_mesh_create(ctx, &d, &given) == VKCOL_SUCCESS);
	batch_scope s;
	ENSURE(batch_scope_of(ctx, &s));
	const mesh_cpu *mc = &mesh_table_get(s.meshes, coarse)->cpu, *mg = &mesh_table_get(s.meshes, given)->cpu;
	ENSURE(mc->fine_tree.node_count == 2 * mc->triangle_count - 1);
	ENSURE_EQ_INT(mg->fine_tree.node_count, 0);

	vkcol_batch_stats with_fine = {0}, without = {0};
	const uint32_t flags[2] = {0, VKCOL_BATCH_NO_EARLY_ACCEPT};
	for (int k = 0; k < 2; k++) {
		char name[64];
		snprintf(name, sizeof(name), "coarse torus-sphere%s", k ? ", no accept" : "");
		agreement g = compare_flags(ctx, coarse, fine, 1500, 0.9f, 41 + (uint64_t)k, 0, flags[k], &with_fine);
		report(name, g);
		// The same poses against the torus without a fine tree: the same
		// answers, pose for pose.
		vkcol_pair *pairs = random_pairs(ctx, coarse, fine, 1500, 0.9f, 41 + (uint64_t)k);
		vkcol_pair_result *a = malloc(1500 * sizeof(*a)), *b = malloc(1500 * sizeof(*b));
		vkcol_batch_desc bd = {.pairs = pairs, .pair_count = 1500, .mode = VKCOL_MODE_EXACT, .flags = flags[k]};
		ENSURE(vkcol_batch_run(ctx, &bd, a) == VKCOL_SUCCESS);
		for (uint32_t i = 0; i < 1500; i++)
			pairs[i].a = given;
		bd.stats = &without;
		ENSURE(vkcol_batch_run(ctx, &bd, b) == VKCOL_SUCCESS);
		uint32_t differ = 0;
		for (uint32_t i = 0; i < 1500; i++)
			differ += a[i].collide != b[i].collide;
		printf("     %s: %u of 1500 answers differ without the fine tree; traversal items %llu with, %llu without\n",
		       name, differ, (unsigned long long)items_of(&with_fine), (unsigned long long)items_of(&without));
		ENSURE_EQ_INT(differ, 0);
		// Its single triangles' bounds part more node pairs.
		ENSURE(items_of(&with_fine) < items_of(&without));
		free(pairs);
		free(a);
		free(b);
	}

	// The records pool_exact_pair picks: the coarse torus's fine one against
	// the sphere, on either side; its own against itself and against the
	// grid (triangles of the same size), and for the torus without a fine
	// tree; the grid's own against the sphere.
	ENSURE(batch_scope_of(ctx, &s));
	const uint32_t slot_c = (coarse.id & MESH_MAX_COUNT) - 1, slot_f = (fine.id & MESH_MAX_COUNT) - 1;
	const uint32_t slot_g = (given.id & MESH_MAX_COUNT) - 1, slot_grid = (grid.id & MESH_MAX_COUNT) - 1;
	const uint32_t fine_record = s.state->pool->fine_first[slot_c];
	ENSURE(fine_record >= s.meshes->capacity);
	struct {
		vkcol_mesh a, b;
		uint32_t record_a, record_b;
	} picks[] = {{coarse, fine, fine_record, slot_f},   {fine, coarse, slot_f, fine_record},
	             {coarse, coarse, slot_c, slot_c},      {given, fine, slot_g, slot_f},
	             {coarse, grid, slot_c, slot_grid},     {grid, fine, slot_grid, slot_f}};
	for (uint32_t k = 0; k < CORE_COUNT_OF(picks); k++) {
		vkcol_gpu_pair p = {.mesh_a = picks[k].a.id, .mesh_b = picks[k].b.id};
		pool_exact_pair(&s, &p);
		ENSURE_EQ_INT(p.mesh_a, picks[k].record_a + 1);
		ENSURE_EQ_INT(p.mesh_b, picks[k].record_b + 1);
	}
	meshgen_free(&ring);
	meshgen_free(&small);
	meshgen_free(&sheet);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// Two open meshes, one of LARGE_SURFACE_VERTICES or more (exact_setup.comp)
// whose map's rays meet it once (VKCOL_MESH_FEW_HITS): the probe takes the
// small mesh's clusters nearest the large one's sampled surface, where the
// surfaces of random poses cross, and accepts more colliding pairs than
// from the clusters nearest its origin (VKCOL_EXACT_ORIGIN_PROBE), with the
// same answers, the reference's.
static void test_probe_surface(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh big, trough;
	const float lo[3] = {-0.8f, -0.6f, -0.7f}, hi[3] = {0.8f, 0.6f, 0.7f};
	const float tlo[3] = {-1.0f, -0.15f, -0.15f}, thi[3] = {1.0f, 0.15f, 0.15f};
	ENSURE(meshgen_box_open(&big, lo, hi, 60)); // 18,121 vertices
	ENSURE(meshgen_box_open(&trough, tlo, thi, 8));
	const vkcol_mesh mb = gpu_mesh(ctx, &big, 32, "large open box"), mt = gpu_mesh(ctx, &trough, 32, "trough");
	vkcol_mesh_info info;
	ENSURE(vkcol_mesh_get_info(ctx, mb, &info) == VKCOL_SUCCESS);
	ENSURE(info.unique_vertex_count >= 16384 && info.cube_multi_hit_fraction <= VKCOL_FEW_HITS_MAX);
	const uint32_t n = 1500;
	vkcol_pair *pairs = random_pairs(ctx, mb, mt, n, 0.9f, 3);
	vkcol_pair_result *surface = malloc(n * sizeof(*surface)), *origin = malloc(n * sizeof(*origin));
	vkcol_batch_stats s1, s2;
	vkcol_batch_desc bd = {.pairs = pairs, .pair_count = n, .mode = VKCOL_MODE_EXACT, .stats = &s1};
	// lavapipe's policy on every device: a discrete GPU's has no probe
	// (exact_policy, exact.c).
	ctx->batch.knobs.exact_policy = EXACT_POLICY_SET;
	ENSURE(vkcol_batch_run(ctx, &bd, surface) == VKCOL_SUCCESS);
	ctx->batch.knobs.exact_policy = EXACT_POLICY_SET | VKCOL_EXACT_ORIGIN_PROBE;
	bd.stats = &s2;
	ENSURE(vkcol_batch_run(ctx, &bd, origin) == VKCOL_SUCCESS);
	ctx->batch.knobs.exact_policy = 0;
	uint32_t differ = 0, wrong = 0;
	for (uint32_t i = 0; i < n; i++) {
		differ += surface[i].collide != origin[i].collide;
		bool want = false;
		ENSURE(vkcol_reference_collide(ctx, &pairs[i], &want) == VKCOL_SUCCESS);
		wrong += (bool)surface[i].collide != want;
	}
	printf("     %llu of %u collide; the probe accepts %llu from the surface's clusters, %llu from the origin's; "
	       "%u differ, %u differ from the reference\n",
	       (unsigned long long)s1.collisions, n, (unsigned long long)s1.witness_accepted,
	       (unsigned long long)s2.witness_accepted, differ, wrong);
	ENSURE_EQ_INT(differ, 0);
	ENSURE_EQ_INT(wrong, 0);
	ENSURE(s1.collisions * 10 >= n && s1.collisions * 10 <= 9 * (uint64_t)n);
	ENSURE_MSG(s1.witness_accepted * 10 >= s2.witness_accepted * 11, "%llu accepts against %llu",
	           (unsigned long long)s1.witness_accepted, (unsigned long long)s2.witness_accepted);
	// Without the early accepts the straddle test still orders the
	// traversal but accepts nothing: the reference's answers. A straddled
	// pair dives from the roots (its seed's steps, then items of as many),
	// the others go level by level without scouts: far fewer items in the
	// first levels than without the test (VKCOL_EXACT_NO_PROBE), where
	// every pair's scout hands its stack on breadth first.
	vkcol_batch_stats s3, s4;
	bd.flags = VKCOL_BATCH_NO_EARLY_ACCEPT;
	bd.stats = &s3;
	ctx->batch.knobs.exact_policy = EXACT_POLICY_SET;
	ENSURE(vkcol_batch_run(ctx, &bd, origin) == VKCOL_SUCCESS);
	for (uint32_t i = 0; i < n; i++)
		differ += surface[i].collide != origin[i].collide;
	bd.stats = &s4;
	ctx->batch.knobs.exact_policy = EXACT_POLICY_SET | VKCOL_EXACT_NO_PROBE;
	ENSURE(vkcol_batch_run(ctx, &bd, origin) == VKCOL_SUCCESS);
	ctx->batch.knobs.exact_policy = 0;
	for (uint32_t i = 0; i < n; i++)
		differ += surface[i].collide != origin[i].collide;
	uint64_t first3 = 0, first4 = 0;
	for (uint32_t l = 1; l <= 4; l++) {
		first3 += s3.level_items[l];
		first4 += s4.level_items[l];
	}
	printf("     without the accepts: %llu items in levels 1-4 ordered by the straddle test, %llu without it; "
	       "%u differ\n",
	       (unsigned long long)first3, (unsigned long long)first4, differ);
	ENSURE_EQ_INT(differ, 0);
	ENSURE_EQ_INT(s3.witness_accepted, 0);
	ENSURE(first3 * 3 < first4 * 2);
	free(pairs);
	free(surface);
	free(origin);
	meshgen_free(&big);
	meshgen_free(&trough);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// Oriented boxes per tree node (aabb_tree.h): the _obb traversal pipelines
// test them where a mesh has thin parts lying diagonally (obb_worth), and
// must answer as the reference does, breadth first and diving, while
// visiting fewer node pairs than the boxes and slabs alone.
static void test_oriented_boxes(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh spider, torus;
	ENSURE(meshgen_spider(&spider, 8, 0.5f, 2.0f, 0.08f));
	ENSURE(meshgen_torus(&torus, 1.0f, 0.3f, 32, 12));
	vkcol_mesh mp = gpu_mesh(ctx, &spider, 32, "spider"), mt = gpu_mesh(ctx, &torus, 32, "torus");
	const int settings[] = {-1, 0, 1}; // never, where worth it (the spider), always
	uint64_t items[2][3];
	for (uint32_t budget = 0; budget < 2; budget++) {
		ctx->batch.knobs.traverse_budget = budget ? 1 : 0; // 1: breadth first only
		for (int k = 0; k < 3; k++) {
			ctx->batch.knobs.obb = settings[k];
			vkcol_batch_stats st;
			char name[64];
			snprintf(name, sizeof(name), "spider-spider, obb %d%s", settings[k], budget ? ", no dive" : "");
			report(name, compare_flags(ctx, mp, mp, 800, 0.75f, 31, 0, VKCOL_BATCH_NO_EARLY_ACCEPT, &st));
			items[budget][k] = items_of(&st);
		}
		printf("     node pairs visited, %s: boxes and slabs %llu, with oriented boxes %llu\n",
		       budget ? "breadth first" : "default", (unsigned long long)items[budget][0],
		       (unsigned long long)items[budget][1]);
		// (Item counts vary a little run to run: a hit stops its pair's
		// other invocations when it comes.)
		ENSURE(items[budget][1] * 10 < items[budget][0] * 9);
		ENSURE(items[budget][2] * 10 < items[budget][0] * 9);
	}
	// Forced on where a mesh's boxes hold all (the torus's: not worth computing):
	// nothing may be pruned wrongly, diving and not.
	ctx->batch.knobs.obb = 1;
	report("torus-torus, obb 1", compare(ctx, mt, mt, 1000, 1.03f, 32, 0, NULL));
	ctx->batch.knobs.traverse_budget = 1;
	report("torus-torus, obb 1, no dive", compare(ctx, mt, mt, 1000, 1.03f, 32, 0, NULL));
	report("spider-torus, obb 1, no dive", compare(ctx, mp, mt, 1000, 0.9f, 33, 0, NULL));
	ctx->batch.knobs.traverse_budget = 0;
	ctx->batch.knobs.obb = 0;
	meshgen_free(&spider);
	meshgen_free(&torus);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// Exact mode's traversal policies (exact_policy, exact.c: a discrete GPU's
// default differs from lavapipe's): each gives the answers the reference
// gives, on two closed meshes (the witness search and the walks), an open
// and a closed one, two open meshes the probe is tried on (small ones: the
// knob that probes them, VKCOL_EXACT_ORIGIN_PROBE, is set throughout), and
// two large open surfaces; each part has its effect: no probe accept
// without the probe, and another traversal when pairs with an open mesh go
// depth first.
static void test_policies(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh large, bowl, star, sheet;
	const float c[3] = {0, 0, 0}, lo[3] = {-0.8f, -0.6f, -0.7f}, hi[3] = {0.8f, 0.6f, 0.7f};
	ENSURE(meshgen_torus(&large, 1.0f, 0.35f, 128, 48)); // not star-shaped: the walks apply
	ENSURE(meshgen_box_open(&bowl, lo, hi, 4));
	ENSURE(meshgen_sphere(&star, c, 1.0f, 12, 24));
	// 129 x 129 vertices: two open surfaces past exact_setup.comp's
	// LARGE_SURFACE_VERTICES, which dive without a probe.
	ENSURE(meshgen_grid(&sheet, 128, 128, 2.0f, 2.0f));
	const vkcol_mesh mt = gpu_mesh(ctx, &large, 32, "large torus"), mo = gpu_mesh(ctx, &bowl, 32, "open box"),
	                 ms = gpu_mesh(ctx, &star, 32, "sphere"), mg = gpu_mesh(ctx, &sheet, 32, "sheet");
	struct {
		vkcol_mesh a, b;
		uint32_t n;
		float reach;
		const char *name;
	} sets[] = {{mt, mt, 400, 1.02f, "large torus pair"},
	            {mo, ms, 600, 0.9f, "open box and sphere"},
	            {mo, mo, 600, 0.9f, "two open boxes"},
	            {mg, mg, 300, 0.6f, "two large sheets"}};
	const uint32_t policies[] = {VKCOL_EXACT_NO_PROBE, VKCOL_EXACT_DIVE_OPEN,
	                             VKCOL_EXACT_NO_PROBE | VKCOL_EXACT_DIVE_OPEN};
	// No scouts (a budget of 1 step): each policy's effect against pairs
	// that go breadth first from the roots.
	ctx->batch.knobs.scout_budget = 1;
	for (uint32_t k = 0; k < CORE_COUNT_OF(sets); k++) {
		uint32_t n = sets[k].n;
		vkcol_pair *pairs = random_pairs(ctx, sets[k].a, sets[k].b, n, sets[k].reach, 100 + k);
		vkcol_pair_result *base = malloc(n * sizeof(*base)), *got = malloc(n * sizeof(*got));
		vkcol_batch_stats s0, s;
		uint64_t items[CORE_COUNT_OF(policies)];
		ctx->batch.knobs.exact_policy = EXACT_POLICY_SET | VKCOL_EXACT_ORIGIN_PROBE;
		vkcol_batch_desc bd = {.pairs = pairs, .pair_count = n, .mode = VKCOL_MODE_EXACT, .stats = &s0};
		ENSURE(vkcol_batch_run(ctx, &bd, base) == VKCOL_SUCCESS);
		uint32_t wrong = 0;
		for (uint32_t i = 0; i < n; i++) {
			bool want = false;
			ENSURE(vkcol_reference_collide(ctx, &pairs[i], &want) == VKCOL_SUCCESS);
			wrong += (bool)base[i].collide != want;
		}
		printf("     %s: %llu of %u collide, %llu witness accepts, %llu items, %u differ from the reference\n",
		       sets[k].name, (unsigned long long)s0.collisions, n, (unsigned long long)s0.witness_accepted,
		       (unsigned long long)items_of(&s0), wrong);
		// Random poses: none within the band in these few.
		ENSURE_EQ_INT(wrong, 0);
		ENSURE(s0.collisions * 10 >= n && s0.collisions * 10 <= 9 * (uint64_t)n);
		for (uint32_t q = 0; q < CORE_COUNT_OF(policies); q++) {
			uint32_t pol = policies[q];
			ctx->batch.knobs.exact_policy = EXACT_POLICY_SET | VKCOL_EXACT_ORIGIN_PROBE | pol;
			bd.stats = &s;
			ENSURE(vkcol_batch_run(ctx, &bd, got) == VKCOL_SUCCESS);
			uint32_t differ = 0;
			for (uint32_t i = 0; i < n; i++)
				differ += got[i].collide != base[i].collide;
			printf("       policy 0x%02x: %llu witness accepts, %llu items, %u answers differ\n", pol,
			       (unsigned long long)s.witness_accepted, (unsigned long long)items_of(&s), differ);
			ENSURE_MSG(differ == 0, "%s, policy 0x%x: %u answers differ", sets[k].name, pol, differ);
			ENSURE_EQ_INT(s.inner_ball_accepted, s0.inner_ball_accepted);
			// Only the probe's accepts go with it: the witness search's
			// stay.
			if (k == 2 && (pol & VKCOL_EXACT_NO_PROBE))
				ENSURE_EQ_INT(s.witness_accepted, 0);
			else
				ENSURE_EQ_INT(s.witness_accepted, s0.witness_accepted);
			// The open box's pairs that no accept decided go depth first
			// (the large sheets always do): fewer items than breadth
			// first with the same accepts.
			items[q] = items_of(&s);
			uint64_t before = q == 2 ? items[0] : items_of(&s0);
			if ((k == 1 || k == 2) && (pol & VKCOL_EXACT_DIVE_OPEN))
				ENSURE_MSG(items[q] < before, "%s, policy 0x%x: %llu items, %llu breadth first", sets[k].name, pol,
				           (unsigned long long)items[q], (unsigned long long)before);
		}
		// Each accept was there to be dropped or kept.
		if (k < 3)
			ENSURE(s0.witness_accepted > 0);
		free(pairs);
		free(base);
		free(got);
	}
	ctx->batch.knobs.exact_policy = 0;
	ctx->batch.knobs.scout_budget = 0;
	meshgen_free(&large);
	meshgen_free(&bowl);
	meshgen_free(&star);
	meshgen_free(&sheet);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// A small compact solid against a large mesh (a part against a body or a
// scene): the ball test (exact_setup.comp) walks the large mesh's tree
// against the small one's bounding ball, culls the pair when no triangle
// comes within it (containment still decides: a ball deep inside a solid
// collides, inside an open box it does not), and with the early accept on
// accepts it when a triangle of a solid enters the small one's inner ball.
// The answers are the reference's and the same without the test, both
// orders of the pair, random and near-contact poses; the test must cut the
// traversal's items and, near contact, accept pairs.
static void check_ball_test(vkcol_context *ctx, vkcol_pair *pairs, uint32_t n, uint32_t flags, const char *what,
                            bool fewer, bool accepts)
{
	vkcol_pair_result *with = malloc(n * sizeof(*with)), *without = malloc(n * sizeof(*without));
	vkcol_batch_stats s_with, s_without;
	vkcol_batch_desc bd = {.pairs = pairs, .pair_count = n, .mode = VKCOL_MODE_EXACT, .flags = flags, .stats = &s_with};
	ENSURE(vkcol_batch_run(ctx, &bd, with) == VKCOL_SUCCESS);
	ctx->batch.knobs.ball_test_off = true;
	bd.stats = &s_without;
	ENSURE(vkcol_batch_run(ctx, &bd, without) == VKCOL_SUCCESS);
	ctx->batch.knobs.ball_test_off = false;
	uint32_t differ = 0, wrong = 0, contained = 0;
	for (uint32_t i = 0; i < n; i++) {
		bool want = false;
		ENSURE(vkcol_reference_collide(ctx, &pairs[i], &want) == VKCOL_SUCCESS);
		differ += with[i].collide != without[i].collide;
		wrong += (bool)with[i].collide != want;
		contained += with[i].stage == VKCOL_STAGE_CONTAINMENT;
	}
	printf("     %s%s: %llu of %u collide (%u contained), items %llu -> %llu, ball and inner-ball accepts %llu -> "
	       "%llu, %u differ from the reference\n",
	       what, flags ? ", no early accept" : "", (unsigned long long)s_with.collisions, n, contained,
	       (unsigned long long)items_of(&s_without), (unsigned long long)items_of(&s_with),
	       (unsigned long long)s_without.inner_ball_accepted, (unsigned long long)s_with.inner_ball_accepted, wrong);
	ENSURE_MSG(differ == 0, "%s: %u answers change with the ball test", what, differ);
	ENSURE_MSG(wrong == 0, "%s: %u answers differ from the reference", what, wrong);
	// At least 10 % fewer (pairs that dive vary their items by a few from
	// run to run).
	if (fewer)
		ENSURE_MSG(10 * items_of(&s_with) < 9 * items_of(&s_without), "%s: items %llu with the ball test, %llu without", what,
		           (unsigned long long)items_of(&s_with), (unsigned long long)items_of(&s_without));
	if (accepts)
		ENSURE(s_with.inner_ball_accepted > s_without.inner_ball_accepted);
	if (flags)
		ENSURE_EQ_INT(s_with.inner_ball_accepted, 0);
	free(with);
	free(without);
}

static void test_ball_test(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh big, ring, bin, small;
	const float c[3] = {0, 0, 0}, lo[3] = {-4, -3, -3.5f}, hi[3] = {4, 3, 3.5f};
	ENSURE(meshgen_sphere(&big, c, 5.0f, 24, 48));
	ENSURE(meshgen_torus(&ring, 4.0f, 1.2f, 64, 24));
	ENSURE(meshgen_box_open(&bin, lo, hi, 6));
	ENSURE(meshgen_sphere(&small, c, 0.3f, 12, 24));
	const vkcol_mesh mb = gpu_mesh(ctx, &big, 32, "large sphere"), mr = gpu_mesh(ctx, &ring, 32, "large torus"),
	                 mo = gpu_mesh(ctx, &bin, 32, "large open box"), ms = gpu_mesh(ctx, &small, 32, "small sphere");
	struct {
		vkcol_mesh a, b;
		float reach;
		const char *name;
	} sets[] = {{mb, ms, 1.3f, "large sphere and small sphere"},
	            {ms, mb, 1.3f, "small sphere and large sphere"},
	            {mr, ms, 1.0f, "large torus and small sphere"},
	            {mo, ms, 1.0f, "large open box and small sphere"}};
	for (uint32_t k = 0; k < CORE_COUNT_OF(sets); k++) {
		vkcol_pair *pairs = random_pairs(ctx, sets[k].a, sets[k].b, 600, sets[k].reach, 300 + k);
		// Near contact (from centres together, so for the spheres only),
		// pushed 0.005-0.05 into the small sphere, whose inner ball lies
		// about 0.003 inside its facets: a triangle of the large solid
		// enters it for most poses.
		uint32_t near_n = 0;
		vkcol_pair *near = k < 2 ? grazing_pairs(ctx, sets[k].a, sets[k].b, 200, 400 + k, 0.005f, 0.05f, &near_n) : NULL;
		ENSURE(k >= 2 || near_n >= 100);
		char what[128];
		snprintf(what, sizeof(what), "%s, near contact", sets[k].name);
		for (uint32_t flags = 0; flags <= VKCOL_BATCH_NO_EARLY_ACCEPT; flags += VKCOL_BATCH_NO_EARLY_ACCEPT) {
			// The spheres' random poses with the accepts on are all
			// decided before (inner balls, witnesses).
			check_ball_test(ctx, pairs, 600, flags, sets[k].name, flags || k >= 2, false);
			if (near_n)
				check_ball_test(ctx, near, near_n, flags, what, !flags, !flags);
		}
		// A frontier too small for every pair's leaf seeds (breadth first
		// only, so that no pair dives from the roots): the pairs that
		// overflow are rerun in smaller chunks, with the same answers.
		if (near_n) {
			vkcol_pair_result *base = malloc(near_n * sizeof(*base)), *small_res = malloc(near_n * sizeof(*small_res));
			vkcol_batch_desc od = {.pairs = near, .pair_count = near_n, .mode = VKCOL_MODE_EXACT,
			                       .flags = VKCOL_BATCH_NO_EARLY_ACCEPT};
			ctx->batch.knobs.traverse_budget = 1;
			ENSURE(vkcol_batch_run(ctx, &od, base) == VKCOL_SUCCESS);
			vkcol_batch_stats os;
			od.stats = &os;
			ctx->batch.knobs.frontier_capacity = 128;
			ENSURE(vkcol_batch_run(ctx, &od, small_res) == VKCOL_SUCCESS);
			ctx->batch.knobs.frontier_capacity = 0;
			ctx->batch.knobs.traverse_budget = 0;
			uint32_t changed = 0;
			for (uint32_t i = 0; i < near_n; i++)
				changed += small_res[i].collide != base[i].collide;
			printf("     %s, frontier of 128 items: %llu reruns, %u answers changed\n", sets[k].name,
			       (unsigned long long)os.reruns, changed);
			ENSURE(os.reruns > 0);
			ENSURE_EQ_INT(changed, 0);
			free(base);
			free(small_res);
		}
		// Listing every intersecting triangle pair: the traversal seeded
		// from the large mesh's leaves near the ball lists the same pairs
		// as from the roots.
		if (near_n) {
			uint64_t capacity = 1u << 20;
			vkcol_triangle_list lists[2] = {{calloc(capacity, sizeof(vkcol_triangle_pair)), capacity, 0, false},
			                                {calloc(capacity, sizeof(vkcol_triangle_pair)), capacity, 0, false}};
			vkcol_pair_result *res = malloc(near_n * sizeof(*res));
			for (int off = 0; off < 2; off++) {
				ctx->batch.knobs.ball_test_off = off == 1;
				vkcol_batch_desc ld = {.pairs = near, .pair_count = near_n, .mode = VKCOL_MODE_EXACT, .triangles = &lists[off]};
				ENSURE(vkcol_batch_run(ctx, &ld, res) == VKCOL_SUCCESS);
				ENSURE(!lists[off].truncated);
			}
			ctx->batch.knobs.ball_test_off = false;
			printf("     %s, listed: %llu triangle pairs with the ball test, %llu without\n", sets[k].name,
			       (unsigned long long)lists[0].count, (unsigned long long)lists[1].count);
			ENSURE(lists[0].count > 0);
			ENSURE_EQ_INT(lists[0].count, lists[1].count);
			ENSURE(memcmp(lists[0].entries, lists[1].entries, lists[0].count * sizeof(vkcol_triangle_pair)) == 0);
			free(lists[0].entries);
			free(lists[1].entries);
			free(res);
		}
		free(pairs);
		free(near);
	}
	// Both meshes far from their coordinate origin (recentred inside the
	// library): the ball and the frames are the recentred ones.
	{
		meshgen_mesh far_big, far_small;
		const float at[3] = {1.0e4f, -2.0e4f, 5.0e3f};
		ENSURE(meshgen_sphere(&far_big, at, 5.0f, 24, 48));
		ENSURE(meshgen_sphere(&far_small, at, 0.3f, 12, 24));
		const vkcol_mesh fb = gpu_mesh(ctx, &far_big, 32, "far large sphere"),
		                 fs = gpu_mesh(ctx, &far_small, 32, "far small sphere");
		uint32_t far_n = 0;
		vkcol_pair *far_near = grazing_pairs(ctx, fb, fs, 200, 500, 0.005f, 0.05f, &far_n);
		vkcol_pair *far_random = random_pairs(ctx, fb, fs, 600, 1.3f, 501);
		ENSURE(far_n >= 100);
		for (uint32_t flags = 0; flags <= VKCOL_BATCH_NO_EARLY_ACCEPT; flags += VKCOL_BATCH_NO_EARLY_ACCEPT) {
			check_ball_test(ctx, far_random, 600, flags, "far spheres", flags != 0, false);
			check_ball_test(ctx, far_near, far_n, flags, "far spheres, near contact", !flags, !flags);
		}
		free(far_near);
		free(far_random);
		meshgen_free(&far_big);
		meshgen_free(&far_small);
	}
	// Wholly inside the large sphere (the ball test culls, containment
	// answers) and inside the open box (no surface met: apart).
	vkcol_pair inside[2] = {{mb, ms, pose_identity(), pose_identity()}, {mo, ms, pose_identity(), pose_identity()}};
	inside[0].pose_b.translation[0] = 2.0f;
	inside[1].pose_b.translation[1] = 1.5f;
	vkcol_pair_result r[2];
	// Without the early accept, whose inner balls would answer first.
	vkcol_batch_desc bd = {.pairs = inside, .pair_count = 2, .mode = VKCOL_MODE_EXACT, .flags = VKCOL_BATCH_NO_EARLY_ACCEPT};
	vkcol_batch_stats st;
	bd.stats = &st;
	ENSURE(vkcol_batch_run(ctx, &bd, r) == VKCOL_SUCCESS);
	ENSURE_EQ_INT(items_of(&st), 0);
	ENSURE(r[0].collide == 1 && r[0].stage == VKCOL_STAGE_CONTAINMENT);
	ENSURE(r[1].collide == 0);
	meshgen_free(&big);
	meshgen_free(&ring);
	meshgen_free(&bin);
	meshgen_free(&small);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// The per-pair entries of a sorted list: [*first, *first + count).
static uint64_t entries_of(const vkcol_triangle_list *list, uint64_t pair, uint64_t *first)
{
	uint64_t k = 0;
	while (k < list->count && list->entries[k].pair < pair)
		k++;
	*first = k;
	uint64_t n = 0;
	while (k + n < list->count && list->entries[k + n].pair == pair)
		n++;
	return n;
}

// A small solid against a large open mesh (a part moved through a scene):
// a pair the witness search leaves goes depth first (exact_setup.comp)
// instead of pairing the solid's whole tree with the scene's leaves level by
// level. Both orders, random poses, the early accept on: the answers are
// the reference's, and the traversal visits far fewer items than breadth
// first alone (the budget knob at 1).
static void test_small_solid_in_scene(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh sheet, ring;
	// 129 x 129 vertices: past exact_setup.comp's LARGE_SURFACE_VERTICES;
	// the torus's bounding radius is under a quarter of the sheet's, and
	// its inner ball too thin for the ball test.
	ENSURE(meshgen_grid(&sheet, 128, 128, 4.0f, 4.0f));
	ENSURE(meshgen_torus(&ring, 0.3f, 0.12f, 32, 16));
	const vkcol_mesh mg = gpu_mesh(ctx, &sheet, 32, "sheet"), mr = gpu_mesh(ctx, &ring, 32, "small torus");
	const uint32_t n = 400;
	for (int k = 0; k < 2; k++) {
		vkcol_mesh a = k ? mr : mg, b = k ? mg : mr;
		vkcol_pair *pairs = random_pairs(ctx, a, b, n, 0.3f, 500 + k);
		vkcol_pair_result *res = malloc(n * sizeof(*res)), *breadth = malloc(n * sizeof(*breadth));
		vkcol_batch_stats s, sb;
		vkcol_batch_desc bd = {.pairs = pairs, .pair_count = n, .mode = VKCOL_MODE_EXACT, .stats = &s};
		ENSURE(vkcol_batch_run(ctx, &bd, res) == VKCOL_SUCCESS);
		ctx->batch.knobs.traverse_budget = 1;
		bd.stats = &sb;
		ENSURE(vkcol_batch_run(ctx, &bd, breadth) == VKCOL_SUCCESS);
		ctx->batch.knobs.traverse_budget = 0;
		uint32_t wrong = 0, differ = 0, by_tree = 0;
		for (uint32_t i = 0; i < n; i++) {
			bool want = false;
			ENSURE(vkcol_reference_collide(ctx, &pairs[i], &want) == VKCOL_SUCCESS);
			wrong += (bool)res[i].collide != want;
			differ += res[i].collide != breadth[i].collide;
			by_tree += res[i].collide && res[i].stage == VKCOL_STAGE_TREE;
		}
		printf("     %s: %llu of %u collide (%u found by the traversal), %llu witness accepts, items %llu, %llu "
		       "breadth first, %u differ from the reference\n",
		       k ? "torus-sheet" : "sheet-torus", (unsigned long long)s.collisions, n, by_tree,
		       (unsigned long long)s.witness_accepted, (unsigned long long)items_of(&s),
		       (unsigned long long)items_of(&sb), wrong);
		ENSURE_EQ_INT(wrong, 0);
		ENSURE_EQ_INT(differ, 0);
		ENSURE(by_tree * 10 >= n);
		ENSURE_MSG(3 * items_of(&s) < items_of(&sb), "items %llu, breadth first %llu", (unsigned long long)items_of(&s),
		           (unsigned long long)items_of(&sb));
		free(pairs);
		free(res);
		free(breadth);
	}
	meshgen_free(&sheet);
	meshgen_free(&ring);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// The list of intersecting triangle pairs against the reference's, pair by
// pair; counts complete; truncation keeps whole pairs before the cut; the
// list survives frontier overflows (reruns) without duplicates.
static void test_triangle_list(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh torus, box;
	const float lo[3] = {-1, -0.5f, -0.7f}, hi[3] = {1, 0.5f, 0.7f};
	ENSURE(meshgen_torus(&torus, 1.0f, 0.3f, 24, 12));
	ENSURE(meshgen_box(&box, lo, hi, 3, false));
	vkcol_mesh mt = gpu_mesh(ctx, &torus, 16, "torus"), mb = gpu_mesh(ctx, &box, 16, "box");
	uint32_t n = 300;
	vkcol_pair *pairs = random_pairs(ctx, mt, mb, n, 1.05f, 11);
	vkcol_pair_result *r = malloc(n * sizeof(*r)), *r2 = malloc(n * sizeof(*r2));
	uint64_t capacity = 200000;
	vkcol_triangle_list list = {calloc(capacity, sizeof(vkcol_triangle_pair)), capacity, 0, false};
	vkcol_triangle_pair *ref = calloc(capacity, sizeof(vkcol_triangle_pair));
	vkcol_batch_desc bd = {.pairs = pairs, .pair_count = n, .mode = VKCOL_MODE_EXACT, .triangles = &list};
	ENSURE(vkcol_batch_run(ctx, &bd, r) == VKCOL_SUCCESS);
	ENSURE(!list.truncated);
	ENSURE(list.count > 100);
	for (uint64_t k = 1; k < list.count; k++) {
		const vkcol_triangle_pair *x = &list.entries[k - 1], *y = &list.entries[k];
		ENSURE_MSG(x->pair < y->pair || (x->pair == y->pair && (x->triangle_a < y->triangle_a ||
		                                                        (x->triangle_a == y->triangle_a &&
		                                                         x->triangle_b < y->triangle_b))),
		           "entries %llu and %llu out of order or repeated", (unsigned long long)k - 1,
		           (unsigned long long)k);
	}
	uint64_t total = 0, ref_total = 0, missing = 0, extra = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t first, count = entries_of(&list, i, &first);
		ENSURE_EQ_INT(count, r[i].triangle_pairs);
		ENSURE(r[i].collide == (count > 0 || r[i].stage == VKCOL_STAGE_CONTAINMENT));
		uint64_t want = 0;
		ENSURE(vkcol_reference_triangle_pairs(ctx, &pairs[i], ref, capacity, &want) == VKCOL_SUCCESS);
		total += count;
		ref_total += want;
		// Merge the two sorted lists.
		uint64_t a = 0, b = 0;
		while (a < count || b < want) {
			const vkcol_triangle_pair *g = a < count ? &list.entries[first + a] : NULL, *w = b < want ? &ref[b] : NULL;
			if (g && w && g->triangle_a == w->triangle_a && g->triangle_b == w->triangle_b) {
				a++;
				b++;
			} else if (!w || (g && (g->triangle_a < w->triangle_a ||
			                        (g->triangle_a == w->triangle_a && g->triangle_b < w->triangle_b)))) {
				extra++;
				a++;
			} else {
				missing++;
				b++;
			}
		}
	}
	printf("     %llu triangle pairs listed, reference %llu: %llu missing, %llu extra\n", (unsigned long long)total,
	       (unsigned long long)ref_total, (unsigned long long)missing, (unsigned long long)extra);
	// Float tests with a touching tolerance: only pairs within it may differ.
	ENSURE(ref_total > 100);
	ENSURE((missing + extra) * 200 <= ref_total);

	// Truncated: whole pairs before the cut, the counts unchanged.
	vkcol_triangle_list half = {list.entries, total / 2, 0, false};
	vkcol_triangle_pair *copy = malloc(total * sizeof(*copy));
	memcpy(copy, list.entries, total * sizeof(*copy));
	bd.triangles = &half;
	ENSURE(vkcol_batch_run(ctx, &bd, r2) == VKCOL_SUCCESS);
	ENSURE(half.truncated);
	ENSURE(half.count <= total / 2 && half.count > 0);
	// Whole pairs: the prefix of the full list up to a pair boundary.
	ENSURE(memcmp(half.entries, copy, half.count * sizeof(*copy)) == 0);
	ENSURE(copy[half.count].pair != copy[half.count - 1].pair);
	for (uint32_t i = 0; i < n; i++)
		ENSURE_EQ_INT(r2[i].triangle_pairs, r[i].triangle_pairs);

	// Frontiers too small for all pairs at once (large enough for each
	// alone: no CPU fallback, which would log): reruns list each pair once.
	vkcol_triangle_list again = {list.entries, capacity, 0, false};
	bd.triangles = &again;
	ctx->batch.knobs.frontier_capacity = 1024;
	vkcol_batch_stats stats;
	bd.stats = &stats;
	ENSURE(vkcol_batch_run(ctx, &bd, r2) == VKCOL_SUCCESS);
	ctx->batch.knobs.frontier_capacity = 0;
	ENSURE(stats.reruns > 0);
	ENSURE_EQ_INT(again.count, total);
	ENSURE(memcmp(again.entries, copy, total * sizeof(*copy)) == 0);

	// Frontiers of one item: every one of the first 40 pairs that reaches
	// the traversal goes to the CPU reference, which lists the same entries
	// with the same answers.
	uint32_t few = 40;
	uint64_t few_total = 0;
	while (few_total < total && copy[few_total].pair < few)
		few_total++;
	again = (vkcol_triangle_list){list.entries, capacity, 0, false};
	bd.pair_count = few;
	ctx->batch.knobs.frontier_capacity = 1;
	gpu_log_expected = 1; // the CPU-fallback warning
	ENSURE(vkcol_batch_run(ctx, &bd, r2) == VKCOL_SUCCESS);
	gpu_log_expected = 0;
	ctx->batch.knobs.frontier_capacity = 0;
	bd.pair_count = n;
	ENSURE(stats.cpu_fallbacks > 0 && stats.cpu_fallbacks <= few);
	ENSURE(few_total > 0);
	ENSURE_EQ_INT(again.count, few_total);
	ENSURE(memcmp(again.entries, copy, few_total * sizeof(*copy)) == 0);
	for (uint32_t i = 0; i < few; i++) {
		ENSURE_EQ_INT(r2[i].collide, r[i].collide);
		ENSURE_EQ_INT(r2[i].triangle_pairs, r[i].triangle_pairs);
	}

	// Approx mode has no triangles to list.
	bd.mode = VKCOL_MODE_APPROX;
	gpu_log_expected = 1;
	ENSURE(vkcol_batch_run(ctx, &bd, r2) == VKCOL_ERROR_INVALID_ARGUMENT);
	gpu_log_expected = 0;
	free(copy);
	free(ref);
	free(list.entries);
	free(pairs);
	free(r);
	free(r2);
	meshgen_free(&torus);
	meshgen_free(&box);
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
	RUN_TEST(test_far_from_origin);
	RUN_TEST(test_overflow_reruns);
	RUN_TEST(test_depth_first);
	RUN_TEST(test_leaf_sizes);
	RUN_TEST(test_early_accept);
	RUN_TEST(test_policies);
	RUN_TEST(test_probe_surface);
	RUN_TEST(test_oriented_boxes);
	RUN_TEST(test_ball_test);
	RUN_TEST(test_fine_tree);
	RUN_TEST(test_small_solid_in_scene);
	RUN_TEST(test_triangle_list);
	RUN_TEST(test_no_unexpected_log_messages);
	return TEST_SUMMARY();
}
