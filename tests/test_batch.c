// SPDX-License-Identifier: MIT
// Batches in approx mode: analytic answers for boxes and spheres away from the
// tolerance band, stage reporting, meshes of several resolutions in one batch,
// chunking and 2D dispatch with a batch larger than 65535 x workgroup size,
// progress and interruption, and every bad-input case. Validation on.
#include "context.h"
#include "gpu_util.h"
#include "shared.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static vkcol_result run(vkcol_context *ctx, const vkcol_pair *pairs, uint64_t n, vkcol_pair_result *results,
                        uint32_t mip)
{
	vkcol_batch_desc bd = {.pairs = pairs, .pair_count = n, .mode = VKCOL_MODE_APPROX, .mip_level = mip};
	return vkcol_batch_run(ctx, &bd, results);
}

// Box A of half-extent 1, box B of half-extent 0.8, B moved along x by d
// (and optionally turned 45 degrees about z, so a vertical edge leads at
// 0.8 sqrt 2). B's leading vertices enter A when d < 1.8 (d < 1 + 0.8 sqrt 2
// = 2.131 when turned); A's vertices (|y| = 1) never enter B. The cases keep
// away from those thresholds by more than the map's filtering error.
static void test_boxes_analytic(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	vkcol_mesh a = gpu_cube(ctx, 1.0f, 64, "box a"), b = gpu_cube(ctx, 0.8f, 64, "box b");
	const float straight[] = {0.0f, 1.0f, 1.7f, 1.9f, 3.0f, 4.5f, 100.0f};
	const int straight_hit[] = {1, 1, 1, 0, 0, 0, 0};
	const float turned[] = {0.5f, 2.0f, 2.3f, 3.0f};
	const int turned_hit[] = {1, 1, 0, 0};
	vkcol_pair pairs[11];
	int expect[11];
	size_t n = 0;
	for (size_t i = 0; i < ARRAY_LEN(straight); i++, n++) {
		pairs[n] = (vkcol_pair){a, b, pose_identity(), pose_at(straight[i], 0, 0)};
		expect[n] = straight_hit[i];
	}
	for (size_t i = 0; i < ARRAY_LEN(turned); i++, n++) {
		pairs[n] = (vkcol_pair){a, b, pose_identity(), pose_rot(3.14159265f / 4, 0, 0, 1, turned[i], 0, 0)};
		expect[n] = turned_hit[i];
	}
	vkcol_pair_result results[11];
	ENSURE(run(ctx, pairs, n, results, 0) == VKCOL_SUCCESS);
	for (size_t i = 0; i < n; i++) {
		ENSURE_MSG((int)results[i].collide == expect[i], "pair %zu: collide %u, expected %d", i, results[i].collide,
		           expect[i]);
		ENSURE(results[i].triangle_pairs == 0);
		if (results[i].collide)
			ENSURE(results[i].stage == VKCOL_STAGE_CUBE_MAP && results[i].penetration >= 0.0f);
	}
	// d = 100: bounding spheres (radii sqrt 3 and 0.8 sqrt 3) are apart; at
	// d = 3 they overlap but the boxes do not: stage 0 decides both.
	ENSURE_EQ_INT(results[6].stage, VKCOL_STAGE_BOUNDS);
	ENSURE_EQ_INT(results[4].stage, VKCOL_STAGE_BOUNDS);
	// Penetration at d = 1: the origins' inner balls (radii 1 and 0.8, the
	// distances to the nearest faces) overlap by 1 + 0.8 - 1 = 0.8.
	ENSURE_MSG(fabsf(results[1].penetration - 0.8f) < 0.01f, "penetration %g", results[1].penetration);
	// Poses of both meshes matter, not only the relative one: moving both by
	// the same rigid motion changes nothing.
	vkcol_pose ra = pose_rot(1.0f, 0.6f, 0.0f, 0.8f, 5, -7, 2);
	vkcol_pair moved[2] = {{a, b, ra, ra}, {a, b, pose_at(10, 0, 0), pose_at(12.5f, 0, 0)}};
	vkcol_pair_result mr[2];
	ENSURE(run(ctx, moved, 2, mr, 0) == VKCOL_SUCCESS);
	ENSURE_EQ_INT(mr[0].collide, 1);
	ENSURE_EQ_INT(mr[1].collide, 0);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// Spheres of radius 1 at centre distance d collide when d <= 2; a mesh at
// each of three resolutions in one batch; coarser mip levels agree away from
// the band.
static void test_spheres_analytic(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh sphere;
	const float c[3] = {0, 0, 0};
	ENSURE(meshgen_sphere(&sphere, c, 1.0f, 32, 64));
	vkcol_mesh m[3] = {gpu_mesh(ctx, &sphere, 8, "s8"), gpu_mesh(ctx, &sphere, 64, "s64"),
	                   gpu_mesh(ctx, &sphere, 256, "s256")};
	const float d[] = {0.3f, 0.5f, 1.5f, 1.85f, 2.15f, 2.5f, 4.0f};
	const int hit[] = {1, 1, 1, 1, 0, 0, 0};
	vkcol_pair pairs[3 * 3 * ARRAY_LEN(d)];
	int expect[ARRAY_LEN(pairs)];
	size_t n = 0;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			for (size_t k = 0; k < ARRAY_LEN(d); k++, n++) {
				// Direction varies so different faces of the maps are used.
				float dir[3] = {0.6f, (float)(j - 1) * 0.48f, (float)(i - 1) * 0.64f};
				float len = sqrtf(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
				pairs[n] = (vkcol_pair){m[i], m[j], pose_rot(0.3f * (float)k, 0, 1, 0, 0, 0, 0),
				                        pose_at(d[k] * dir[0] / len, d[k] * dir[1] / len, d[k] * dir[2] / len)};
				expect[n] = hit[k];
			}
	vkcol_pair_result results[ARRAY_LEN(pairs)];
	for (uint32_t mip = 0; mip <= 2; mip++) {
		ENSURE(run(ctx, pairs, n, results, mip) == VKCOL_SUCCESS);
		for (size_t i = 0; i < n; i++)
			ENSURE_MSG((int)results[i].collide == expect[i], "mip %u pair %zu: collide %u, expected %d", mip, i,
			           results[i].collide, expect[i]);
	}
	// Destroying a mesh rebuilds the pool; its handle is then refused.
	vkcol_mesh_destroy(ctx, m[1]);
	vkcol_pair stale = {m[0], m[1], pose_identity(), pose_identity()};
	gpu_log_expected = 1;
	ENSURE(run(ctx, &stale, 1, results, 0) == VKCOL_ERROR_INVALID_HANDLE);
	gpu_log_expected = 0;
	vkcol_pair fresh = {m[0], m[2], pose_identity(), pose_at(1.0f, 0, 0)};
	ENSURE(run(ctx, &fresh, 1, results, 0) == VKCOL_SUCCESS);
	ENSURE_EQ_INT(results[0].collide, 1);
	meshgen_free(&sphere);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// An open mesh bounds no solid: against an open box (a bowl, one face
// missing), a small closed cube in its hollow does not collide, one across
// a wall does, both ways round, as the reference says. Approx mode tests
// whether the cube's vertices lie on both sides of the bowl's surface along
// their rays; a vertex within the bowl's map distance alone is no hit
// there (it was before, for every pose inside the bowl's hull). A ring
// lying in the hollow, whose rays pass the rim into the open side, does not
// collide either: where the bowl's map blends a ray that misses the bowl
// into its neighbours, no surface is sampled (it had been one falling to 0,
// which the ring's vertices straddled).
static void test_open_mesh(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh bowl, ring;
	const float lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1};
	ENSURE(meshgen_box_open(&bowl, lo, hi, 4));
	ENSURE(meshgen_torus(&ring, 0.75f, 0.1f, 48, 12));
	vkcol_mesh open = gpu_mesh(ctx, &bowl, 64, "bowl"), cube = gpu_cube(ctx, 0.15f, 64, "cube");
	vkcol_mesh torus = gpu_mesh(ctx, &ring, 64, "ring");
	// In the hollow, across the +x wall, across the -y wall, across the
	// bottom, in the hollow turned, apart.
	const float at[][3] = {{0, 0, -0.5f}, {0.95f, 0, -0.4f}, {0.2f, -1.05f, -0.3f},
	                       {0.1f, 0.2f, -1.0f}, {-0.3f, 0.3f, -0.2f}, {3.0f, 0, 0}};
	const int hit[] = {0, 1, 1, 1, 0, 0};
	enum { POSES = sizeof(hit) / sizeof(hit[0]) };
	vkcol_pair pairs[2 * POSES];
	for (int i = 0; i < POSES; i++) {
		vkcol_pose p = i == 4 ? pose_rot(0.7f, 1, 1, 0, at[i][0], at[i][1], at[i][2])
		                      : pose_at(at[i][0], at[i][1], at[i][2]);
		pairs[2 * i] = (vkcol_pair){open, cube, pose_identity(), p};
		pairs[2 * i + 1] = (vkcol_pair){cube, open, p, pose_identity()};
	}
	vkcol_pair_result results[2 * POSES];
	ENSURE(run(ctx, pairs, 2 * POSES, results, 0) == VKCOL_SUCCESS);
	for (int i = 0; i < 2 * POSES; i++) {
		bool ref = false;
		ENSURE(vkcol_reference_collide(ctx, &pairs[i], &ref) == VKCOL_SUCCESS);
		ENSURE_MSG(ref == (hit[i / 2] != 0), "pose %d: reference %d", i / 2, ref);
		ENSURE_MSG((int)results[i].collide == hit[i / 2], "pair %d: approx %u (stage %u), expected %d", i,
		           results[i].collide, results[i].stage, hit[i / 2]);
	}
	// The ring flat in the hollow at heights where its rays from the
	// bowl's origin (the area centroid, z = -0.2) cross the rim's, both
	// ways round, at map resolutions 32 and 64.
	vkcol_mesh open32 = gpu_mesh(ctx, &bowl, 32, "bowl 32");
	for (int i = 0; i < 2 * POSES; i++) {
		vkcol_mesh b = i % 4 < 2 ? open : open32;
		vkcol_pose p = pose_rot(0.05f * (float)i, 0, 0, 1, 0, 0, 0.3f + 0.03f * (float)(i / 2));
		pairs[i] = i % 2 ? (vkcol_pair){torus, b, p, pose_identity()} : (vkcol_pair){b, torus, pose_identity(), p};
	}
	ENSURE(run(ctx, pairs, 2 * POSES, results, 0) == VKCOL_SUCCESS);
	for (int i = 0; i < 2 * POSES; i++) {
		bool ref = true;
		ENSURE(vkcol_reference_collide(ctx, &pairs[i], &ref) == VKCOL_SUCCESS);
		ENSURE_MSG(!ref, "ring pose %d: reference %d", i, ref);
		ENSURE_MSG(!results[i].collide, "ring pair %d: approx %u (stage %u), expected 0", i, results[i].collide,
		           results[i].stage);
	}
	meshgen_free(&bowl);
	meshgen_free(&ring);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// Skipping vertex clusters by their cone bounds and clearance fields, and
// spilling pairs whose jobs do not fit (shared.h), change no answer: the
// same collide flags and stages with the cone bounds off, with the
// clearance fields off, with a cluster job list of one job, with a group
// job list of one job and with an open mesh's bounds of its inner distance
// off, on random poses of a torus, a box, an open grid, a triangle soup, a
// body with thin legs, an open box around a torus and two open boxes, one
// in the other, around a small ball against other meshes; the cone bounds
// do skip vertices, the clearance fields skip more of the legged body's,
// and sample fewer of those they leave, and the open boxes' inner
// distance skips the ball's vertices before and between their walls. No result carries a spill mark (word 3) out.
static void test_cluster_culling(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh torus, box, sphere, grid, soup, spider, bowl, ball, inner, bowls;
	const float c[3] = {0, 0, 0}, lo[3] = {-0.7f, -0.5f, -0.3f}, hi[3] = {0.7f, 0.5f, 0.3f};
	const float bowl_lo[3] = {-2.0f, -2.0f, -2.0f}, bowl_hi[3] = {2.0f, 2.0f, 2.0f};
	const float inner_lo[3] = {-1.0f, -1.0f, -1.0f}, inner_hi[3] = {1.0f, 1.0f, 1.0f};
	ENSURE(meshgen_torus(&torus, 1.0f, 0.35f, 48, 24));
	ENSURE(meshgen_box(&box, lo, hi, 8, true));
	ENSURE(meshgen_sphere(&sphere, c, 0.8f, 24, 48));
	ENSURE(meshgen_grid(&grid, 16, 16, 2.0f, 2.0f));
	ENSURE(meshgen_soup(&soup, 400, 1.0f, 0.2f, 5));
	ENSURE(meshgen_spider(&spider, 8, 0.5f, 2.0f, 0.08f));
	ENSURE(meshgen_box_open(&bowl, bowl_lo, bowl_hi, 8));
	ENSURE(meshgen_sphere(&ball, c, 0.3f, 12, 24));
	// Two open boxes, one in the other: the inner's walls lie inside the
	// mesh's box, where the inner distance's bounds cull.
	ENSURE(meshgen_box_open(&inner, inner_lo, inner_hi, 4));
	ENSURE(meshgen_merge(&bowls, &bowl, &inner));
	vkcol_mesh mt = gpu_mesh(ctx, &torus, 64, "torus"), mb = gpu_mesh(ctx, &box, 64, "box"),
	           ms = gpu_mesh(ctx, &sphere, 64, "sphere"), mg = gpu_mesh(ctx, &grid, 64, "grid"),
	           mx = gpu_mesh(ctx, &soup, 64, "soup"), mp = gpu_mesh(ctx, &spider, 64, "spider"),
	           mw = gpu_mesh(ctx, &bowl, 64, "bowl"), ml = gpu_mesh(ctx, &ball, 64, "ball"),
	           m2 = gpu_mesh(ctx, &bowls, 64, "two bowls");
	const struct {
		vkcol_mesh a, b;
		float radius;
	} cases[] = {{mt, mt, 2.4f}, {mb, ms, 1.6f}, {mg, ms, 1.6f}, {mx, mt, 3.4f}, {mt, mp, 2.6f}, {mw, mt, 1.0f},
	             {m2, ml, 2.4f}};
	const uint64_t per_case = 2000;
	const uint64_t n = per_case * ARRAY_LEN(cases);
	vkcol_pair *pairs = malloc(n * sizeof(*pairs));
	vkcol_pair_result *r[6];
	for (int k = 0; k < 6; k++)
		r[k] = malloc(n * sizeof(vkcol_pair_result));
	ENSURE(pairs && r[0] && r[1] && r[2] && r[3] && r[4] && r[5]);
	uint64_t state = 77;
	for (uint64_t i = 0; i < n; i++)
		pairs[i] = (vkcol_pair){cases[i / per_case].a, cases[i / per_case].b, meshgen_random_pose(&state, 0.0f),
		                        meshgen_random_pose(&state, cases[i / per_case].radius)};
	// The legged body's pairs alone too, with the clearance fields on (5)
	// and off (6), for their vertex tests; all pairs with the open bounds
	// off (7); the open boxes' pairs with the ball alone with them on (8)
	// and off (9).
	vkcol_batch_stats st[10];
	for (int k = 0; k < 10; k++) {
		ctx->batch.knobs.cone_bounds_off = k == 1;
		ctx->batch.knobs.clearance_off = k == 4 || k == 6;
		ctx->batch.knobs.approx_job_capacity = k == 2 ? 1 : 0;
		ctx->batch.knobs.approx_group_capacity = k == 3 ? 1 : 0;
		ctx->batch.knobs.open_bounds_off = k == 7 || k == 9;
		vkcol_batch_desc bd = {.pairs = pairs, .pair_count = n, .mode = VKCOL_MODE_APPROX, .stats = &st[k]};
		uint64_t subset = k == 5 || k == 6 ? 4 : k >= 8 ? 6 : 0;
		if (subset) {
			bd.pairs = &pairs[subset * per_case];
			bd.pair_count = per_case;
		}
		// The subsets' answers go where the full runs' are compared.
		vkcol_pair_result *out = k == 5 || k == 6 ? &r[k - 5][4 * per_case]
		                         : k == 7        ? r[5]
		                         : k >= 8        ? &r[k - 8][6 * per_case]
		                                         : r[k];
		ENSURE(vkcol_batch_run(ctx, &bd, out) == VKCOL_SUCCESS);
	}
	ctx->batch.knobs.cone_bounds_off = false;
	ctx->batch.knobs.clearance_off = false;
	ctx->batch.knobs.approx_job_capacity = 0;
	ctx->batch.knobs.approx_group_capacity = 0;
	ctx->batch.knobs.open_bounds_off = false;
	// The same pairs give the same bytes, penetration too: the jobs of a
	// pair run in whatever order the device picks, and the spilled pairs
	// (full lists, 2 and 3: which pairs spill depends on that order) answer
	// as the jobs would have.
	vkcol_pair_result *again = malloc(n * sizeof(vkcol_pair_result));
	ENSURE(again);
	vkcol_batch_desc rerun = {.pairs = pairs, .pair_count = n, .mode = VKCOL_MODE_APPROX};
	ENSURE(vkcol_batch_run(ctx, &rerun, again) == VKCOL_SUCCESS);
	uint64_t moved = 0, deep = 0;
	for (uint64_t i = 0; i < n; i++) {
		moved += memcmp(&again[i], &r[0][i], sizeof(again[i])) != 0;
		for (int v = 2; v <= 3; v++)
			moved += memcmp(&r[v][i], &r[0][i], sizeof(r[0][i])) != 0;
		deep += r[0][i].penetration > 0.0f;
	}
	ENSURE_MSG(moved == 0, "%llu answers (with their penetration) differ between two runs of the same pairs, or "
	           "with full job lists", (unsigned long long)moved);
	ENSURE(deep > n / 10);
	free(again);
	for (size_t k = 0; k < ARRAY_LEN(cases); k++) {
		uint64_t hits = 0, differ = 0, marked = 0;
		for (uint64_t i = k * per_case; i < (k + 1) * per_case; i++) {
			hits += r[0][i].collide;
			for (int v = 0; v < 6; v++) {
				differ += r[v][i].collide != r[0][i].collide || r[v][i].stage != r[0][i].stage;
				marked += r[v][i].triangle_pairs != 0;
			}
		}
		ENSURE_MSG(differ == 0, "case %zu: %llu answers change without cone bounds or clearance fields, or with full job lists", k,
		           (unsigned long long)differ);
		ENSURE_MSG(marked == 0, "case %zu: %llu approx results count triangle pairs", k, (unsigned long long)marked);
		// Both answers are common, so a wrong skip would show.
		ENSURE_MSG(hits > per_case / 10 && hits < per_case * 9 / 10, "case %zu: %llu of %llu collide", k,
		           (unsigned long long)hits, (unsigned long long)per_case);
	}
	ENSURE_MSG(st[0].vertex_tests < st[1].vertex_tests, "vertex tests: %llu with cone bounds, %llu without",
	           (unsigned long long)st[0].vertex_tests, (unsigned long long)st[1].vertex_tests);
	printf("  vertex tests with cone bounds %llu, without %llu\n", (unsigned long long)st[0].vertex_tests,
	          (unsigned long long)st[1].vertex_tests);
	// The legged body: its cone cells that hold a leg bound the map at the
	// leg's tip; the field does not (measured: 46 % fewer vertex tests).
	ENSURE_MSG(4 * st[5].vertex_tests < 3 * st[6].vertex_tests,
	           "torus-legs vertex tests: %llu with clearance fields, %llu without",
	           (unsigned long long)st[5].vertex_tests, (unsigned long long)st[6].vertex_tests);
	printf("  torus-legs vertex tests with clearance fields %llu, without %llu\n",
	       (unsigned long long)st[5].vertex_tests, (unsigned long long)st[6].vertex_tests);
	// And the vertices of the clusters left that lie within the ball the
	// field clears around their cluster's grid point are not sampled
	// (measured: 24,959 samples against 127,679).
	ENSURE_MSG(5 * st[5].cube_samples < 2 * st[6].cube_samples,
	           "torus-legs cube samples: %llu with clearance fields, %llu without",
	           (unsigned long long)st[5].cube_samples, (unsigned long long)st[6].cube_samples);
	printf("  torus-legs cube samples with clearance fields %llu, without %llu\n",
	       (unsigned long long)st[5].cube_samples, (unsigned long long)st[6].cube_samples);
	// The open boxes: the ball's clusters before and between their walls
	// are skipped whole (measured: 19 % fewer vertex tests, 24 % fewer
	// samples; the ball's clusters across a wall are tested).
	ENSURE_MSG(10 * st[8].vertex_tests < 9 * st[9].vertex_tests,
	           "ball in the open boxes, vertex tests: %llu with its inner bounds, %llu without",
	           (unsigned long long)st[8].vertex_tests, (unsigned long long)st[9].vertex_tests);
	printf("  ball in the open boxes, vertex tests with its inner bounds %llu, without %llu; samples %llu, %llu\n",
	       (unsigned long long)st[8].vertex_tests, (unsigned long long)st[9].vertex_tests,
	       (unsigned long long)st[8].cube_samples, (unsigned long long)st[9].cube_samples);
	free(pairs);
	for (int k = 0; k < 6; k++)
		free(r[k]);
	meshgen_free(&torus);
	meshgen_free(&box);
	meshgen_free(&sphere);
	meshgen_free(&grid);
	meshgen_free(&soup);
	meshgen_free(&spider);
	meshgen_free(&bowl);
	meshgen_free(&ball);
	meshgen_free(&inner);
	meshgen_free(&bowls);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// Spilled pairs of a large mesh: a pair whose jobs do not fit tests all
// its clusters in one invocation of the spilled pass, which must answer as
// its jobs do, byte for byte. A sphere of 61,000 vertices (478 groups of
// 128) in an open box it pokes through at some poses, the cone bounds and
// clearance field off so that every cluster inside the box is tested:
// every pair spilled (lists of one job) against lists that hold every job.
// lavapipe ends all the loops of an invocation together after 65,535
// iterations (approx_common.glsl), which such a pair passed before its
// loops over a cluster's vertices were written out.
static void test_spilled_large(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh big, bin;
	const float c[3] = {0, 0, 0}, lo[3] = {-1.2f, -1.2f, -1.2f}, hi[3] = {1.2f, 1.2f, 1.2f};
	ENSURE(meshgen_sphere(&big, c, 1.0f, 220, 280));
	ENSURE(meshgen_box_open(&bin, lo, hi, 8));
	vkcol_mesh mb = gpu_mesh(ctx, &big, 64, "large sphere"), mo = gpu_mesh(ctx, &bin, 64, "open box");
	vkcol_mesh_info info;
	ENSURE(vkcol_mesh_get_info(ctx, mb, &info) == VKCOL_SUCCESS);
	ENSURE(info.vertex_count > 60000);
	const uint32_t n = 64;
	vkcol_pair pairs[64];
	vkcol_pair_result jobs[64], spilled[64];
	uint64_t state = 91;
	// The sphere moved 0.1 to 0.3 from the box's centre: through a wall
	// beyond 0.2 along an axis.
	for (uint32_t i = 0; i < n; i++) {
		vkcol_pose pb = meshgen_random_pose(&state, 0.0f), dir = meshgen_random_pose(&state, 1.0f);
		float len = sqrtf(dir.translation[0] * dir.translation[0] + dir.translation[1] * dir.translation[1] +
		                  dir.translation[2] * dir.translation[2]);
		float at = 0.1f + 0.2f * (float)i / (float)n;
		for (int k = 0; k < 3; k++)
			pb.translation[k] = dir.translation[k] * at / len;
		pairs[i] = (vkcol_pair){mo, mb, pose_identity(), pb};
	}
	vkcol_batch_desc bd = {.pairs = pairs, .pair_count = n, .mode = VKCOL_MODE_APPROX};
	ctx->batch.knobs.cone_bounds_off = true;
	ctx->batch.knobs.clearance_off = true;
	ctx->batch.knobs.approx_job_capacity = 1u << 22;
	ctx->batch.knobs.approx_group_capacity = 1u << 20;
	ENSURE(vkcol_batch_run(ctx, &bd, jobs) == VKCOL_SUCCESS);
	ctx->batch.knobs.approx_job_capacity = 1;
	ctx->batch.knobs.approx_group_capacity = 1;
	ENSURE(vkcol_batch_run(ctx, &bd, spilled) == VKCOL_SUCCESS);
	ctx->batch.knobs.approx_job_capacity = 0;
	ctx->batch.knobs.approx_group_capacity = 0;
	ctx->batch.knobs.cone_bounds_off = false;
	ctx->batch.knobs.clearance_off = false;
	uint32_t differ = 0, collide = 0;
	for (uint32_t i = 0; i < n; i++) {
		differ += memcmp(&jobs[i], &spilled[i], sizeof(jobs[i])) != 0;
		collide += jobs[i].collide;
	}
	printf("     sphere in an open box: %u of %u pairs collide; %u answers differ when every pair spills\n", collide,
	       n, differ);
	ENSURE(collide >= n / 8 && collide < n);
	ENSURE_EQ_INT(differ, 0);
	vkcol_mesh_destroy(ctx, mb);
	vkcol_mesh_destroy(ctx, mo);
	meshgen_free(&big);
	meshgen_free(&bin);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// The clearance field allows for linear filtering's reach: a speck (one
// tiny triangle) at random poses around a body with four thick legs, whose
// map at resolution 8 sees the legs through whole texels, is inside wherever
// filtering blends a leg's texel into its neighbours' (up to 1.5 texels,
// 0.375 radians, off the leg). The answers with the field on and off are
// the same. (A field that leaves the reach out changes 6 of the 100,000.)
static void test_clearance_filter_reach(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh spider, speck;
	ENSURE(meshgen_spider(&spider, 4, 0.5f, 2.0f, 0.4f));
	ENSURE(meshgen_soup(&speck, 1, 0.0f, 0.002f, 3));
	vkcol_mesh ms = gpu_mesh(ctx, &spider, 8, "spider"), mk = gpu_mesh(ctx, &speck, 8, "speck");
	const uint64_t n = 100000;
	vkcol_pair *pairs = malloc(n * sizeof(*pairs));
	vkcol_pair_result *r[2] = {malloc(n * sizeof(vkcol_pair_result)), malloc(n * sizeof(vkcol_pair_result))};
	ENSURE(pairs && r[0] && r[1]);
	uint64_t state = 5;
	for (uint64_t i = 0; i < n; i++) {
		// Around the legs: a shell between the body and the tips, near
		// the plane the legs slope down from.
		vkcol_pose pose = meshgen_random_pose(&state, 2.4f);
		pose.translation[2] *= 0.3f;
		pairs[i] = (vkcol_pair){ms, mk, {{1, 0, 0, 0}, {0, 0, 0}}, pose};
	}
	for (int k = 0; k < 2; k++) {
		ctx->batch.knobs.clearance_off = k == 1;
		vkcol_batch_desc bd = {.pairs = pairs, .pair_count = n, .mode = VKCOL_MODE_APPROX};
		ENSURE(vkcol_batch_run(ctx, &bd, r[k]) == VKCOL_SUCCESS);
	}
	ctx->batch.knobs.clearance_off = false;
	uint64_t hits = 0, differ = 0;
	for (uint64_t i = 0; i < n; i++) {
		hits += r[1][i].collide;
		differ += r[0][i].collide != r[1][i].collide;
	}
	printf("  specks inside: %llu of %llu\n", (unsigned long long)hits, (unsigned long long)n);
	ENSURE_MSG(differ == 0, "%llu of %llu specks change their answer with the clearance field", (unsigned long long)differ,
	           (unsigned long long)n);
	ENSURE_MSG(hits > n / 50 && hits < n / 2, "%llu of %llu specks inside", (unsigned long long)hits,
	           (unsigned long long)n);
	free(pairs);
	free(r[0]);
	free(r[1]);
	meshgen_free(&spider);
	meshgen_free(&speck);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// The vertex budget (vkcol_batch_desc.vertex_budget): a fine sphere (about
// 32,000 vertices: levels of detail of about 8,000, 2,000, 500 and 125), a
// torus (1,152: levels of 288 and 72) and a box too small for any, at random
// poses. A budget no mesh exceeds answers as no budget, testing about as
// many vertices; a budget tests a subset of the vertices against the same maps,
// so it never says collide where every vertex says not, and it tests fewer;
// spheres whose centres lie closer than their radius overlap far deeper
// than the coarsest level's spacing and collide at any budget. Exact mode
// refuses a budget.
static void test_vertex_budget(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh sphere, torus;
	const float c[3] = {0, 0, 0};
	ENSURE(meshgen_sphere(&sphere, c, 1.0f, 128, 256));
	ENSURE(meshgen_torus(&torus, 1.0f, 0.35f, 48, 24));
	vkcol_mesh ms = gpu_mesh(ctx, &sphere, 64, "fine sphere"), mt = gpu_mesh(ctx, &torus, 64, "torus"),
	           mb = gpu_cube(ctx, 0.6f, 64, "box");
	const struct {
		vkcol_mesh a, b;
		float radius;
	} cases[] = {{ms, ms, 2.2f}, {ms, mb, 1.6f}, {mt, ms, 2.4f}, {mb, mt, 1.6f}};
	const uint64_t per_case = 1500, n = per_case * ARRAY_LEN(cases);
	vkcol_pair *pairs = malloc(n * sizeof(*pairs));
	const uint32_t budgets[] = {0, 40000, 2500, 1};
	enum { BUDGETS = 4 };
	vkcol_pair_result *r[BUDGETS];
	vkcol_batch_stats st[BUDGETS];
	for (int k = 0; k < BUDGETS; k++)
		r[k] = malloc(n * sizeof(vkcol_pair_result));
	ENSURE(pairs && r[0] && r[1] && r[2] && r[3]);
	uint64_t state = 91;
	for (uint64_t i = 0; i < n; i++)
		pairs[i] = (vkcol_pair){cases[i / per_case].a, cases[i / per_case].b, meshgen_random_pose(&state, 0.0f),
		                        meshgen_random_pose(&state, cases[i / per_case].radius)};
	for (int k = 0; k < BUDGETS; k++) {
		vkcol_batch_desc bd = {.pairs = pairs, .pair_count = n, .mode = VKCOL_MODE_APPROX, .stats = &st[k],
		                       .vertex_budget = budgets[k]};
		ENSURE(vkcol_batch_run(ctx, &bd, r[k]) == VKCOL_SUCCESS);
	}
	uint64_t deep = 0, lost[BUDGETS] = {0};
	for (uint64_t i = 0; i < n; i++) {
		ENSURE_MSG(r[1][i].collide == r[0][i].collide, "pair %llu: a budget above every mesh's vertices changed "
		           "the answer", (unsigned long long)i);
		for (int k = 2; k < BUDGETS; k++) {
			ENSURE_MSG(!r[k][i].collide || r[0][i].collide, "pair %llu, budget %u: collide, where every vertex "
			           "says not", (unsigned long long)i, budgets[k]);
			lost[k] += r[0][i].collide && !r[k][i].collide;
		}
		if (i < per_case) {
			const float *t = pairs[i].pose_b.translation, *u = pairs[i].pose_a.translation;
			float dx = t[0] - u[0], dy = t[1] - u[1], dz = t[2] - u[2];
			if (dx * dx + dy * dy + dz * dz < 1.0f) {
				deep++;
				for (int k = 0; k < BUDGETS; k++)
					ENSURE_MSG(r[k][i].collide, "pair %llu, budget %u: spheres overlapping by more than their "
					           "radius said apart", (unsigned long long)i, budgets[k]);
			}
		}
	}
	ENSURE(deep > 50);
	// The same vertices; the count varies by the order in which the jobs
	// of a pair found colliding stop (a few hundred of 125,000 here).
	ENSURE(st[1].vertex_tests * 20 >= st[0].vertex_tests * 19 && st[1].vertex_tests * 19 <= st[0].vertex_tests * 20);
	ENSURE(st[2].vertex_tests < st[0].vertex_tests / 4 * 3);
	ENSURE(st[3].vertex_tests < st[2].vertex_tests);
	printf("  vertex tests %llu, %llu, %llu, %llu; colliding pairs lost to the budget: %llu at 2500, %llu at 1 (of "
	       "%llu pairs)\n",
	       (unsigned long long)st[0].vertex_tests, (unsigned long long)st[1].vertex_tests,
	       (unsigned long long)st[2].vertex_tests, (unsigned long long)st[3].vertex_tests,
	       (unsigned long long)lost[2], (unsigned long long)lost[3], (unsigned long long)n);
	// Exact mode tests triangles: a budget is an error, nothing written.
	vkcol_pair_result before = r[0][0];
	vkcol_batch_desc bd = {.pairs = pairs, .pair_count = 1, .mode = VKCOL_MODE_EXACT, .vertex_budget = 100};
	gpu_log_expected = 1;
	ENSURE(vkcol_batch_run(ctx, &bd, r[0]) == VKCOL_ERROR_INVALID_ARGUMENT);
	ENSURE_EQ_INT(gpu_log_expected, 0);
	gpu_log_expected = 0;
	ENSURE(memcmp(&before, &r[0][0], sizeof(before)) == 0);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	for (int k = 0; k < BUDGETS; k++)
		free(r[k]);
	free(pairs);
	meshgen_free(&sphere);
	meshgen_free(&torus);
	vkcol_context_destroy(ctx);
}

// The two ways of sampling the cube maps (map_sample.glsl): a batch whose
// maps share one cube array gets pipelines specialized to it, a batch that
// mixes arrays switches per sample. Random pairs at each of four map
// resolutions, run one resolution per batch and then all in one batch,
// interleaved so that neighbouring invocations sample different arrays, get
// the same answers and stages both ways: in approx mode at levels 0 and 1,
// and in exact mode (whose witness search samples the maps too; there the
// penetration estimates agree as well, to float rounding).
static void test_map_arrays(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh torus, sphere;
	const float c[3] = {0, 0, 0};
	ENSURE(meshgen_torus(&torus, 1.0f, 0.35f, 32, 16));
	ENSURE(meshgen_sphere(&sphere, c, 0.8f, 16, 32));
	enum { RESOLUTIONS = 4, PER = 1500, N = RESOLUTIONS * PER };
	const uint32_t res[RESOLUTIONS] = {16, 32, 64, 128};
	vkcol_mesh m[RESOLUTIONS][2];
	for (int i = 0; i < RESOLUTIONS; i++) {
		m[i][0] = gpu_mesh(ctx, &torus, res[i], "torus");
		m[i][1] = gpu_mesh(ctx, &sphere, res[i], "sphere");
	}
	vkcol_pair *pairs = malloc(N * sizeof(vkcol_pair)), *mixed = malloc(N * sizeof(vkcol_pair));
	vkcol_pair_result *alone = malloc(N * sizeof(vkcol_pair_result)), *together = malloc(N * sizeof(vkcol_pair_result));
	ENSURE(pairs && mixed && alone && together);
	uint64_t state = 91;
	for (uint64_t i = 0; i < N; i++) {
		uint32_t k = (uint32_t)(i / PER), kind = (uint32_t)(meshgen_random(&state) % 3);
		vkcol_pose pa = meshgen_random_pose(&state, 0.0f), pb = meshgen_random_pose(&state, 2.2f);
		pairs[i] = (vkcol_pair){m[k][kind == 2], m[k][kind >= 1], pa, pb};
		// Position i % RESOLUTIONS of every run of four: one per array.
		mixed[(i % PER) * RESOLUTIONS + k] = pairs[i];
	}
	const struct {
		vkcol_mode mode;
		uint32_t mip;
	} runs[] = {{VKCOL_MODE_APPROX, 0}, {VKCOL_MODE_APPROX, 1}, {VKCOL_MODE_EXACT, 0}};
	for (size_t j = 0; j < ARRAY_LEN(runs); j++) {
		for (int k = 0; k < RESOLUTIONS; k++) {
			vkcol_batch_desc bd = {.pairs = pairs + k * PER, .pair_count = PER, .mode = runs[j].mode,
			                       .mip_level = runs[j].mip};
			ENSURE(vkcol_batch_run(ctx, &bd, alone + k * PER) == VKCOL_SUCCESS);
		}
		vkcol_batch_desc bd = {.pairs = mixed, .pair_count = N, .mode = runs[j].mode, .mip_level = runs[j].mip};
		ENSURE(vkcol_batch_run(ctx, &bd, together) == VKCOL_SUCCESS);
		uint64_t differ = 0, hits = 0, by_map = 0;
		for (uint64_t i = 0; i < N; i++) {
			const vkcol_pair_result *a = &alone[i], *b = &together[(i % PER) * RESOLUTIONS + i / PER];
			hits += a->collide;
			by_map += a->stage == VKCOL_STAGE_CUBE_MAP;
			// Approx mode's penetration estimate is the deepest vertex found
			// before the pair's jobs stopped, which depends on their timing.
			// The two pipelines compile the same float arithmetic apart, so
			// a few estimates differ in their last bits.
			differ += a->collide != b->collide || a->stage != b->stage ||
			          (runs[j].mode == VKCOL_MODE_EXACT && fabsf(a->penetration - b->penetration) > 1e-5f);
		}
		ENSURE_MSG(differ == 0, "run %zu: %llu of %d answers differ between shared and mixed arrays", j,
		           (unsigned long long)differ, N);
		// The maps decided many pairs, and both answers are common.
		ENSURE_MSG(by_map > N / 10 && hits > N / 10 && hits < N * 9 / 10, "run %zu: %llu by the maps, %llu collide",
		           j, (unsigned long long)by_map, (unsigned long long)hits);
	}
	free(pairs);
	free(mixed);
	free(alone);
	free(together);
	meshgen_free(&torus);
	meshgen_free(&sphere);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

typedef struct progress_log {
	uint64_t calls, last, stop_after;
	int monotone;
} progress_log;

static bool on_progress(void *user, uint64_t done, uint64_t total)
{
	progress_log *p = user;
	p->monotone &= done > p->last && done <= total;
	p->last = done;
	p->calls++;
	return p->stop_after == 0 || p->calls < p->stop_after;
}

// The pattern's meshes: A the box [-3, 3] x [-1, 1]^2 (inner radius 1), B a
// coarse sphere of radius 0.5 (26 vertices). Pair i:
//  i % 3 == 0: B at (2.5, 0.9, 0.9): its centre is inside A, but the inner
//     balls (1 + ~0.35) do not reach (2.81 apart): stage 1 finds a vertex;
//  i % 3 == 1: B far away: stage 0;
//  i % 3 == 2: B at (2.5, 1.4, 1.4): bounding spheres and boxes overlap, but
//     B's vertices stay 0.066 clear of A's edge (y = z = 1): stage 1, apart.
static void pattern_meshes(vkcol_context *ctx, uint32_t res_a, uint32_t res_b, vkcol_mesh *a, vkcol_mesh *b)
{
	meshgen_mesh box, ball;
	const float lo[3] = {-3, -1, -1}, hi[3] = {3, 1, 1}, c[3] = {0, 0, 0};
	ENSURE(meshgen_box(&box, lo, hi, 1, false));
	ENSURE(meshgen_sphere(&ball, c, 0.5f, 4, 8));
	*a = gpu_mesh(ctx, &box, res_a, "long box");
	*b = gpu_mesh(ctx, &ball, res_b, "coarse ball");
	meshgen_free(&box);
	meshgen_free(&ball);
}

static void fill_pattern(vkcol_pair *pairs, uint64_t n, vkcol_mesh a, vkcol_mesh b)
{
	for (uint64_t i = 0; i < n; i++) {
		vkcol_pose pb = i % 3 == 0 ? pose_at(2.5f, 0.9f, 0.9f) : (i % 3 == 1 ? pose_at(50, 0, 0) : pose_at(2.5f, 1.4f, 1.4f));
		pairs[i] = (vkcol_pair){a, b, pose_identity(), pb};
	}
}

static uint64_t count_pattern_errors(const vkcol_pair_result *r, uint64_t first, uint64_t n)
{
	uint64_t bad = 0;
	for (uint64_t i = first; i < first + n; i++) {
		uint32_t want = i % 3 == 0;
		uint32_t stage = i % 3 == 1 ? VKCOL_STAGE_BOUNDS : VKCOL_STAGE_CUBE_MAP;
		bad += r[i].collide != want || r[i].stage != stage;
	}
	return bad;
}

// More pairs than 65535 x VKCOL_WORKGROUP_SIZE, asked for in one chunk: the
// chunk is clamped to what one binding (maxStorageBufferRange, and
// maxTexelBufferElements: pairs and jobs are read as texels) and one 2D
// dispatch can take, so the batch runs in several chunks, two in flight. On
// devices whose binding range allows it, a chunk exceeds 65535 workgroups and
// goes 2D.
static void test_large_batch_chunks(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	vkcol_mesh a, b;
	pattern_meshes(ctx, 8, 8, &a, &b);
	uint64_t n = 65535ull * VKCOL_WORKGROUP_SIZE + 1234;
	vkcol_pair *pairs = malloc(n * sizeof(*pairs));
	vkcol_pair_result *results = malloc(n * sizeof(*results));
	ENSURE(pairs && results);
	fill_pattern(pairs, n, a, b);
	progress_log log = {0, 0, 0, 1};
	vkcol_batch_desc bd = {.pairs = pairs, .pair_count = n, .mode = VKCOL_MODE_APPROX, .chunk_pairs = UINT32_MAX,
	                       .progress = on_progress, .progress_user = &log};
	ENSURE(vkcol_batch_run(ctx, &bd, results) == VKCOL_SUCCESS);
	ENSURE_EQ_INT(count_pattern_errors(results, 0, n), 0);
	vkcol_device_info info;
	ENSURE(vkcol_context_get_device_info(ctx, &info) == VKCOL_SUCCESS);
	uint64_t binding = info.max_storage_buffer_range / 16 * 16;
	if (binding > (uint64_t)info.max_texel_buffer_elements * 16)
		binding = (uint64_t)info.max_texel_buffer_elements * 16;
	uint64_t per_chunk = binding / sizeof(vkcol_pair);
	ENSURE(log.monotone && log.last == n);
	ENSURE_EQ_INT(log.calls, per_chunk < n ? (n + per_chunk - 1) / per_chunk : 1);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	free(pairs);
	free(results);
	vkcol_context_destroy(ctx);
}

// Small chunks of an odd size; a progress callback that stops the batch keeps
// every answer already computed and leaves the rest undecided.
static void test_chunks_and_interrupt(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	vkcol_mesh a, b;
	pattern_meshes(ctx, 16, 32, &a, &b);
	uint64_t n = 10007;
	vkcol_pair *pairs = malloc(n * sizeof(*pairs));
	vkcol_pair_result *results = malloc(n * sizeof(*results));
	fill_pattern(pairs, n, a, b);
	progress_log log = {0, 0, 0, 1};
	vkcol_batch_desc bd = {.pairs = pairs, .pair_count = n, .mode = VKCOL_MODE_APPROX, .chunk_pairs = 999,
	                       .progress = on_progress, .progress_user = &log};
	vkcol_batch_stats stats;
	bd.stats = &stats;
	ENSURE(vkcol_batch_run(ctx, &bd, results) == VKCOL_SUCCESS);
	ENSURE_EQ_INT(count_pattern_errors(results, 0, n), 0);
	ENSURE(log.monotone && log.last == n);
	ENSURE_EQ_INT(log.calls, (n + 998) / 999);
	// Counters: n = 3 * 3335 + 2 pairs of kinds 0, 1, 2 in turn.
	uint64_t hits = (n + 2) / 3, far = (n + 1) / 3, near = n / 3;
	ENSURE_EQ_INT(stats.pairs, n);
	ENSURE_EQ_INT(stats.sphere_rejected, far);
	ENSURE_EQ_INT(stats.collisions, hits);
	// A hit stops at its first inside vertex of B (1 to 26 tests); a near
	// pair tests every vertex of B and of A (8) that its clusters let
	// through, and samples at least one (A's corner (3, 1, 1) lies in B's
	// box); far pairs test none.
	ENSURE(stats.vertex_tests >= hits + near && stats.vertex_tests <= (26 + 8) * (hits + near));
	ENSURE(stats.cube_samples >= hits + near && stats.cube_samples <= stats.vertex_tests);
	ENSURE(stats.seconds > 0);
	bd.stats = NULL;

	progress_log stop = {0, 0, 3, 1};
	bd.progress_user = &stop;
	ENSURE(vkcol_batch_run(ctx, &bd, results) == VKCOL_ERROR_INTERRUPTED);
	ENSURE(stop.last >= 3 * 999 && stop.last < n);
	// Every chunk answered before the stop (and the one in flight) is kept.
	uint64_t kept = 0;
	while (kept < n && results[kept].stage != VKCOL_STAGE_NONE)
		kept++;
	ENSURE(kept >= stop.last);
	ENSURE_EQ_INT(count_pattern_errors(results, 0, kept), 0);
	for (uint64_t i = kept; i < n; i++)
		ENSURE(results[i].stage == VKCOL_STAGE_NONE && results[i].collide == 0);
	free(pairs);
	free(results);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// A run of batches reuses the context's chunk buffers (gpu/memory.h's scratch
// slots) while their sizes repeat, and answers right from buffers that still
// hold an earlier batch's pairs, results and jobs: batches of 3,000 and 2,500
// pairs (the same buffers: both round up to 4,096 pairs), 70,000 (larger
// ones: two chunks of 2^16 in approx mode, chunks of 8,192 in exact mode),
// 3,000 again (smaller ones again). Approx mode's frames hold slots 0 to 9:
// pairs, results, stats, jobs, job counts, for each of two frames, of which
// pairs, results and jobs change size. Exact mode's buffers hold slots 10
// to 18, of which pairs, results, state, frames and both frontiers change
// size.
static void scratch_reuse(vkcol_mode mode, uint32_t first_slot, uint32_t slots, const uint64_t want_created[4],
                          uint32_t want_resized)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	vkcol_mesh a, b;
	pattern_meshes(ctx, 16, 32, &a, &b);
	const uint64_t sizes[] = {3000, 2500, 70000, 3000};
	uint64_t n = 70000;
	vkcol_pair *pairs = malloc(n * sizeof(*pairs));
	vkcol_pair_result *results = malloc(n * sizeof(*results));
	ENSURE(pairs && results);
	if (!pairs || !results)
		goto done;
	fill_pattern(pairs, n, a, b);
	VkDeviceSize kept_size[GPU_SCRATCH_SLOTS] = {0};
	for (size_t k = 0; k < ARRAY_LEN(sizes); k++) {
		uint64_t created = ctx->gpu.scratch_created;
		vkcol_batch_desc bd = {.pairs = pairs, .pair_count = sizes[k], .mode = mode};
		ENSURE(vkcol_batch_run(ctx, &bd, results) == VKCOL_SUCCESS);
		created = ctx->gpu.scratch_created - created;
		// Exact mode's stage for a colliding pair depends on which test
		// found it first: only its answers are checked.
		uint64_t wrong = 0;
		if (mode == VKCOL_MODE_APPROX)
			wrong = count_pattern_errors(results, 0, sizes[k]);
		else
			for (uint64_t i = 0; i < sizes[k]; i++)
				wrong += results[i].collide != (i % 3 == 0);
		ENSURE_MSG(wrong == 0, "batch %zu of %llu pairs: %llu wrong answers", k, (unsigned long long)sizes[k],
		           (unsigned long long)wrong);
		uint32_t held = 0, resized = 0;
		for (uint32_t s = first_slot; s < first_slot + slots; s++) {
			const gpu_buffer *buffer = &ctx->gpu.scratch[s].buffer;
			held += buffer->buffer != VK_NULL_HANDLE;
			resized += buffer->size != kept_size[s];
			kept_size[s] = buffer->size;
		}
		ENSURE_EQ_INT(held, slots);
		ENSURE_MSG(created == want_created[k], "batch %zu of %llu pairs: %llu buffers created, want %llu", k,
		           (unsigned long long)sizes[k], (unsigned long long)created, (unsigned long long)want_created[k]);
		if (k >= 2)
			ENSURE_EQ_INT(resized, want_resized);
	}
	// vkcol_context_trim frees them all; the next batch makes them again.
	uint64_t held_bytes = ctx->gpu.memory_bytes;
	uint64_t freed = vkcol_context_trim(ctx);
	ENSURE_MSG(freed > 0 && ctx->gpu.memory_bytes == held_bytes - freed, "trim freed %llu of %llu bytes",
	           (unsigned long long)freed, (unsigned long long)held_bytes);
	for (uint32_t s = 0; s < GPU_SCRATCH_SLOTS; s++)
		ENSURE(ctx->gpu.scratch[s].buffer.buffer == VK_NULL_HANDLE);
	ENSURE_EQ_INT(vkcol_context_trim(ctx), 0);
	vkcol_batch_desc again = {.pairs = pairs, .pair_count = 3000, .mode = mode};
	ENSURE(vkcol_batch_run(ctx, &again, results) == VKCOL_SUCCESS);
	uint64_t wrong = 0;
	for (uint64_t i = 0; i < 3000; i++)
		wrong += results[i].collide != (i % 3 == 0);
	ENSURE_MSG(wrong == 0, "after the trim: %llu wrong answers", (unsigned long long)wrong);
	ENSURE(vkcol_context_trim(NULL) == 0);
done:
	free(pairs);
	free(results);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

static void test_scratch_reuse(void)
{
	scratch_reuse(VKCOL_MODE_APPROX, 0, 10, (const uint64_t[4]){10, 0, 6, 6}, 6);
}

static void test_exact_scratch_reuse(void)
{
	scratch_reuse(VKCOL_MODE_EXACT, 10, 9, (const uint64_t[4]){9, 0, 6, 6}, 6);
}

// On a GPU the host checks and copies the pairs in tasks of 2^14 on the
// context's threads (pairs.h); a knob splits them here too, into tasks of
// 1,000: the same answers in both modes, and a batch with two bad pairs in
// different tasks names the first of them.
static void test_host_tasks(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	vkcol_mesh a, b;
	pattern_meshes(ctx, 16, 32, &a, &b);
	const uint64_t n = 9000;
	vkcol_pair *pairs = malloc(n * sizeof(*pairs));
	vkcol_pair_result *one = malloc(n * sizeof(*one)), *split = malloc(n * sizeof(*split));
	ENSURE(pairs && one && split);
	if (!pairs || !one || !split)
		goto done;
	fill_pattern(pairs, n, a, b);
	for (int mode = 0; mode < 2; mode++) {
		vkcol_batch_desc bd = {.pairs = pairs, .pair_count = n, .mode = mode ? VKCOL_MODE_EXACT : VKCOL_MODE_APPROX};
		ctx->batch.knobs.host_pairs_per_task = 0;
		ENSURE(vkcol_batch_run(ctx, &bd, one) == VKCOL_SUCCESS);
		ctx->batch.knobs.host_pairs_per_task = 1000;
		ENSURE(vkcol_batch_run(ctx, &bd, split) == VKCOL_SUCCESS);
		uint64_t differ = 0, wrong = 0;
		for (uint64_t i = 0; i < n; i++) {
			differ += one[i].collide != split[i].collide || one[i].stage != split[i].stage;
			wrong += split[i].collide != (i % 3 == 0);
		}
		ENSURE_MSG(differ == 0 && wrong == 0, "mode %d: %llu answers differ between one task and nine, %llu wrong",
		           mode, (unsigned long long)differ, (unsigned long long)wrong);
	}
	memset(pairs[8800].pose_b.rotation, 0, sizeof(pairs[8800].pose_b.rotation));
	pairs[7500].a.id = 0;
	vkcol_batch_desc bd = {.pairs = pairs, .pair_count = n, .mode = VKCOL_MODE_APPROX};
	gpu_log_expected = 1;
	ENSURE(vkcol_batch_run(ctx, &bd, split) == VKCOL_ERROR_INVALID_HANDLE);
	ENSURE_MSG(strstr(gpu_last_message, "pair 7500: mesh a") != NULL, "logged: %s", gpu_last_message);
	pairs[7500].a = a;
	gpu_log_expected = 1;
	ENSURE(vkcol_batch_run(ctx, &bd, split) == VKCOL_ERROR_INVALID_ARGUMENT);
	ENSURE_MSG(strstr(gpu_last_message, "pair 8800: pose b has a zero quaternion") != NULL, "logged: %s",
	           gpu_last_message);
	ENSURE_EQ_INT(gpu_log_expected, 0); // each error was explained
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
done:
	free(pairs);
	free(one);
	free(split);
	vkcol_context_destroy(ctx);
}

static void test_bad_input(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	vkcol_mesh a = gpu_cube(ctx, 1.0f, 8, "a");
	vkcol_pair good = {a, a, pose_identity(), pose_at(0.5f, 0, 0)};
	vkcol_pair pairs[4] = {good, good, good, good};
	vkcol_pair_result results[4];
	const vkcol_pair_result sentinel = {7, 7, 7.0f, 7};
	struct {
		const char *what;
		void (*spoil)(vkcol_pair *);
		vkcol_result want;
	} cases[] = {
	    {"zero mesh", NULL, VKCOL_ERROR_INVALID_HANDLE},
	    {"zero quaternion", NULL, VKCOL_ERROR_INVALID_ARGUMENT},
	    {"NaN translation", NULL, VKCOL_ERROR_INVALID_ARGUMENT},
	    {"infinite quaternion", NULL, VKCOL_ERROR_INVALID_ARGUMENT},
	};
	for (size_t c = 0; c < ARRAY_LEN(cases); c++) {
		for (int i = 0; i < 4; i++) {
			pairs[i] = good;
			results[i] = sentinel;
		}
		switch (c) {
		case 0:
			pairs[2].b.id = 0;
			break;
		case 1:
			memset(pairs[3].pose_a.rotation, 0, sizeof(pairs[3].pose_a.rotation));
			break;
		case 2:
			pairs[1].pose_b.translation[1] = NAN;
			break;
		case 3:
			pairs[0].pose_b.rotation[2] = INFINITY;
			break;
		}
		gpu_log_expected = 1;
		ENSURE_MSG(run(ctx, pairs, 4, results, 0) == cases[c].want, "%s", cases[c].what);
		ENSURE_EQ_INT(gpu_log_expected, 0); // the error was explained
		gpu_log_expected = 0;
		// Nothing was computed, nothing overwritten.
		for (int i = 0; i < 4; i++)
			ENSURE(memcmp(&results[i], &sentinel, sizeof(sentinel)) == 0);
	}
	vkcol_batch_desc bd = {.pairs = pairs, .pair_count = 4, .mode = (vkcol_mode)99};
	gpu_log_expected = 1;
	ENSURE(vkcol_batch_run(ctx, &bd, results) == VKCOL_ERROR_INVALID_ARGUMENT);
	gpu_log_expected = 1;
	bd.mode = VKCOL_MODE_APPROX;
	ENSURE(vkcol_batch_run(ctx, &bd, NULL) == VKCOL_ERROR_INVALID_ARGUMENT);
	gpu_log_expected = 0;
	ENSURE(vkcol_batch_run(NULL, &bd, results) == VKCOL_ERROR_INVALID_ARGUMENT);
	bd.pair_count = 0;
	ENSURE(vkcol_batch_run(ctx, &bd, NULL) == VKCOL_SUCCESS);
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
	RUN_TEST(test_boxes_analytic);
	RUN_TEST(test_spheres_analytic);
	RUN_TEST(test_open_mesh);
	RUN_TEST(test_cluster_culling);
	RUN_TEST(test_spilled_large);
	RUN_TEST(test_clearance_filter_reach);
	RUN_TEST(test_map_arrays);
	RUN_TEST(test_vertex_budget);
	RUN_TEST(test_chunks_and_interrupt);
	RUN_TEST(test_large_batch_chunks);
	RUN_TEST(test_scratch_reuse);
	RUN_TEST(test_exact_scratch_reuse);
	RUN_TEST(test_host_tasks);
	RUN_TEST(test_bad_input);
	RUN_TEST(test_no_unexpected_log_messages);
	return TEST_SUMMARY();
}
