// SPDX-License-Identifier: MIT
// A mesh on the CPU: validation, topology analysis (welded vertices, closed
// or open, degenerate triangles), volume, bounding sphere, AABB tree,
// interior origin and inner balls, in double precision.
//
// Sources:
// - Bounding sphere: J. Ritter, "An Efficient Bounding Sphere", Graphics
//   Gems, 1990 (then checked against every vertex and grown if needed).
// - Volume and centroid: sum of signed tetrahedra from a reference point
//   (divergence theorem), as in C. Zhang and T. Chen, "Efficient Feature
//   Extraction for 2D/3D Objects in Mesh Representation", ICIP 2001.
// - Closest point on a triangle: C. Ericson, "Real-Time Collision Detection",
//   Morgan Kaufmann 2005, section 5.1.5.
// - The tree: CN 102663825 (aabb_tree.c).
#include "geometry/mesh_cpu.h"

#include "geometry/reference.h"
#include "geometry/vec3d.h"
#include "geometry/weld.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MESH_DEFAULT_LEAF_SIZE 4u
#define MESH_MAX_LEAF_SIZE 64u
#define MESH_DEFAULT_MAX_DEPTH 40u

// ---------------------------------------------------------------------------
// Validation

static void set_problem(vkcol_mesh_problem *problem, vkcol_result result, const char *fmt, ...) CORE_PRINTF(3, 4);

static void set_problem(vkcol_mesh_problem *problem, vkcol_result result, const char *fmt, ...)
{
	problem->result = result;
	va_list args;
	va_start(args, fmt);
	vsnprintf(problem->message, sizeof(problem->message), fmt, args);
	va_end(args);
}

static const float *vertex_at(const vkcol_mesh_desc *desc, size_t stride, uint32_t v)
{
	return (const float *)(const void *)((const char *)desc->positions + (size_t)v * stride);
}

static vkcol_result check_desc(const vkcol_mesh_desc *desc, vkcol_mesh_problem *p)
{
	memset(p, 0, sizeof(*p));
	p->triangle = UINT32_MAX;
	p->corner = UINT32_MAX;
	p->vertex = UINT32_MAX;
	p->coordinate = UINT32_MAX;

	if (desc == NULL) {
		set_problem(p, VKCOL_ERROR_INVALID_ARGUMENT, "the mesh description is NULL");
		return p->result;
	}
	// Counts before pointers: an empty mesh given as NULL arrays is reported
	// as empty, the more useful message.
	if (desc->vertex_count == 0 || desc->triangle_count == 0) {
		set_problem(p, VKCOL_ERROR_EMPTY_MESH, "the mesh has %u vertices and %u triangles; it needs at least one of each",
		            desc->vertex_count, desc->triangle_count);
		return p->result;
	}
	if (desc->vertex_count > VKCOL_MAX_VERTICES) {
		set_problem(p, VKCOL_ERROR_TOO_LARGE, "the mesh has %u vertices, more than the limit of %u",
		            desc->vertex_count, VKCOL_MAX_VERTICES);
		return p->result;
	}
	if (desc->triangle_count > VKCOL_MAX_TRIANGLES) {
		set_problem(p, VKCOL_ERROR_TOO_LARGE, "the mesh has %u triangles, more than the limit of %u",
		            desc->triangle_count, VKCOL_MAX_TRIANGLES);
		return p->result;
	}
	if (desc->positions == NULL || desc->indices == NULL) {
		set_problem(p, VKCOL_ERROR_INVALID_ARGUMENT, "%s is NULL", desc->positions == NULL ? "positions" : "indices");
		return p->result;
	}
	size_t stride = desc->positions_stride ? desc->positions_stride : 3 * sizeof(float);
	if (stride < 3 * sizeof(float) || stride % sizeof(float) != 0 || stride > SIZE_MAX / desc->vertex_count) {
		set_problem(p, VKCOL_ERROR_INVALID_ARGUMENT,
		            "positions_stride %zu is invalid: it must be 0 (packed) or a multiple of 4 of at least 12 bytes",
		            desc->positions_stride);
		return p->result;
	}
	uint32_t res = desc->cube_resolution;
	if (res != 0 && (res < 4 || res > 1024 || (res & (res - 1)) != 0)) {
		set_problem(p, VKCOL_ERROR_INVALID_ARGUMENT,
		            "cube_resolution %u is invalid: it must be 0 (default 64) or a power of two in 4..1024", res);
		return p->result;
	}
	if (desc->leaf_size > MESH_MAX_LEAF_SIZE) {
		set_problem(p, VKCOL_ERROR_INVALID_ARGUMENT, "leaf_size %u is invalid: it must be 0 (default 4) or 1..64",
		            desc->leaf_size);
		return p->result;
	}
	if (desc->tree_split > VKCOL_TREE_SPLIT_TWO_CENTRES) {
		set_problem(p, VKCOL_ERROR_INVALID_ARGUMENT, "tree_split %d is not a vkcol_tree_split value",
		            (int)desc->tree_split);
		return p->result;
	}
	if (desc->max_depth > AABB_TREE_MAX_DEPTH) {
		set_problem(p, VKCOL_ERROR_INVALID_ARGUMENT, "max_depth %u is invalid: it must be 0 (default 40) or 1..%u",
		            desc->max_depth, AABB_TREE_MAX_DEPTH);
		return p->result;
	}
	for (uint32_t t = 0; t < desc->triangle_count; ++t) {
		for (uint32_t c = 0; c < 3; ++c) {
			uint32_t v = desc->indices[3 * (size_t)t + c];
			if (v >= desc->vertex_count) {
				p->triangle = t;
				p->corner = c;
				p->vertex = v;
				set_problem(p, VKCOL_ERROR_INDEX_OUT_OF_RANGE,
				            "triangle %u corner %u refers to vertex %u, but the mesh has %u vertices", t, c, v,
				            desc->vertex_count);
				return p->result;
			}
		}
	}
	for (uint32_t v = 0; v < desc->vertex_count; ++v) {
		float xyz[3];
		memcpy(xyz, vertex_at(desc, stride, v), sizeof(xyz));
		for (uint32_t k = 0; k < 3; ++k) {
			if (!isfinite(xyz[k])) {
				p->vertex = v;
				p->coordinate = k;
				set_problem(p, VKCOL_ERROR_NON_FINITE_POSITION, "vertex %u has a non-finite %c coordinate (%s)", v,
				            "xyz"[k], isnan(xyz[k]) ? "NaN" : (xyz[k] > 0 ? "+infinity" : "-infinity"));
				return p->result;
			}
		}
	}
	p->result = VKCOL_SUCCESS;
	return VKCOL_SUCCESS;
}

VKCOL_API vkcol_result vkcol_mesh_check(const vkcol_mesh_desc *desc, vkcol_mesh_problem *problem)
{
	vkcol_mesh_problem local;
	vkcol_mesh_problem *p = problem != NULL ? problem : &local;
	return check_desc(desc, p);
}

// ---------------------------------------------------------------------------
// Welding: one representative per distinct position

static vkcol_result weld_vertices(const core_env *env, mesh_cpu *m)
{
	size_t size = 16;
	while (size < 2 * (size_t)m->vertex_count)
		size *= 2;
	uint32_t *table = core_calloc(env, size, sizeof(uint32_t)); // vertex + 1, 0 = empty
	if (table == NULL)
		return VKCOL_ERROR_OUT_OF_HOST_MEMORY;
	uint32_t unique = 0;
	for (uint32_t v = 0; v < m->vertex_count; ++v) {
		uint32_t k[3];
		weld_key(m->positions + 3 * (size_t)v, k);
		size_t slot = weld_hash(k) & (size - 1);
		for (;;) {
			uint32_t e = table[slot];
			if (e == 0) {
				table[slot] = v + 1;
				m->weld[v] = v;
				unique++;
				break;
			}
			uint32_t q[3];
			weld_key(m->positions + 3 * (size_t)(e - 1), q);
			if (memcmp(q, k, sizeof(k)) == 0) {
				m->weld[v] = e - 1;
				break;
			}
			slot = (slot + 1) & (size - 1);
		}
	}
	m->unique_vertex_count = unique;
	core_free(env, table);
	return VKCOL_SUCCESS;
}

// ---------------------------------------------------------------------------
// Topology: edges between welded vertices

// LSD radix sort of 64-bit keys, 16 bits per pass; passes in which every key
// has the same digit are skipped.
static void radix_sort_u64(uint64_t *keys, uint64_t *tmp, size_t n, uint32_t *hist)
{
	for (int shift = 0; shift < 64; shift += 16) {
		memset(hist, 0, 65536 * sizeof(uint32_t));
		for (size_t i = 0; i < n; ++i)
			hist[(keys[i] >> shift) & 0xFFFF]++;
		if (hist[(keys[0] >> shift) & 0xFFFF] == n)
			continue;
		uint32_t sum = 0;
		for (size_t d = 0; d < 65536; ++d) {
			uint32_t c = hist[d];
			hist[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; ++i)
			tmp[hist[(keys[i] >> shift) & 0xFFFF]++] = keys[i];
		memcpy(keys, tmp, n * sizeof(uint64_t));
	}
}

static bool triangle_collapsed(const mesh_cpu *m, uint32_t t, uint32_t w[3])
{
	for (int c = 0; c < 3; ++c)
		w[c] = m->weld[m->indices[3 * (size_t)t + c]];
	return w[0] == w[1] || w[1] == w[2] || w[0] == w[2];
}

static void load_vertex(const mesh_cpu *m, uint32_t v, double out[3])
{
	const float *p = m->positions + 3 * (size_t)v;
	out[0] = p[0];
	out[1] = p[1];
	out[2] = p[2];
}

static void triangle_vertices(const mesh_cpu *m, uint32_t t, double v[3][3])
{
	for (int c = 0; c < 3; ++c)
		load_vertex(m, m->indices[3 * (size_t)t + c], v[c]);
}

// Twice triangle t's vector area, (v1 - v0) x (v2 - v0), in double (each
// difference of float coordinates exact).
static void triangle_cross(const mesh_cpu *m, uint32_t t, double n[3])
{
	double v[3][3], e1[3], e2[3];
	triangle_vertices(m, t, v);
	for (int k = 0; k < 3; ++k) {
		e1[k] = v[1][k] - v[0][k];
		e2[k] = v[2][k] - v[0][k];
	}
	cross3(e1, e2, n);
}

static vkcol_result analyse_topology(const core_env *env, mesh_cpu *m)
{
	vkcol_result res = VKCOL_SUCCESS;
	size_t edge_count = 0;
	uint64_t *edges = core_alloc(env, 3 * (size_t)m->triangle_count * sizeof(uint64_t));
	uint64_t *tmp = core_alloc(env, 3 * (size_t)m->triangle_count * sizeof(uint64_t));
	uint32_t *hist = core_alloc(env, 65536 * sizeof(uint32_t));
	if (edges == NULL || tmp == NULL || hist == NULL) {
		res = VKCOL_ERROR_OUT_OF_HOST_MEMORY;
		goto cleanup;
	}

	for (uint32_t t = 0; t < m->triangle_count; ++t) {
		uint32_t w[3];
		bool collapsed = triangle_collapsed(m, t, w);
		if (!collapsed) {
			for (int c = 0; c < 3; ++c) {
				uint32_t a = w[c], b = w[(c + 1) % 3];
				edges[edge_count++] = a < b ? ((uint64_t)a << 32) | b : ((uint64_t)b << 32) | a;
			}
		}
		// Zero area decided exactly: float differences are exact in double,
		// and so are their products; a difference of two exact products is
		// zero only when they are equal.
		double n[3];
		triangle_cross(m, t, n);
		if (collapsed || (n[0] == 0.0 && n[1] == 0.0 && n[2] == 0.0))
			m->degenerate_count++;
	}

	if (edge_count > 0)
		radix_sort_u64(edges, tmp, edge_count, hist);
	for (size_t i = 0; i < edge_count;) {
		size_t j = i + 1;
		while (j < edge_count && edges[j] == edges[i])
			j++;
		if (j - i == 1)
			m->boundary_edge_count++;
		else if (j - i >= 3)
			m->nonmanifold_edge_count++;
		i = j;
	}
	// A mesh of collapsed triangles only bounds nothing.
	m->closed = edge_count > 0 && m->boundary_edge_count == 0 && m->nonmanifold_edge_count == 0;

cleanup:
	core_free(env, edges);
	core_free(env, tmp);
	core_free(env, hist);
	return res;
}

// ---------------------------------------------------------------------------
// Volume, centroids, bounds

// The mean half-width of the slabs of a tree's leaves (aabb_tree.h): how far
// its leaves' triangles stray from one plane.
static float leaf_thickness(const aabb_tree *tree)
{
	double sum = 0.0;
	uint32_t leaves = 0;
	for (uint32_t i = 0; i < tree->node_count; i++)
		if (tree->nodes[i].count > 0 && isfinite(tree->slabs[4 * (size_t)i + 3])) {
			sum += tree->slabs[4 * (size_t)i + 3];
			leaves++;
		}
	return leaves ? (float)(sum / leaves) : 0.0f;
}

// Signed volume and volume centroid (closed meshes) or area centroid (open);
// area2: the sum of the triangles' areas, twice.
static void mass_properties(const mesh_cpu *m, double *volume, double centroid[3], double area_centroid[3],
                            double *area2)
{
	// Tetrahedra from the box centre: smaller terms, less cancellation.
	double ref[3];
	for (int k = 0; k < 3; ++k)
		ref[k] = 0.5 * ((double)m->aabb_min[k] + m->aabb_max[k]);
	double vol6 = 0.0, c[3] = {0, 0, 0}, area = 0.0, ac[3] = {0, 0, 0};
	for (uint32_t t = 0; t < m->triangle_count; ++t) {
		double v[3][3], e1[3], e2[3], n[3], x[3];
		triangle_vertices(m, t, v);
		for (int i = 0; i < 3; ++i)
			for (int k = 0; k < 3; ++k)
				v[i][k] -= ref[k];
		for (int k = 0; k < 3; ++k) {
			e1[k] = v[1][k] - v[0][k];
			e2[k] = v[2][k] - v[0][k];
		}
		cross3(v[1], v[2], x);
		double d = dot3(v[0], x); // 6 x signed volume of (ref, v0, v1, v2)
		cross3(e1, e2, n);
		double a = sqrt(dot3(n, n));
		vol6 += d;
		area += a;
		for (int k = 0; k < 3; ++k) {
			double s = v[0][k] + v[1][k] + v[2][k];
			c[k] += d * s; // tetrahedron centroid = s / 4 (ref at the origin)
			ac[k] += a * s; // triangle centroid = s / 3
		}
	}
	*volume = vol6 / 6.0;
	*area2 = area;
	for (int k = 0; k < 3; ++k) {
		centroid[k] = vol6 != 0.0 ? ref[k] + c[k] / (4.0 * vol6) : ref[k];
		area_centroid[k] = area > 0.0 ? ref[k] + ac[k] / (3.0 * area) : ref[k];
	}
}

// Ritter's sphere, then the AABB's circumsphere if smaller; then made to
// contain every vertex in float (the GPU's arithmetic) with a margin.
static void bounding_sphere(mesh_cpu *m)
{
	uint32_t n = m->vertex_count;
	double p[3], y[3], z[3];
	load_vertex(m, 0, p);
	memcpy(y, p, sizeof(y));
	memcpy(z, p, sizeof(z));
	double best = -1.0;
	for (uint32_t v = 0; v < n; ++v) {
		double q[3];
		load_vertex(m, v, q);
		double d = dist2_3(p, q);
		if (d > best) {
			best = d;
			memcpy(y, q, sizeof(y));
		}
	}
	best = -1.0;
	for (uint32_t v = 0; v < n; ++v) {
		double q[3];
		load_vertex(m, v, q);
		double d = dist2_3(y, q);
		if (d > best) {
			best = d;
			memcpy(z, q, sizeof(z));
		}
	}
	double c[3] = {0.5 * (y[0] + z[0]), 0.5 * (y[1] + z[1]), 0.5 * (y[2] + z[2])};
	double r = 0.5 * sqrt(best);
	for (uint32_t v = 0; v < n; ++v) {
		double q[3];
		load_vertex(m, v, q);
		double d = sqrt(dist2_3(c, q));
		if (d > r) {
			// Grow to just cover q, moving the centre towards it.
			double nr = 0.5 * (r + d);
			double k = (nr - r) / d;
			for (int i = 0; i < 3; ++i)
				c[i] += (q[i] - c[i]) * k;
			r = nr;
		}
	}
	double box_c[3], box_r2 = 0.0;
	for (int i = 0; i < 3; ++i) {
		box_c[i] = 0.5 * ((double)m->aabb_min[i] + m->aabb_max[i]);
		double h = 0.5 * ((double)m->aabb_max[i] - m->aabb_min[i]);
		box_r2 += h * h;
	}
	if (sqrt(box_r2) < r)
		memcpy(c, box_c, sizeof(c));

	// Exact radius about the float centre, then a margin of a few float ulps
	// so that float distance computations on the device stay inside.
	double cf[3];
	for (int i = 0; i < 3; ++i) {
		m->sphere_center[i] = (float)c[i];
		cf[i] = m->sphere_center[i];
	}
	double rmax = 0.0;
	for (uint32_t v = 0; v < n; ++v) {
		double q[3];
		load_vertex(m, v, q);
		double d = sqrt(dist2_3(cf, q));
		rmax = d > rmax ? d : rmax;
	}
	double scale = fabs(cf[0]) + fabs(cf[1]) + fabs(cf[2]) + rmax;
	float rf = (float)(rmax + 4.0 * FLT_EPSILON * scale);
	while ((double)rf < rmax)
		rf = nextafterf(rf, INFINITY);
	m->sphere_radius = rf;
}

// ---------------------------------------------------------------------------
// Interior origin

// Closest point on triangle abc to p (Ericson 5.1.5), squared distance.
double mesh_point_triangle_dist2(const double p[3], const double a[3], const double b[3], const double c[3])
{
	double ab[3], ac[3], ap[3], bp[3], cp[3], x[3];
	for (int k = 0; k < 3; ++k) {
		ab[k] = b[k] - a[k];
		ac[k] = c[k] - a[k];
		ap[k] = p[k] - a[k];
		bp[k] = p[k] - b[k];
		cp[k] = p[k] - c[k];
	}
	double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
	if (d1 <= 0.0 && d2 <= 0.0)
		return dot3(ap, ap);
	double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
	if (d3 >= 0.0 && d4 <= d3)
		return dot3(bp, bp);
	double vc = d1 * d4 - d3 * d2;
	if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
		double v = d1 / (d1 - d3);
		for (int k = 0; k < 3; ++k)
			x[k] = a[k] + v * ab[k];
		return dist2_3(p, x);
	}
	double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
	if (d6 >= 0.0 && d5 <= d6)
		return dot3(cp, cp);
	double vb = d5 * d2 - d1 * d6;
	if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
		double w = d2 / (d2 - d6);
		for (int k = 0; k < 3; ++k)
			x[k] = a[k] + w * ac[k];
		return dist2_3(p, x);
	}
	double va = d3 * d6 - d5 * d4;
	if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
		double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
		for (int k = 0; k < 3; ++k)
			x[k] = b[k] + w * (c[k] - b[k]);
		return dist2_3(p, x);
	}
	double denom = 1.0 / (va + vb + vc);
	double v = vb * denom, w = vc * denom;
	for (int k = 0; k < 3; ++k)
		x[k] = a[k] + ab[k] * v + ac[k] * w;
	return dist2_3(p, x);
}

static double box_dist2(const vkcol_gpu_node *n, const double p[3])
{
	double lo[3] = {n->min_x, n->min_y, n->min_z}, hi[3] = {n->max_x, n->max_y, n->max_z};
	double d = 0.0;
	for (int k = 0; k < 3; ++k) {
		double e = p[k] < lo[k] ? lo[k] - p[k] : (p[k] > hi[k] ? p[k] - hi[k] : 0.0);
		d += e * e;
	}
	return d;
}

// Distance from p to the nearest triangle: branch and bound through the tree,
// nearer child first.
static double surface_distance(const mesh_cpu *m, const double p[3])
{
	const aabb_tree *tree = &m->tree;
	uint32_t stack[AABB_TREE_STACK];
	uint32_t top = 0;
	double best = INFINITY;
	stack[top++] = 0;
	while (top > 0) {
		const vkcol_gpu_node *n = &tree->nodes[stack[--top]];
		if (box_dist2(n, p) >= best)
			continue;
		if (n->count == 0) {
			double d0 = box_dist2(&tree->nodes[n->first], p), d1 = box_dist2(&tree->nodes[n->first + 1], p);
			// Pushed last is popped first.
			stack[top++] = d0 <= d1 ? n->first + 1 : n->first;
			stack[top++] = d0 <= d1 ? n->first : n->first + 1;
			continue;
		}
		for (uint32_t i = n->first; i < n->first + n->count; ++i) {
			double v[3][3];
			triangle_vertices(m, tree->triangles[i], v);
			double d = mesh_point_triangle_dist2(p, v[0], v[1], v[2]);
			best = d < best ? d : best;
		}
	}
	return sqrt(best);
}

typedef struct origin_candidate {
	double p[3];
	double bound; // half the length of its inside interval: >= its distance to the surface
} origin_candidate;

typedef struct origin_search {
	const core_env *env;
	const mesh_cpu *m;
	double *hits;
	size_t hit_count, hit_capacity;
	origin_candidate *cands;
	size_t cand_count, cand_capacity;
	bool failed; // out of memory
} origin_search;

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int compare_candidate(const void *a, const void *b)
{
	double x = ((const origin_candidate *)a)->bound, y = ((const origin_candidate *)b)->bound;
	return (x < y) - (x > y); // largest bound first
}

// Collects the crossings of the axis-parallel line {x[axis] free, x[u] = pu,
// x[v] = pv} with the surface, as coordinates along the axis.
static void line_hits(origin_search *s, int axis, double pu, double pv)
{
	const mesh_cpu *m = s->m;
	const aabb_tree *tree = &m->tree;
	int u = (axis + 1) % 3, v = (axis + 2) % 3;
	uint32_t stack[AABB_TREE_STACK];
	uint32_t top = 0;
	s->hit_count = 0;
	stack[top++] = 0;
	while (top > 0) {
		const vkcol_gpu_node *n = &tree->nodes[stack[--top]];
		double lo[3] = {n->min_x, n->min_y, n->min_z}, hi[3] = {n->max_x, n->max_y, n->max_z};
		if (pu < lo[u] || pu > hi[u] || pv < lo[v] || pv > hi[v])
			continue;
		if (n->count == 0) {
			stack[top++] = n->first;
			stack[top++] = n->first + 1;
			continue;
		}
		for (uint32_t i = n->first; i < n->first + n->count; ++i) {
			double t[3][3];
			triangle_vertices(m, tree->triangles[i], t);
			// Barycentric weights of the line's foot in the triangle's
			// projection on the (u, v) plane.
			double w[3];
			for (int c = 0; c < 3; ++c) {
				const double *a = t[(c + 1) % 3], *b = t[(c + 2) % 3];
				w[c] = (b[u] - a[u]) * (pv - a[v]) - (b[v] - a[v]) * (pu - a[u]);
			}
			double sum = w[0] + w[1] + w[2];
			bool inside = (w[0] >= 0 && w[1] >= 0 && w[2] >= 0) || (w[0] <= 0 && w[1] <= 0 && w[2] <= 0);
			if (!inside || sum == 0.0)
				continue;
			double x = (w[0] * t[0][axis] + w[1] * t[1][axis] + w[2] * t[2][axis]) / sum;
			if (!core_grow(s->env, (void **)&s->hits, sizeof(double), &s->hit_capacity, s->hit_count + 1)) {
				s->failed = true;
				return;
			}
			s->hits[s->hit_count++] = x;
		}
	}
}

static void add_line_candidates(origin_search *s, int axis, double pu, double pv)
{
	line_hits(s, axis, pu, pv);
	// An odd count means the line grazed an edge or vertex: its intervals
	// cannot be trusted.
	if (s->failed || s->hit_count == 0 || s->hit_count % 2 != 0)
		return;
	qsort(s->hits, s->hit_count, sizeof(double), compare_double);
	int u = (axis + 1) % 3, v = (axis + 2) % 3;
	for (size_t i = 0; i + 1 < s->hit_count; i += 2) {
		double half = 0.5 * (s->hits[i + 1] - s->hits[i]);
		if (!(half > 0.0))
			continue;
		if (!core_grow(s->env, (void **)&s->cands, sizeof(origin_candidate), &s->cand_capacity,
		               s->cand_count + 1)) {
			s->failed = true;
			return;
		}
		origin_candidate *c = &s->cands[s->cand_count++];
		c->p[axis] = s->hits[i] + half;
		c->p[u] = pu;
		c->p[v] = pv;
		c->bound = half;
	}
}

// Number of lines per axis and side of the search grid, and how many exact
// distances and point-in-solid tests the search may spend: together they
// bound its cost whatever the mesh.
#define ORIGIN_LINES 16
#define ORIGIN_MAX_DISTANCES 256
#define ORIGIN_MAX_VERIFY 16
#define ORIGIN_CLIMB_STEPS 48

// The point inside the closed mesh farthest from its surface, approximately:
// midpoints of the inside intervals of a grid of axis-parallel lines are the
// candidates, the best by exact distance is verified by ref_point_in_solid,
// then climbed uphill in distance (a move shorter than the distance to the
// surface cannot leave the solid). Returns false when no inside point was
// found (or out of memory).
// Candidates from ORIGIN_LINES x ORIGIN_LINES lines along each axis.
static void collect_line_candidates(origin_search *s)
{
	const mesh_cpu *m = s->m;
	for (int axis = 0; axis < 3 && !s->failed; ++axis) {
		int u = (axis + 1) % 3, v = (axis + 2) % 3;
		double lu = m->aabb_min[u], eu = (double)m->aabb_max[u] - lu;
		double lv = m->aabb_min[v], ev = (double)m->aabb_max[v] - lv;
		for (int i = 0; i < ORIGIN_LINES && !s->failed; ++i) {
			for (int j = 0; j < ORIGIN_LINES && !s->failed; ++j) {
				// Irrational offsets keep the lines off the grids that
				// meshes are often built on.
				double fu = (i + 0.5 + 0.1180339887 * ((i + j) % 3 - 1)) / ORIGIN_LINES;
				double fv = (j + 0.5 + 0.0732050808 * ((i + 2 * j) % 3 - 1)) / ORIGIN_LINES;
				add_line_candidates(s, axis, lu + fu * eu, lv + fv * ev);
			}
		}
	}
}

static bool search_interior_point(const core_env *env, const mesh_cpu *m, double out[3], double *out_dist)
{
	origin_search s = {.env = env, .m = m};
	bool found = false;
	double best_p[3] = {0, 0, 0}, best_d = 0.0;

	collect_line_candidates(&s);
	if (s.failed || s.cand_count == 0)
		goto cleanup;

	qsort(s.cands, s.cand_count, sizeof(origin_candidate), compare_candidate);
	// Exact distances, best bound first, stopping when no remaining candidate
	// can beat the best found. The bound field then holds the distance.
	size_t evaluated = 0;
	for (size_t i = 0; i < s.cand_count && evaluated < ORIGIN_MAX_DISTANCES; ++i, ++evaluated) {
		if (evaluated > 0 && s.cands[i].bound <= s.cands[0].bound)
			break;
		s.cands[i].bound = surface_distance(m, s.cands[i].p);
		// Keep the best at index 0.
		if (i > 0 && s.cands[i].bound > s.cands[0].bound) {
			origin_candidate t = s.cands[0];
			s.cands[0] = s.cands[i];
			s.cands[i] = t;
		}
	}
	if (evaluated > 1)
		qsort(s.cands, evaluated, sizeof(origin_candidate), compare_candidate);
	for (size_t i = 0; i < evaluated && i < ORIGIN_MAX_VERIFY; ++i) {
		if (s.cands[i].bound > 0.0 && ref_point_in_solid(m, s.cands[i].p)) {
			memcpy(best_p, s.cands[i].p, sizeof(best_p));
			best_d = s.cands[i].bound;
			found = true;
			break;
		}
	}
	if (!found)
		goto cleanup;

	// Hill climb: 14 directions (axes and diagonals), step halving.
	static const double dirs[14][3] = {
		{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1},
		{0.57735026918962573, 0.57735026918962573, 0.57735026918962573},
		{0.57735026918962573, 0.57735026918962573, -0.57735026918962573},
		{0.57735026918962573, -0.57735026918962573, 0.57735026918962573},
		{0.57735026918962573, -0.57735026918962573, -0.57735026918962573},
		{-0.57735026918962573, 0.57735026918962573, 0.57735026918962573},
		{-0.57735026918962573, 0.57735026918962573, -0.57735026918962573},
		{-0.57735026918962573, -0.57735026918962573, 0.57735026918962573},
		{-0.57735026918962573, -0.57735026918962573, -0.57735026918962573},
	};
	double step = 0.5 * best_d;
	for (int it = 0; it < ORIGIN_CLIMB_STEPS && step > 1e-3 * best_d; ++it) {
		double cand_p[3] = {0, 0, 0}, cand_d = best_d;
		for (int k = 0; k < 14; ++k) {
			double q[3];
			for (int c = 0; c < 3; ++c)
				q[c] = best_p[c] + step * dirs[k][c];
			double d = surface_distance(m, q);
			if (d > cand_d) {
				cand_d = d;
				memcpy(cand_p, q, sizeof(q));
			}
		}
		if (cand_d > best_d) {
			memcpy(best_p, cand_p, sizeof(best_p));
			best_d = cand_d;
			step = step < 0.5 * best_d ? step : 0.5 * best_d;
		} else {
			step *= 0.5;
		}
	}

cleanup:
	core_free(env, s.hits);
	core_free(env, s.cands);
	if (found) {
		memcpy(out, best_p, sizeof(best_p));
		*out_dist = best_d;
	}
	return found;
}

double mesh_rounding_margin(const mesh_cpu *m)
{
	double scale = 0.0;
	for (int k = 0; k < 3; ++k)
		scale = fmax(scale, fmax(fabs(m->aabb_min[k]), fabs(m->aabb_max[k])));
	return 1e-5 * scale;
}

static void find_origin(const core_env *env, mesh_cpu *m, const double centroid[3], const double area_centroid[3])
{
	m->origin_inside = false;
	for (int k = 0; k < 3; ++k)
		m->origin[k] = (float)(m->closed ? centroid[k] : area_centroid[k]);
	if (!m->closed)
		return;

	// The origin is stored and used in float: it must be inside by a margin
	// that float rounding at the mesh's coordinates (about 6e-8 relative)
	// cannot undo. Relative to the coordinates, not the size, so that thin
	// solids (plates, shells, thin tubes) still get an inside origin.
	double margin = mesh_rounding_margin(m);

	double c[3];
	for (int k = 0; k < 3; ++k)
		c[k] = m->origin[k];
	double dc = 0.0;
	if (ref_point_in_solid(m, c) && (dc = surface_distance(m, c)) > margin) {
		m->origin_inside = true;
		m->inner_radius = dc;
		return;
	}
	double p[3], d = 0.0;
	if (search_interior_point(env, m, p, &d) && d > margin) {
		for (int k = 0; k < 3; ++k) {
			m->origin[k] = (float)p[k];
			c[k] = m->origin[k];
		}
		m->origin_inside = true;
		// Measured again at the float origin actually stored.
		m->inner_radius = surface_distance(m, c);
	}
}

// How many inside points the inner-ball search measures exactly, at most.
#define INNER_BALL_DISTANCES 1024

// Inner balls besides the origin's (closed meshes with an inside origin):
// balls inside the solid, spread over it, the largest first, so that two
// meshes whose balls overlap surely collide (the inner spheres of Weller and
// Zachmann, "Inner Sphere Trees for Proximity and Penetration Queries", RSS
// 2009, few and coarse here: only an early accept). Candidates are the
// midpoints of the inside intervals of the origin search's lines, up to
// INNER_BALL_DISTANCES of them (evenly strided), at their exact distance to
// the surface; greedily the largest whose centre lies in no ball taken yet
// (the origin's included), down to 5 % of the bounding radius. Each centre is
// stored in float, then checked inside by ray parity and measured again.
static void find_inner_balls(const core_env *env, mesh_cpu *m)
{
	m->ball_count = 0;
	if (!m->closed || !m->origin_inside)
		return;
	origin_search s = {.env = env, .m = m};
	collect_line_candidates(&s);
	if (s.failed || s.cand_count == 0)
		goto cleanup;
	size_t stride = (s.cand_count + INNER_BALL_DISTANCES - 1) / INNER_BALL_DISTANCES, n = 0;
	for (size_t i = 0; i < s.cand_count; i += stride) {
		s.cands[n] = s.cands[i];
		s.cands[n].bound = surface_distance(m, s.cands[n].p);
		n++;
	}
	qsort(s.cands, n, sizeof(origin_candidate), compare_candidate);
	double margin = mesh_rounding_margin(m), smallest = 0.05 * m->sphere_radius;
	for (size_t i = 0; i < n && m->ball_count < MESH_INNER_BALLS && s.cands[i].bound >= smallest; ++i) {
		double c[3];
		for (int k = 0; k < 3; ++k)
			c[k] = (float)s.cands[i].p[k];
		bool covered = dist2_3(c, (const double[3]){m->origin[0], m->origin[1], m->origin[2]}) <
		               m->inner_radius * m->inner_radius;
		for (uint32_t j = 0; j < m->ball_count && !covered; ++j) {
			double cj[3] = {m->balls[j][0], m->balls[j][1], m->balls[j][2]};
			covered = dist2_3(c, cj) < m->balls[j][3] * m->balls[j][3];
		}
		if (covered)
			continue;
		double d = surface_distance(m, c);
		if (d <= margin || !ref_point_in_solid(m, c))
			continue;
		float *b = m->balls[m->ball_count++];
		b[0] = (float)c[0], b[1] = (float)c[1], b[2] = (float)c[2];
		b[3] = (float)d; // rounded to nearest: the GPU takes a margin off
	}
cleanup:
	core_free(env, s.hits);
	core_free(env, s.cands);
}

// ---------------------------------------------------------------------------
// mesh_cpu

static void compute_aabb(mesh_cpu *m)
{
	for (int k = 0; k < 3; ++k) {
		m->aabb_min[k] = FLT_MAX;
		m->aabb_max[k] = -FLT_MAX;
	}
	for (uint32_t v = 0; v < m->vertex_count; ++v) {
		for (int k = 0; k < 3; ++k) {
			float x = m->positions[3 * (size_t)v + k];
			m->aabb_min[k] = x < m->aabb_min[k] ? x : m->aabb_min[k];
			m->aabb_max[k] = x > m->aabb_max[k] ? x : m->aabb_max[k];
		}
	}
}

// Moves a mesh whose AABB centre lies farther from the origin than its half
// diagonal to the origin (mesh_cpu.centre). Meshes nearer keep their
// coordinates: their float precision is already that of their size.
static void recentre(mesh_cpu *m)
{
	double c[3], half2 = 0.0, far = 0.0;
	for (int k = 0; k < 3; ++k) {
		c[k] = 0.5 * ((double)m->aabb_min[k] + m->aabb_max[k]);
		double h = 0.5 * ((double)m->aabb_max[k] - m->aabb_min[k]);
		half2 += h * h;
		far = fmax(far, fabs(c[k]));
		m->centre[k] = 0.0f;
	}
	if (m->vertex_count == 0 || far <= sqrt(half2))
		return;
	for (int k = 0; k < 3; ++k)
		m->centre[k] = (float)c[k];
	for (size_t i = 0; i < 3 * (size_t)m->vertex_count; ++i)
		m->positions[i] = (float)((double)m->positions[i] - m->centre[i % 3]);
	compute_aabb(m);
}

vkcol_result mesh_cpu_build(const core_env *env, const vkcol_mesh_desc *desc, mesh_cpu *out)
{
	vkcol_result res = VKCOL_SUCCESS;
	vkcol_mesh_problem problem;
	if (out == NULL)
		return VKCOL_ERROR_INVALID_ARGUMENT;
	memset(out, 0, sizeof(*out));
	const char *name = desc != NULL && desc->name != NULL ? desc->name : "mesh";
	snprintf(out->name, sizeof(out->name), "%s", name);

	if (check_desc(desc, &problem) != VKCOL_SUCCESS) {
		CORE_ERROR(env, "mesh '%s': %s", out->name, problem.message);
		return problem.result;
	}

	uint32_t nv = desc->vertex_count, nt = desc->triangle_count;
	size_t stride = desc->positions_stride ? desc->positions_stride : 3 * sizeof(float);
	out->vertex_count = nv;
	out->triangle_count = nt;
	out->positions = core_alloc(env, 3 * (size_t)nv * sizeof(float));
	out->indices = core_alloc(env, 3 * (size_t)nt * sizeof(uint32_t));
	out->weld = core_alloc(env, (size_t)nv * sizeof(uint32_t));
	if (out->positions == NULL || out->indices == NULL || out->weld == NULL) {
		res = VKCOL_ERROR_OUT_OF_HOST_MEMORY;
		goto cleanup;
	}
	for (uint32_t v = 0; v < nv; ++v)
		memcpy(out->positions + 3 * (size_t)v, vertex_at(desc, stride, v), 3 * sizeof(float));
	memcpy(out->indices, desc->indices, 3 * (size_t)nt * sizeof(uint32_t));

	compute_aabb(out);
	recentre(out);

	TRY(weld_vertices(env, out));
	TRY(analyse_topology(env, out));
	double volume, centroid[3], area_centroid[3];
	double area2;
	mass_properties(out, &volume, centroid, area_centroid, &area2);
	out->volume = out->closed ? fabs(volume) : 0.0;
	bounding_sphere(out);

	uint32_t leaf_size = desc->leaf_size ? desc->leaf_size : MESH_DEFAULT_LEAF_SIZE;
	uint32_t max_depth = desc->max_depth ? desc->max_depth : MESH_DEFAULT_MAX_DEPTH;
	aabb_split split = desc->tree_split == VKCOL_TREE_SPLIT_TWO_CENTRES ? AABB_SPLIT_TWO_CENTRES : AABB_SPLIT_SAH;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	TRY(aabb_tree_build(env, out->positions, out->indices, nt, leaf_size, max_depth, split, &out->tree));
	if (desc->leaf_size == 0 && leaf_size > 1 && nt <= MESH_FINE_TREE_MAX)
		TRY(aabb_tree_build(env, out->positions, out->indices, nt, 1, max_depth, split, &out->fine_tree));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out->tree_seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
	// The square root of the mean area of the triangles that have one: the
	// degenerate ones, counted by analyse_topology, have none.
	uint32_t with_area = nt - out->degenerate_count;
	out->triangle_scale = with_area ? (float)sqrt(0.5 * area2 / with_area) : 0.0f;
	out->leaf_thickness = leaf_thickness(&out->tree);

	find_origin(env, out, centroid, area_centroid);
	find_inner_balls(env, out);

cleanup:
	if (res != VKCOL_SUCCESS) {
		CORE_ERROR(env, "mesh '%s': %s while analysing %u vertices and %u triangles", out->name,
		           vkcol_result_string(res), nv, nt);
		mesh_cpu_free(env, out);
	}
	return res;
}

void mesh_cpu_free(const core_env *env, mesh_cpu *mesh)
{
	if (mesh == NULL)
		return;
	core_free(env, mesh->positions);
	core_free(env, mesh->indices);
	core_free(env, mesh->weld);
	aabb_tree_free(env, &mesh->tree);
	aabb_tree_free(env, &mesh->fine_tree);
	memset(mesh, 0, sizeof(*mesh));
}
