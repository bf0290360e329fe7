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
// the other mesh's map by its cone bounds (cone_bound.glsl), is skipped
// whole, and so is a cluster that the other mesh's clearance field
// (cone_bound.glsl) puts beyond its map.
// This shader tests the balls of the groups and, per direction, one cluster:
// the one nearest the other mesh's origin (when the meshes collide, the
// likeliest to hold an inside vertex). It makes cluster jobs (shared.h) of
// the other clusters of that cluster's group, and group jobs of the other
// groups whose balls may hold an inside vertex: approx_groups.comp tests
// their clusters' balls and makes cluster jobs, which approx_jobs.comp
// tests. With one invocation per pair, the loops of a workgroup's pairs
// differ in length by orders of magnitude, and a SIMD CPU driver such as
// lavapipe runs them all as long as the longest; one invocation per group
// or cluster has loops of equal length. When a job list is full, the pair
// is spilled and listed: the spilled-list variant of this shader
// (VKCOL_VARIANT 2, approx_spilled_list in shaders/meson.build), run after
// the jobs, one invocation per listed pair, tests its clusters as its jobs
// would; then the spilled variant (VKCOL_VARIANT 1, approx_spilled), one
// invocation per pair, works out the penetration of the pairs found
// colliding (shared.h). Each variant holds none of the others' code, which
// a SIMD driver would run, masked, for every pair.
// Pairs of a workgroup may sample different cube arrays (map_sample.glsl).
#version 450
#include "shared.h"
#include "common.glsl"
#include "pair_common.glsl"
#define VKCOL_APPROX_UNROLLED (VKCOL_VARIANT == 2) // approx_common.glsl
#include "approx_common.glsl"

// The results as (collide, stage, penetration bits, VKCOL_RESULT_* flags)
// (shared.h):
// the spilled variant reads the key the jobs left in word 2 as bits, never
// as a float (its patterns are NaNs); the spilled-list variant keeps a key
// there as a job does (approx_job.glsl's words).
#if VKCOL_VARIANT == 2
#include "approx_job.glsl"
#else
#if VKCOL_VARIANT == 1
layout(std430, set = 0, binding = VKCOL_BINDING_RESULTS) buffer Results { uvec4 results[]; };
#else
layout(std430, set = 0, binding = VKCOL_BINDING_RESULTS) writeonly buffer Results { uvec4 results[]; };
#endif

void write_result(uint p, bool collide, uint stage, float depth, uint spilled)
{
	results[p] = uvec4(collide ? 1u : 0u, stage, floatBitsToUint(depth), spilled);
}
#endif

// The groups of s.from whose balls may hold a vertex inside s.to
// (s.touching) and the one of them nearest s.to's origin (s.nearest, the
// first of the nearest: job_key's order rests on both passes picking the
// same one).
void find_groups(inout side s)
{
	uint group_first = s.from.cluster_first + s.from.cluster_count;
	float nearest_d2 = 3.4e38, d2;
	vec3 cc;
	for (uint g = 0u; g < s.groups; g++) {
		if (!ball_may_hit(s.to, s.r, s.t, cluster_at(group_first + g), s.cones, s.open, d2, cc))
			continue;
		s.touching |= 1u << (g / s.span);
		if (d2 < nearest_d2) {
			nearest_d2 = d2;
			s.nearest = g;
		}
	}
}

// Finds the groups of s.from that may hold an inside vertex and tests, here,
// the nearest cluster of the nearest of them: when the meshes collide its
// vertices are the likeliest to be inside. Returns that vertex's depth, or -1.
float test_nearest(inout side s)
{
	find_groups(s);
	if (s.nearest == NONE)
		return -1.0;
	s.rest = group_mask(s, s.nearest, s.tested);
	if (s.tested == NONE)
		return -1.0;
	s.rest &= ~(1u << (s.tested - s.nearest * VKCOL_GROUP_CLUSTERS));
	return test_cluster(s, s.tested);
}

// Makes cluster jobs of the clusters of the nearest group that test_nearest
// did not test, and group jobs of the other groups of s.from that may hold
// a vertex inside s.to: bit b of s.touching stands for the s.span groups
// from b s.span on (a mesh of more than 32 groups makes jobs of groups
// whose balls miss; their clusters' balls miss too, and groups of
// neighbouring indices lie near each other, as the vertices are in k-d
// order). Returns false when a list is full.
bool make_jobs(uint p, side s)
{
	if (s.nearest == NONE)
		return true;
	if (!group_jobs(p, s, s.nearest, s.rest))
		return false;
	// span groups per bit, the last bit's fewer, but the nearest.
	uint last = (s.groups - 1u) / s.span;
	uint n = uint(bitCount(s.touching)) * s.span - ((s.touching >> last) & 1u) * (s.span * (last + 1u) - s.groups) - 1u;
	uint slot = n != 0u ? reserve_jobs(GROUP_JOBS, n) : 0u;
	if (slot == NONE)
		return false;
	uint pending = s.touching;
	while (pending != 0u) {
		uint b = uint(findLSB(pending));
		pending &= pending - 1u;
		for (uint g = b * s.span; g < min(b * s.span + s.span, s.groups); g++)
			if (g != s.nearest)
				jobs[slot++] = uvec2(p, g | (s.direction << 31));
	}
	return true;
}

#if VKCOL_APPROX_UNROLLED
// A spilled pair (the spilled-list variant): tests every cluster of the
// pair that may hold an inside vertex (slow, but the job lists are sized so
// that this is rare), in the
// order of the jobs' keys (job_key): per direction, the group test_nearest
// picks, then the others, of the groups make_jobs makes jobs of (those of a
// set bit of s.touching, among them a group whose ball misses when a bit
// stands for several: approx_groups.comp tests only the clusters' balls).
// Returns the key of the first to find a vertex inside, the one the jobs
// would have found, or NONE. One flat loop, a group or one of its clusters
// an iteration, since lavapipe limits the iterations of all the loops of an
// invocation together (approx_common.glsl, VKCOL_APPROX_UNROLLED): a group
// without a cluster to test costs one.
uint first_hit(side ba, side ab)
{
	uint closest, hit = NONE;
	find_groups(ba);
	find_groups(ab);
	uint direction = 0u, k = 0u, g = 0u, mask = 0u;
	side s = ba;
	bool more = true;
	while (more && hit == NONE) {
		if (mask == 0u) {
			// The next group: k = 0 the nearest, then group k - 1.
			bool skip = k == 0u ? s.nearest == NONE : k - 1u == s.nearest;
			g = skip ? 0u : (k == 0u ? s.nearest : k - 1u);
			mask = !skip && ((s.touching >> (g / s.span)) & 1u) != 0u ? group_mask(s, g, closest) : 0u;
			k++;
		} else {
			uint c = g * VKCOL_GROUP_CLUSTERS + uint(findLSB(mask));
			mask &= mask - 1u;
			if (cluster_hits(s, c))
				hit = job_key(direction, k == 1u, c);
		}
		if (mask == 0u && k > s.groups) {
			direction++;
			k = 0u;
			s = ab;
			more = direction < 2u;
		}
	}
	return hit;
}
#endif

void main()
{
	uint p = linear_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
#if VKCOL_VARIANT == 2
	// After the jobs, one invocation per listed spilled pair (its jobs, some
	// of which may have run, are covered): the key of its first cluster in
	// job order that finds a vertex inside, kept as a job keeps it.
	if (p >= min(job_args[4u * SPILLED_PAIRS + VKCOL_JOB_COUNT], list_capacity(SPILLED_PAIRS)))
		return;
	p = job_at(list_base(SPILLED_PAIRS) + p).x;
	if (p == NONE)
		return;
	vkcol_gpu_pair pr = pair_at(p);
	pair_frames f = make_frames(pr);
	uint key = first_hit(side_of(pr, f, 0u), side_of(pr, f, 1u));
	if (key != NONE) {
		result_words[4u * p] = 1u;
		atomicMax(result_words[4u * p + 2u], ~key);
		atomicOr(result_words[4u * p + 3u], VKCOL_RESULT_HIT);
	}
	add_stats();
#else
	if (p >= params.pair_count)
		return;
#if VKCOL_VARIANT == 1
	// After the jobs and the spilled pairs, pair p in lane p (shared.h): a
	// pair found colliding or spilled. Either way the first cluster in job
	// order that finds a vertex inside (its key in word 2) gives the
	// penetration (shared.h), worked out here, in pair order, so that its
	// bits do not depend on the way it was found.
	uvec4 r = results[p];
	if ((r.w & (VKCOL_RESULT_SPILLED | VKCOL_RESULT_HIT)) == 0u)
		return;
	vkcol_gpu_pair pr = pair_at(p);
	pair_frames f = make_frames(pr);
	uint key = (r.w & VKCOL_RESULT_HIT) != 0u ? ~r.z : NONE;
	float depth = key != NONE ? test_cluster(side_of(pr, f, key >> 31), key & 0x3fffffffu) : -1.0;
	write_result(p, key != NONE, VKCOL_GPU_STAGE_CUBE_MAP, max(depth, 0.0), 0u);
	add_stats();
#else
	vkcol_gpu_pair pr = pair_at(p);
	pair_frames f = make_frames(pr);
	vkcol_gpu_mesh a = mesh_of(pr.mesh_a), b = mesh_of(pr.mesh_b);
	if (!bounds_overlap(a, b, f, 0.0)) {
		write_result(p, false, VKCOL_GPU_STAGE_BOUNDS, 0.0, 0u);
		return;
	}
	// Stage 1: overlapping inner balls; the nearest cluster of B's vertices
	// in A's frame and of A's in B's; then jobs for the other clusters. The
	// directions are loops, not two calls: one copy of the code.
	float depth = inner_ball_overlap(a, b, f);
	side ba = side_of(pr, f, 0u), ab = side_of(pr, f, 1u);
	bool room = true;
	for (uint direction = 0u; direction < 2u && depth < 0.0; direction++) {
		side s = direction == 0u ? ba : ab;
		depth = test_nearest(s);
		if (direction == 0u)
			ba = s;
		else
			ab = s;
	}
	for (uint direction = 0u; direction < 2u && depth < 0.0 && room; direction++)
		room = make_jobs(p, direction == 0u ? ba : ab);
	// Word 3: spilled (shared.h), until the spilled variant.
	write_result(p, depth >= 0.0, VKCOL_GPU_STAGE_CUBE_MAP, max(depth, 0.0), room ? 0u : VKCOL_RESULT_SPILLED);
	if (!room)
		list_spilled(p);
	add_stats();
#endif
#endif
}
