// SPDX-License-Identifier: MIT
// Cone bounds of a distance cube map (cone_bound.h). Used to skip whole vertex
// clusters in the cube-map test of Intel's US 7,928,993: a cluster whose
// bounding ball, seen from the map's origin, lies within a cone of the cell's
// level and entirely beyond the cell's bound holds no vertex that the test
// could find inside.

#include "geometry/cone_bound.h"

#include <math.h>
#include <string.h>

#define PI 3.14159265358979323846

// Direction through face coordinates (u, v) in [-1, 1] of cube face f, the
// numbering of cone_bound.glsl: faces 0/1 = +x/-x with (u, v) = (y, z) / |x|,
// 2/3 = +y/-y with (x, z) / |y|, 4/5 = +z/-z with (x, y) / |z|.
static void face_direction(int f, double u, double v, double d[3])
{
	double s = (f & 1) ? -1.0 : 1.0;
	switch (f >> 1) {
	case 0: d[0] = s, d[1] = u, d[2] = v; break;
	case 1: d[0] = u, d[1] = s, d[2] = v; break;
	default: d[0] = u, d[1] = v, d[2] = s; break;
	}
	double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
	for (int k = 0; k < 3; k++)
		d[k] /= l;
}

static double angle_between(const double a[3], const double b[3])
{
	double c = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
	return acos(c > 1 ? 1 : c < -1 ? -1 : c);
}

// Could a ball (centre c relative to the origin, radius r) hold a direction
// within `reach` of the unit direction axis?
static bool ball_in_cone(const double c[3], double r, const double axis[3], double reach)
{
	double l = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
	if (l <= r || reach >= PI)
		return true;
	double cu[3] = {c[0] / l, c[1] / l, c[2] / l};
	return angle_between(cu, axis) <= reach + asin(r / l);
}

// Largest distance from the origin to a vertex of a triangle whose bounding
// ball comes within `reach` of axis; at least `best`.
static double cone_max(const mesh_cpu *m, const double origin[3], const double axis[3], double reach, double best)
{
	const aabb_tree *t = &m->tree;
	uint32_t stack[AABB_TREE_STACK];
	uint32_t top = 0;
	stack[top++] = 0;
	while (top > 0) {
		const vkcol_gpu_node *n = &t->nodes[stack[--top]];
		double lo[3] = {n->min_x - origin[0], n->min_y - origin[1], n->min_z - origin[2]};
		double hi[3] = {n->max_x - origin[0], n->max_y - origin[1], n->max_z - origin[2]};
		double far2 = 0, c[3], r2 = 0;
		for (int k = 0; k < 3; k++) {
			double f = fmax(fabs(lo[k]), fabs(hi[k]));
			far2 += f * f;
			c[k] = 0.5 * (lo[k] + hi[k]);
			r2 += 0.25 * (hi[k] - lo[k]) * (hi[k] - lo[k]);
		}
		if (far2 <= best * best || !ball_in_cone(c, sqrt(r2), axis, reach))
			continue;
		if (n->count == 0) {
			// Depth is bounded by the tree's (< 64 levels): two per level.
			stack[top++] = n->first;
			stack[top++] = n->first + 1;
			continue;
		}
		for (uint32_t i = n->first; i < n->first + n->count; i++) {
			const uint32_t *tri = &m->indices[3 * (size_t)t->triangles[i]];
			double p[3][3], g[3] = {0, 0, 0}, far = 0, r = 0;
			for (int j = 0; j < 3; j++) {
				double l2 = 0;
				for (int k = 0; k < 3; k++) {
					p[j][k] = (double)m->positions[3 * (size_t)tri[j] + k] - origin[k];
					g[k] += p[j][k] / 3;
					l2 += p[j][k] * p[j][k];
				}
				far = fmax(far, sqrt(l2));
			}
			if (far <= best)
				continue;
			for (int j = 0; j < 3; j++) {
				double d2 = 0;
				for (int k = 0; k < 3; k++)
					d2 += (p[j][k] - g[k]) * (p[j][k] - g[k]);
				r = fmax(r, sqrt(d2));
			}
			if (ball_in_cone(g, r, axis, reach))
				best = far;
		}
	}
	return best;
}

double cone_filter_reach(uint32_t resolution)
{
	return 4.0 / resolution + 1e-4;
}

void cone_bounds_build(const mesh_cpu *m, uint32_t resolution, float *out)
{
	memset(out, 0, VKCOL_CONE_FLOATS * sizeof(float));
	const double origin[3] = {m->origin[0], m->origin[1], m->origin[2]};
	const double filter = cone_filter_reach(resolution);
	uint32_t at = 0;
	for (int l = 0; l < VKCOL_CONE_LEVELS; l++) {
		int n = VKCOL_CONE_CELLS >> l;
		for (int f = 0; f < 6; f++)
			for (int j = 0; j < n; j++)
				for (int i = 0; i < n; i++) {
					double u0 = -1 + 2.0 * i / n, u1 = -1 + 2.0 * (i + 1) / n;
					double v0 = -1 + 2.0 * j / n, v1 = -1 + 2.0 * (j + 1) / n;
					double centre[3], corner[3], radius = 0;
					face_direction(f, 0.5 * (u0 + u1), 0.5 * (v0 + v1), centre);
					// The cell is a convex spherical quadrilateral: its
					// farthest point from the centre is a corner.
					for (int k = 0; k < 4; k++) {
						face_direction(f, k & 1 ? u1 : u0, k & 2 ? v1 : v0, corner);
						radius = fmax(radius, angle_between(centre, corner));
					}
					double reach = radius + VKCOL_CONE_ANGLE(l) + filter;
					double bound = cone_max(m, origin, centre, reach, 0.0);
					// Rounding: the map's own float ray casts, the shader's
					// float distances.
					out[at++] = (float)(bound * (1 + 1e-5) + 1e-7 * m->sphere_radius);
				}
	}
}
