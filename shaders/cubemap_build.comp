// SPDX-License-Identifier: MIT
// Distance cube map, level 0 (Intel, US 7,928,993: a cube map whose texel in
// direction d holds the distance from the mesh's origin to its surface along
// d). One invocation per texel casts the ray from the origin through the
// texel centre through the mesh's flattened AABB tree (tree_walk.glsl) and
// records the nearest hit (R, "inner") and the farthest hit (G, "outer").
// A ray that hits nothing stores (VKCOL_MAP_MISS, VKCOL_MAP_MISS): no
// surface in that direction (shared.h).
#version 450
#include "shared.h"
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = VKCOL_CUBEMAP_BINDING_VERTICES)
readonly buffer Vertices { vkcol_gpu_vertex vertices[]; };
layout(std430, set = 0, binding = VKCOL_CUBEMAP_BINDING_TRIANGLES)
readonly buffer Triangles { vkcol_gpu_triangle triangles[]; };
layout(std430, set = 0, binding = VKCOL_CUBEMAP_BINDING_NODES)
readonly buffer Nodes { vkcol_gpu_node nodes[]; };
layout(std430, set = 0, binding = VKCOL_CUBEMAP_BINDING_TEXELS)
writeonly buffer Texels { vec2 texels[]; };
layout(push_constant) uniform Push { vkcol_cubemap_build_params params; };

// Barycentric slack: a ray through a shared edge must hit at least one of its
// two triangles despite float rounding (a hit on both changes neither the
// nearest nor the farthest distance).
const float EDGE_EPS = 1e-6;

vkcol_gpu_node tree_node(uint i)
{
	return nodes[i];
}

#include "tree_walk.glsl"

vec3 vertex(uint i)
{
	return vec3(vertices[i].x, vertices[i].y, vertices[i].z);
}

void main()
{
	uint n = params.resolution;
	uint texel = linear_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
	if (texel >= 6u * n * n)
		return;
	uint face = texel / (n * n);
	uint j = (texel / n) % n;
	uint i = texel % n;
	vec3 o = vec3(params.origin_x, params.origin_y, params.origin_z);
	vec3 d = normalize(cube_texel_direction(face, i, j, n));
	// A box is missed by more than rounding when the ray's span in it is
	// empty by 1e-5 of the distances involved, and by 1e-5 of a length unit
	// near the origin. A box wholly between the nearest and farthest hits
	// found so far cannot change either: settled.
	tree_ray ray = tree_ray_of(o, 1.0 / d, 3.4e38, 0.0, 1e-5);
	float nearest = 3.4e38, farthest = -1.0;
	tree_walk_start(0u);
	while (tree_walk_more()) {
		ray.settled = vec2(nearest, farthest);
		uvec2 leaf = tree_walk_step(ray, true);
		for (uint k = leaf.x; k < leaf.x + leaf.y; k++) {
			vkcol_gpu_triangle tri = triangles[k];
			vec3 a = vertex(tri.v0), b = vertex(tri.v1), c = vertex(tri.v2);
			// Möller-Trumbore ray/triangle intersection.
			vec3 e1 = b - a, e2 = c - a;
			vec3 p = cross(d, e2);
			float det = dot(e1, p);
			if (abs(det) < 1e-30)
				continue;
			float inv_det = 1.0 / det;
			vec3 s = o - a;
			float u = dot(s, p) * inv_det;
			vec3 q = cross(s, e1);
			float v = dot(d, q) * inv_det;
			if (u < -EDGE_EPS || v < -EDGE_EPS || u + v > 1.0 + EDGE_EPS)
				continue;
			float t = dot(e2, q) * inv_det;
			if (t <= 0.0)
				continue;
			nearest = min(nearest, t);
			farthest = max(farthest, t);
		}
	}
	texels[texel] = farthest < 0.0 ? vec2(VKCOL_MAP_MISS) : vec2(nearest, farthest);
}
