// SPDX-License-Identifier: MIT
// Stages 0 and 1 of a batch (approx mode), one invocation per pair:
//  0. bounding volumes apart -> no collision: the world bounding spheres,
//     then each mesh's AABB against the other's AABB carried into its frame
//     (the box of a rotated box from the absolute rotation matrix, 9
//     multiply-adds, no corner loop: the transformed-AABB method of the
//     AABB chapter among the seeds);
//  1. the cube-map vertex test of Intel's US 7,928,993: each vertex of B,
//     moved into A's frame, is inside A when its distance to A's origin is at
//     most A's map distance (channel G, the farthest surface) sampled in its
//     direction with the hardware's linear cube filtering; then A's vertices
//     against B's map. The first inside vertex decides the pair. Before any
//     vertex, closed meshes whose origins' inner balls (radius = distance to
//     the nearest triangle) overlap are accepted: those balls lie inside the
//     solids, so the pair certainly collides.
// Vertices come in spatial clusters: a cluster whose bounding sphere misses
// the other mesh's AABB is skipped whole, and a vertex outside that AABB is
// rejected before sampling. One invocation per pair (rather than a workgroup
// striding over the vertices) needs no barriers, which cost a coroutine
// switch each on CPU drivers such as lavapipe; the sampler array is indexed
// through a switch on constants, so differing meshes within a workgroup are
// legal.
#version 450
#include "shared.h"
#include "common.glsl"
#include "pair_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = 0) readonly buffer Pairs { vkcol_gpu_pair pairs[]; };
layout(std430, set = 0, binding = 1) readonly buffer Meshes { vkcol_gpu_mesh meshes[]; };
layout(std430, set = 0, binding = 2) readonly buffer Vertices { vec4 vertices[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Results { vkcol_gpu_result results[]; };
layout(std430, set = 0, binding = 4) buffer Stats { uint stats[]; };
layout(std430, set = 0, binding = 5) readonly buffer Clusters { vec4 clusters[]; }; // centre, radius
layout(set = 0, binding = 6) uniform samplerCubeArray maps[VKCOL_MAP_ARRAYS];
layout(push_constant) uniform Push { vkcol_approx_params params; };
#include "map_sample.glsl"

uint g_vertex_tests = 0u, g_samples = 0u;

// 64-bit counter as (low, high): the adder whose addition wraps the low word
// carries, so concurrent additions stay exact.
void add64(uint word, uint n)
{
	if (n == 0u)
		return;
	uint old = atomicAdd(stats[word], n);
	if (old + n < old)
		atomicAdd(stats[word + 1u], 1u);
}

// Tests the vertices of cluster c of `from` (in `to`'s frame by
// x -> r x + t) against `to`'s map. Returns the depth of the first vertex
// found inside (>= 0), or -1.
float test_cluster(vkcol_gpu_mesh from, vkcol_gpu_mesh to, mat3 r, vec3 t, uint c, float lod)
{
	vec3 origin = vec3(to.origin_x, to.origin_y, to.origin_z);
	vec3 lo = box_min(to), hi = box_max(to);
	uint first = from.vertex_first + c * VKCOL_CLUSTER_SIZE;
	uint end = min(first + VKCOL_CLUSTER_SIZE, from.vertex_first + from.vertex_count);
	for (uint k = first; k < end; k++) {
		g_vertex_tests++;
		vec3 v = r * vertices[k].xyz + t;
		if (any(lessThan(v, lo)) || any(greaterThan(v, hi)))
			continue;
		vec3 d = v - origin;
		float dist = length(d);
		if (dist == 0.0)
			return 0.0;
		g_samples++;
		float outer = map_sample(to.map_array, d, float(to.map_layer), lod).g;
		if (dist <= outer)
			return outer - dist;
	}
	return -1.0;
}

// Tests the vertices of mesh `from` (placed in `to`'s frame by x -> r x + t)
// against `to`'s map. Returns the depth of the first vertex found inside
// (>= 0), or -1 when none is. The cluster nearest `to`'s origin goes first:
// when the meshes collide its vertices are the likeliest to be inside, and a
// colliding pair then stops after one cluster instead of a fair share of all.
float test_vertices(vkcol_gpu_mesh from, vkcol_gpu_mesh to, mat3 r, vec3 t)
{
	vec3 origin = vec3(to.origin_x, to.origin_y, to.origin_z);
	vec3 lo = box_min(to), hi = box_max(to);
	float lod = float(min(params.mip_level, to.map_levels - 1u));
	uint nearest = 0xffffffffu;
	float nearest_d2 = 3.4e38;
	uint touching = 0u; // bit c set: cluster c (< 32) meets `to`'s AABB
	for (uint c = 0u; c < from.cluster_count; c++) {
		// A cluster whose sphere misses `to`'s AABB holds no vertex inside.
		vec4 cs = clusters[from.cluster_first + c];
		vec3 cc = r * cs.xyz + t;
		vec3 gap = max(max(lo - cc, cc - hi), vec3(0.0));
		if (dot(gap, gap) > cs.w * cs.w)
			continue;
		if (c < 32u)
			touching |= 1u << c;
		vec3 off = cc - origin;
		float d2 = dot(off, off);
		if (d2 < nearest_d2) {
			nearest_d2 = d2;
			nearest = c;
		}
	}
	if (nearest == 0xffffffffu)
		return -1.0;
	float depth = test_cluster(from, to, r, t, nearest, lod);
	if (depth >= 0.0)
		return depth;
	for (uint c = 0u; c < from.cluster_count; c++) {
		if (c == nearest)
			continue;
		if (c < 32u) {
			if ((touching & (1u << c)) == 0u)
				continue;
		} else {
			vec4 cs = clusters[from.cluster_first + c];
			vec3 cc = r * cs.xyz + t;
			vec3 gap = max(max(lo - cc, cc - hi), vec3(0.0));
			if (dot(gap, gap) > cs.w * cs.w)
				continue;
		}
		depth = test_cluster(from, to, r, t, c, lod);
		if (depth >= 0.0)
			return depth;
	}
	return -1.0;
}

void main()
{
	uint p = linear_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
	if (p >= params.pair_count)
		return;
	vkcol_gpu_pair pr = pairs[p];
	vkcol_gpu_mesh a = meshes[(pr.mesh_a & params.mesh_index_mask) - 1u];
	vkcol_gpu_mesh b = meshes[(pr.mesh_b & params.mesh_index_mask) - 1u];
	pair_frames f = make_frames(pr);
	if (!bounds_overlap(a, b, f)) {
		results[p] = vkcol_gpu_result(0u, VKCOL_STAGE_BOUNDS, 0.0, 0u);
		return;
	}
	// Stage 1: overlapping inner balls, then B's vertices in A's frame, then
	// A's in B's.
	float depth = inner_ball_overlap(a, b, f);
	if (depth < 0.0)
		depth = test_vertices(b, a, f.r_ba, f.t_ba);
	if (depth < 0.0)
		depth = test_vertices(a, b, f.r_ab, f.t_ab);
	results[p] = vkcol_gpu_result(depth >= 0.0 ? 1u : 0u, VKCOL_STAGE_CUBE_MAP, max(depth, 0.0), 0u);
	if (params.collect_stats != 0u) {
		add64(VKCOL_STAT_VERTEX_TESTS, g_vertex_tests);
		add64(VKCOL_STAT_CUBE_SAMPLES, g_samples);
	}
}
