// SPDX-License-Identifier: MIT
// Mesh validation (vkcol_mesh_check), analysis (mesh_cpu_build: welding,
// closed or open, degenerate triangles, volume, bounding sphere, interior
// origin), the clearance fields and the threads that build them, and the
// mesh table's handle logic, all without a device.
#include "geometry/clearance.h"
#include "context.h"
#include "geometry/mesh_cpu.h"
#include "geometry/reference.h"
#include "meshgen.h"
#include "test.h"
#include "tree_check.h"

#include <float.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#define PI 3.14159265358979323846

// The last message logged, so tests can assert on what the log names.
static char last_log_[1024];
static int log_count_;

static void capture_log(void *user, vkcol_log_level level, const char *message)
{
	(void)user;
	(void)level;
	snprintf(last_log_, sizeof(last_log_), "%s", message);
	log_count_++;
}

static core_env env_;

static void reset_log(void)
{
	last_log_[0] = '\0';
	log_count_ = 0;
}

// A unit cube with 8 vertices and 12 triangles, plus room for extras.
static const float cube_positions[8 * 3] = {
	0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1,
};
static const uint32_t cube_indices[12 * 3] = {
	0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
	1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7,
};

static vkcol_mesh_desc cube_desc(void)
{
	vkcol_mesh_desc d = {0};
	d.positions = cube_positions;
	d.vertex_count = 8;
	d.indices = cube_indices;
	d.triangle_count = 12;
	d.name = "cube";
	return d;
}

// ---------------------------------------------------------------------------
// vkcol_mesh_check

static void test_check_valid(void)
{
	vkcol_mesh_desc d = cube_desc();
	vkcol_mesh_problem p;
	memset(&p, 0x5A, sizeof(p));
	ENSURE_EQ_INT(vkcol_mesh_check(&d, &p), VKCOL_SUCCESS);
	ENSURE_EQ_INT(p.result, VKCOL_SUCCESS);
	ENSURE_EQ_INT(p.triangle, UINT32_MAX);
	ENSURE(p.message[0] == '\0');
	ENSURE_EQ_INT(vkcol_mesh_check(&d, NULL), VKCOL_SUCCESS);
	// Boundary values of the options are valid.
	uint32_t resolutions[] = {0, 4, 8, 64, 512, 1024};
	for (size_t i = 0; i < CORE_COUNT_OF(resolutions); ++i) {
		d.cube_resolution = resolutions[i];
		ENSURE_EQ_INT(vkcol_mesh_check(&d, &p), VKCOL_SUCCESS);
	}
	d.cube_resolution = 0;
	d.leaf_size = 64;
	d.max_depth = 48;
	ENSURE_EQ_INT(vkcol_mesh_check(&d, &p), VKCOL_SUCCESS);
	d.leaf_size = 1;
	d.max_depth = 1;
	ENSURE_EQ_INT(vkcol_mesh_check(&d, &p), VKCOL_SUCCESS);
	d.positions_stride = 12;
	ENSURE_EQ_INT(vkcol_mesh_check(&d, &p), VKCOL_SUCCESS);
}

static void expect_problem(const vkcol_mesh_desc *d, vkcol_result want, const char *needle)
{
	vkcol_mesh_problem p;
	vkcol_result r = vkcol_mesh_check(d, &p);
	ENSURE_EQ_INT(r, want);
	ENSURE_EQ_INT(p.result, want);
	ENSURE_MSG(p.message[0] != '\0' && strchr(p.message, '\n') == NULL, "message: '%s'", p.message);
	ENSURE_MSG(needle == NULL || strstr(p.message, needle) != NULL, "'%s' not in '%s'", needle, p.message);
	// Also without a problem struct.
	ENSURE_EQ_INT(vkcol_mesh_check(d, NULL), want);
}

static void test_check_arguments(void)
{
	expect_problem(NULL, VKCOL_ERROR_INVALID_ARGUMENT, "NULL");
	vkcol_mesh_desc d = cube_desc();
	d.vertex_count = 0;
	expect_problem(&d, VKCOL_ERROR_EMPTY_MESH, "0 vertices");
	d = cube_desc();
	d.triangle_count = 0;
	expect_problem(&d, VKCOL_ERROR_EMPTY_MESH, "0 triangles");
	d = cube_desc();
	d.positions = NULL;
	expect_problem(&d, VKCOL_ERROR_INVALID_ARGUMENT, "positions");
	d = cube_desc();
	d.indices = NULL;
	expect_problem(&d, VKCOL_ERROR_INVALID_ARGUMENT, "indices");
	// Counts are checked before any array is read, so these need no memory.
	d = cube_desc();
	d.vertex_count = VKCOL_MAX_VERTICES + 1;
	expect_problem(&d, VKCOL_ERROR_TOO_LARGE, "67108865");
	d = cube_desc();
	d.triangle_count = VKCOL_MAX_TRIANGLES + 1;
	expect_problem(&d, VKCOL_ERROR_TOO_LARGE, "triangles");
	d = cube_desc();
	d.vertex_count = UINT32_MAX;
	expect_problem(&d, VKCOL_ERROR_TOO_LARGE, NULL);

	size_t strides[] = {4, 8, 11, 13, 14, 18};
	for (size_t i = 0; i < CORE_COUNT_OF(strides); ++i) {
		d = cube_desc();
		d.positions_stride = strides[i];
		expect_problem(&d, VKCOL_ERROR_INVALID_ARGUMENT, "positions_stride");
	}
	uint32_t resolutions[] = {1, 2, 3, 5, 100, 2048, 4096, 0x80000000u};
	for (size_t i = 0; i < CORE_COUNT_OF(resolutions); ++i) {
		d = cube_desc();
		d.cube_resolution = resolutions[i];
		expect_problem(&d, VKCOL_ERROR_INVALID_ARGUMENT, "cube_resolution");
	}
	d = cube_desc();
	d.leaf_size = 65;
	expect_problem(&d, VKCOL_ERROR_INVALID_ARGUMENT, "leaf_size");
	d = cube_desc();
	d.max_depth = 49;
	expect_problem(&d, VKCOL_ERROR_INVALID_ARGUMENT, "max_depth");
}

static void test_check_index_out_of_range(void)
{
	uint32_t ix[12 * 3];
	memcpy(ix, cube_indices, sizeof(ix));
	ix[3 * 5 + 2] = 99;  // triangle 5 corner 2
	ix[3 * 9 + 0] = 8;   // a later one, not reported first
	vkcol_mesh_desc d = cube_desc();
	d.indices = ix;
	vkcol_mesh_problem p;
	ENSURE_EQ_INT(vkcol_mesh_check(&d, &p), VKCOL_ERROR_INDEX_OUT_OF_RANGE);
	ENSURE_EQ_INT(p.triangle, 5);
	ENSURE_EQ_INT(p.corner, 2);
	ENSURE_EQ_INT(p.vertex, 99);
	ENSURE_MSG(strstr(p.message, "triangle 5 corner 2 refers to vertex 99") != NULL, "%s", p.message);
	ENSURE_MSG(strstr(p.message, "8 vertices") != NULL, "%s", p.message);

	// Exactly vertex_count is already out of range.
	memcpy(ix, cube_indices, sizeof(ix));
	ix[0] = 8;
	ENSURE_EQ_INT(vkcol_mesh_check(&d, &p), VKCOL_ERROR_INDEX_OUT_OF_RANGE);
	ENSURE_EQ_INT(p.triangle, 0);
	ENSURE_EQ_INT(p.corner, 0);
	ENSURE_EQ_INT(p.vertex, 8);

	// An index error is reported before a NaN (indices are checked first).
	float pos[8 * 3];
	memcpy(pos, cube_positions, sizeof(pos));
	pos[4] = NAN;
	d.positions = pos;
	ENSURE_EQ_INT(vkcol_mesh_check(&d, &p), VKCOL_ERROR_INDEX_OUT_OF_RANGE);
}

static void test_check_non_finite(void)
{
	struct {
		uint32_t vertex, coordinate;
		float value;
		const char *needle;
	} cases[] = {
		{3, 1, NAN, "vertex 3 has a non-finite y coordinate (NaN)"},
		{6, 2, INFINITY, "vertex 6 has a non-finite z coordinate (+infinity)"},
		{0, 0, -INFINITY, "vertex 0 has a non-finite x coordinate (-infinity)"},
		{7, 2, -NAN, "vertex 7"},
	};
	for (size_t i = 0; i < CORE_COUNT_OF(cases); ++i) {
		float pos[8 * 3];
		memcpy(pos, cube_positions, sizeof(pos));
		pos[3 * cases[i].vertex + cases[i].coordinate] = cases[i].value;
		// A second bad value later must not be the one reported.
		if (cases[i].vertex < 7)
			pos[3 * 7] = NAN;
		vkcol_mesh_desc d = cube_desc();
		d.positions = pos;
		vkcol_mesh_problem p;
		ENSURE_EQ_INT(vkcol_mesh_check(&d, &p), VKCOL_ERROR_NON_FINITE_POSITION);
		ENSURE_EQ_INT(p.vertex, cases[i].vertex);
		ENSURE_EQ_INT(p.coordinate, cases[i].coordinate);
		ENSURE_EQ_INT(p.triangle, UINT32_MAX);
		ENSURE_MSG(strstr(p.message, cases[i].needle) != NULL, "'%s' not in '%s'", cases[i].needle, p.message);
	}
	// Large finite values are fine.
	float pos[8 * 3];
	memcpy(pos, cube_positions, sizeof(pos));
	pos[5] = FLT_MAX;
	pos[6] = -FLT_MAX;
	vkcol_mesh_desc d = cube_desc();
	d.positions = pos;
	ENSURE_EQ_INT(vkcol_mesh_check(&d, NULL), VKCOL_SUCCESS);
}

static void test_check_stride(void)
{
	// Positions 20 bytes apart with garbage (NaN) between them: only the
	// xyz at each stride may be read.
	float padded[8 * 5];
	for (int v = 0; v < 8; ++v) {
		memcpy(padded + 5 * v, cube_positions + 3 * v, 3 * sizeof(float));
		padded[5 * v + 3] = NAN;
		padded[5 * v + 4] = INFINITY;
	}
	vkcol_mesh_desc d = cube_desc();
	d.positions = padded;
	d.positions_stride = 20;
	ENSURE_EQ_INT(vkcol_mesh_check(&d, NULL), VKCOL_SUCCESS);
	mesh_cpu m;
	ENSURE_EQ_INT(mesh_cpu_build(&env_, &d, &m), VKCOL_SUCCESS);
	ENSURE(memcmp(m.positions, cube_positions, sizeof(cube_positions)) == 0);
	ENSURE(m.closed);
	mesh_cpu_free(&env_, &m);
}

// ---------------------------------------------------------------------------
// mesh_cpu_build

static bool build(const meshgen_mesh *g, mesh_cpu *m)
{
	vkcol_mesh_desc d = meshgen_desc(g, "generated");
	vkcol_result r = mesh_cpu_build(&env_, &d, m);
	ENSURE_EQ_INT(r, VKCOL_SUCCESS);
	if (r != VKCOL_SUCCESS)
		return false;
	tree_check_result c = tree_check(&m->tree, m->positions, m->indices, m->triangle_count, 4, 40);
	ENSURE_MSG(c.violations == 0, "%s", c.first);
	return true;
}

// Every vertex within the bounding sphere, in double.
static void ensure_sphere_contains(const mesh_cpu *m)
{
	double worst = 0.0;
	for (uint32_t v = 0; v < m->vertex_count; ++v) {
		double d2 = 0.0;
		for (int k = 0; k < 3; ++k) {
			double e = (double)m->positions[3 * v + k] - m->sphere_center[k];
			d2 += e * e;
		}
		double excess = sqrt(d2) - m->sphere_radius;
		worst = excess > worst ? excess : worst;
	}
	ENSURE_MSG(worst <= 0.0, "a vertex is %g outside the bounding sphere", worst);
}

static double dot_d(const double a[3], const double b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// Distance from p to segment ab.
static double segment_distance(const double p[3], const double a[3], const double b[3])
{
	double ab[3], ap[3];
	for (int k = 0; k < 3; ++k)
		ab[k] = b[k] - a[k], ap[k] = p[k] - a[k];
	double len2 = dot_d(ab, ab), s = len2 > 0 ? dot_d(ap, ab) / len2 : 0;
	s = s < 0 ? 0 : s > 1 ? 1 : s;
	double d2 = 0;
	for (int k = 0; k < 3; ++k)
		d2 += (ap[k] - s * ab[k]) * (ap[k] - s * ab[k]);
	return sqrt(d2);
}

// Distance from p to triangle t of m: to its plane when p's foot lies in
// the triangle, else to the nearest edge.
static double triangle_distance(const mesh_cpu *m, uint32_t t, const double p[3])
{
	double v[3][3];
	for (int c = 0; c < 3; ++c)
		for (int k = 0; k < 3; ++k)
			v[c][k] = m->positions[3 * (size_t)m->indices[3 * (size_t)t + c] + k];
	double e1[3], e2[3], n[3], w[3];
	for (int k = 0; k < 3; ++k)
		e1[k] = v[1][k] - v[0][k], e2[k] = v[2][k] - v[0][k], w[k] = p[k] - v[0][k];
	n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2], n[2] = e1[0] * e2[1] - e1[1] * e2[0];
	double nn = dot_d(n, n);
	if (nn > 0) {
		// Barycentric coordinates of the foot from the edge normals.
		bool in = true;
		for (int c = 0; c < 3 && in; ++c) {
			const double *a = v[c], *b = v[(c + 1) % 3];
			double ab[3], ap[3], x[3];
			for (int k = 0; k < 3; ++k)
				ab[k] = b[k] - a[k], ap[k] = p[k] - a[k];
			x[0] = ab[1] * ap[2] - ab[2] * ap[1], x[1] = ab[2] * ap[0] - ab[0] * ap[2];
			x[2] = ab[0] * ap[1] - ab[1] * ap[0];
			in = dot_d(x, n) >= 0;
		}
		if (in)
			return fabs(dot_d(w, n)) / sqrt(nn);
	}
	double d = segment_distance(p, v[0], v[1]);
	d = fmin(d, segment_distance(p, v[1], v[2]));
	return fmin(d, segment_distance(p, v[2], v[0]));
}

// Every inner ball of m lies inside the solid: its centre inside by ray
// parity, and no triangle nearer than its radius (brute force).
static void ensure_balls_inside(const mesh_cpu *m)
{
	for (uint32_t i = 0; i < m->ball_count; ++i) {
		const float *b = m->balls[i];
		double c[3] = {b[0], b[1], b[2]}, nearest = INFINITY;
		for (uint32_t t = 0; t < m->triangle_count; ++t)
			nearest = fmin(nearest, triangle_distance(m, t, c));
		ENSURE_MSG(ref_point_in_solid(m, c), "ball %u centre (%g %g %g) outside", i, c[0], c[1], c[2]);
		ENSURE_MSG(b[3] > 0 && nearest >= b[3] * (1 - 1e-6), "ball %u: radius %g, nearest triangle %g", i, b[3],
		           nearest);
	}
}

static void test_build_cube(void)
{
	vkcol_mesh_desc d = cube_desc();
	mesh_cpu m;
	ENSURE_EQ_INT(mesh_cpu_build(&env_, &d, &m), VKCOL_SUCCESS);
	ENSURE(m.closed);
	ENSURE_EQ_INT(m.unique_vertex_count, 8);
	ENSURE_EQ_INT(m.boundary_edge_count, 0);
	ENSURE_EQ_INT(m.nonmanifold_edge_count, 0);
	ENSURE_EQ_INT(m.degenerate_count, 0);
	ENSURE_SMALL(m.volume - 1.0, 1e-12);
	for (int k = 0; k < 3; ++k) {
		ENSURE(m.aabb_min[k] == 0.0f && m.aabb_max[k] == 1.0f);
		// The volume centroid of a cube is its centre, and inside.
		ENSURE_SMALL(m.origin[k] - 0.5, 1e-6);
	}
	ENSURE(m.origin_inside);
	ensure_sphere_contains(&m);
	// A cube's smallest enclosing sphere has radius sqrt(3) / 2.
	ENSURE(m.sphere_radius <= 0.8660254 * 1.001);
	ENSURE(strcmp(m.name, "cube") == 0);
	mesh_cpu_free(&env_, &m);
	mesh_cpu_free(&env_, &m); // zeroed: accepted
}

static void test_build_box_variants(void)
{
	float lo[3] = {-1.0f, -2.0f, 0.5f}, hi[3] = {3.0f, 1.0f, 1.75f};
	double volume = 4.0 * 3.0 * 1.25;
	for (uint32_t div = 1; div <= 4; div += 3) {
		meshgen_mesh g;
		mesh_cpu m;
		// Shared vertices.
		ENSURE(meshgen_box(&g, lo, hi, div, false));
		if (build(&g, &m)) {
			ENSURE(m.closed);
			ENSURE_EQ_INT(m.unique_vertex_count, g.vertex_count);
			ENSURE_SMALL(m.volume / volume - 1.0, 1e-9);
			ENSURE(m.origin_inside);
			ensure_sphere_contains(&m);
			mesh_cpu_free(&env_, &m);
		}
		meshgen_free(&g);

		// Every face with its own vertices, as importers split them at normal
		// seams: open by index, closed once equal positions are joined.
		ENSURE(meshgen_box(&g, lo, hi, div, true));
		ENSURE_EQ_INT(g.vertex_count, 6 * (div + 1) * (div + 1));
		if (build(&g, &m)) {
			ENSURE(m.closed);
			ENSURE_EQ_INT(m.unique_vertex_count, 6 * div * div + 2);
			ENSURE_EQ_INT(m.boundary_edge_count, 0);
			ENSURE_SMALL(m.volume / volume - 1.0, 1e-9);
			ENSURE(m.origin_inside);
			mesh_cpu_free(&env_, &m);
		}
		meshgen_free(&g);

		// Without its top face: 4 d boundary edges, no volume, not inside.
		ENSURE(meshgen_box_open(&g, lo, hi, div));
		if (build(&g, &m)) {
			ENSURE(!m.closed);
			ENSURE_EQ_INT(m.boundary_edge_count, 4 * div);
			ENSURE_EQ_INT(m.nonmanifold_edge_count, 0);
			ENSURE(m.volume == 0.0);
			ENSURE(!m.origin_inside);
			mesh_cpu_free(&env_, &m);
		}
		meshgen_free(&g);
	}
}

static void test_build_negative_zero(void)
{
	// The split-face unit cube from the origin, with the zeros of some faces
	// written as -0.0: still the same positions, still closed.
	float lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
	meshgen_mesh g;
	ENSURE(meshgen_box(&g, lo, hi, 1, true));
	uint32_t flipped = 0;
	for (uint32_t i = 0; i < 3 * g.vertex_count; i += 2) {
		if (g.positions[i] == 0.0f) {
			g.positions[i] = -0.0f;
			flipped++;
		}
	}
	ENSURE(flipped > 0);
	mesh_cpu m;
	if (build(&g, &m)) {
		ENSURE(m.closed);
		ENSURE_EQ_INT(m.unique_vertex_count, 8);
		mesh_cpu_free(&env_, &m);
	}
	meshgen_free(&g);
}

static void test_build_nonmanifold(void)
{
	// The cube plus a fin on its edge 0-1: that edge is used three times.
	float pos[9 * 3];
	uint32_t ix[13 * 3];
	memcpy(pos, cube_positions, sizeof(cube_positions));
	memcpy(ix, cube_indices, sizeof(cube_indices));
	float fin[3] = {0.5f, -1.0f, -1.0f};
	memcpy(pos + 24, fin, sizeof(fin));
	ix[36] = 0;
	ix[37] = 1;
	ix[38] = 8;
	vkcol_mesh_desc d = cube_desc();
	d.positions = pos;
	d.vertex_count = 9;
	d.indices = ix;
	d.triangle_count = 13;
	mesh_cpu m;
	ENSURE_EQ_INT(mesh_cpu_build(&env_, &d, &m), VKCOL_SUCCESS);
	ENSURE(!m.closed);
	ENSURE_EQ_INT(m.nonmanifold_edge_count, 1);
	ENSURE_EQ_INT(m.boundary_edge_count, 2);
	ENSURE(m.volume == 0.0);
	ENSURE(!m.origin_inside);
	mesh_cpu_free(&env_, &m);

	// Two cubes sharing an edge along their whole length (a "bow tie"): the
	// shared edge is used four times, every other edge twice.
	float pos2[14 * 3];
	uint32_t ix2[24 * 3];
	memcpy(pos2, cube_positions, sizeof(cube_positions));
	// Second cube = first shifted by (1, 1, 0); it shares the vertical edge
	// (1,1,0)-(1,1,1), which is vertices 2 and 6 of the first.
	uint32_t map[8];
	uint32_t next = 8;
	for (int v = 0; v < 8; ++v) {
		float p[3] = {cube_positions[3 * v] + 1, cube_positions[3 * v + 1] + 1, cube_positions[3 * v + 2]};
		if (p[0] == 1 && p[1] == 1) {
			map[v] = p[2] == 0 ? 2 : 6;
		} else {
			memcpy(pos2 + 3 * next, p, sizeof(p));
			map[v] = next++;
		}
	}
	ENSURE_EQ_INT(next, 14);
	memcpy(ix2, cube_indices, sizeof(cube_indices));
	for (int i = 0; i < 36; ++i)
		ix2[36 + i] = map[cube_indices[i]];
	d.positions = pos2;
	d.vertex_count = 14;
	d.indices = ix2;
	d.triangle_count = 24;
	ENSURE_EQ_INT(mesh_cpu_build(&env_, &d, &m), VKCOL_SUCCESS);
	ENSURE(!m.closed);
	ENSURE_EQ_INT(m.nonmanifold_edge_count, 1);
	ENSURE_EQ_INT(m.boundary_edge_count, 0);
	mesh_cpu_free(&env_, &m);
}

static void test_build_degenerate(void)
{
	// The cube plus a triangle repeating a vertex: collapsed, counted, and
	// without edges of its own the cube stays closed.
	float pos[12 * 3];
	uint32_t ix[15 * 3];
	memcpy(pos, cube_positions, sizeof(cube_positions));
	memcpy(ix, cube_indices, sizeof(cube_indices));
	ix[36] = 3;
	ix[37] = 5;
	ix[38] = 3;
	vkcol_mesh_desc d = cube_desc();
	d.positions = pos;
	d.indices = ix;
	d.triangle_count = 13;
	mesh_cpu m;
	ENSURE_EQ_INT(mesh_cpu_build(&env_, &d, &m), VKCOL_SUCCESS);
	ENSURE_EQ_INT(m.degenerate_count, 1);
	ENSURE(m.closed);
	ENSURE_SMALL(m.volume - 1.0, 1e-12);
	mesh_cpu_free(&env_, &m);

	// A vertex that is a copy of vertex 0's position makes (0, 8, 1)
	// collapse after welding; three collinear new vertices make a
	// zero-area triangle with three distinct vertices: its three edges are
	// used once, so the mesh is open.
	float more[4][3] = {{0, 0, 0}, {5, 5, 5}, {6, 6, 6}, {7.5f, 7.5f, 7.5f}};
	memcpy(pos + 24, more, sizeof(more));
	ix[37] = 8;
	ix[38] = 1;
	ix[36] = 0;
	ix[39] = 9;
	ix[40] = 10;
	ix[41] = 11;
	d.vertex_count = 12;
	d.triangle_count = 14;
	ENSURE_EQ_INT(mesh_cpu_build(&env_, &d, &m), VKCOL_SUCCESS);
	ENSURE_EQ_INT(m.degenerate_count, 2);
	ENSURE_EQ_INT(m.unique_vertex_count, 11);
	ENSURE_EQ_INT(m.boundary_edge_count, 3);
	ENSURE(!m.closed);
	mesh_cpu_free(&env_, &m);

	// Only degenerate triangles: valid, counted, bounds nothing.
	uint32_t flat[6] = {0, 0, 0, 1, 1, 2};
	d = cube_desc();
	d.indices = flat;
	d.triangle_count = 2;
	ENSURE_EQ_INT(mesh_cpu_build(&env_, &d, &m), VKCOL_SUCCESS);
	ENSURE_EQ_INT(m.degenerate_count, 2);
	ENSURE(!m.closed);
	ENSURE(!m.origin_inside);
	mesh_cpu_free(&env_, &m);
}

static void test_build_sphere(void)
{
	float c[3] = {1.0f, -2.0f, 0.5f};
	float r = 2.5f;
	meshgen_mesh g;
	ENSURE(meshgen_sphere(&g, c, r, 64, 128));
	mesh_cpu m;
	if (build(&g, &m)) {
		ENSURE(m.closed);
		ENSURE_EQ_INT(m.unique_vertex_count, g.vertex_count);
		double analytic = 4.0 / 3.0 * PI * r * r * r;
		// The inscribed polyhedron is a little smaller: 64 x 128 loses ~0.2 %.
		ENSURE_MSG(m.volume < analytic && m.volume > 0.99 * analytic, "volume %g vs %g", m.volume, analytic);
		ensure_sphere_contains(&m);
		ENSURE_MSG(m.sphere_radius <= r * 1.001f, "radius %g", m.sphere_radius);
		ENSURE(m.origin_inside);
		double off = 0.0;
		for (int k = 0; k < 3; ++k)
			off += ((double)m.origin[k] - c[k]) * ((double)m.origin[k] - c[k]);
		ENSURE_MSG(sqrt(off) < 1e-3 * r, "origin %g from the centre", sqrt(off));
		mesh_cpu_free(&env_, &m);
	}
	meshgen_free(&g);
}

// Distance from p to the torus's tube centre circle (major radius R in the
// z = 0 plane): inside the solid torus when below the tube radius.
static double torus_tube_distance(const float p[3], double major)
{
	double rho = sqrt((double)p[0] * p[0] + (double)p[1] * p[1]) - major;
	return sqrt(rho * rho + (double)p[2] * p[2]);
}

static void test_build_torus(void)
{
	double major = 2.0, minor = 0.5;
	meshgen_mesh g;
	ENSURE(meshgen_torus(&g, (float)major, (float)minor, 96, 48));
	mesh_cpu m;
	if (build(&g, &m)) {
		ENSURE(m.closed);
		double analytic = 2.0 * PI * PI * major * minor * minor;
		ENSURE_MSG(m.volume < analytic && m.volume > 0.99 * analytic, "volume %g vs %g", m.volume, analytic);
		ensure_sphere_contains(&m);
		// The volume centroid is the centre of the hole: the origin must have
		// been searched for, and found in the tube, well away from its wall.
		ENSURE(m.origin_inside);
		double d = torus_tube_distance(m.origin, major);
		ENSURE_MSG(d < 0.5 * minor, "origin (%g %g %g) is %g from the tube axis", m.origin[0], m.origin[1],
		           m.origin[2], d);
		// More inner balls along the ring, largest first: the first eight
		// fill half the tube or more, and every quarter of the ring has one.
		ensure_balls_inside(&m);
		int quarters = 0;
		for (uint32_t i = 0; i < m.ball_count; ++i) {
			ENSURE_MSG(i >= 8 || m.balls[i][3] > 0.5 * minor, "ball %u of radius %g", i, m.balls[i][3]);
			double angle = atan2(m.balls[i][1], m.balls[i][0]);
			quarters |= 1 << (int)((angle + PI) / (0.5 * PI) + 1e-9) % 4;
		}
		ENSURE_MSG(m.ball_count >= 8 && quarters == 15, "%u balls, quarters %x", m.ball_count, quarters);
		mesh_cpu_free(&env_, &m);
	}
	meshgen_free(&g);
}

// The clearance field is built on the CPU, its rows shared among one
// thread per core (clearance.c): one point of every row, a different one
// per row, equals a brute-force minimum over every triangle within
// rounding, so no row is skipped, written twice or left to a thread that
// did not run. (A CPU suite, so the sanitizer build runs it too.)
static void test_clearance_rows(void)
{
	meshgen_mesh g;
	ENSURE(meshgen_torus(&g, 1.0f, 0.35f, 48, 24));
	mesh_cpu m;
	if (build(&g, &m)) {
		clearance_field f;
		ENSURE(clearance_build(&env_, &m, 64, &f) == VKCOL_SUCCESS);
		const double o[3] = {m.origin[0], m.origin[1], m.origin[2]}, delta = cone_filter_reach(64);
		uint32_t rows = f.dims[1] * f.dims[2], bad = 0, positive = 0;
		for (uint32_t row = 0; row < rows && f.values; row++) {
			uint32_t i = (row * 7u) % f.dims[0], j = row % f.dims[1], k = row / f.dims[1];
			double p[3] = {(double)f.min[0] + (i + 0.5) * (double)f.cell, (double)f.min[1] + (j + 0.5) * (double)f.cell,
			               (double)f.min[2] + (k + 0.5) * (double)f.cell};
			double e = INFINITY;
			for (uint32_t t = 0; t < m.triangle_count; t++) {
				double v[3][3];
				for (int a = 0; a < 3; a++)
					for (int b = 0; b < 3; b++)
						v[a][b] = m.positions[3 * (size_t)m.indices[3 * (size_t)t + a] + b];
				e = fmin(e, clearance_tet_distance(p, o, v[0], v[1], v[2]));
			}
			double l = sqrt((p[0] - o[0]) * (p[0] - o[0]) + (p[1] - o[1]) * (p[1] - o[1]) + (p[2] - o[2]) * (p[2] - o[2]));
			double expected = e - delta * l;
			float value = f.values[(size_t)row * f.dims[0] + i];
			bad += (value > 0 && value > expected) || value < expected - 1e-4 * m.sphere_radius;
			positive += value > 0;
		}
		ENSURE_MSG(bad == 0, "%u of %u rows disagree with the brute force", bad, rows);
		ENSURE_MSG(rows >= 64 && positive > 0, "%u rows, %u with clearance", rows, positive);
		clearance_free(&env_, &f);
		mesh_cpu_free(&env_, &m);
	}
	meshgen_free(&g);
}

// The caller's job system of test_clearance_threads: runs the tasks in
// reverse order on the calling thread and counts the calls.
static int job_system_calls_;
static void reverse_job_system(void *user, uint32_t count, void (*task)(void *, uint32_t), void *task_user)
{
	ENSURE(user == &job_system_calls_);
	job_system_calls_++;
	for (uint32_t i = count; i-- > 0;)
		task(task_user, i);
}

// Which thread ran each task of core_parallel_for.
typedef struct task_threads {
	pthread_t who[256];
	int runs[256];
} task_threads;

static void note_thread(void *user, uint32_t index)
{
	task_threads *t = user;
	t->who[index] = pthread_self();
	__atomic_fetch_add(&t->runs[index], 1, __ATOMIC_RELAXED);
}

// The three ways a context runs parallel CPU work (vkcol_context_desc.threads
// and .parallel): each task runs once; VKCOL_THREADS_CALLER runs all of them
// on the calling thread; a job system gets the tasks; and the clearance
// field, the library's one parallel build, is the same whichever ran it.
static void test_clearance_threads(void)
{
	core_env modes[3];
	for (int k = 0; k < 3; k++)
		core_env_init(&modes[k], NULL, NULL, NULL, VKCOL_LOG_DEFAULT);
	core_env_set_parallel(&modes[1], VKCOL_THREADS_CALLER, NULL, NULL);
	core_env_set_parallel(&modes[2], VKCOL_THREADS_DEFAULT, reverse_job_system, &job_system_calls_);
	for (int k = 0; k < 3; k++) {
		task_threads t;
		memset(&t, 0, sizeof(t));
		core_parallel_for(&modes[k], 256, note_thread, &t);
		int once = 0, here = 0;
		for (int i = 0; i < 256; i++) {
			once += t.runs[i] == 1;
			here += pthread_equal(t.who[i], pthread_self()) != 0;
		}
		ENSURE_EQ_INT(once, 256);
		if (k > 0)
			ENSURE_EQ_INT(here, 256);
	}
	ENSURE_EQ_INT(job_system_calls_, 1);
	meshgen_mesh g;
	ENSURE(meshgen_torus(&g, 1.0f, 0.35f, 48, 24));
	mesh_cpu m;
	if (build(&g, &m)) {
		clearance_field f[3];
		for (int k = 0; k < 3; k++)
			ENSURE(clearance_build(&modes[k], &m, 64, &f[k]) == VKCOL_SUCCESS);
		ENSURE_EQ_INT(job_system_calls_, 2);
		size_t points = (size_t)f[0].dims[0] * f[0].dims[1] * f[0].dims[2];
		for (int k = 1; k < 3; k++)
			ENSURE(f[k].values && f[0].values && memcmp(f[k].values, f[0].values, points * sizeof(float)) == 0);
		for (int k = 0; k < 3; k++)
			clearance_free(&env_, &f[k]);
		mesh_cpu_free(&env_, &m);
	}
	meshgen_free(&g);
}

static void test_build_two_boxes(void)
{
	// Two separate cubes as one closed mesh: the volume centroid lies between
	// them, outside both. The search must land inside one of them.
	float lo1[3] = {-3, -1, -1}, hi1[3] = {-1, 1, 1}, lo2[3] = {1, -1, -1}, hi2[3] = {3, 1, 1};
	meshgen_mesh a, b;
	ENSURE(meshgen_box(&a, lo1, hi1, 2, false));
	ENSURE(meshgen_box(&b, lo2, hi2, 2, false));
	meshgen_mesh g;
	ENSURE(meshgen_merge(&g, &a, &b));
	mesh_cpu m;
	if (build(&g, &m)) {
		ENSURE(m.closed);
		ENSURE_SMALL(m.volume - 16.0, 1e-9);
		ENSURE(m.origin_inside);
		float x = fabsf(m.origin[0]);
		ENSURE_MSG(x > 1.0f && x < 3.0f && fabsf(m.origin[1]) < 1.0f && fabsf(m.origin[2]) < 1.0f,
		           "origin (%g %g %g)", m.origin[0], m.origin[1], m.origin[2]);
		// The deepest points of a 2-cube are 1 from its faces: the search
		// gets close to that.
		ENSURE_MSG(x > 1.5f && x < 2.5f, "origin x %g", m.origin[0]);
		// The other cube gets an inner ball of its own.
		ensure_balls_inside(&m);
		bool other = false;
		for (uint32_t i = 0; i < m.ball_count; ++i)
			other = other || (m.balls[i][0] < 0) != (m.origin[0] < 0);
		ENSURE_MSG(other, "%u balls, none in the other cube", m.ball_count);
		mesh_cpu_free(&env_, &m);
	}
	meshgen_free(&a);
	meshgen_free(&b);
	meshgen_free(&g);
}

// Appends src's triangles to dst, reversed when flip (an inner wall).
static bool append_mesh(meshgen_mesh *dst, const meshgen_mesh *src, bool flip)
{
	uint32_t nv = dst->vertex_count, nt = dst->triangle_count;
	float *p = realloc(dst->positions, 3 * sizeof(float) * (nv + src->vertex_count));
	if (p == NULL)
		return false;
	dst->positions = p;
	uint32_t *ix = realloc(dst->indices, 3 * sizeof(uint32_t) * (nt + src->triangle_count));
	if (ix == NULL)
		return false;
	dst->indices = ix;
	memcpy(dst->positions + 3 * nv, src->positions, 3 * sizeof(float) * src->vertex_count);
	for (uint32_t i = 0; i < src->triangle_count; ++i)
		for (int k = 0; k < 3; ++k)
			dst->indices[3 * (nt + i) + k] = src->indices[3 * i + (flip ? 2 - k : k)] + nv;
	dst->vertex_count += src->vertex_count;
	dst->triangle_count += src->triangle_count;
	return true;
}

static void test_build_thin_solids(void)
{
	// A hollow ball: walls at radius 0.97 and 1. The volume centroid is in
	// the cavity, so the search must find the 0.03-thick shell.
	float c[3] = {0, 0, 0};
	meshgen_mesh outer, inner, g = {0};
	ENSURE(meshgen_sphere(&outer, c, 1.0f, 48, 96));
	ENSURE(meshgen_sphere(&inner, c, 0.97f, 48, 96));
	ENSURE(append_mesh(&g, &outer, false) && append_mesh(&g, &inner, true));
	mesh_cpu m;
	if (build(&g, &m)) {
		ENSURE(m.closed);
		ENSURE(m.origin_inside);
		double r = sqrt((double)m.origin[0] * m.origin[0] + (double)m.origin[1] * m.origin[1] +
		                (double)m.origin[2] * m.origin[2]);
		ENSURE_MSG(r > 0.97 && r < 1.0 * cos(PI / 48), "origin at radius %g", r);
		mesh_cpu_free(&env_, &m);
	}
	meshgen_free(&outer);
	meshgen_free(&inner);
	meshgen_free(&g);

	// A plate 20 wide and 0.002 thick: its centroid is inside, 0.001 from
	// the surface. Thin is not "on the surface".
	float lo[3] = {-10, -10, -0.001f}, hi[3] = {10, 10, 0.001f};
	ENSURE(meshgen_box(&g, lo, hi, 8, false));
	if (build(&g, &m)) {
		ENSURE(m.origin_inside);
		ENSURE(fabsf(m.origin[2]) < 0.001f && fabsf(m.origin[0]) < 10 && fabsf(m.origin[1]) < 10);
		mesh_cpu_free(&env_, &m);
	}
	meshgen_free(&g);
}

static void test_build_open(void)
{
	meshgen_mesh g;
	ENSURE(meshgen_grid(&g, 8, 4, 2.0f, 1.0f));
	mesh_cpu m;
	if (build(&g, &m)) {
		ENSURE(!m.closed);
		ENSURE_EQ_INT(m.boundary_edge_count, 2 * (8 + 4));
		ENSURE(m.volume == 0.0);
		ENSURE(!m.origin_inside);
		ENSURE_EQ_INT(m.ball_count, 0);
		// Open meshes take the area-weighted centroid.
		ENSURE_SMALL(m.origin[0] - 1.0, 1e-6);
		ENSURE_SMALL(m.origin[1] - 0.5, 1e-6);
		ENSURE_SMALL(m.origin[2], 1e-6);
		ensure_sphere_contains(&m);
		mesh_cpu_free(&env_, &m);
	}
	meshgen_free(&g);

	ENSURE(meshgen_soup(&g, 500, 5.0f, 1.0f, 99));
	if (build(&g, &m)) {
		ENSURE(!m.closed);
		ENSURE_EQ_INT(m.boundary_edge_count, 3 * 500);
		ensure_sphere_contains(&m);
		mesh_cpu_free(&env_, &m);
	}
	meshgen_free(&g);
}

static void test_build_errors_logged(void)
{
	core_env env;
	core_env_init(&env, NULL, capture_log, NULL, VKCOL_LOG_WARNING);
	uint32_t ix[12 * 3];
	memcpy(ix, cube_indices, sizeof(ix));
	ix[3 * 7 + 1] = 1000;
	vkcol_mesh_desc d = cube_desc();
	d.indices = ix;
	d.name = "bracket.stl";
	mesh_cpu m;
	memset(&m, 0x77, sizeof(m));
	reset_log();
	ENSURE_EQ_INT(mesh_cpu_build(&env, &d, &m), VKCOL_ERROR_INDEX_OUT_OF_RANGE);
	ENSURE(m.positions == NULL && m.indices == NULL && m.tree.nodes == NULL);
	ENSURE(log_count_ >= 1);
	ENSURE_MSG(strstr(last_log_, "bracket.stl") != NULL && strstr(last_log_, "triangle 7 corner 1") != NULL &&
	               strstr(last_log_, "vertex 1000") != NULL,
	           "log: %s", last_log_);

	float pos[8 * 3];
	memcpy(pos, cube_positions, sizeof(pos));
	pos[3 * 4 + 2] = NAN;
	d = cube_desc();
	d.positions = pos;
	reset_log();
	ENSURE_EQ_INT(mesh_cpu_build(&env, &d, &m), VKCOL_ERROR_NON_FINITE_POSITION);
	ENSURE_MSG(strstr(last_log_, "cube") != NULL && strstr(last_log_, "vertex 4") != NULL, "log: %s", last_log_);

	d = cube_desc();
	d.name = NULL;
	d.triangle_count = 0;
	reset_log();
	ENSURE_EQ_INT(mesh_cpu_build(&env, &d, &m), VKCOL_ERROR_EMPTY_MESH);
	ENSURE_MSG(strstr(last_log_, "mesh") != NULL, "log: %s", last_log_);
}

static void test_build_large(void)
{
	// About 250,000 triangles, twice: a sphere (centroid inside: one
	// check) and a torus (centroid in the hole: the full origin search).
	float c[3] = {0, 0, 0};
	meshgen_mesh g;
	mesh_cpu m;
	ENSURE(meshgen_sphere(&g, c, 1.0f, 351, 356));
	clock_t t0 = clock();
	vkcol_mesh_desc d = meshgen_desc(&g, "big sphere");
	ENSURE_EQ_INT(mesh_cpu_build(&env_, &d, &m), VKCOL_SUCCESS);
	double s1 = (double)(clock() - t0) / CLOCKS_PER_SEC;
	printf("     sphere, %u triangles: mesh_cpu_build %.3f s\n", g.triangle_count, s1);
	ENSURE(g.triangle_count >= 249000);
	ENSURE(m.closed && m.origin_inside);
	mesh_cpu_free(&env_, &m);
	meshgen_free(&g);

	ENSURE(meshgen_torus(&g, 3.0f, 1.0f, 500, 256));
	t0 = clock();
	d = meshgen_desc(&g, "big torus");
	ENSURE_EQ_INT(mesh_cpu_build(&env_, &d, &m), VKCOL_SUCCESS);
	double s2 = (double)(clock() - t0) / CLOCKS_PER_SEC;
	printf("     torus, %u triangles: mesh_cpu_build %.3f s\n", g.triangle_count, s2);
	ENSURE(m.closed && m.origin_inside);
	ENSURE(torus_tube_distance(m.origin, 3.0) < 0.5);
	// Well under a second or two in a release build; generous for
	// sanitizer and debug builds.
	ENSURE(s1 < 10.0 && s2 < 10.0);
	mesh_cpu_free(&env_, &m);
	meshgen_free(&g);
}

// ---------------------------------------------------------------------------
// The mesh table, on a context without a device (the handle logic needs
// none; vkcol_mesh_create fails validation before any device call).

static void test_table_handles(void)
{
	vkcol_context ctx;
	memset(&ctx, 0, sizeof(ctx));
	core_env_init(&ctx.env, NULL, capture_log, NULL, VKCOL_LOG_WARNING);
	ctx.meshes.env = &ctx.env;

	vkcol_mesh h = {12345};
	vkcol_mesh_desc bad = cube_desc();
	bad.vertex_count = 0;
	bad.name = "nothing";
	reset_log();
	ENSURE_EQ_INT(vkcol_mesh_create(&ctx, &bad, &h), VKCOL_ERROR_EMPTY_MESH);
	ENSURE_EQ_INT(h.id, 0);
	ENSURE_MSG(strstr(last_log_, "nothing") != NULL, "log: %s", last_log_);
	ENSURE_EQ_INT(vkcol_mesh_create(&ctx, NULL, &h), VKCOL_ERROR_INVALID_ARGUMENT);
	ENSURE_EQ_INT(vkcol_mesh_create(&ctx, &bad, NULL), VKCOL_ERROR_INVALID_ARGUMENT);
	ENSURE_EQ_INT(vkcol_mesh_create(NULL, &bad, &h), VKCOL_ERROR_INVALID_ARGUMENT);
	// The failed creations left no slot in use.
	for (uint32_t i = 0; i < ctx.meshes.capacity; ++i)
		ENSURE(!ctx.meshes.slots[i].used);

	// A slot filled by hand (as vkcol_mesh_create would after uploading).
	ENSURE(ctx.meshes.capacity > 0);
	mesh_slot *slot = &ctx.meshes.slots[0];
	vkcol_mesh_desc d = cube_desc();
	ENSURE_EQ_INT(mesh_cpu_build(&ctx.env, &d, &slot->cpu), VKCOL_SUCCESS);
	slot->used = true;
	slot->cube_resolution = 64;
	slot->generation = 5;
	vkcol_mesh good = {(5u << MESH_INDEX_BITS) | 1u};
	ENSURE(mesh_table_get(&ctx.meshes, good) == slot);

	vkcol_mesh_info info;
	ENSURE_EQ_INT(vkcol_mesh_get_info(&ctx, good, &info), VKCOL_SUCCESS);
	ENSURE_EQ_INT(info.vertex_count, 8);
	ENSURE_EQ_INT(info.unique_vertex_count, 8);
	ENSURE_EQ_INT(info.triangle_count, 12);
	ENSURE(info.closed);
	ENSURE_SMALL(info.volume - 1.0, 1e-12);
	ENSURE_EQ_INT(info.tree_node_count, slot->cpu.tree.node_count);
	ENSURE_EQ_INT(info.tree_leaf_count, slot->cpu.tree.leaf_count);
	ENSURE_SMALL(info.tree_leaf_mean * info.tree_leaf_count - 12.0, 1e-4);
	ENSURE_EQ_INT(info.cube_resolution, 64);
	ENSURE(info.origin_inside);
	ENSURE(info.sphere_radius == slot->cpu.sphere_radius);
	ENSURE_EQ_INT(info.device_bytes, 0); // no buffers on this fake context

	struct {
		uint32_t id;
		const char *why;
	} stale[] = {
		{0, "zero"},
		{(4u << MESH_INDEX_BITS) | 1u, "destroyed"},      // older generation
		{(5u << MESH_INDEX_BITS) | 2u, "destroyed"},      // slot not in use
		{(5u << MESH_INDEX_BITS) | 1000u, "out of range"},
		{5u << MESH_INDEX_BITS, "zero"},                  // index part zero
	};
	for (size_t i = 0; i < CORE_COUNT_OF(stale); ++i) {
		reset_log();
		vkcol_mesh h2 = {stale[i].id};
		ENSURE(mesh_table_get(&ctx.meshes, h2) == NULL);
		ENSURE_MSG(log_count_ == 1 && strstr(last_log_, stale[i].why) != NULL, "id %#x: log '%s'", stale[i].id,
		           last_log_);
		ENSURE_EQ_INT(vkcol_mesh_get_info(&ctx, h2, &info), VKCOL_ERROR_INVALID_HANDLE);
	}
	ENSURE_EQ_INT(vkcol_mesh_get_info(&ctx, good, NULL), VKCOL_ERROR_INVALID_ARGUMENT);
	ENSURE_EQ_INT(vkcol_mesh_get_info(NULL, good, &info), VKCOL_ERROR_INVALID_ARGUMENT);

	// Destroy frees the slot and bumps its generation: the old handle is
	// stale, destroying it again or destroying zero is ignored.
	vkcol_mesh_destroy(&ctx, good);
	ENSURE(!slot->used);
	ENSURE_EQ_INT(slot->generation, 6);
	ENSURE(slot->cpu.positions == NULL);
	ENSURE(mesh_table_get(&ctx.meshes, good) == NULL);
	vkcol_mesh_destroy(&ctx, good);
	ENSURE_EQ_INT(slot->generation, 6);
	vkcol_mesh_destroy(&ctx, (vkcol_mesh){0});
	vkcol_mesh_destroy(NULL, good);

	core_free(&ctx.env, ctx.meshes.slots);
}

int main(int argc, char **argv)
{
	TEST_INIT(argc, argv);
	core_env_init(&env_, NULL, NULL, NULL, VKCOL_LOG_DEFAULT);
	RUN_TEST(test_check_valid);
	RUN_TEST(test_check_arguments);
	RUN_TEST(test_check_index_out_of_range);
	RUN_TEST(test_check_non_finite);
	RUN_TEST(test_check_stride);
	RUN_TEST(test_build_cube);
	RUN_TEST(test_build_box_variants);
	RUN_TEST(test_build_negative_zero);
	RUN_TEST(test_build_nonmanifold);
	RUN_TEST(test_build_degenerate);
	RUN_TEST(test_build_sphere);
	RUN_TEST(test_build_torus);
	RUN_TEST(test_clearance_rows);
	RUN_TEST(test_clearance_threads);
	RUN_TEST(test_build_two_boxes);
	RUN_TEST(test_build_thin_solids);
	RUN_TEST(test_build_open);
	RUN_TEST(test_build_errors_logged);
	RUN_TEST(test_build_large);
	RUN_TEST(test_table_handles);
	return TEST_SUMMARY();
}
