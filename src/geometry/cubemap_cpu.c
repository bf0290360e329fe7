// SPDX-License-Identifier: MIT
// The distance cube map's texel layout (levels, faces, the direction through
// each texel, as the shaders and the device build use them) and its
// double-precision CPU reference for the tests: a ray per texel through the
// tree with every hit, nearest and farthest (the two channels kept after
// Intel's US 7,928,993), then min / max mips. Ray/triangle: Möller and
// Trumbore, "Fast, minimum storage ray-triangle intersection", J. Graphics
// Tools 2(1), 1997.
#include "geometry/cubemap_cpu.h"

#include <math.h>
#include <string.h>

uint64_t cubemap_level_offset(uint32_t resolution, uint32_t level)
{
	uint64_t offset = 0;
	for (uint32_t k = 0, n = resolution; k < level && n > 0; k++, n /= 2)
		offset += 6ull * n * n;
	return offset;
}

uint32_t cubemap_level_count(uint32_t resolution)
{
	uint32_t levels = 1;
	while ((resolution >> (levels - 1)) > 1)
		levels++;
	return levels;
}

uint64_t cubemap_texel_count(uint32_t resolution)
{
	return cubemap_level_offset(resolution, cubemap_level_count(resolution));
}

void cubemap_texel_direction(uint32_t face, uint32_t i, uint32_t j, uint32_t n, double out[3])
{
	// Inverse of the face selection of the Vulkan specification ("Cube Map
	// Face Selection and Transformations"); must match common.glsl.
	double sc = 2.0 * (i + 0.5) / n - 1.0;
	double tc = 2.0 * (j + 0.5) / n - 1.0;
	const double dirs[6][3] = {
	    {1.0, -tc, -sc}, {-1.0, -tc, sc}, {sc, 1.0, tc}, {sc, -1.0, -tc}, {sc, -tc, 1.0}, {-sc, -tc, -1.0},
	};
	memcpy(out, dirs[face], sizeof(dirs[face]));
}

void cubemap_texel_unit(uint32_t face, uint32_t i, uint32_t j, uint32_t n, double out[3])
{
	cubemap_texel_direction(face, i, j, n, out);
	double len = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
	for (int k = 0; k < 3; k++)
		out[k] /= len;
}

static void vertex_d(const mesh_cpu *m, uint32_t v, double out[3])
{
	for (int k = 0; k < 3; k++)
		out[k] = m->positions[3 * v + k];
}

// Nearest and farthest hit of the ray o + t d, t > 0, with the closed
// triangles of the mesh; returns false when it hits nothing.
static bool cast_all(const mesh_cpu *m, const double o[3], const double d[3], double *nearest, double *farthest)
{
	const aabb_tree *tree = &m->tree;
	uint32_t stack[AABB_TREE_STACK];
	uint32_t top = 0;
	stack[top++] = 0;
	double lo_t = INFINITY, hi_t = -1.0;
	// Texel directions have no zero component (cubemap_texel_direction).
	const double inv_d[3] = {1.0 / d[0], 1.0 / d[1], 1.0 / d[2]};
	while (top > 0) {
		const vkcol_gpu_node *n = &tree->nodes[stack[--top]];
		double t_enter, t_exit;
		aabb_tree_ray_span(n, o, inv_d, 0.0, &t_enter, &t_exit);
		if (t_enter > t_exit * (1.0 + 1e-12) + 1e-12)
			continue;
		if (n->count == 0) {
			stack[top++] = n->first;
			stack[top++] = n->first + 1;
			continue;
		}
		for (uint32_t k = n->first; k < n->first + n->count; k++) {
			const uint32_t *tri = &m->indices[3 * tree->triangles[k]];
			double a[3], b[3], c[3];
			vertex_d(m, tri[0], a);
			vertex_d(m, tri[1], b);
			vertex_d(m, tri[2], c);
			double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
			double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
			double p[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]};
			double det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
			if (fabs(det) < 1e-300)
				continue;
			double s[3] = {o[0] - a[0], o[1] - a[1], o[2] - a[2]};
			double u = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) / det;
			double q[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]};
			double v = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) / det;
			// Closed triangles, with slack far below float resolution so a ray
			// through a shared edge hits it.
			const double eps = 1e-12;
			if (u < -eps || v < -eps || u + v > 1.0 + eps)
				continue;
			double t = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / det;
			if (t <= 0.0)
				continue;
			lo_t = t < lo_t ? t : lo_t;
			hi_t = t > hi_t ? t : hi_t;
		}
	}
	*nearest = lo_t;
	*farthest = hi_t;
	return hi_t >= 0.0;
}

void cubemap_reference(const mesh_cpu *mesh, uint32_t resolution, float *texels)
{
	double o[3] = {mesh->origin[0], mesh->origin[1], mesh->origin[2]};
	uint32_t n = resolution;
	for (uint32_t f = 0; f < 6; f++)
		for (uint32_t j = 0; j < n; j++)
			for (uint32_t i = 0; i < n; i++) {
				double d[3];
				cubemap_texel_unit(f, i, j, n, d);
				double lo, hi;
				float *t = &texels[2 * ((size_t)(f * n + j) * n + i)];
				if (cast_all(mesh, o, d, &lo, &hi)) {
					t[0] = (float)lo;
					t[1] = (float)hi;
				} else {
					t[0] = t[1] = (float)VKCOL_MAP_MISS;
				}
			}
	uint32_t levels = cubemap_level_count(resolution);
	for (uint32_t k = 1; k < levels; k++) {
		uint32_t dn = resolution >> k, sn = dn * 2;
		const float *src = &texels[2 * cubemap_level_offset(resolution, k - 1)];
		float *dst = &texels[2 * cubemap_level_offset(resolution, k)];
		for (uint32_t f = 0; f < 6; f++)
			for (uint32_t j = 0; j < dn; j++)
				for (uint32_t i = 0; i < dn; i++) {
					const float *c[4] = {
					    &src[2 * ((size_t)(f * sn + 2 * j) * sn + 2 * i)],
					    &src[2 * ((size_t)(f * sn + 2 * j) * sn + 2 * i + 1)],
					    &src[2 * ((size_t)(f * sn + 2 * j + 1) * sn + 2 * i)],
					    &src[2 * ((size_t)(f * sn + 2 * j + 1) * sn + 2 * i + 1)],
					};
					float lo = c[0][0], hi = c[0][1];
					for (int q = 1; q < 4; q++) {
						lo = c[q][0] < lo ? c[q][0] : lo;
						hi = c[q][1] > hi ? c[q][1] : hi;
					}
					float *t = &dst[2 * ((size_t)(f * dn + j) * dn + i)];
					t[0] = lo;
					t[1] = hi;
				}
	}
}
