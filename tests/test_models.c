// SPDX-License-Identifier: MIT
// Real models from Debian's assimp-testmodels (VKCOL_MODELS_DIR), imported
// with the command-line tool's importer: the library's topology analysis
// against an independent count written here, tree invariants, and what is
// known to be true of each file.
//
// The expected counts below were taken from the raw files with a separate
// STL parser (positions joined bitwise, -0 as 0; edges of triangles without a
// repeated vertex counted), not from this library:
//   Spider_binary.stl  1368 triangles, 722 positions, 56 collapsed triangles,
//                      72 edges used once, 1932 twice: open.
//   Wuson.stl          3732 triangles, 2117 positions, 412 edges used once,
//                      5392 twice: open (the model has holes).
//   sphereWithHole.stl  285 triangles, 146 positions, 9 edges used once
//                      (the hole's rim), 423 twice: open.
//   3DSMaxExport.STL   2000 triangles, 1042 positions, 2976 edges used
//                      twice, 16 three times: non-manifold, so not closed.
// Closed models come from other formats: the cubes of OFF/PLY/OBJ.
#include "import.h"
#include "geometry/mesh_cpu.h"
#include "geometry/reference.h"
#include "test.h"
#include "tree_check.h"

#include <stdlib.h>
#include <sys/stat.h>

static core_env env_;
static const char *models_dir_;

typedef struct topology {
	uint32_t unique, collapsed, boundary, manifold, nonmanifold;
} topology;

typedef struct pos_key {
	float p[3];
	uint32_t v;
} pos_key;

static int compare_pos(const void *a, const void *b)
{
	const pos_key *x = a, *y = b;
	for (int k = 0; k < 3; ++k) {
		if (x->p[k] != y->p[k])
			return x->p[k] < y->p[k] ? -1 : 1;
	}
	return (x->v > y->v) - (x->v < y->v);
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

// Our own count, by sorting: positions compared as numbers (so -0 == 0),
// edges as sorted pairs of joined vertices.
static topology count_topology(const float *positions, uint32_t nv, const uint32_t *indices, uint32_t nt)
{
	topology t = {0};
	pos_key *keys = malloc(nv * sizeof(pos_key));
	uint32_t *rep = malloc(nv * sizeof(uint32_t));
	uint64_t *edges = malloc(3 * (size_t)nt * sizeof(uint64_t));
	for (uint32_t v = 0; v < nv; ++v) {
		memcpy(keys[v].p, positions + 3 * v, sizeof(keys[v].p));
		keys[v].v = v;
	}
	qsort(keys, nv, sizeof(pos_key), compare_pos);
	for (uint32_t i = 0; i < nv; ++i) {
		bool same = i > 0 && keys[i].p[0] == keys[i - 1].p[0] && keys[i].p[1] == keys[i - 1].p[1] &&
		            keys[i].p[2] == keys[i - 1].p[2];
		rep[keys[i].v] = same ? rep[keys[i - 1].v] : keys[i].v;
		t.unique += !same;
	}
	size_t ne = 0;
	for (uint32_t i = 0; i < nt; ++i) {
		uint32_t a = rep[indices[3 * i]], b = rep[indices[3 * i + 1]], c = rep[indices[3 * i + 2]];
		if (a == b || b == c || a == c) {
			t.collapsed++;
			continue;
		}
		uint32_t w[3] = {a, b, c};
		for (int k = 0; k < 3; ++k) {
			uint32_t x = w[k], y = w[(k + 1) % 3];
			edges[ne++] = x < y ? ((uint64_t)x << 32 | y) : ((uint64_t)y << 32 | x);
		}
	}
	qsort(edges, ne, sizeof(uint64_t), compare_u64);
	for (size_t i = 0; i < ne;) {
		size_t j = i;
		while (j < ne && edges[j] == edges[i])
			j++;
		if (j - i == 1)
			t.boundary++;
		else if (j - i == 2)
			t.manifold++;
		else
			t.nonmanifold++;
		i = j;
	}
	free(keys);
	free(rep);
	free(edges);
	return t;
}

typedef struct model_case {
	const char *path; // under VKCOL_MODELS_DIR
	uint32_t triangles, unique, collapsed, boundary, manifold, nonmanifold; // UINT32_MAX = not asserted
	bool closed;
} model_case;

static void check_model(const model_case *mc)
{
	char path[1024], error[256];
	snprintf(path, sizeof(path), "%s/%s", models_dir_, mc->path);
	import_mesh im;
	if (import_mesh_load(path, &im, error, sizeof(error)) != 0) {
		ENSURE_MSG(false, "%s: %s", path, error);
		return;
	}
	topology t = count_topology(im.positions, im.vertex_count, im.indices, im.triangle_count);
	// The file's facts, through the importer and our own count.
	if (mc->triangles != UINT32_MAX)
		ENSURE_EQ_INT(im.triangle_count, mc->triangles);
	if (mc->unique != UINT32_MAX)
		ENSURE_EQ_INT(t.unique, mc->unique);
	if (mc->collapsed != UINT32_MAX)
		ENSURE_EQ_INT(t.collapsed, mc->collapsed);
	if (mc->boundary != UINT32_MAX)
		ENSURE_EQ_INT(t.boundary, mc->boundary);
	if (mc->manifold != UINT32_MAX)
		ENSURE_EQ_INT(t.manifold, mc->manifold);
	if (mc->nonmanifold != UINT32_MAX)
		ENSURE_EQ_INT(t.nonmanifold, mc->nonmanifold);

	vkcol_mesh_desc d = {0};
	d.positions = im.positions;
	d.vertex_count = im.vertex_count;
	d.indices = im.indices;
	d.triangle_count = im.triangle_count;
	d.name = mc->path;
	mesh_cpu m;
	vkcol_result r = mesh_cpu_build(&env_, &d, &m);
	ENSURE_EQ_INT(r, VKCOL_SUCCESS);
	if (r == VKCOL_SUCCESS) {
		// The library agrees with our count, and with the file.
		ENSURE_EQ_INT(m.unique_vertex_count, t.unique);
		ENSURE_EQ_INT(m.boundary_edge_count, t.boundary);
		ENSURE_EQ_INT(m.nonmanifold_edge_count, t.nonmanifold);
		ENSURE(m.degenerate_count >= t.collapsed);
		ENSURE(m.closed == mc->closed);
		ENSURE(m.closed == (t.boundary == 0 && t.nonmanifold == 0 && t.manifold > 0));
		tree_check_result c = tree_check(&m.tree, m.positions, m.indices, m.triangle_count, 4, 40);
		ENSURE_MSG(c.violations == 0, "%s: %s", mc->path, c.first);
		tree_check_result s = {0, ""};
		ENSURE_MSG(tree_check_separated(&m.tree, m.positions, m.indices, &s) == 0, "%s: %s", mc->path, s.first);
		// The balanced split of CN 102663825, when asked for.
		mesh_cpu balanced;
		d.tree_split = VKCOL_TREE_SPLIT_TWO_CENTRES;
		ENSURE_EQ_INT(mesh_cpu_build(&env_, &d, &balanced), VKCOL_SUCCESS);
		c = tree_check(&balanced.tree, balanced.positions, balanced.indices, balanced.triangle_count, 4, 40);
		ENSURE_MSG(c.violations == 0, "%s: %s", mc->path, c.first);
		ENSURE_MSG(tree_check_split_rule(&balanced.tree, balanced.positions, balanced.indices, &s) == 0, "%s: %s",
		           mc->path, s.first);
		mesh_cpu_free(&env_, &balanced);
		// The bounding sphere holds every vertex.
		double worst = 0.0;
		for (uint32_t v = 0; v < m.vertex_count; ++v) {
			double d2 = 0.0;
			for (int k = 0; k < 3; ++k) {
				double e = (double)m.positions[3 * v + k] - m.sphere_center[k];
				d2 += e * e;
			}
			worst = fmax(worst, sqrt(d2) - m.sphere_radius);
		}
		ENSURE_MSG(worst <= 0.0, "%s: a vertex %g outside the sphere", mc->path, worst);
		if (m.closed) {
			ENSURE(m.volume > 0.0);
			ENSURE(m.origin_inside);
			double o[3] = {m.origin[0], m.origin[1], m.origin[2]};
			ENSURE(ref_point_in_solid(&m, o));
		} else {
			ENSURE(m.volume == 0.0);
			ENSURE(!m.origin_inside);
		}
		printf("     %-26s %5u triangles %5u positions %4u degenerate, %s (%u boundary, %u non-manifold edges), "
		       "tree depth %u\n",
		       mc->path, m.triangle_count, m.unique_vertex_count, m.degenerate_count, m.closed ? "closed" : "open",
		       m.boundary_edge_count, m.nonmanifold_edge_count, m.tree.depth);
		mesh_cpu_free(&env_, &m);
	}
	import_mesh_free(&im);
}

#define ANY UINT32_MAX

static void test_models_stl(void)
{
	static const model_case cases[] = {
		{"STL/Spider_binary.stl", 1368, 722, 56, 72, 1932, 0, false},
		{"STL/Spider_ascii.stl", 1368, 722, 56, 72, 1932, 0, false},
		{"STL/Wuson.stl", 3732, 2117, 0, 412, 5392, 0, false},
		{"STL/sphereWithHole.stl", 285, 146, 0, 9, 423, 0, false},
		{"STL/3DSMaxExport.STL", 2000, 1042, 0, 0, 2976, 16, false},
	};
	for (size_t i = 0; i < CORE_COUNT_OF(cases); ++i)
		check_model(&cases[i]);
}

static void test_models_closed(void)
{
	// Cubes: 12 triangles on 8 positions, every edge used twice. (Their
	// files split vertices per face or per corner; joined they close.)
	static const model_case cases[] = {
		{"OFF/Cube.off", ANY, 8, 0, 0, 18, 0, true},
		{"PLY/cube.ply", ANY, 8, 0, 0, 18, 0, true},
		{"OBJ/box.obj", ANY, 8, 0, 0, 18, 0, true},
	};
	for (size_t i = 0; i < CORE_COUNT_OF(cases); ++i)
		check_model(&cases[i]);
}

int main(int argc, char **argv)
{
	TEST_INIT(argc, argv);
	core_env_init(&env_, NULL, NULL, NULL, VKCOL_LOG_DEFAULT);
	models_dir_ = getenv("VKCOL_MODELS_DIR");
	if (models_dir_ == NULL)
		models_dir_ = "/usr/share/assimp/models";
	struct stat st;
	if (stat(models_dir_, &st) != 0) {
		printf("skipped: no models at %s (set VKCOL_MODELS_DIR)\n", models_dir_);
		return 77;
	}
	RUN_TEST(test_models_stl);
	RUN_TEST(test_models_closed);
	return TEST_SUMMARY();
}
