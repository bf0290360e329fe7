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

// cone_open_bounds_build's buckets of texels: cells of BUCKET_CELLS x
// BUCKET_CELLS per face, in groups of the finest cone level's cells
// (VKCOL_CONE_CELLS per face, BUCKET_SPLIT x BUCKET_SPLIT buckets each).
#define BUCKET_CELLS 64
#define BUCKET_SPLIT (BUCKET_CELLS / VKCOL_CONE_CELLS)
#define COARSE_BUCKETS (6 * VKCOL_CONE_CELLS * VKCOL_CONE_CELLS)
#define FINE_BUCKETS (6 * BUCKET_CELLS * BUCKET_CELLS)

// Cell of unit direction d at a level of n x n cells per face: cone_cell of
// cone_bound.glsl, as (face, i, j).
static void cell_of(const double d[3], uint32_t n, uint32_t *face, uint32_t *ci, uint32_t *cj)
{
	double a[3] = {fabs(d[0]), fabs(d[1]), fabs(d[2])};
	int axis = a[0] >= a[1] && a[0] >= a[2] ? 0 : a[1] >= a[2] ? 1 : 2;
	double major = d[axis], u = d[axis == 0 ? 1 : 0] / fabs(major), v = d[axis == 2 ? 1 : 2] / fabs(major);
	*face = 2u * (uint32_t)axis + (major >= 0 ? 0u : 1u);
	double i = floor((u + 1) * 0.5 * n), j = floor((v + 1) * 0.5 * n);
	*ci = i < 0 ? 0u : i > n - 1 ? n - 1 : (uint32_t)i;
	*cj = j < 0 ? 0u : j > n - 1 ? n - 1 : (uint32_t)j;
}

// Is the angle between unit vectors a and b at most the angle whose cosine
// is c (-2 for an angle of pi or more, which holds every pair)?
static bool within(const double a[3], const double b[3], double c)
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] >= c;
}

// The cosine of angle a + b from theirs and their sines, for within: -2
// when a + b is pi or more.
static double cos_sum(double a, double ca, double sa, double b, double cb, double sb)
{
	return a + b >= PI ? -2.0 : ca * cb - sa * sb;
}

// A bucket: its centre direction and angular radius (with their cosine and
// sine), and the span of its texels (least R, greatest R, least G). A fine
// bucket's radius is its texels' (the cosine of the widest: least_cos): at
// resolutions up to BUCKET_CELLS a bucket holds at most one texel, at its
// centre, so the cones see texels, not buckets.
typedef struct texel_bucket {
	double centre[3], radius, cos_radius, sin_radius, span[3], least_cos;
} texel_bucket;

// Widens span by another span.
static void span_merge(double span[3], const double other[3])
{
	span[0] = fmin(span[0], other[0]);
	span[1] = fmax(span[1], other[1]);
	span[2] = fmin(span[2], other[2]);
}

static void bucket_radius(texel_bucket *b, double radius)
{
	b->radius = radius;
	b->cos_radius = cos(radius);
	b->sin_radius = sin(radius);
}

// A fine bucket's radius comes from its texels, once they are in
// (cone_open_bounds_build); a coarse one's is its cell's.
static void bucket_init(texel_bucket *b, int f, int i, int j, int n, bool fine)
{
	if (fine)
		face_direction(f, -1 + (2.0 * i + 1) / n, -1 + (2.0 * j + 1) / n, b->centre);
	else
		bucket_radius(b, cell_centre(f, i, j, n, b->centre));
	b->span[0] = b->span[2] = INFINITY;
	b->span[1] = 0;
	b->least_cos = 1.0;
}

vkcol_result cone_open_bounds_build(const core_env *env, const float *level0, uint32_t resolution, double scale,
                                    float *out)
{
	// Each texel goes into the fine bucket its direction falls in, and
	// that bucket's span into its coarse bucket's. A cone merges the span
	// of every bucket that may hold a direction within its reach: a coarse
	// one whole when it lies within the reach, else its fine ones that
	// may. Buckets take in at most a bucket's radius beyond the reach, so
	// a span may be wider than the reach's texels alone: looser, never
	// wrong.
	const uint32_t n = resolution;
	const double filter = cone_filter_reach(resolution);
	texel_bucket *coarse = core_calloc(env, COARSE_BUCKETS, sizeof(*coarse));
	texel_bucket *fine = core_calloc(env, FINE_BUCKETS, sizeof(*fine));
	if (!coarse || !fine) {
		core_free(env, coarse);
		core_free(env, fine);
		return VKCOL_ERROR_OUT_OF_HOST_MEMORY;
	}
	for (int f = 0; f < 6; f++) {
		for (int j = 0; j < VKCOL_CONE_CELLS; j++)
			for (int i = 0; i < VKCOL_CONE_CELLS; i++)
				bucket_init(&coarse[(f * VKCOL_CONE_CELLS + j) * VKCOL_CONE_CELLS + i], f, i, j, VKCOL_CONE_CELLS, false);
		for (int j = 0; j < BUCKET_CELLS; j++)
			for (int i = 0; i < BUCKET_CELLS; i++)
				bucket_init(&fine[(f * BUCKET_CELLS + j) * BUCKET_CELLS + i], f, i, j, BUCKET_CELLS, true);
	}
	for (uint32_t f = 0; f < 6; f++)
		for (uint32_t j = 0; j < n; j++)
			for (uint32_t i = 0; i < n; i++) {
				double d[3];
				cubemap_texel_unit(f, i, j, n, d);
				uint32_t bf, bi, bj;
				cell_of(d, BUCKET_CELLS, &bf, &bi, &bj);
				const float *t = &level0[2 * (((size_t)f * n + j) * n + i)];
				texel_bucket *b = &fine[(bf * BUCKET_CELLS + bj) * BUCKET_CELLS + bi];
				b->span[0] = fmin(b->span[0], t[0]);
				b->span[1] = fmax(b->span[1], t[0]);
				b->span[2] = fmin(b->span[2], t[1]);
				b->least_cos = fmin(b->least_cos, d[0] * b->centre[0] + d[1] * b->centre[1] + d[2] * b->centre[2]);
			}
	// The fine buckets' radii from their texels, widened for rounding.
	for (uint32_t k = 0; k < FINE_BUCKETS; k++)
		bucket_radius(&fine[k], acos(fine[k].least_cos > 1 ? 1 : fine[k].least_cos) + 1e-9);
	for (uint32_t f = 0; f < 6; f++)
		for (uint32_t j = 0; j < BUCKET_CELLS; j++)
			for (uint32_t i = 0; i < BUCKET_CELLS; i++)
				span_merge(coarse[(f * VKCOL_CONE_CELLS + j / BUCKET_SPLIT) * VKCOL_CONE_CELLS + i / BUCKET_SPLIT].span,
				           fine[(f * BUCKET_CELLS + j) * BUCKET_CELLS + i].span);
	uint32_t at = 0;
	for (int l = 0; l < VKCOL_CONE_LEVELS; l++) {
		int cells = VKCOL_CONE_CELLS >> l;
		for (int f = 0; f < 6; f++)
			for (int j = 0; j < cells; j++)
				for (int i = 0; i < cells; i++, at++) {
					double centre[3];
					double reach = cell_centre(f, i, j, cells, centre) + VKCOL_CONE_ANGLE(l) + filter;
					double cos_reach = cos(reach), sin_reach = sin(reach);
					double span[3] = {INFINITY, 0, INFINITY};
					for (int c = 0; c < COARSE_BUCKETS; c++) {
						const texel_bucket *cb = &coarse[c];
						if (!within(centre, cb->centre,
						            cos_sum(reach, cos_reach, sin_reach, cb->radius, cb->cos_radius, cb->sin_radius)))
							continue;
						// Wholly within the reach when its centre lies
						// within reach - radius.
						if (reach >= cb->radius &&
						    within(centre, cb->centre,
						           cos_sum(reach, cos_reach, sin_reach, -cb->radius, cb->cos_radius, -cb->sin_radius))) {
							span_merge(span, cb->span);
							continue;
						}
						int cf = c / (VKCOL_CONE_CELLS * VKCOL_CONE_CELLS), cj = c / VKCOL_CONE_CELLS % VKCOL_CONE_CELLS,
						    ci = c % VKCOL_CONE_CELLS;
						for (int fj = cj * BUCKET_SPLIT; fj < (cj + 1) * BUCKET_SPLIT; fj++)
							for (int fi = ci * BUCKET_SPLIT; fi < (ci + 1) * BUCKET_SPLIT; fi++) {
								const texel_bucket *fb = &fine[(cf * BUCKET_CELLS + fj) * BUCKET_CELLS + fi];
								if (within(centre, fb->centre,
								           cos_sum(reach, cos_reach, sin_reach, fb->radius, fb->cos_radius,
								                   fb->sin_radius)))
									span_merge(span, fb->span);
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
	core_free(env, coarse);
	core_free(env, fine);
	return VKCOL_SUCCESS;
}
