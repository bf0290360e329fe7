// SPDX-License-Identifier: MIT
// Tests for vertex_lod_build (src/geometry/vertex_lod.c), approx mode's
// vertex levels of detail:
// - each level keeps at most its share (used >> 2l), a good part of it,
//   distinct used vertices, and coarsens level by level;
// - every used vertex has a kept vertex within sqrt(3) cells of the level's
//   grid (the one its own cell keeps), and the cells grow level by level;
// - welded duplicates are one vertex; the build is deterministic;
// - a mesh too small for any level has none, and vertex_lod_level picks as
//   vkcollide.h documents.
#include "geometry/vertex_lod.h"
#include "meshgen.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static core_env env_;

static bool build_mesh(const meshgen_mesh *g, mesh_cpu *m)
{
	vkcol_mesh_desc d = meshgen_desc(g, "generated");
	vkcol_result r = mesh_cpu_build(&env_, &d, m);
	ENSURE_EQ_INT(r, VKCOL_SUCCESS);
	return r == VKCOL_SUCCESS;
}

// Checks lod against m: shares, distinctness, coverage (brute force over
// the level's vertices for a sample of used vertices).
static void check_levels(const mesh_cpu *m, const vertex_lod *lod)
{
	uint8_t *used = calloc(m->vertex_count, 1), *kept = calloc(m->vertex_count, 1);
	ENSURE(used && kept);
	uint32_t n = 0;
	for (size_t i = 0; i < 3 * (size_t)m->triangle_count; i++) {
		uint32_t v = m->weld ? m->weld[m->indices[i]] : m->indices[i];
		n += !used[v];
		used[v] = 1;
	}
	ENSURE_EQ_INT(lod->used, n);
	for (uint32_t l = 0; l < lod->level_count; l++) {
		uint32_t share = n >> (2 * (l + 1));
		ENSURE_MSG(lod->count[l] <= share && lod->count[l] >= share / 4, "level %u keeps %u of a share of %u", l + 1,
		           lod->count[l], share);
		if (l > 0) {
			ENSURE(lod->count[l] < lod->count[l - 1]);
			ENSURE(lod->cell[l] > lod->cell[l - 1]);
		}
		memset(kept, 0, m->vertex_count);
		const uint32_t *v = &lod->vertices[lod->first[l]];
		for (uint32_t i = 0; i < lod->count[l]; i++) {
			ENSURE_MSG(used[v[i]], "level %u keeps vertex %u, which no triangle uses (or a welded twin)", l + 1,
			           v[i]);
			ENSURE_MSG(!kept[v[i]], "level %u keeps vertex %u twice", l + 1, v[i]);
			kept[v[i]] = 1;
		}
		double reach = sqrt(3.0) * lod->cell[l] * (1.0 + 1e-6), worst = 0.0;
		for (uint32_t u = 0; u < m->vertex_count; u += 7) {
			if (!used[u])
				continue;
			double best = INFINITY;
			for (uint32_t i = 0; i < lod->count[l]; i++) {
				double d2 = 0.0;
				for (int k = 0; k < 3; k++) {
					double e = (double)m->positions[3 * (size_t)u + k] - m->positions[3 * (size_t)v[i] + k];
					d2 += e * e;
				}
				best = fmin(best, d2);
			}
			worst = fmax(worst, sqrt(best));
		}
		ENSURE_MSG(worst <= reach, "level %u: a vertex lies %g from the nearest kept one, more than %g", l + 1,
		           worst, reach);
	}
	free(used);
	free(kept);
}

static void test_sphere_levels(void)
{
	meshgen_mesh g;
	const float c[3] = {0.3f, -0.2f, 5.0f};
	ENSURE(meshgen_sphere(&g, c, 2.0f, 96, 192));
	mesh_cpu m;
	if (!build_mesh(&g, &m))
		return;
	vertex_lod lod, again;
	ENSURE_EQ_INT(vertex_lod_build(&env_, &m, &lod), VKCOL_SUCCESS);
	ENSURE_EQ_INT(vertex_lod_build(&env_, &m, &again), VKCOL_SUCCESS);
	// 96 x 192 sphere: about 18,200 distinct positions, so 4,500, 1,100,
	// 280, 70 (the next, 17, is under VERTEX_LOD_MIN).
	ENSURE_EQ_INT(lod.level_count, 4);
	check_levels(&m, &lod);
	uint32_t total = lod.first[lod.level_count - 1] + lod.count[lod.level_count - 1];
	ENSURE(again.level_count == lod.level_count && memcmp(again.count, lod.count, sizeof(lod.count)) == 0 &&
	       memcmp(again.vertices, lod.vertices, total * sizeof(uint32_t)) == 0);
	// The budget's level.
	ENSURE_EQ_INT(vertex_lod_level(&lod, 0), 0);
	ENSURE_EQ_INT(vertex_lod_level(&lod, lod.used), 0);
	ENSURE_EQ_INT(vertex_lod_level(&lod, lod.used - 1), 1);
	ENSURE_EQ_INT(vertex_lod_level(&lod, lod.count[0]), 1);
	ENSURE_EQ_INT(vertex_lod_level(&lod, lod.count[0] - 1), 2);
	ENSURE_EQ_INT(vertex_lod_level(&lod, lod.count[2]), 3);
	ENSURE_EQ_INT(vertex_lod_level(&lod, lod.count[3]), 4);
	ENSURE_EQ_INT(vertex_lod_level(&lod, 1), 4);
	vertex_lod_free(&env_, &lod);
	vertex_lod_free(&env_, &again);
	mesh_cpu_free(&env_, &m);
	meshgen_free(&g);
}

// An open, uneven surface (a spider: thin legs, a body) and a box with
// split faces (welded duplicates: each corner is kept once at most).
static void test_other_surfaces(void)
{
	meshgen_mesh spider, box;
	ENSURE(meshgen_spider(&spider, 8, 0.5f, 2.0f, 0.08f));
	const float lo[3] = {-1, -2, -3}, hi[3] = {1, 2, 3};
	ENSURE(meshgen_box(&box, lo, hi, 40, true));
	mesh_cpu m;
	vertex_lod lod;
	const meshgen_mesh *meshes[2] = {&spider, &box};
	for (int k = 0; k < 2; k++) {
		if (!build_mesh(meshes[k], &m))
			return;
		ENSURE_EQ_INT(vertex_lod_build(&env_, &m, &lod), VKCOL_SUCCESS);
		ENSURE(lod.level_count >= 1);
		check_levels(&m, &lod);
		vertex_lod_free(&env_, &lod);
		mesh_cpu_free(&env_, &m);
	}
	meshgen_free(&spider);
	meshgen_free(&box);
}

static void test_small_mesh(void)
{
	meshgen_mesh g;
	const float c[3] = {0, 0, 0};
	ENSURE(meshgen_sphere(&g, c, 1.0f, 8, 16)); // about 110 vertices: a quarter is under 64
	mesh_cpu m;
	if (!build_mesh(&g, &m))
		return;
	vertex_lod lod;
	ENSURE_EQ_INT(vertex_lod_build(&env_, &m, &lod), VKCOL_SUCCESS);
	ENSURE(lod.built);
	ENSURE_EQ_INT(lod.level_count, 0);
	ENSURE(lod.used > 0 && lod.used < 4 * VERTEX_LOD_MIN);
	ENSURE_EQ_INT(vertex_lod_level(&lod, 1), 0);
	vertex_lod_free(&env_, &lod);
	mesh_cpu_free(&env_, &m);
	meshgen_free(&g);
}

int main(int argc, char **argv)
{
	TEST_INIT(argc, argv);
	core_env_init(&env_, NULL, NULL, NULL, VKCOL_LOG_DEFAULT);
	RUN_TEST(test_sphere_levels);
	RUN_TEST(test_other_surfaces);
	RUN_TEST(test_small_mesh);
	return TEST_SUMMARY();
}
