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

layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = 0) readonly buffer Pairs { vkcol_gpu_pair pairs[]; };
layout(std430, set = 0, binding = 1) readonly buffer Meshes { vkcol_gpu_mesh meshes[]; };
layout(std430, set = 0, binding = 2) readonly buffer Vertices { vec4 vertices[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Results { vkcol_gpu_result results[]; };
layout(std430, set = 0, binding = 4) buffer Stats { uint stats[]; };
layout(std430, set = 0, binding = 5) readonly buffer Clusters { vec4 clusters[]; }; // centre, radius
layout(set = 0, binding = 6) uniform samplerCubeArray maps[VKCOL_MAP_ARRAYS];
layout(push_constant) uniform Push { vkcol_approx_params params; };

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

// Constant indices only: dynamically indexed sampler arrays need a feature
// (shaderSampledImageArrayDynamicIndexing) that Vulkan 1.1 does not guarantee.
float outer_distance(uint array_index, vec3 d, float layer, float lod)
{
	vec4 c = vec4(d, layer);
	switch (array_index) {
	case 0u: return textureLod(maps[0], c, lod).g;
	case 1u: return textureLod(maps[1], c, lod).g;
	case 2u: return textureLod(maps[2], c, lod).g;
	case 3u: return textureLod(maps[3], c, lod).g;
	case 4u: return textureLod(maps[4], c, lod).g;
	case 5u: return textureLod(maps[5], c, lod).g;
	case 6u: return textureLod(maps[6], c, lod).g;
	case 7u: return textureLod(maps[7], c, lod).g;
	default: return textureLod(maps[8], c, lod).g;
	}
}

vec3 box_min(vkcol_gpu_mesh m)
{
	return vec3(m.aabb_min_x, m.aabb_min_y, m.aabb_min_z);
}

vec3 box_max(vkcol_gpu_mesh m)
{
	return vec3(m.aabb_max_x, m.aabb_max_y, m.aabb_max_z);
}

// Does `from`'s AABB, carried into `to`'s frame by x -> r x + t, overlap
// `to`'s AABB?
bool boxes_overlap(vkcol_gpu_mesh from, vkcol_gpu_mesh to, mat3 r, vec3 t)
{
	vec3 c = 0.5 * (box_min(from) + box_max(from)), e = 0.5 * (box_max(from) - box_min(from));
	mat3 a = mat3(abs(r[0]), abs(r[1]), abs(r[2]));
	vec3 moved = r * c + t, reach = a * e;
	vec3 tc = 0.5 * (box_min(to) + box_max(to)), te = 0.5 * (box_max(to) - box_min(to));
	return all(lessThanEqual(abs(moved - tc), reach + te));
}

// Tests the vertices of mesh `from` (placed in `to`'s frame by x -> r x + t)
// against `to`'s map. Returns the depth of the first vertex found inside
// (>= 0), or -1 when none is.
float test_vertices(vkcol_gpu_mesh from, vkcol_gpu_mesh to, mat3 r, vec3 t)
{
	vec3 origin = vec3(to.origin_x, to.origin_y, to.origin_z);
	vec3 lo = box_min(to), hi = box_max(to);
	float lod = float(min(params.mip_level, to.map_levels - 1u));
	float layer = float(to.map_layer);
	for (uint c = 0u; c < from.cluster_count; c++) {
		// A cluster whose sphere misses `to`'s AABB holds no vertex inside.
		vec4 cs = clusters[from.cluster_first + c];
		vec3 cc = r * cs.xyz + t;
		vec3 gap = max(max(lo - cc, cc - hi), vec3(0.0));
		if (dot(gap, gap) > cs.w * cs.w)
			continue;
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
			float outer = outer_distance(to.map_array, d, layer, lod);
			if (dist <= outer)
				return outer - dist;
		}
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
	vec4 qa = normalize(vec4(pr.qa_x, pr.qa_y, pr.qa_z, pr.qa_w));
	vec4 qb = normalize(vec4(pr.qb_x, pr.qb_y, pr.qb_z, pr.qb_w));
	vec3 ta = vec3(pr.ta_x, pr.ta_y, pr.ta_z), tb = vec3(pr.tb_x, pr.tb_y, pr.tb_z);

	// Stage 0: bounding spheres in world space, then the AABBs.
	vec3 ca = quat_rotate(qa, vec3(a.sphere_x, a.sphere_y, a.sphere_z)) + ta;
	vec3 cb = quat_rotate(qb, vec3(b.sphere_x, b.sphere_y, b.sphere_z)) + tb;
	vec3 gap = ca - cb;
	float reach = a.sphere_radius + b.sphere_radius;
	// B in A's frame: x_A = Ra^T (Rb x_B + tb - ta); A in B's frame is the
	// inverse, r_ab = r_ba^T.
	mat3 ra = quat_to_mat3(qa), rb = quat_to_mat3(qb);
	mat3 r_ba = transpose(ra) * rb, r_ab = transpose(r_ba);
	vec3 t_ba = transpose(ra) * (tb - ta), t_ab = transpose(rb) * (ta - tb);
	if (dot(gap, gap) > reach * reach || !boxes_overlap(b, a, r_ba, t_ba) || !boxes_overlap(a, b, r_ab, t_ab)) {
		results[p] = vkcol_gpu_result(0u, VKCOL_STAGE_BOUNDS, 0.0, 0u);
		return;
	}

	// Stage 1: overlapping inner balls, then B's vertices in A's frame, then
	// A's in B's.
	float depth = -1.0;
	if (a.inner_radius > 0.0 && b.inner_radius > 0.0) {
		vec3 ob = r_ba * vec3(b.origin_x, b.origin_y, b.origin_z) + t_ba;
		float apart = distance(ob, vec3(a.origin_x, a.origin_y, a.origin_z));
		if (apart <= a.inner_radius + b.inner_radius)
			depth = a.inner_radius + b.inner_radius - apart;
	}
	if (depth < 0.0)
		depth = test_vertices(b, a, r_ba, t_ba);
	if (depth < 0.0)
		depth = test_vertices(a, b, r_ab, t_ab);
	results[p] = vkcol_gpu_result(depth >= 0.0 ? 1u : 0u, VKCOL_STAGE_CUBE_MAP, max(depth, 0.0), 0u);
	if (params.collect_stats != 0u) {
		add64(VKCOL_STAT_VERTEX_TESTS, g_vertex_tests);
		add64(VKCOL_STAT_CUBE_SAMPLES, g_samples);
	}
}
