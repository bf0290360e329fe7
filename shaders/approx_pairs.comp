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
//     direction with the hardware's linear cube filtering; and A's vertices
//     against B's map. Before any vertex, closed meshes whose origins' inner
//     balls (radius = distance to the nearest triangle) overlap are accepted:
//     those balls lie inside the solids, so the pair certainly collides.
// Vertices come in spatial clusters, and clusters in groups: a group or
// cluster whose bounding sphere misses the other mesh's AABB, or lies beyond
// the other mesh's map by its cone bounds (cone_bound.glsl), is skipped whole.
// This shader tests one cluster per direction, the one nearest the other
// mesh's origin (when the meshes collide, the likeliest to hold an inside
// vertex), and makes cluster jobs (shared.h) of the rest for
// approx_jobs.comp: with one invocation per pair, the vertex loops of a
// workgroup's pairs differ in length by orders of magnitude, and a SIMD CPU
// driver such as lavapipe runs them all as long as the longest. When the
// job list is full, the pair tests its clusters here instead. Pairs of a
// workgroup may sample different cube arrays (map_sample.glsl).
#version 450
#include "shared.h"
#include "common.glsl"
#include "pair_common.glsl"
#include "approx_common.glsl"

layout(std430, set = 0, binding = 3) writeonly buffer Results { vkcol_gpu_result results[]; };

// May the ball cs (centre, radius) of `from`'s vertices, placed in `to`'s
// frame by x -> r x + t, hold a vertex inside `to`? Not when it misses `to`'s
// AABB, nor, with `cones`, when it lies beyond `to`'s map in every direction
// it covers. d2: squared distance of its centre from `to`'s origin.
bool ball_may_hit(vkcol_gpu_mesh to, mat3 r, vec3 t, vec4 cs, bool cones, out float d2)
{
	vec3 cc = r * cs.xyz + t;
	vec3 gap = max(max(box_min(to) - cc, cc - box_max(to)), vec3(0.0));
	vec3 off = cc - vec3(to.origin_x, to.origin_y, to.origin_z);
	d2 = dot(off, off);
	if (dot(gap, gap) > cs.w * cs.w)
		return false;
	return !(cones && cone_beyond(to, off, sqrt(d2), cs.w));
}

// Reserves n job slots: the index of the first, or NONE when the list is
// full. Slots of a failed reservation that lie within the list are marked
// empty (every later reservation fails too, so no valid job follows them).
uint reserve_jobs(uint n)
{
	uint first = atomicAdd(job_args[3], n);
	if (first + n > params.job_capacity) {
		for (uint s = first; s < params.job_capacity; s++)
			jobs[s] = uvec2(NONE, 0u);
		return NONE;
	}
	atomicMax(job_args[0], (first + n + gl_WorkGroupSize.x - 1u) / gl_WorkGroupSize.x);
	return first;
}

// One direction of a pair: `from`'s vertices placed in `to`'s frame by
// x -> r x + t; direction 0 = B's vertices in A, 1 = A's in B.
struct side {
	vkcol_gpu_mesh from, to;
	mat3 r;
	vec3 t;
	uint direction;
	bool cones;     // cone bounds apply (level 0's linear filtering only)
	uint groups;    // groups of `from`
	uint touching;  // bit b set: a group g with g % 32 = b may hold an inside vertex
	uint nearest;   // the group nearest `to`'s origin that may, or NONE
	uint tested;    // its cluster nearest `to`'s origin that may, tested here
	uint rest;      // group_mask of `nearest` without `tested`
};

// The clusters of group g of s.from that may hold a vertex inside s.to, as
// a mask from the group's first cluster; closest: the nearest of them.
uint group_mask(side s, uint g, out uint closest)
{
	uint first = g * VKCOL_GROUP_CLUSTERS;
	uint end = min(first + VKCOL_GROUP_CLUSTERS, s.from.cluster_count);
	uint mask = 0u;
	float closest_d2 = 3.4e38, d2;
	closest = NONE;
	for (uint c = first; c < end; c++)
		if (ball_may_hit(s.to, s.r, s.t, clusters[s.from.cluster_first + c], s.cones, d2)) {
			mask |= 1u << (c - first);
			if (d2 < closest_d2) {
				closest_d2 = d2;
				closest = c;
			}
		}
	return mask;
}

// Finds the groups of s.from that may hold an inside vertex and tests, here,
// the nearest cluster of the nearest of them: when the meshes collide its
// vertices are the likeliest to be inside. Returns that vertex's depth, or -1.
float test_nearest(inout side s)
{
	s.cones = map_lod(s.to) == 0.0 && (params.flags & VKCOL_APPROX_NO_CONES) == 0u;
	s.groups = (s.from.cluster_count + VKCOL_GROUP_CLUSTERS - 1u) / VKCOL_GROUP_CLUSTERS;
	s.touching = 0u;
	s.nearest = NONE;
	s.tested = NONE;
	s.rest = 0u;
	uint group_first = s.from.cluster_first + s.from.cluster_count;
	float nearest_d2 = 3.4e38, d2;
	for (uint g = 0u; g < s.groups; g++) {
		if (!ball_may_hit(s.to, s.r, s.t, clusters[group_first + g], s.cones, d2))
			continue;
		s.touching |= 1u << (g & 31u);
		if (d2 < nearest_d2) {
			nearest_d2 = d2;
			s.nearest = g;
		}
	}
	if (s.nearest == NONE)
		return -1.0;
	s.rest = group_mask(s, s.nearest, s.tested);
	if (s.tested == NONE)
		return -1.0;
	s.rest &= ~(1u << (s.tested - s.nearest * VKCOL_GROUP_CLUSTERS));
	return test_cluster(s.from, s.to, s.r, s.t, s.tested);
}

// Makes jobs of the clusters in `mask` (bit k: cluster k of group g of
// s.from). Returns false when the job list is full.
bool group_jobs(uint p, side s, uint g, uint mask)
{
	uint slot = mask != 0u ? reserve_jobs(uint(bitCount(mask))) : 0u;
	if (slot == NONE)
		return false;
	while (mask != 0u) {
		jobs[slot++] = uvec2(p, g * VKCOL_GROUP_CLUSTERS + uint(findLSB(mask)) | (s.direction << 31));
		mask &= mask - 1u;
	}
	return true;
}

// Makes jobs of the clusters of s.from that may hold a vertex inside s.to,
// but the one test_nearest tested. Returns false when the job list is full.
// The groups are visited through the set bits of s.touching: a SIMD driver
// runs the loop as often as the pair with the most such groups needs, not
// once per group any pair of the SIMD group touches.
bool make_jobs(uint p, side s)
{
	if (s.nearest == NONE)
		return true;
	bool room = group_jobs(p, s, s.nearest, s.rest);
	uint pending = s.touching, group_first = s.from.cluster_first + s.from.cluster_count, closest;
	float d2;
	while (pending != 0u && room) {
		uint b = uint(findLSB(pending));
		pending &= pending - 1u;
		for (uint g = b; g < s.groups && room; g += 32u)
			if (g != s.nearest && (s.groups <= 32u || ball_may_hit(s.to, s.r, s.t, clusters[group_first + g], s.cones, d2)))
				room = group_jobs(p, s, g, group_mask(s, g, closest));
	}
	return room;
}

// The job list is full: tests every cluster of the pair that may hold an
// inside vertex here (slow, but the list is sized so that this is rare).
// One copy of this code: a SIMD driver runs every branch of a shader, taken
// or not, so each call site would cost every pair.
float test_all(side ba, side ab)
{
	float depth = -1.0, d2;
	uint closest;
	for (uint direction = 0u; direction < 2u && depth < 0.0; direction++) {
		side s = direction == 0u ? ba : ab;
		uint group_first = s.from.cluster_first + s.from.cluster_count;
		for (uint g = 0u; g < s.groups && depth < 0.0; g++) {
			uint mask = ball_may_hit(s.to, s.r, s.t, clusters[group_first + g], s.cones, d2) ? group_mask(s, g, closest) : 0u;
			while (mask != 0u && depth < 0.0) {
				depth = test_cluster(s.from, s.to, s.r, s.t, g * VKCOL_GROUP_CLUSTERS + uint(findLSB(mask)));
				mask &= mask - 1u;
			}
		}
	}
	return depth;
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
	// Stage 1: overlapping inner balls; the nearest cluster of B's vertices
	// in A's frame and of A's in B's; then jobs for the other clusters. The
	// directions are loops, not two calls: one copy of the code (test_all).
	float depth = inner_ball_overlap(a, b, f);
	side ba, ab;
	ba.from = b, ba.to = a, ba.r = f.r_ba, ba.t = f.t_ba, ba.direction = 0u;
	ab.from = a, ab.to = b, ab.r = f.r_ab, ab.t = f.t_ab, ab.direction = 1u;
	ba.nearest = ab.nearest = NONE;
	for (uint direction = 0u; direction < 2u && depth < 0.0; direction++) {
		side s = direction == 0u ? ba : ab;
		depth = test_nearest(s);
		if (direction == 0u)
			ba = s;
		else
			ab = s;
	}
	bool room = true;
	for (uint direction = 0u; direction < 2u && depth < 0.0 && room; direction++)
		room = make_jobs(p, direction == 0u ? ba : ab);
	if (!room)
		depth = test_all(ba, ab);
	results[p] = vkcol_gpu_result(depth >= 0.0 ? 1u : 0u, VKCOL_STAGE_CUBE_MAP, max(depth, 0.0), 0u);
	add_stats();
}
