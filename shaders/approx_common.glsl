// SPDX-License-Identifier: MIT
// What the approx mode passes (approx_pairs.comp, approx_groups.comp,
// approx_jobs.comp) share: their bindings (pools.glsl and approx mode's
// own; the results each declares as it writes them), the statistics
// counters, the vertex test of one cluster, the culling of groups and
// clusters by their balls and the job lists.
#ifndef VKCOL_APPROX_COMMON_GLSL
#define VKCOL_APPROX_COMMON_GLSL

layout(local_size_x_id = 0) in;
layout(push_constant) uniform Push { vkcol_approx_params params; };
#include "pools.glsl"
layout(std430, set = 0, binding = VKCOL_APPROX_BINDING_STATS) buffer Stats { uint stats[]; };
// The job lists (shared.h): written here, read by the passes after through
// their texel view, two jobs per texel.
layout(std430, set = 0, binding = VKCOL_APPROX_BINDING_JOBS) buffer Jobs { uvec2 jobs[]; };
layout(set = 0, binding = VKCOL_APPROX_BINDING_JOB_TEXELS) uniform usamplerBuffer job_texels;
layout(std430, set = 0, binding = VKCOL_APPROX_BINDING_JOB_ARGS) buffer JobArgs { uint job_args[]; };

// Job i of the job lists.
uvec2 job_at(uint i)
{
	uvec4 two = texelFetch(job_texels, int(i >> 1u));
	return (i & 1u) != 0u ? two.zw : two.xy;
}
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

// May the ball cs (centre, radius) of `from`'s vertices, placed in `to`'s
// frame by x -> r x + t, hold a vertex inside `to` (for an open `to`: a
// vertex on either side of its sampled surfaces, test_cluster)? Not when it
// misses `to`'s AABB, nor, with `cones`, when it lies beyond `to`'s map in
// every direction it covers, nor, with `open` (`to` open), when it lies
// inside `to`'s AABB and, in every such direction, before its nearest
// sampled surface or between its nearest and farthest (cone_rules_out; a
// vertex outside the box counts as beyond the surfaces, so the ball must be
// inside). d2: squared distance of its centre from `to`'s origin.
bool ball_may_hit(vkcol_gpu_mesh to, mat3 r, vec3 t, vec4 cs, bool cones, bool open, out float d2, out vec3 cc)
{
	// precise (as every position here): the same bits in every pass, so
	// that a pair's spilled answer is its jobs' (approx_jobs.comp).
	precise vec3 centre = r * cs.xyz + t;
	cc = centre;
	// Per axis, how far the centre lies beyond the box's slab (< 0 within).
	vec3 beyond = max(box_min(to) - cc, cc - box_max(to)), gap = max(beyond, vec3(0.0));
	precise vec3 off = cc - vec3(to.origin_x, to.origin_y, to.origin_z);
	precise float dd = dot(off, off);
	d2 = dd;
	if (dot(gap, gap) > cs.w * cs.w)
		return false;
	bool inside = all(lessThanEqual(beyond, vec3(-cs.w)));
	return !(cones && cone_rules_out(to, off, sqrt(d2), cs.w, open && inside));
}

// The job lists (shared.h): cluster jobs, group jobs, spilled pairs.
const uint CLUSTER_JOBS = VKCOL_JOBS_CLUSTER, GROUP_JOBS = VKCOL_JOBS_GROUP, SPILLED_PAIRS = VKCOL_JOBS_SPILLED;

// Where job list `list` starts in the job lists, and how many jobs it holds
// (the spilled pairs: one slot per pair of the chunk).
uint list_base(uint list)
{
	return list == CLUSTER_JOBS ? 0u
	       : list == GROUP_JOBS ? params.job_capacity
	                            : params.job_capacity + params.group_capacity;
}

uint list_capacity(uint list)
{
	return list == CLUSTER_JOBS ? params.job_capacity : list == GROUP_JOBS ? params.group_capacity : params.pair_count;
}

// Reserves n slots of job list `list`: the
// index of the first in the job lists, or NONE when the list is full. Slots of a
// failed reservation that lie within the list are marked empty (every later
// reservation fails too, so no valid job follows them).
uint reserve_jobs(uint list, uint n)
{
	uint base = list_base(list), capacity = list_capacity(list);
	uint first = atomicAdd(job_args[4u * list + VKCOL_JOB_COUNT], n);
	if (first + n > capacity) {
		for (uint s = first; s < capacity; s++)
			jobs[base + s] = uvec2(NONE, 0u);
		return NONE;
	}
	atomicMax(job_args[4u * list], (first + n + gl_WorkGroupSize.x - 1u) / gl_WorkGroupSize.x);
	return base + first;
}

// The spilled-list variant of approx_pairs.comp (VKCOL_APPROX_UNROLLED 1)
// tests a spilled pair's clusters by cluster_hits, test_cluster with its
// loops written out: lavapipe (Mesa's gallivm) ends every loop of an invocation
// once all of them together have run 65,535 iterations
// (LP_MAX_TGSI_LOOP_ITERATIONS, one count for all the loops of a shader,
// per SIMD group), and a spilled pair of a large mesh tests all its
// clusters in one invocation: past the limit, its clusters were tested on
// one vertex each, and its answer depended on the pairs beside it.
#ifndef VKCOL_APPROX_UNROLLED
#define VKCOL_APPROX_UNROLLED 0
#endif

// Lists spilled pair p (VKCOL_JOBS_SPILLED).
void list_spilled(uint p)
{
	uint slot = reserve_jobs(SPILLED_PAIRS, 1u);
	if (slot != NONE)
		jobs[slot] = uvec2(p, 0u);
}

// One direction of a pair: `from`'s vertices placed in `to`'s frame by
// x -> r x + t; direction 0 = B's vertices in A, 1 = A's in B.
struct side {
	vkcol_gpu_mesh from, to;
	mat3 r;
	vec3 t;
	uint direction;
	bool cones;     // cone bounds apply (level 0's linear filtering only)
	bool open;      // and so do the inner distance's (s.to open, cone_bound.glsl)
	bool clears;    // and so does s.to's clearance field (cone_bound.glsl)
	uint groups;    // groups of `from`
	uint span;      // groups per bit of `touching`: groups / 32, rounded up
	uint touching;  // bit b set: a group g with g / span = b may hold an inside vertex
	uint nearest;   // the group nearest `to`'s origin that may, or NONE
	uint tested;    // its cluster nearest `to`'s origin that may, tested first
	uint rest;      // group_mask of `nearest` without `tested`
	clearance_grid clear; // s.to's clearance field
};

// Direction `direction` of pair pr, before any group is tested. Only the two
// meshes it reads are loaded: a SIMD driver loads per invocation, field by
// field.
side side_of(vkcol_gpu_pair pr, pair_frames f, uint direction)
{
	side s;
	bool ba = direction == 0u;
	s.from = mesh_of(ba ? pr.mesh_b : pr.mesh_a);
	s.to = mesh_of(ba ? pr.mesh_a : pr.mesh_b);
	s.r = ba ? f.r_ba : f.r_ab;
	s.t = ba ? f.t_ba : f.t_ab;
	s.direction = direction;
	s.cones = map_lod(s.to) == 0.0 && (params.flags & VKCOL_APPROX_NO_CONES) == 0u;
	s.clears = s.cones && (params.flags & VKCOL_APPROX_NO_CLEARANCE) == 0u;
	s.open = s.cones && (s.to.flags & VKCOL_MESH_CLOSED) == 0u && (params.flags & VKCOL_APPROX_NO_OPEN_BOUNDS) == 0u;
	s.groups = (s.from.cluster_count + VKCOL_GROUP_CLUSTERS - 1u) / VKCOL_GROUP_CLUSTERS;
	s.span = (s.groups + 31u) / 32u;
	s.touching = 0u;
	s.nearest = NONE;
	s.tested = NONE;
	s.rest = 0u;
	s.clear = clearance_of(s.to);
	return s;
}

// A cluster's test in progress (test_cluster): its first vertex, the mask
// of its vertices left to sample (bit k: vertex first + k), s.to's origin
// and map level, whether s.to is open, and what the samples so far found.
struct cluster_scan {
	uint first, boxed;
	vec3 origin;
	float lod;
	bool open_to;
	bvec2 below_rg, above_rg;
	float deepest, depth;
};

// test_cluster's first pass: the vertices of cluster c to sample.
cluster_scan scan_cluster(side s, uint c)
{
	cluster_scan k;
	vkcol_gpu_mesh from = s.from, to = s.to;
	k.origin = vec3(to.origin_x, to.origin_y, to.origin_z);
	k.lod = map_lod(to);
	k.first = from.vertex_first + c * VKCOL_CLUSTER_SIZE;
	uint first = k.first, count = min(VKCOL_CLUSTER_SIZE, from.vertex_first + from.vertex_count - first);
	vec4 ball = cluster_at(from.cluster_first + c);
	precise vec3 centre = s.r * ball.xyz + s.t, off = centre - k.origin;
	vec4 clear = clearance_ball(s.clear, centre);
	// Against an open s.to a cleared vertex may lie where the map misses
	// s.to, on neither side of it: the field skips none unless the
	// cluster's cone sees no miss (its least R is then above 0).
	k.open_to = (to.flags & VKCOL_MESH_CLOSED) == 0u;
	uint cell = s.open ? cone_of(off, length(off), ball.w) : 0xffffffffu;
	bool hits = cell != 0xffffffffu && cluster_at(to.cone_first + cell).y > 0.0;
	if (!s.clears || (k.open_to && !hits))
		clear.w = 0.0;
	uint boxed = 0u;
#if VKCOL_APPROX_UNROLLED
	// Of constant length (unrolled: no iteration counts against lavapipe's
	// limit, above), the vertices past the cluster's last read as that one
	// and masked off after.
	uint last = from.vertex_first + from.vertex_count - 1u;
	for (uint v = 0u; v < uint(VKCOL_CLUSTER_SIZE); v++) {
		precise vec3 x = s.r * vertex_at(min(first + v, last)).xyz + s.t, off = x - clear.xyz;
		if (in_box(to, x) && dot(off, off) >= clear.w)
			boxed |= 1u << v;
	}
	boxed &= (1u << count) - 1u;
#else
	for (uint v = 0u; v < count; v++) {
		precise vec3 x = s.r * vertex_at(first + v).xyz + s.t, off = x - clear.xyz;
		if (in_box(to, x) && dot(off, off) >= clear.w)
			boxed |= 1u << v;
	}
#endif
	g_vertex_tests += count;
	k.boxed = boxed;
	// Vertices left out (outside to's box or in the cleared ball) lie
	// beyond to's farthest surface, so above both.
	k.below_rg = bvec2(false);
	k.above_rg = bvec2(uint(bitCount(boxed)) < count);
	k.deepest = 0.0;
	k.depth = -1.0;
	return k;
}

// Vertex first + v of a cluster's test, in order: its sample of s.to's map,
// and the depth once the cluster is found inside (closed s.to) or across a
// sampled surface (open).
void sample_vertex(side s, inout cluster_scan k, uint v)
{
	precise vec3 d = s.r * vertex_at(k.first + v).xyz + s.t - k.origin;
	precise float dist = length(d);
	vec2 rg = vec2(0.0);
	if (dist > 0.0) {
		g_samples++;
		rg = map_sample(s.to.map_array, d, float(s.to.map_layer), k.lod);
	}
	if (!k.open_to) {
		if (dist <= rg.g)
			k.depth = rg.g - dist;
	} else if (rg.r >= 0.0) {
		// (A negative sample blends in a ray that misses `to`: no
		// surface there, the vertex is on neither side.)
		bvec2 b = lessThan(vec2(dist), rg);
		k.below_rg = bvec2(k.below_rg.x || b.x, k.below_rg.y || b.y);
		k.above_rg = bvec2(k.above_rg.x || !b.x, k.above_rg.y || !b.y);
		k.deepest = max(k.deepest, rg.g - dist);
		if ((k.below_rg.x && k.above_rg.x) || (k.below_rg.y && k.above_rg.y))
			k.depth = k.deepest;
	}
}

// Tests the vertices of cluster c of s.from (in s.to's frame by
// x -> s.r x + s.t) against s.to's map (the cube-map test of Intel's
// US 7,928,993: inside when the vertex's distance from s.to's origin is at
// most the map's outer distance, channel G, sampled in its direction).
// Returns the depth of the first vertex found inside (>= 0), or -1. An
// open s.to bounds no solid (only surfaces count, as in exact mode): the
// cluster hits when its vertices lie on both sides of s.to's nearest (R)
// or farthest (G) surface along their rays, a sampled surface crossing;
// the depth is then how far the deepest of them lies below G. A vertex
// whose sample blends in a ray that misses s.to (VKCOL_MAP_MISS) is on
// neither side.
// Two passes: the vertices inside s.to's box and outside the ball its
// clearance field clears around the cluster's grid point (for an open s.to
// only where the cluster's cone sees no miss) (clearance_ball:
// read once per cluster, so a vertex costs a distance, not a lookup), as a
// mask, then a sample for each of them. A SIMD driver runs the sampling
// loop as often as the pair with the most such vertices needs, not once per
// vertex any pair of the SIMD group has to sample.
float test_cluster(side s, uint c)
{
	cluster_scan k = scan_cluster(s, c);
	uint boxed = k.boxed;
	while (boxed != 0u && k.depth < 0.0) {
		uint v = uint(findLSB(boxed));
		boxed &= boxed - 1u;
		sample_vertex(s, k, v);
	}
	return k.depth;
}

#if VKCOL_APPROX_UNROLLED
// test_cluster's hit or miss (not its depth: the sampling code, written
// out, rounds differently on lavapipe) with its samples written out, for
// the spilled pass's search of all a pair's clusters, whose loops would
// pass lavapipe's limit (above).
bool cluster_hits(side s, uint c)
{
	cluster_scan k = scan_cluster(s, c);
#define VKCOL_SAMPLE(v) \
	if (((k.boxed >> (v)) & 1u) != 0u && k.depth < 0.0) \
		sample_vertex(s, k, v);
	VKCOL_SAMPLE(0u) VKCOL_SAMPLE(1u) VKCOL_SAMPLE(2u) VKCOL_SAMPLE(3u)
	VKCOL_SAMPLE(4u) VKCOL_SAMPLE(5u) VKCOL_SAMPLE(6u) VKCOL_SAMPLE(7u)
	VKCOL_SAMPLE(8u) VKCOL_SAMPLE(9u) VKCOL_SAMPLE(10u) VKCOL_SAMPLE(11u)
	VKCOL_SAMPLE(12u) VKCOL_SAMPLE(13u) VKCOL_SAMPLE(14u) VKCOL_SAMPLE(15u)
#undef VKCOL_SAMPLE
	return k.depth >= 0.0;
}
#endif

// The clusters of group g of s.from that may hold a vertex inside s.to, as
// a mask from the group's first cluster; closest: the nearest of them.
// Besides ball_may_hit's tests, a cluster's ball is tested against s.to's
// clearance field, which is tight where cone bounds are loose (a long thin
// part shares a cone with empty space). Group balls are not: they are too
// large for the field to reject more than the cones do, and the lookup
// costs more than it saves on meshes whose cones are tight (sphere, box,
// torus).
uint group_mask(side s, uint g, out uint closest)
{
	uint first = g * VKCOL_GROUP_CLUSTERS;
	uint end = min(first + VKCOL_GROUP_CLUSTERS, s.from.cluster_count);
	uint mask = 0u;
	float closest_d2 = 3.4e38, d2;
	closest = NONE;
	for (uint c = first; c < end; c++) {
		vec4 cs = cluster_at(s.from.cluster_first + c);
		vec3 cc;
		if (ball_may_hit(s.to, s.r, s.t, cs, s.cones, s.open, d2, cc) && !(s.clears && clearance_beyond(s.clear, cc, cs.w))) {
			mask |= 1u << (c - first);
			if (d2 < closest_d2) {
				closest_d2 = d2;
				closest = c;
			}
		}
	}
	return mask;
}

// A cluster job's key (shared.h): its order among the pair's jobs, the
// nearest group's clusters (s.nearest, which the pair pass tests first)
// before the others of a direction, direction 0 before 1.
uint job_key(uint direction, bool nearest, uint cluster)
{
	return direction << 31 | (nearest ? 0u : 1u) << 30 | cluster;
}

// Makes cluster jobs of the clusters in `mask` (bit k: cluster k of group g
// of s.from), with their keys. Returns false when the job list is full.
bool group_jobs(uint p, side s, uint g, uint mask)
{
	uint slot = mask != 0u ? reserve_jobs(CLUSTER_JOBS, uint(bitCount(mask))) : 0u;
	if (slot == NONE)
		return false;
	while (mask != 0u) {
		jobs[slot++] = uvec2(p, job_key(s.direction, g == s.nearest, g * VKCOL_GROUP_CLUSTERS + uint(findLSB(mask))));
		mask &= mask - 1u;
	}
	return true;
}

#endif
