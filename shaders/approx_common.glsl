// SPDX-License-Identifier: MIT
// What approx_pairs.comp and approx_jobs.comp share: their bindings (but the
// results, which each declares as it writes them), the statistics counters
// and the vertex test of one cluster.
#ifndef VKCOL_APPROX_COMMON_GLSL
#define VKCOL_APPROX_COMMON_GLSL

layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = 0) readonly buffer Pairs { vkcol_gpu_pair pairs[]; };
layout(std430, set = 0, binding = 1) readonly buffer Meshes { vkcol_gpu_mesh meshes[]; };
layout(std430, set = 0, binding = 2) readonly buffer Vertices { vec4 vertices[]; };
layout(std430, set = 0, binding = 4) buffer Stats { uint stats[]; };
// Cluster and group spheres (centre, radius), and the cone bounds.
layout(std430, set = 0, binding = 5) readonly buffer Clusters { vec4 clusters[]; };
layout(std430, set = 0, binding = 6) buffer Jobs { uvec2 jobs[]; };
layout(std430, set = 0, binding = 7) buffer JobArgs { uint job_args[]; };
layout(set = 0, binding = 8) uniform samplerCubeArray maps[VKCOL_MAP_ARRAYS];
layout(push_constant) uniform Push { vkcol_approx_params params; };
#include "map_sample.glsl"
#include "cone_bound.glsl"

// No pair (an empty job slot), group or cluster.
const uint NONE = 0xffffffffu;

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

void add_stats()
{
	if ((params.flags & VKCOL_APPROX_STATS) != 0u) {
		add64(VKCOL_STAT_VERTEX_TESTS, g_vertex_tests);
		add64(VKCOL_STAT_CUBE_SAMPLES, g_samples);
	}
}

// The level to sample `to`'s map at.
float map_lod(vkcol_gpu_mesh to)
{
	return float(min(params.mip_level, to.map_levels - 1u));
}

// Tests the vertices of cluster c of `from` (in `to`'s frame by
// x -> r x + t) against `to`'s map (the cube-map test of Intel's
// US 7,928,993: inside when the vertex's distance from `to`'s origin is at
// most the map's outer distance, channel G, sampled in its direction).
// Returns the depth of the first vertex found inside (>= 0), or -1.
// Two passes: the vertices inside `to`'s box, as a mask, then a sample for
// each of them. A SIMD driver runs the sampling loop as often as the pair
// with the most such vertices needs, not once per vertex any pair of the
// SIMD group has to sample.
float test_cluster(vkcol_gpu_mesh from, vkcol_gpu_mesh to, mat3 r, vec3 t, uint c)
{
	vec3 origin = vec3(to.origin_x, to.origin_y, to.origin_z);
	vec3 lo = box_min(to), hi = box_max(to);
	float lod = map_lod(to);
	uint first = from.vertex_first + c * VKCOL_CLUSTER_SIZE;
	uint count = min(VKCOL_CLUSTER_SIZE, from.vertex_first + from.vertex_count - first);
	uint in_box = 0u;
	for (uint k = 0u; k < count; k++) {
		vec3 v = r * vertices[first + k].xyz + t;
		if (all(greaterThanEqual(v, lo)) && all(lessThanEqual(v, hi)))
			in_box |= 1u << k;
	}
	g_vertex_tests += count;
	float depth = -1.0;
	while (in_box != 0u && depth < 0.0) {
		uint k = uint(findLSB(in_box));
		in_box &= in_box - 1u;
		vec3 d = r * vertices[first + k].xyz + t - origin;
		float dist = length(d);
		if (dist == 0.0) {
			depth = 0.0;
		} else {
			g_samples++;
			float outer = map_sample(to.map_array, d, float(to.map_layer), lod).g;
			if (dist <= outer)
				depth = outer - dist;
		}
	}
	return depth;
}

#endif
