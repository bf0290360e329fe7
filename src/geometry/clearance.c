// SPDX-License-Identifier: MIT
// Clearance field of a distance cube map (clearance.h). Used, like the cone
// bounds, to skip vertex clusters in the cube-map test of Intel's
// US 7,928,993. Point-to-triangle distance: mesh_cpu.c's closest point by the
// Voronoi regions of C. Ericson, "Real-Time Collision Detection" (Morgan
// Kaufmann, 2005), section 5.1.5, with an edge fallback for triangles
// without area.

#include "geometry/clearance.h"

#include "geometry/vec3d.h"

#include <math.h>
#include <string.h>

static double segment_distance(const double p[3], const double a[3], const double b[3])
{
	double ab[3], ap[3];
	sub3(b, a, ab);
	sub3(p, a, ap);
	double l2 = dot3(ab, ab), s = l2 > 0 ? dot3(ap, ab) / l2 : 0;
	s = s < 0 ? 0 : s > 1 ? 1 : s;
	double d[3] = {ap[0] - s * ab[0], ap[1] - s * ab[1], ap[2] - s * ab[2]};
	return sqrt(dot3(d, d));
}

// Distance from p to triangle abc (mesh_point_triangle_dist2, Ericson's
// closest point); a triangle without area, for which that can give NaN,
// by its edges.
static double triangle_distance(const double p[3], const double a[3], const double b[3], const double c[3])
{
	double ab[3], ac[3], n[3];
	sub3(b, a, ab);
	sub3(c, a, ac);
	cross3(ab, ac, n);
	if (!(dot3(n, n) > 0)) {
		double d = segment_distance(p, a, b);
		d = fmin(d, segment_distance(p, b, c));
		return fmin(d, segment_distance(p, c, a));
	}
	return sqrt(mesh_point_triangle_dist2(p, a, b, c));
}

double clearance_tet_distance(const double p[3], const double o[3], const double a[3], const double b[3],
                              const double c[3])
{
	// Inside: on the inner side of all four faces (a flat tetrahedron has
	// no inside; its faces' distances are then exact).
	const double *v[4] = {o, a, b, c};
	static const int face[4][4] = {{1, 2, 3, 0}, {0, 3, 2, 1}, {0, 1, 3, 2}, {0, 2, 1, 3}};
	bool inside = true;
	for (int f = 0; f < 4 && inside; f++) {
		double e1[3], e2[3], n[3], q[3], r[3];
		sub3(v[face[f][1]], v[face[f][0]], e1);
		sub3(v[face[f][2]], v[face[f][0]], e2);
		cross3(e1, e2, n);
		sub3(p, v[face[f][0]], q);
		sub3(v[face[f][3]], v[face[f][0]], r);
		double side = dot3(n, r);
		inside = side != 0 && dot3(n, q) * side >= 0;
	}
	if (inside)
		return 0;
	double d = triangle_distance(p, a, b, c);
	d = fmin(d, triangle_distance(p, o, a, b));
	d = fmin(d, triangle_distance(p, o, b, c));
	return fmin(d, triangle_distance(p, o, c, a));
}

// Distance from p to the convex hull of the origin (0) and the ball (c, r),
// positions relative to the origin: a cone from the origin capped by the
// ball. Every tetrahedron (origin, triangle) with the triangle in the ball
// lies in it.
static double hull_distance(const double p[3], const double c[3], double r)
{
	double pc[3];
	sub3(p, c, pc);
	double dc = sqrt(dot3(pc, pc));
	if (dc <= r)
		return 0;
	double lc = sqrt(dot3(c, c)), lp = sqrt(dot3(p, p));
	if (lc <= r)
		return dc - r; // the ball holds the origin: the hull is the ball
	if (lp == 0)
		return 0;
	// Angles by their cosines and sines: theta between p and the axis,
	// alpha the cone's half-angle, phi = theta - alpha.
	double cos_t = dot3(p, c) / (lp * lc);
	cos_t = cos_t > 1 ? 1 : cos_t < -1 ? -1 : cos_t;
	double sin_t = sqrt(1 - cos_t * cos_t);
	double tangent = sqrt(lc * lc - r * r); // from the origin to where the cone meets the ball
	double cos_a = tangent / lc, sin_a = r / lc;
	if (cos_t >= cos_a)
		return lp * cos_t * lc <= tangent * tangent ? 0 : dc - r;
	double cos_phi = cos_t * cos_a + sin_t * sin_a, sin_phi = sin_t * cos_a - cos_t * sin_a;
	if (cos_phi <= 0)
		return lp;
	return lp * cos_phi <= tangent ? lp * sin_phi : dc - r;
}

typedef struct search {
	const mesh_cpu *m;
	double o[3];
	double best;
	double enough; // a best at most this ends the walk
} search;

static double node_bound(const search *s, const vkcol_gpu_node *n, const double p[3])
{
	double c[3], r2 = 0;
	const float lo[3] = {n->min_x, n->min_y, n->min_z}, hi[3] = {n->max_x, n->max_y, n->max_z};
	for (int k = 0; k < 3; k++) {
		c[k] = 0.5 * ((double)lo[k] + hi[k]) - s->o[k];
		r2 += 0.25 * ((double)hi[k] - lo[k]) * ((double)hi[k] - lo[k]);
	}
	double q[3];
	sub3(p, s->o, q);
	return hull_distance(q, c, sqrt(r2));
}

// dist(p, U), or s->best when that is smaller: a walk of the tree, nearer
// child first, pruning nodes whose hull lies no nearer than the best so far.
// Stops once the best is at most s->enough (the result then only says so).
static double union_distance(search *s, const double p[3])
{
	const aabb_tree *t = &s->m->tree;
	uint32_t stack[AABB_TREE_STACK];
	double bound[AABB_TREE_STACK];
	uint32_t top = 0;
	stack[top] = 0;
	bound[top++] = node_bound(s, &t->nodes[0], p);
	while (top > 0 && s->best > s->enough) {
		top--;
		if (bound[top] >= s->best)
			continue;
		const vkcol_gpu_node *n = &t->nodes[stack[top]];
		if (n->count == 0) {
			double b0 = node_bound(s, &t->nodes[n->first], p), b1 = node_bound(s, &t->nodes[n->first + 1], p);
			// The nearer on top.
			bool first_nearer = b0 <= b1;
			stack[top] = first_nearer ? n->first + 1 : n->first;
			bound[top++] = first_nearer ? b1 : b0;
			stack[top] = first_nearer ? n->first : n->first + 1;
			bound[top++] = first_nearer ? b0 : b1;
			continue;
		}
		for (uint32_t i = n->first; i < n->first + n->count && s->best > 0; i++) {
			const uint32_t *tri = &s->m->indices[3 * (size_t)t->triangles[i]];
			double v[3][3];
			for (int j = 0; j < 3; j++)
				for (int k = 0; k < 3; k++)
					v[j][k] = s->m->positions[3 * (size_t)tri[j] + k];
			// The tetrahedron's box first: no nearer than the best, no
			// closer look.
			double gap2 = 0;
			for (int k = 0; k < 3; k++) {
				double lo = fmin(fmin(s->o[k], v[0][k]), fmin(v[1][k], v[2][k]));
				double hi = fmax(fmax(s->o[k], v[0][k]), fmax(v[1][k], v[2][k]));
				double g = fmax(fmax(lo - p[k], p[k] - hi), 0);
				gap2 += g * g;
			}
			if (gap2 < s->best * s->best)
				s->best = fmin(s->best, clearance_tet_distance(p, s->o, v[0], v[1], v[2]));
		}
	}
	return s->best;
}

// Tasks one field's rows are dealt into (core_parallel_for): more than the
// threads that run them, so that a job system balances them; task t takes
// rows t, t + stride, ... The values do not depend on how many.
#define CLEARANCE_TASKS 64u

typedef struct field_job {
	const mesh_cpu *m;
	clearance_field *out;
	double delta;   // cone_filter_reach of the map's resolution
	double margin;  // float rounding allowed for
	uint32_t stride; // rows first, first + stride, ... go to one task
} field_job;

// The values of rows first, first + stride, ... (row = j + k dims[1]).
static void field_rows(void *arg, uint32_t first)
{
	const field_job *job = arg;
	const clearance_field *out = job->out;
	search s = {.m = job->m, .o = {job->m->origin[0], job->m->origin[1], job->m->origin[2]}};
	uint32_t rows = out->dims[1] * out->dims[2];
	for (uint32_t row = first; row < rows; row += job->stride) {
		uint32_t j = row % out->dims[1], k = row / out->dims[1];
		size_t at = (size_t)row * out->dims[0];
		double previous = INFINITY;
		for (uint32_t i = 0; i < out->dims[0]; i++) {
			double p[3] = {(double)out->min[0] + (i + 0.5) * (double)out->cell,
			               (double)out->min[1] + (j + 0.5) * (double)out->cell,
			               (double)out->min[2] + (k + 0.5) * (double)out->cell};
			// dist(., U) is 1-Lipschitz: the previous point's, plus the
			// step, bounds this one's and prunes the walk.
			double q[3];
			sub3(p, s.o, q);
			double l = sqrt(dot3(q, q));
			// Float rounding: the map's ray casts and the shader's
			// distances, as cone_bound.c allows for, relative to the mesh's
			// and the point's size.
			double slack = (job->delta + 1e-5) * l + job->margin;
			s.best = previous + (double)out->cell;
			// A point no farther from U than the filter's reach has no
			// clearance: its value is 0 however near U it lies.
			s.enough = slack;
			double d = union_distance(&s, p);
			previous = d;
			double value = d * (1 - 1e-5) - slack;
			out->values[at + i] = d > slack && value > 0 ? (float)value : 0.0f;
		}
	}
}

vkcol_result clearance_build(const core_env *env, const mesh_cpu *m, uint32_t resolution, clearance_field *out)
{
	memset(out, 0, sizeof *out);
	double e[3], emax = 0;
	for (int k = 0; k < 3; k++) {
		e[k] = (double)m->aabb_max[k] - m->aabb_min[k];
		emax = fmax(emax, e[k]);
	}
	if (!(emax > 0))
		emax = 1;
	// Cubic cells, as many as the budget allows (flat boxes get one layer).
	uint64_t budget = (uint64_t)CLEARANCE_POINTS_PER_TRIANGLE * m->triangle_count;
	budget = budget < CLEARANCE_MIN_POINTS ? CLEARANCE_MIN_POINTS : budget > CLEARANCE_MAX_POINTS ? CLEARANCE_MAX_POINTS : budget;
	double floor_e = emax / 1024,
	       cell = cbrt(fmax(e[0], floor_e) * fmax(e[1], floor_e) * fmax(e[2], floor_e) / (double)budget);
	uint64_t points;
	for (;;) {
		points = 1;
		for (int k = 0; k < 3; k++) {
			double d = ceil(e[k] / cell);
			out->dims[k] = d < 1 ? 1 : (uint32_t)d;
			points *= out->dims[k];
		}
		if (points <= budget)
			break;
		cell *= 1.02;
	}
	out->cell = (float)cell;
	out->reach = nextafterf((float)cone_filter_reach(resolution), INFINITY);
	for (int k = 0; k < 3; k++)
		out->min[k] = m->aabb_min[k];
	out->values = core_calloc(env, points, sizeof(float));
	if (out->values == NULL)
		return VKCOL_ERROR_OUT_OF_HOST_MEMORY;
	// Rows of the grid (fixed j, k) are independent: dealt into tasks that
	// the context's threads run (core_parallel_for).
	uint32_t rows = out->dims[1] * out->dims[2]; // >= 1
	uint32_t tasks = rows < CLEARANCE_TASKS ? rows : CLEARANCE_TASKS;
	field_job job = {.m = m, .out = out, .delta = cone_filter_reach(resolution),
	                 .margin = 1e-5 * m->sphere_radius, .stride = tasks};
	core_parallel_for(env, tasks, field_rows, &job);
	return VKCOL_SUCCESS;
}

void clearance_free(const core_env *env, clearance_field *f)
{
	core_free(env, f->values);
	memset(f, 0, sizeof *f);
}
