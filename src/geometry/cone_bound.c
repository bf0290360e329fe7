// SPDX-License-Identifier: MIT
// Cone bounds of a distance cube map (cone_bound.h). Used to skip whole vertex
// clusters in the cube-map test of Intel's US 7,928,993: a cluster whose
// bounding ball, seen from the map's origin, lies within a cone of the cell's
// level and entirely beyond the cell's bound holds no vertex that the test
// could find inside.

#include "geometry/cone_bound.h"

#include "geometry/cubemap_cpu.h"

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

// Centre direction and angular radius of cell (f, i, j) at n x n cells per
// face.
static double cell_centre(int f, int i, int j, int n, double centre[3])
{
	double u0 = -1 + 2.0 * i / n, u1 = -1 + 2.0 * (i + 1) / n;
	double v0 = -1 + 2.0 * j / n, v1 = -1 + 2.0 * (j + 1) / n;
	double corner[3], radius = 0;
	face_direction(f, 0.5 * (u0 + u1), 0.5 * (v0 + v1), centre);
	// The cell is a convex spherical quadrilateral: its farthest point
	// from the centre is a corner.
	for (int k = 0; k < 4; k++) {
		face_direction(f, k & 1 ? u1 : u0, k & 2 ? v1 : v0, corner);
		radius = fmax(radius, angle_between(centre, corner));
	}
	return radius;
}

double cone_filter_reach(uint32_t resolution)
{
	return 4.0 / resolution + 1e-4;
}

void cone_bounds_build(const mesh_cpu *m, uint32_t resolution, float *out)
{
	const double origin[3] = {m->origin[0], m->origin[1], m->origin[2]};
	const double filter = cone_filter_reach(resolution);
	uint32_t at = 0;
	for (int l = 0; l < VKCOL_CONE_LEVELS; l++) {
		int n = VKCOL_CONE_CELLS >> l;
		for (int f = 0; f < 6; f++)
			for (int j = 0; j < n; j++)
				for (int i = 0; i < n; i++) {
					double centre[3];
					double reach = cell_centre(f, i, j, n, centre) + VKCOL_CONE_ANGLE(l) + filter;
					double bound = cone_max(m, origin, centre, reach, 0.0);
					// Rounding: the map's own float ray casts, the shader's
					// float distances.
					out[4 * at++] = (float)(bound * (1 + 1e-5) + 1e-7 * m->sphere_radius);
				}
	}
}

// cone_open_bounds_build's buckets of texels: the finest level's cells.
#define TEXEL_BUCKETS (6 * VKCOL_CONE_CELLS * VKCOL_CONE_CELLS)

// Cell of unit direction d at a level of n x n cells per face: cone_cell of
// cone_bound.glsl.
static uint32_t cell_of(const double d[3], uint32_t n)
{
	double a[3] = {fabs(d[0]), fabs(d[1]), fabs(d[2])};
	int axis = a[0] >= a[1] && a[0] >= a[2] ? 0 : a[1] >= a[2] ? 1 : 2;
	double major = d[axis], u = d[axis == 0 ? 1 : 0] / fabs(major), v = d[axis == 2 ? 1 : 2] / fabs(major);
	uint32_t face = 2u * (uint32_t)axis + (major >= 0 ? 0u : 1u);
	double i = floor((u + 1) * 0.5 * n), j = floor((v + 1) * 0.5 * n);
	uint32_t ci = i < 0 ? 0u : i > n - 1 ? n - 1 : (uint32_t)i, cj = j < 0 ? 0u : j > n - 1 ? n - 1 : (uint32_t)j;
	return (face * n + cj) * n + ci;
}

// Is the angle between unit vectors a and b at most the angle whose cosine
// is c (-2 for an angle of pi or more, which holds every pair)?
static bool within(const double a[3], const double b[3], double c)
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] >= c;
}

// The cosine of angle a + b (sign 1) or a - b (sign -1) from theirs and
// their sines, for within: -2 when it is pi or more, 2 when it is negative
// (no angle is within it).
static double cos_sum(double a, double ca, double sa, double b, double cb, double sb, int sign)
{
	double angle = a + sign * b;
	return angle >= PI ? -2.0 : angle < 0 ? 2.0 : ca * cb - sign * sa * sb;
}

// cone_open_bounds_build's work arrays: the texels bucketed by the finest
// level's cells, and each bucket's least R, greatest R and least G.
typedef struct texel_buckets {
	uint32_t start[TEXEL_BUCKETS + 1]; // bucket c's texels: order[start[c] .. start[c + 1])
	uint32_t fill[TEXEL_BUCKETS];
	double centre[TEXEL_BUCKETS][3], radius[TEXEL_BUCKETS], span[TEXEL_BUCKETS][3];
	double cos_radius[TEXEL_BUCKETS], sin_radius[TEXEL_BUCKETS];
} texel_buckets;

// Widens span (least R, greatest R, least G) by a texel's (R, G).
static void span_add(double span[3], const float *texel)
{
	span[0] = fmin(span[0], texel[0]);
	span[1] = fmax(span[1], texel[0]);
	span[2] = fmin(span[2], texel[1]);
}

// Widens span by another span.
static void span_merge(double span[3], const double other[3])
{
	span[0] = fmin(span[0], other[0]);
	span[1] = fmax(span[1], other[1]);
	span[2] = fmin(span[2], other[2]);
}

vkcol_result cone_open_bounds_build(const core_env *env, const float *level0, uint32_t resolution, double scale,
                                    float *out)
{
	// A cone takes a bucket's span whole when the bucket lies within its
	// reach, and looks at the texels of a bucket its reach cuts.
	const uint32_t n = resolution, texel_count = 6 * n * n;
	const double filter = cone_filter_reach(resolution);
	vkcol_result res = VKCOL_SUCCESS;
	double *dir = core_alloc(env, 3 * sizeof(double) * texel_count);
	uint32_t *order = core_alloc(env, sizeof(uint32_t) * texel_count);
	uint32_t *cell = core_alloc(env, sizeof(uint32_t) * texel_count);
	texel_buckets *b = core_calloc(env, 1, sizeof(*b));
	if (!dir || !order || !cell || !b) {
		res = VKCOL_ERROR_OUT_OF_HOST_MEMORY;
		goto cleanup;
	}
	for (int f = 0; f < 6; f++)
		for (int j = 0; j < VKCOL_CONE_CELLS; j++)
			for (int i = 0; i < VKCOL_CONE_CELLS; i++) {
				int c = (f * VKCOL_CONE_CELLS + j) * VKCOL_CONE_CELLS + i;
				b->radius[c] = cell_centre(f, i, j, VKCOL_CONE_CELLS, b->centre[c]);
				b->cos_radius[c] = cos(b->radius[c]);
				b->sin_radius[c] = sin(b->radius[c]);
				b->span[c][0] = b->span[c][2] = INFINITY;
				b->span[c][1] = 0;
			}
	for (uint32_t t = 0; t < texel_count; t++) {
		uint32_t f = t / (n * n), j = t / n % n, i = t % n;
		double *d = &dir[3 * (size_t)t];
		cubemap_texel_direction(f, i, j, n, d);
		double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
		for (int k = 0; k < 3; k++)
			d[k] /= l;
		cell[t] = cell_of(d, VKCOL_CONE_CELLS);
		b->start[cell[t] + 1]++;
		span_add(b->span[cell[t]], &level0[2 * (size_t)t]);
	}
	for (int c = 0; c < TEXEL_BUCKETS; c++)
		b->start[c + 1] += b->start[c];
	memcpy(b->fill, b->start, sizeof(b->fill));
	for (uint32_t t = 0; t < texel_count; t++)
		order[b->fill[cell[t]]++] = t;
	// A texel's direction lies within its bucket's radius of the bucket's
	// centre, so buckets beyond reach + radius hold none within reach.
	uint32_t at = 0;
	for (int l = 0; l < VKCOL_CONE_LEVELS; l++) {
		int cells = VKCOL_CONE_CELLS >> l;
		for (int f = 0; f < 6; f++)
			for (int j = 0; j < cells; j++)
				for (int i = 0; i < cells; i++, at++) {
					double centre[3];
					double reach = cell_centre(f, i, j, cells, centre) + VKCOL_CONE_ANGLE(l) + filter;
					double span[3] = {INFINITY, 0, INFINITY};
					double cos_reach = cos(reach), sin_reach = sin(reach);
					double texel_cos = reach >= PI ? -2.0 : cos_reach;
					for (int c = 0; c < TEXEL_BUCKETS; c++) {
						double cb = b->cos_radius[c], sb = b->sin_radius[c], rb = b->radius[c];
						if (!within(centre, b->centre[c], cos_sum(reach, cos_reach, sin_reach, rb, cb, sb, 1)))
							continue;
						if (within(centre, b->centre[c], cos_sum(reach, cos_reach, sin_reach, rb, cb, sb, -1))) {
							span_merge(span, b->span[c]);
							continue;
						}
						for (uint32_t k = b->start[c]; k < b->start[c + 1]; k++) {
							uint32_t t = order[k];
							if (within(centre, &dir[3 * (size_t)t], texel_cos))
								span_add(span, &level0[2 * (size_t)t]);
						}
					}
					// Rounding: the filter's blend, the shader's float
					// distances. An empty span (no texel within reach)
					// bounds nothing.
					double margin = 1e-7 * scale;
					double least_r = isfinite(span[0]) ? span[0] * (1 - 1e-5) - margin : 0;
					double least_g = isfinite(span[2]) ? span[2] * (1 - 1e-5) - margin : 0;
					double most_r = isfinite(span[0]) ? span[1] * (1 + 1e-5) + margin : 3.4e38;
					out[4 * at + 1] = least_r > 0 ? (float)least_r : 0.0f;
					out[4 * at + 2] = (float)most_r;
					out[4 * at + 3] = least_g > 0 ? (float)least_g : 0.0f;
				}
	}
cleanup:
	core_free(env, dir);
	core_free(env, order);
	core_free(env, cell);
	core_free(env, b);
	return res;
}
