// SPDX-License-Identifier: MIT
// Double-precision CPU reference: the definitions the GPU stages are tested
// against, written for clarity and robustness rather than speed.
//
// Sources:
// - Ray/triangle: T. Möller and B. Trumbore, "Fast, Minimum Storage
//   Ray/Triangle Intersection", Journal of Graphics Tools 2(1), 1997. We keep
//   the determinant and the barycentric numerators unscaled, so that each can
//   be compared with a bound on its own rounding error.
// - Point in solid by ray parity (Jordan curve theorem), several rays and a
//   majority vote; rays that pass too close to an edge, a vertex or along a
//   triangle's plane are discarded rather than trusted.
// - Tree against tree: simultaneous descent of two bounding-volume trees
//   (CN 102663825, the LiveSet traversal, here depth first), B's boxes
//   carried into A's frame with the |R| extent method (Arvo, "Transforming
//   Axis-Aligned Bounding Boxes", Graphics Gems, 1990).
#include "geometry/reference.h"

#include "geometry/tri_dist.h"
#include "geometry/vec3d.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Fixed-size traversal stacks. A descent of two trees splits one node per
// step and keeps its sibling: at most the two depths + 1 entries, within
// twice one tree's stack.
#define REF_STACK_SIZE (2 * AABB_TREE_STACK)

// Relative tolerance of the ray/triangle classification: a point this close
// (relative to the lengths involved) to a triangle's plane and inside it is
// on the surface; a ray this close to an edge or a vertex is not trusted.
// About 5000 times the rounding error of the products computed (a few ulps
// of 1.1e-16), so that only what rounding could decide either way is
// withheld; far below what float input can resolve (~6e-8), so that the
// oracle sees gaps of 1e-9 as gaps.
#define REF_EPS 1e-12

// Relative padding of boxes used only to cull (never to decide): generous.
#define REF_TOL 1e-9

bool ref_pose_transform(const vkcol_pose *pose, ref_transform *out)
{
	if (pose == NULL || out == NULL)
		return false;
	double w = pose->rotation[0], x = pose->rotation[1], y = pose->rotation[2], z = pose->rotation[3];
	double n2 = w * w + x * x + y * y + z * z;
	if (!isfinite(n2) || n2 <= 0.0)
		return false;
	for (int k = 0; k < 3; ++k) {
		if (!isfinite(pose->translation[k]))
			return false;
	}
	double n = sqrt(n2);
	w /= n;
	x /= n;
	y /= n;
	z /= n;
	// Hamilton convention, w first: the rotation taking x to q x q*.
	out->r[0][0] = 1.0 - 2.0 * (y * y + z * z);
	out->r[0][1] = 2.0 * (x * y - w * z);
	out->r[0][2] = 2.0 * (x * z + w * y);
	out->r[1][0] = 2.0 * (x * y + w * z);
	out->r[1][1] = 1.0 - 2.0 * (x * x + z * z);
	out->r[1][2] = 2.0 * (y * z - w * x);
	out->r[2][0] = 2.0 * (x * z - w * y);
	out->r[2][1] = 2.0 * (y * z + w * x);
	out->r[2][2] = 1.0 - 2.0 * (x * x + y * y);
	for (int k = 0; k < 3; ++k)
		out->t[k] = pose->translation[k];
	return true;
}

ref_transform ref_relative(const ref_transform *a, const ref_transform *b)
{
	// inverse(a) x = a.r^T (x - a.t), so inverse(a) b x = a.r^T b.r x + a.r^T (b.t - a.t).
	ref_transform out;
	double dt[3] = {b->t[0] - a->t[0], b->t[1] - a->t[1], b->t[2] - a->t[2]};
	for (int i = 0; i < 3; ++i) {
		for (int j = 0; j < 3; ++j)
			out.r[i][j] = a->r[0][i] * b->r[0][j] + a->r[1][i] * b->r[1][j] + a->r[2][i] * b->r[2][j];
		out.t[i] = a->r[0][i] * dt[0] + a->r[1][i] * dt[1] + a->r[2][i] * dt[2];
	}
	return out;
}

static void transform_point(const ref_transform *t, const double p[3], double out[3])
{
	for (int i = 0; i < 3; ++i)
		out[i] = t->r[i][0] * p[0] + t->r[i][1] * p[1] + t->r[i][2] * p[2] + t->t[i];
}

static void inverse_transform_point(const ref_transform *t, const double p[3], double out[3])
{
	double d[3] = {p[0] - t->t[0], p[1] - t->t[1], p[2] - t->t[2]};
	for (int i = 0; i < 3; ++i)
		out[i] = t->r[0][i] * d[0] + t->r[1][i] * d[1] + t->r[2][i] * d[2];
}

static void load_vertex(const mesh_cpu *mesh, uint32_t v, double out[3])
{
	const float *p = mesh->positions + 3 * (size_t)v;
	out[0] = p[0];
	out[1] = p[1];
	out[2] = p[2];
}

static double len3(const double a[3])
{
	return sqrt(dot3(a, a));
}

// ---------------------------------------------------------------------------
// Point in solid

typedef enum ray_outcome {
	RAY_MISS,
	RAY_HIT,
	RAY_UNCLEAR,    // too close to an edge, a vertex or the triangle's plane
	RAY_ON_SURFACE, // the origin lies on the triangle
} ray_outcome;

// Möller–Trumbore with unscaled numerators: u = un / det, v = vn / det,
// t = tn / det. Each numerator is compared with REF_EPS times the product of
// the lengths it is made of, a safe multiple of its rounding error.
static ray_outcome ray_triangle(const double o[3], const double d[3], const double v0[3], const double v1[3],
                                const double v2[3])
{
	double e1[3], e2[3], s[3], pv[3], qv[3];
	sub3(v1, v0, e1);
	sub3(v2, v0, e2);
	sub3(o, v0, s);
	cross3(d, e2, pv);
	double det = dot3(e1, pv);
	double un = dot3(s, pv);
	cross3(s, e1, qv);
	double vn = dot3(d, qv);
	double tn = dot3(e2, qv);

	double le1 = len3(e1), le2 = len3(e2), ls = len3(s);
	double tol_det = REF_EPS * le1 * le2;
	double tol_u = REF_EPS * ls * le2;
	double tol_v = REF_EPS * ls * le1;
	double tol_t = REF_EPS * ls * le1 * le2;

	if (fabs(det) <= tol_det) {
		// Nearly parallel: a hit needs |un|, |vn| <= |det|, so both tiny; the
		// ray then runs along the triangle's plane close to it. Not trusted.
		if (fabs(un) <= tol_u + tol_det && fabs(vn) <= tol_v + tol_det)
			return RAY_UNCLEAR;
		return RAY_MISS;
	}
	if (det < 0.0) {
		det = -det;
		un = -un;
		vn = -vn;
		tn = -tn;
	}
	double wn = det - un - vn;
	double tol_w = tol_det + tol_u + tol_v;
	bool outside = un < -tol_u || vn < -tol_v || wn < -tol_w;
	if (fabs(tn) <= tol_t)
		return outside ? RAY_MISS : RAY_ON_SURFACE;
	if (tn < 0.0 || outside)
		return RAY_MISS;
	if (un <= tol_u || vn <= tol_v || wn <= tol_w)
		return RAY_UNCLEAR;
	return RAY_HIT;
}

static bool ray_box(const double o[3], const double inv_d[3], const vkcol_gpu_node *n, double pad)
{
	double enter, exit;
	aabb_tree_ray_span(n, o, inv_d, pad, &enter, &exit);
	return enter <= exit;
}

// Casts one ray; on RAY_HIT *parity holds the number of crossings mod 2.
static ray_outcome cast_parity(const mesh_cpu *mesh, const double o[3], const double d[3], double pad,
                               int *parity)
{
	const aabb_tree *tree = &mesh->tree;
	double inv_d[3] = {1.0 / d[0], 1.0 / d[1], 1.0 / d[2]};
	uint32_t stack[AABB_TREE_STACK];
	uint32_t top = 0;
	int crossings = 0;
	stack[top++] = 0;
	while (top > 0) {
		const vkcol_gpu_node *n = &tree->nodes[stack[--top]];
		if (!ray_box(o, inv_d, n, pad))
			continue;
		if (n->count == 0) {
			stack[top++] = n->first;
			stack[top++] = n->first + 1;
			continue;
		}
		for (uint32_t i = n->first; i < n->first + n->count; ++i) {
			const uint32_t *tri = mesh->indices + 3 * (size_t)tree->triangles[i];
			double v0[3], v1[3], v2[3];
			load_vertex(mesh, tri[0], v0);
			load_vertex(mesh, tri[1], v1);
			load_vertex(mesh, tri[2], v2);
			ray_outcome r = ray_triangle(o, d, v0, v1, v2);
			if (r == RAY_ON_SURFACE || r == RAY_UNCLEAR)
				return r;
			crossings += r == RAY_HIT;
		}
	}
	*parity = crossings & 1;
	return RAY_HIT;
}

// Unit-length after normalisation; components chosen with no simple ratios
// between them, so that meshes built on grids or with symmetric vertices do
// not line up with them. More directions come from a golden-angle spiral.
static const double ray_directions[][3] = {
	{0.5772156649, 0.3183098862, 0.7519884301},  {-0.4142135624, 0.6931471806, 0.5875104512},
	{0.2360679775, -0.8314429339, 0.3090169944}, {-0.6180339887, -0.2718281828, -0.7320508076},
	{0.9101974457, 0.1411200081, -0.3891820298}, {-0.1234567891, 0.9092974268, -0.3978902321},
	{0.3665129206, -0.4472135955, -0.8154238301}, {-0.7853981634, 0.4342944819, 0.4404468234},
};

static void ray_direction(uint32_t k, double d[3])
{
	if (k < CORE_COUNT_OF(ray_directions)) {
		memcpy(d, ray_directions[k], sizeof(double[3]));
	} else {
		double golden = 2.39996322972865332; // golden angle, radians
		double z = 1.0 - 2.0 * ((double)(k % 97) + 0.5) / 97.0;
		double r = sqrt(1.0 - z * z);
		d[0] = r * cos(golden * k + 0.1);
		d[1] = r * sin(golden * k + 0.1);
		d[2] = z;
	}
	double l = len3(d);
	d[0] /= l;
	d[1] /= l;
	d[2] /= l;
}

bool ref_point_in_solid(const mesh_cpu *mesh, const double p[3])
{
	if (mesh == NULL || mesh->tree.nodes == NULL || p == NULL)
		return false;
	double scale = 0.0;
	for (int k = 0; k < 3; ++k) {
		scale = fmax(scale, fabs(mesh->aabb_min[k]));
		scale = fmax(scale, fabs(mesh->aabb_max[k]));
		scale = fmax(scale, fabs(p[k]));
	}
	double pad = REF_TOL * scale + 1e-300;
	// Outside the box (by more than the on-surface tolerance) is outside.
	for (int k = 0; k < 3; ++k) {
		if (p[k] < mesh->aabb_min[k] - pad || p[k] > mesh->aabb_max[k] + pad)
			return false;
	}

	int votes[2] = {0, 0};
	for (uint32_t k = 0; k < 64; ++k) {
		double d[3];
		int parity = 0;
		ray_direction(k, d);
		ray_outcome r = cast_parity(mesh, p, d, pad, &parity);
		if (r == RAY_ON_SURFACE)
			return true;
		if (r == RAY_UNCLEAR)
			continue;
		votes[parity]++;
		// Majority of three clean rays; two that agree already decide it.
		if (votes[0] >= 2 || votes[1] >= 2)
			break;
	}
	// Rays that were all unclear mean the point is within the tolerance of
	// many edges: closer to the surface than anything float data resolves.
	if (votes[0] == 0 && votes[1] == 0)
		return true;
	return votes[1] > votes[0];
}

// ---------------------------------------------------------------------------
// Surface against surface

typedef struct box3 {
	double lo[3], hi[3];
} box3;

static box3 node_box(const vkcol_gpu_node *n)
{
	box3 b = {{n->min_x, n->min_y, n->min_z}, {n->max_x, n->max_y, n->max_z}};
	return b;
}

// The box, in A's frame, of B's node box under b_in_a: centre transformed,
// half extents through |R| (Arvo). Inflated to cover the rounding of the
// vertex transforms done later in double.
static box3 transformed_box(const vkcol_gpu_node *n, const ref_transform *t)
{
	double c[3] = {0.5 * ((double)n->min_x + n->max_x), 0.5 * ((double)n->min_y + n->max_y),
	               0.5 * ((double)n->min_z + n->max_z)};
	double h[3] = {0.5 * ((double)n->max_x - n->min_x), 0.5 * ((double)n->max_y - n->min_y),
	               0.5 * ((double)n->max_z - n->min_z)};
	double tc[3];
	transform_point(t, c, tc);
	box3 b;
	double mag = fabs(c[0]) + fabs(c[1]) + fabs(c[2]) + h[0] + h[1] + h[2];
	for (int i = 0; i < 3; ++i) {
		double e = fabs(t->r[i][0]) * h[0] + fabs(t->r[i][1]) * h[1] + fabs(t->r[i][2]) * h[2];
		double pad = REF_TOL * (mag + fabs(t->t[i]) + e) + 1e-300;
		b.lo[i] = tc[i] - e - pad;
		b.hi[i] = tc[i] + e + pad;
	}
	return b;
}

static bool boxes_overlap(const box3 *a, const box3 *b)
{
	for (int i = 0; i < 3; ++i) {
		if (a->hi[i] < b->lo[i] || b->hi[i] < a->lo[i])
			return false;
	}
	return true;
}

static box3 tri_box(double v[3][3])
{
	box3 b;
	for (int i = 0; i < 3; ++i) {
		b.lo[i] = fmin(v[0][i], fmin(v[1][i], v[2][i]));
		b.hi[i] = fmax(v[0][i], fmax(v[1][i], v[2][i]));
	}
	return b;
}

// Calls visit for every intersecting triangle pair of two leaves; returns
// false as soon as visit does (the search stops).
static bool visit_leaves(const mesh_cpu *a, const vkcol_gpu_node *la, const mesh_cpu *b, const vkcol_gpu_node *lb,
                         const ref_transform *b_in_a, ref_pair_visit visit, void *user)
{
	for (uint32_t j = lb->first; j < lb->first + lb->count; ++j) {
		uint32_t orig_b = b->tree.triangles[j];
		const uint32_t *tb = b->indices + 3 * (size_t)orig_b;
		double q[3][3];
		for (int c = 0; c < 3; ++c) {
			double v[3];
			load_vertex(b, tb[c], v);
			transform_point(b_in_a, v, q[c]);
		}
		// Exact cull: both boxes come from the very coordinates the
		// predicate sees, so disjoint boxes mean disjoint triangles.
		box3 qb = tri_box(q);
		for (uint32_t i = la->first; i < la->first + la->count; ++i) {
			uint32_t orig_a = a->tree.triangles[i];
			const uint32_t *ta = a->indices + 3 * (size_t)orig_a;
			double p[3][3];
			for (int c = 0; c < 3; ++c)
				load_vertex(a, ta[c], p[c]);
			box3 pb = tri_box(p);
			// The cast: C17 does not convert double (*)[3] to const double (*)[3].
			if (boxes_overlap(&pb, &qb) && tri_tri_intersect((const double(*)[3])p, (const double(*)[3])q) &&
			    !visit(user, orig_a, orig_b))
				return false;
		}
	}
	return true;
}

static double box_size(const vkcol_gpu_node *n)
{
	return ((double)n->max_x - n->min_x) + ((double)n->max_y - n->min_y) + ((double)n->max_z - n->min_z);
}

bool ref_surface_pairs(const mesh_cpu *a, const mesh_cpu *b, const ref_transform *b_in_a, ref_pair_visit visit,
                       void *user)
{
	if (a == NULL || b == NULL || b_in_a == NULL || a->tree.nodes == NULL || b->tree.nodes == NULL)
		return true;
	uint32_t stack[REF_STACK_SIZE][2];
	uint32_t top = 0;
	stack[top][0] = 0;
	stack[top][1] = 0;
	top++;
	while (top > 0) {
		top--;
		const vkcol_gpu_node *na = &a->tree.nodes[stack[top][0]];
		const vkcol_gpu_node *nb = &b->tree.nodes[stack[top][1]];
		uint32_t ia = stack[top][0], ib = stack[top][1];
		box3 ba = node_box(na), bb = transformed_box(nb, b_in_a);
		if (!boxes_overlap(&ba, &bb))
			continue;
		bool leaf_a = na->count > 0, leaf_b = nb->count > 0;
		if (leaf_a && leaf_b) {
			if (!visit_leaves(a, na, b, nb, b_in_a, visit, user))
				return false;
			continue;
		}
		// Descend into the internal node, or the larger of two internal
		// nodes, so that the boxes compared stay of similar size.
		bool split_a = !leaf_a && (leaf_b || box_size(na) >= box_size(nb));
		if (split_a) {
			stack[top][0] = na->first;
			stack[top][1] = ib;
			stack[top + 1][0] = na->first + 1;
			stack[top + 1][1] = ib;
		} else {
			stack[top][0] = ia;
			stack[top][1] = nb->first;
			stack[top + 1][0] = ia;
			stack[top + 1][1] = nb->first + 1;
		}
		top += 2;
	}
	return true;
}

static bool stop_at_first(void *user, uint32_t triangle_a, uint32_t triangle_b)
{
	(void)triangle_a;
	(void)triangle_b;
	*(bool *)user = true;
	return false;
}

bool ref_surfaces_intersect(const mesh_cpu *a, const mesh_cpu *b, const ref_transform *b_in_a)
{
	bool found = false;
	ref_surface_pairs(a, b, b_in_a, stop_at_first, &found);
	return found;
}

// Distance between two boxes (0 when they overlap).
static double box_distance(const box3 *a, const box3 *b)
{
	double d2 = 0.0;
	for (int i = 0; i < 3; ++i) {
		double gap = fmax(fmax(b->lo[i] - a->hi[i], a->lo[i] - b->hi[i]), 0.0);
		d2 += gap * gap;
	}
	return sqrt(d2);
}

// A leaf's triangle i (tree order) in A's frame (b_in_a: NULL for A itself).
static void leaf_triangle(const mesh_cpu *m, uint32_t i, const ref_transform *b_in_a, double out[3][3])
{
	const uint32_t *t = m->indices + 3 * (size_t)m->tree.triangles[i];
	for (int c = 0; c < 3; ++c) {
		double v[3];
		load_vertex(m, t[c], v);
		if (b_in_a)
			transform_point(b_in_a, v, out[c]);
		else
			memcpy(out[c], v, sizeof(v));
	}
}

double ref_surface_distance(const mesh_cpu *a, const mesh_cpu *b, const ref_transform *b_in_a)
{
	double best = INFINITY;
	if (a == NULL || b == NULL || b_in_a == NULL || a->tree.nodes == NULL || b->tree.nodes == NULL)
		return best;
	uint32_t stack[REF_STACK_SIZE][2];
	uint32_t top = 0;
	stack[top][0] = 0;
	stack[top][1] = 0;
	top++;
	while (top > 0 && best > 0.0) {
		top--;
		uint32_t ia = stack[top][0], ib = stack[top][1];
		const vkcol_gpu_node *na = &a->tree.nodes[ia], *nb = &b->tree.nodes[ib];
		box3 ba = node_box(na), bb = transformed_box(nb, b_in_a);
		if (box_distance(&ba, &bb) >= best)
			continue;
		bool leaf_a = na->count > 0, leaf_b = nb->count > 0;
		if (leaf_a && leaf_b) {
			for (uint32_t j = nb->first; j < nb->first + nb->count; ++j) {
				double q[3][3];
				leaf_triangle(b, j, b_in_a, q);
				for (uint32_t i = na->first; i < na->first + na->count; ++i) {
					double p[3][3];
					leaf_triangle(a, i, NULL, p);
					best = fmin(best, tri_tri_distance((const double(*)[3])p, (const double(*)[3])q));
				}
			}
			continue;
		}
		// Split as ref_surface_pairs does; the nearer child is pushed last,
		// so it is searched first and the bound tightens early.
		bool split_a = !leaf_a && (leaf_b || box_size(na) >= box_size(nb));
		uint32_t c0[2] = {split_a ? na->first : ia, split_a ? ib : nb->first};
		uint32_t c1[2] = {split_a ? na->first + 1 : ia, split_a ? ib : nb->first + 1};
		box3 x0 = split_a ? node_box(&a->tree.nodes[c0[0]]) : transformed_box(&b->tree.nodes[c0[1]], b_in_a);
		box3 x1 = split_a ? node_box(&a->tree.nodes[c1[0]]) : transformed_box(&b->tree.nodes[c1[1]], b_in_a);
		const box3 *other = split_a ? &bb : &ba;
		bool first_nearer = box_distance(&x0, other) <= box_distance(&x1, other);
		const uint32_t *near = first_nearer ? c0 : c1, *far = first_nearer ? c1 : c0;
		stack[top][0] = far[0];
		stack[top][1] = far[1];
		stack[top + 1][0] = near[0];
		stack[top + 1][1] = near[1];
		top += 2;
	}
	return best;
}

// ---------------------------------------------------------------------------
// Full semantics

static uint32_t find_root(uint32_t *parent, uint32_t v)
{
	while (parent[v] != v) {
		parent[v] = parent[parent[v]]; // path halving
		v = parent[v];
	}
	return v;
}

static bool point_in_box(const mesh_cpu *m, const double p[3])
{
	for (int k = 0; k < 3; ++k) {
		double pad = REF_TOL * (fabs(m->aabb_min[k]) + fabs(m->aabb_max[k]) + fabs(p[k])) + 1e-300;
		if (p[k] < m->aabb_min[k] - pad || p[k] > m->aabb_max[k] + pad)
			return false;
	}
	return true;
}

// Is a vertex of `inner` inside `outer`? One vertex per connected component
// of inner's surface suffices when the surfaces do not intersect: a
// component that does not cross outer's surface is wholly inside or wholly
// outside it. `to_outer` maps inner's coordinates into outer's frame (NULL:
// use the inverse of `from_outer`).
static bool any_component_inside(const core_env *env, const mesh_cpu *inner, const mesh_cpu *outer,
                                  const ref_transform *to_outer, const ref_transform *from_outer)
{
	uint32_t *parent = core_calloc(env, inner->vertex_count, sizeof(uint32_t));
	uint8_t *tried = core_calloc(env, inner->vertex_count, 1);
	bool components = parent != NULL && tried != NULL;
	bool inside = false;
	if (components) {
		for (uint32_t v = 0; v < inner->vertex_count; ++v)
			parent[v] = v;
		for (uint32_t t = 0; t < inner->triangle_count; ++t) {
			const uint32_t *tri = inner->indices + 3 * (size_t)t;
			uint32_t r0 = find_root(parent, inner->weld[tri[0]]);
			for (int c = 1; c < 3; ++c) {
				uint32_t r = find_root(parent, inner->weld[tri[c]]);
				if (r != r0)
					parent[r] = r0;
			}
		}
	}
	// Without memory for the components, every vertex is tried: slower,
	// same answer.
	for (uint32_t t = 0; t < inner->triangle_count && !inside; ++t) {
		uint32_t v = inner->indices[3 * (size_t)t];
		if (components) {
			uint32_t r = find_root(parent, inner->weld[v]);
			if (tried[r])
				continue;
			tried[r] = 1;
		}
		double p[3], q[3];
		load_vertex(inner, v, p);
		if (to_outer != NULL)
			transform_point(to_outer, p, q);
		else
			inverse_transform_point(from_outer, p, q);
		inside = point_in_box(outer, q) && ref_point_in_solid(outer, q);
	}
	core_free(env, parent);
	core_free(env, tried);
	return inside;
}

bool ref_collide_env(const core_env *env, const mesh_cpu *a, const mesh_cpu *b, const ref_transform *b_in_a)
{
	if (ref_surfaces_intersect(a, b, b_in_a))
		return true;
	if (!a->closed || !b->closed)
		return false;
	return any_component_inside(env, b, a, b_in_a, NULL) || any_component_inside(env, a, b, NULL, b_in_a);
}

bool ref_pair_transform(const mesh_cpu *a, const mesh_cpu *b, const vkcol_pose *pose_a, const vkcol_pose *pose_b,
                        ref_transform *out)
{
	ref_transform ta, tb;
	if (!ref_pose_transform(pose_a, &ta) || !ref_pose_transform(pose_b, &tb))
		return false;
	// x_a + ca = rel (x_b + cb): x_a = rel.r x_b + (rel.r cb + rel.t - ca).
	*out = ref_relative(&ta, &tb);
	for (int i = 0; i < 3; ++i)
		out->t[i] += out->r[i][0] * b->centre[0] + out->r[i][1] * b->centre[1] + out->r[i][2] * b->centre[2] -
		             a->centre[i];
	return true;
}

bool ref_pair_pose(const mesh_cpu *a, const mesh_cpu *b, const vkcol_pose *pose_a, const vkcol_pose *pose_b,
                   vkcol_pose *out)
{
	ref_transform rel;
	if (!ref_pair_transform(a, b, pose_a, pose_b, &rel))
		return false;
	// conj(qa) qb (Hamilton, w first), whose rotation is Ra^T Rb = rel.r.
	double qa[4], qb[4], na = 0.0, nb = 0.0;
	for (int k = 0; k < 4; ++k) {
		qa[k] = pose_a->rotation[k];
		qb[k] = pose_b->rotation[k];
		na += qa[k] * qa[k];
		nb += qb[k] * qb[k];
	}
	double s = 1.0 / sqrt(na * nb);
	double w = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
	double x = qa[0] * qb[1] - qb[0] * qa[1] - (qa[2] * qb[3] - qa[3] * qb[2]);
	double y = qa[0] * qb[2] - qb[0] * qa[2] - (qa[3] * qb[1] - qa[1] * qb[3]);
	double z = qa[0] * qb[3] - qb[0] * qa[3] - (qa[1] * qb[2] - qa[2] * qb[1]);
	out->rotation[0] = (float)(w * s);
	out->rotation[1] = (float)(x * s);
	out->rotation[2] = (float)(y * s);
	out->rotation[3] = (float)(z * s);
	for (int k = 0; k < 3; ++k)
		out->translation[k] = (float)rel.t[k];
	return true;
}

bool ref_collide(const mesh_cpu *a, const mesh_cpu *b, const ref_transform *b_in_a)
{
	if (a == NULL || b == NULL || b_in_a == NULL)
		return false;
	core_env env;
	core_env_init(&env, NULL, NULL, NULL, VKCOL_LOG_DEFAULT);
	return ref_collide_env(&env, a, b, b_in_a);
}

typedef struct pair_collector {
	vkcol_triangle_pair *entries;
	uint64_t capacity, count;
} pair_collector;

static bool collect_pair(void *user, uint32_t triangle_a, uint32_t triangle_b)
{
	pair_collector *c = user;
	if (c->count < c->capacity)
		c->entries[c->count] = (vkcol_triangle_pair){0, triangle_a, triangle_b};
	c->count++;
	return true;
}

static int compare_triangle_pairs(const void *x, const void *y)
{
	const vkcol_triangle_pair *a = x, *b = y;
	if (a->pair != b->pair)
		return a->pair < b->pair ? -1 : 1;
	if (a->triangle_a != b->triangle_a)
		return a->triangle_a < b->triangle_a ? -1 : 1;
	if (a->triangle_b != b->triangle_b)
		return a->triangle_b < b->triangle_b ? -1 : 1;
	return 0;
}

void ref_sort_triangle_pairs(vkcol_triangle_pair *entries, uint64_t count)
{
	if (count > 1)
		qsort(entries, count, sizeof(*entries), compare_triangle_pairs);
}

uint64_t ref_triangle_pairs(const mesh_cpu *a, const mesh_cpu *b, const ref_transform *b_in_a,
                            vkcol_triangle_pair *entries, uint64_t capacity)
{
	pair_collector c = {entries, capacity, 0};
	ref_surface_pairs(a, b, b_in_a, collect_pair, &c);
	ref_sort_triangle_pairs(entries, c.count < capacity ? c.count : capacity);
	return c.count;
}

// The largest absolute coordinate of m's stored box.
static double box_magnitude(const mesh_cpu *m)
{
	double mag = 0.0;
	for (int k = 0; k < 3; ++k)
		mag = fmax(mag, fmax(fabs(m->aabb_min[k]), fabs(m->aabb_max[k])));
	return mag;
}

double ref_touch_distance(const mesh_cpu *a, const mesh_cpu *b, const ref_transform *b_in_a)
{
	double t = sqrt(dot3(b_in_a->t, b_in_a->t));
	double magnitude = fmax(box_magnitude(a), t + box_magnitude(b));
	return 2e-6 * fmin(a->sphere_radius, b->sphere_radius) + 1e-12 * magnitude;
}
