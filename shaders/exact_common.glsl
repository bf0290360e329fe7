// SPDX-License-Identifier: MIT
// Bindings and helpers shared by the exact-mode shaders (exact_*.comp): one
// binding layout (pools.glsl's and exact mode's own, shared.h) for all the
// exact pipelines, so the host writes the same bindings into each
// pipeline's two sets, one per frontier parity, once per batch.
// Method: breadth-first traversal of both meshes' flattened AABB trees on the
// GPU, one dispatch per level sized by the previous level's counter through
// vkCmdDispatchIndirect (Xiao & Shi, "GPGPU-based real-time collision
// detection"; the balanced trees of CN 102663825), then exact triangle tests.
#ifndef VKCOL_EXACT_COMMON_GLSL
#define VKCOL_EXACT_COMMON_GLSL

layout(push_constant) uniform Push { vkcol_exact_params params; };
#include "pools.glsl"
layout(std430, set = 0, binding = VKCOL_BINDING_RESULTS) buffer Results { vkcol_gpu_result results[]; };
// The node pool (VKCOL_NODE_TEXELS texels per node: its box, then its slab;
// then the nodes' oriented boxes, from params.obb_base)
// and the triangle pool, read as pools.glsl reads the others.
layout(set = 0, binding = VKCOL_EXACT_BINDING_NODES) uniform usamplerBuffer node_texels;
layout(set = 0, binding = VKCOL_EXACT_BINDING_TRIANGLES) uniform usamplerBuffer triangle_texels;
layout(std430, set = 0, binding = VKCOL_EXACT_BINDING_PIECES) readonly buffer Pieces { uint pieces[]; };
// Coherent: traversal invocations (exact_dive.comp's too) poll the hit
// counts other invocations of the same dispatch write (a pair stops once any
// of its items found a hit).
// Per pair: hits, flags.
layout(std430, set = 0, binding = VKCOL_EXACT_BINDING_STATE) coherent buffer State { uvec2 state[]; };
// The same, two pairs a texel, for the passes that only ask whether a pair
// has a hit from an earlier pass (a hit within the same pass may be missed:
// the pair then does a little more work).
layout(set = 0, binding = VKCOL_EXACT_BINDING_STATE_TEXELS) uniform usamplerBuffer state_texels;

// Had pair p a hit when this pass began (or since: not guaranteed)?
bool had_hit(uint p)
{
	uvec4 two = texelFetch(state_texels, int(p >> 1u));
	return ((p & 1u) != 0u ? two.z : two.x) != 0u;
}
// The frontiers: level l reads frontier l % 2 through its texel view and
// appends to the other one (params.capacity items, then the candidate and
// confirmation entries); the host binds each level's pair (exact_setup.comp
// writes level 0's).
layout(std430, set = 0, binding = VKCOL_EXACT_BINDING_FRONTIER_OUT) writeonly buffer Frontier { uvec4 frontier[]; };
layout(set = 0, binding = VKCOL_EXACT_BINDING_FRONTIER_IN) uniform usamplerBuffer frontier_texels;
layout(std430, set = 0, binding = VKCOL_EXACT_BINDING_COUNTERS) buffer Counters { uint counters[]; };
layout(std430, set = 0, binding = VKCOL_EXACT_BINDING_ARGS) buffer Args { uint args[]; };
// VKCOL_FRAME_VEC4S per pair (bits), written by exact_setup.comp, read by
// the later passes through the texel view.
layout(std430, set = 0, binding = VKCOL_EXACT_BINDING_FRAMES) buffer Frames { uvec4 frames[]; };
layout(set = 0, binding = VKCOL_EXACT_BINDING_FRAME_TEXELS) uniform usamplerBuffer frame_texels;
// The triangle-pair list: pair, triangle a, triangle b (originals), 0.
layout(std430, set = 0, binding = VKCOL_EXACT_BINDING_LIST) buffer List { uvec4 list[]; };

// Triangle i of the pool: v0, v1, v2 (pool vertex indices), original index.
uvec4 triangle_at(uint i)
{
	return texelFetch(triangle_texels, int(i));
}

// Node i's slab (aabb_tree.h): the encoded normal (xy, slab_normal), the
// offset m and the half-width h; every vertex v of the node has
// |n . (v - c) - m| <= h, c its box centre.
vec4 slab_at(uint i)
{
	return uintBitsToFloat(texelFetch(node_texels, int(VKCOL_NODE_TEXELS * i + 2u)));
}

// A slab's normal as aabb_tree_slab_normal (aabb_tree.c) decodes it
// (octahedral, not normalized: the slab's offset and half-width are
// measured along it).
vec3 slab_normal(vec4 s)
{
	vec2 a = abs(s.xy);
	float z = 1.0 - a.x - a.y;
	vec2 folded = (1.0 - a.yx) * mix(vec2(-1.0), vec2(1.0), greaterThanEqual(s.xy, vec2(0.0)));
	return vec3(z < 0.0 ? folded : s.xy, z);
}

// Node i's oriented box (aabb_tree.h): three unit axes, the half extent
// along each, and its centre.
struct node_obb {
	vec3 a0, a1, a2, e, c;
};

node_obb obb_at(uint i)
{
	int at = int(params.obb_base + VKCOL_OBB_TEXELS * i);
	vec4 t0 = uintBitsToFloat(texelFetch(node_texels, at)), t1 = uintBitsToFloat(texelFetch(node_texels, at + 1));
	vec4 t2 = uintBitsToFloat(texelFetch(node_texels, at + 2)), t3 = uintBitsToFloat(texelFetch(node_texels, at + 3));
	return node_obb(t0.xyz, t1.xyz, t2.xyz, vec3(t0.w, t1.w, t2.w), t3.xyz);
}

vkcol_gpu_node node_at(uint i)
{
	int at = int(VKCOL_NODE_TEXELS * i);
	uvec4 lo = texelFetch(node_texels, at), hi = texelFetch(node_texels, at + 1);
	return vkcol_gpu_node(uintBitsToFloat(lo.x), uintBitsToFloat(lo.y), uintBitsToFloat(lo.z), lo.w,
	                      uintBitsToFloat(hi.x), uintBitsToFloat(hi.y), uintBitsToFloat(hi.z), hi.w);
}

vec3 node_min(vkcol_gpu_node n)
{
	return vec3(n.min_x, n.min_y, n.min_z);
}

vec3 node_max(vkcol_gpu_node n)
{
	return vec3(n.max_x, n.max_y, n.max_z);
}

// B's frame in A's (x_A = r x_B + t) and the slack of the float culls of
// pair p, as exact_setup.comp stored them.
void load_frame(uint p, out mat3 r, out vec3 t, out float tol)
{
	int f = int(VKCOL_FRAME_VEC4S * p);
	vec4 c0 = uintBitsToFloat(texelFetch(frame_texels, f)), c1 = uintBitsToFloat(texelFetch(frame_texels, f + 1));
	vec4 c2 = uintBitsToFloat(texelFetch(frame_texels, f + 2));
	r = mat3(c0.xyz, c1.xyz, c2.xyz);
	t = vec3(c0.w, c1.w, c2.w);
	tol = uintBitsToFloat(texelFetch(frame_texels, f + 3).x);
}

// The precision of exact mode's last tests (tri_distance.glsl, the
// containment rays): double in the _fp64 variants (VKCOL_FP64,
// shaders/meson.build), else float.
#if VKCOL_FP64
#define real double
#define real3 dvec3
#define real3x3 dmat3
#else
#define real float
#define real3 vec3
#define real3x3 mat3
#endif

#if VKCOL_FP64
// Pair p's frame in double (VKCOL_FRAME_DOUBLE on): rows of the rotation
// and the translation.
void load_frame_double(uint p, out dvec3 r0, out dvec3 r1, out dvec3 r2, out dvec3 t)
{
	int f = int(VKCOL_FRAME_VEC4S * p + VKCOL_FRAME_DOUBLE);
	uvec4 w0 = texelFetch(frame_texels, f), w1 = texelFetch(frame_texels, f + 1);
	uvec4 w2 = texelFetch(frame_texels, f + 2), w3 = texelFetch(frame_texels, f + 3);
	uvec4 w4 = texelFetch(frame_texels, f + 4), w5 = texelFetch(frame_texels, f + 5);
	r0 = dvec3(packDouble2x32(w0.xy), packDouble2x32(w0.zw), packDouble2x32(w1.xy));
	r1 = dvec3(packDouble2x32(w2.xy), packDouble2x32(w2.zw), packDouble2x32(w3.xy));
	r2 = dvec3(packDouble2x32(w4.xy), packDouble2x32(w4.zw), packDouble2x32(w5.xy));
	t = dvec3(packDouble2x32(w1.zw), packDouble2x32(w3.zw), packDouble2x32(w5.zw));
}
#endif

// Pair p's frame, B's in A's, in the precision of the last tests: the
// double frame in the _fp64 variants, else the float one.
void load_frame_real(uint p, out real3x3 r, out real3 t)
{
#if VKCOL_FP64
	dvec3 r0, r1, r2;
	load_frame_double(p, r0, r1, r2, t);
	r = transpose(dmat3(r0, r1, r2));
#else
	float tol;
	load_frame(p, r, t, tol);
#endif
}

// Pair p's distance within which two triangles count as touching
// (pair_touch_distance).
float load_touch_distance(uint p)
{
	return uintBitsToFloat(texelFetch(frame_texels, int(VKCOL_FRAME_VEC4S * p + 3u)).y);
}

// Both ways between the meshes of pair p, from the stored float frame.
pair_frames stored_frames(uint p)
{
	pair_frames f;
	float tol;
	load_frame(p, f.r_ba, f.t_ba, tol);
	f.r_ab = transpose(f.r_ba);
	f.t_ab = -(f.r_ab * f.t_ba);
	return f;
}

// Regions of a frontier buffer (shared.h): the counter word of frontier k's
// count (add k), and the slots [base, end). After the three regions of
// items (capacity slots), each as large as the leaf region: REGION_CAND,
// the triangle pairs the leaf culls left; REGION_CONFIRM, those the
// separating axes left (entries as test_candidates reads them).
const uint REGION_BREADTH = 0u;
const uint REGION_LEAF = 1u;
const uint REGION_DIVE = 2u;
const uint REGION_CAND = 3u;
const uint REGION_CONFIRM = 4u;

uint region_counter(uint region)
{
	return region == REGION_DIVE ? VKCOL_COUNTER_DIVE
	     : region == REGION_LEAF ? VKCOL_COUNTER_LEAF
	     : region == REGION_CAND ? VKCOL_COUNTER_CAND
	     : region == REGION_CONFIRM ? VKCOL_COUNTER_CONFIRM
	     : VKCOL_COUNTER_BREADTH;
}

void region_slots(uint region, out uint base, out uint end)
{
	uint entries = params.dive_base - params.leaf_base;
	base = region == REGION_DIVE ? params.dive_base
	     : region == REGION_LEAF ? params.leaf_base
	     : region == REGION_CAND ? params.capacity
	     : region == REGION_CONFIRM ? params.capacity + entries
	     : 0u;
	end = region == REGION_DIVE ? params.capacity
	    : region == REGION_LEAF ? params.dive_base
	    : region == REGION_CAND ? params.capacity + entries
	    : region == REGION_CONFIRM ? params.capacity + 2u * entries
	    : params.leaf_base;
}

// The largest coordinate magnitude of a pair's float work in A's frame:
// A's stored coordinates, and B's carried there.
float pair_magnitude(vkcol_gpu_mesh a, vkcol_gpu_mesh b, vec3 t_ba)
{
	vec3 sa = max(abs(box_min(a)), abs(box_max(a)));
	vec3 sb = max(abs(box_min(b)), abs(box_max(b)));
	return max(max(sa.x, max(sa.y, sa.z)), length(t_ba) + max(sb.x, max(sb.y, sb.z)));
}

// Slack of a pair's float culls in length units: float32 relative precision
// (6e-8) times the coordinates' magnitude, with a generous factor for the
// few operations of a transform and a projection. A cull drops only what
// lies apart by more than this, so it never drops a touching pair; it
// decides nothing.
float pair_tolerance(vkcol_gpu_mesh a, vkcol_gpu_mesh b, vec3 t_ba)
{
	return 2e-6 * pair_magnitude(a, b, t_ba);
}

// The distance within which the exact triangle tests count two triangles as
// touching (the documented band of exact mode, vkcollide.h): 2e-6 of the
// smaller bounding radius, plus 1e-12 of the coordinates' magnitude for the
// rounding of the double-precision test.
float pair_touch_distance(vkcol_gpu_mesh a, vkcol_gpu_mesh b, vec3 t_ba)
{
	return 2e-6 * min(a.sphere_radius, b.sphere_radius) + 1e-12 * pair_magnitude(a, b, t_ba);
}

#endif
