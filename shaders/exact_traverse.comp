// SPDX-License-Identifier: MIT
// Exact mode, one level of the breadth-first traversal, one invocation per
// frontier item (pair, node of A, node of B) whose boxes overlap. Both nodes
// are split (only the inner one when the other is a leaf, only the larger
// when one is much larger), and each child pair whose boxes overlap, and
// whose slabs (aabb_tree.h) each meet the other node, goes to the next
// frontier: B's box is carried into A's frame (the box of a rotated box
// from |R|) and A's into B's. Testing children before writing them keeps
// the frontier to overlapping pairs only. Items pairing two leaves go to the
// frontier's leaf region, which exact_leaves.comp tests. A pair with a hit
// spawns no more work, unless every intersecting triangle pair is to be
// listed. Items of pairs flagged VKCOL_PAIR_DIVE are exact_dive.comp's (the
// frontier's upper region).
#version 450
#include "shared.h"
#include "common.glsl"
#include "pair_common.glsl"

layout(local_size_x_id = 0) in;
#define VKCOL_OBB (VKCOL_VARIANT == 1) // exact_traverse_obb (shaders/meson.build)
#include "exact_common.glsl"
#include "exact_traverse.glsl"

// Both inner nodes are split unless one's box diagonal is more than twice
// the other's (squared: 4): then only the larger one, as splitting the
// smaller would double the items without pruning much (the ratios tried
// are in docs/performance-notes.md).
const float SPLIT_RATIO = 4.0;

void main()
{
	uint i = linear_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
	if (i >= counters[VKCOL_COUNTER_BREADTH + VKCOL_COUNTER_CLAMPED])
		return;
	uvec4 it = frontier_get(i);
	uint p = it.x;
	if ((params.flags & VKCOL_EXACT_FIND_ALL) == 0u && had_hit(p))
		return; // this pair already has a hit
	mat3 r;
	vec3 t;
	float tol;
	load_frame(p, r, t, tol);
	mat3 abs_r = mat3(abs(r[0]), abs(r[1]), abs(r[2]));
	vkcol_gpu_node na = node_at(it.y), nb = node_at(it.z);
	// Both nodes inner and of similar size: their four child pairs (one
	// frontier item instead of two levels of them: on lavapipe an item's
	// fixed cost outweighs its box tests). One of them a leaf (pairs of two
	// leaves go to exact_leaves.comp) or much smaller than the other: the
	// other's two children, as child pairs 0 and 1 (or 0 and 2) of the
	// unsplit node with itself. One path, no branch: a SIMD driver such as
	// lavapipe runs both sides of a branch.
	vec3 ea = extent(na), eb = extent(nb);
	float da = dot(ea, ea), db = dot(eb, eb);
	bool split_a = na.count == 0u && !(nb.count == 0u && db > SPLIT_RATIO * da);
	bool split_b = nb.count == 0u && !(na.count == 0u && da > SPLIT_RATIO * db);
	uint a_first = split_a ? na.first : it.y, b_first = split_b ? nb.first : it.z;
	vkcol_gpu_node a0 = split_a ? node_at(a_first) : na, a1 = split_a ? node_at(a_first + 1u) : na;
	vkcol_gpu_node b0 = split_b ? node_at(b_first) : nb, b1 = split_b ? node_at(b_first + 1u) : nb;
	vec3 ca0 = centre(a0), ea0 = extent(a0), ca1 = centre(a1), ea1 = extent(a1);
	vec3 cb0 = centre(b0), eb0 = extent(b0), cb1 = centre(b1), eb1 = extent(b1);
	uint children = 1u | (split_b ? 2u : 0u) | (split_a ? 4u : 0u) | (split_a && split_b ? 8u : 0u);
	// The slabs: a box is loose where the surface runs diagonally to its
	// axes, which a nearly flat patch's slab is not.
	vec4 sa0 = slab_at(a_first), sa1 = slab_at(split_a ? a_first + 1u : a_first);
	vec4 sb0 = slab_at(b_first), sb1 = slab_at(split_b ? b_first + 1u : b_first);
	uint keep = (nodes_meet(ca0, ea0, sa0, cb0, eb0, sb0, r, abs_r, t, tol) ? 1u : 0u) |
	            (nodes_meet(ca0, ea0, sa0, cb1, eb1, sb1, r, abs_r, t, tol) ? 2u : 0u) |
	            (nodes_meet(ca1, ea1, sa1, cb0, eb0, sb0, r, abs_r, t, tol) ? 4u : 0u) |
	            (nodes_meet(ca1, ea1, sa1, cb1, eb1, sb1, r, abs_r, t, tol) ? 8u : 0u);
#if VKCOL_OBB
	node_obb oa0 = obb_at(a_first), oa1 = obb_at(split_a ? a_first + 1u : a_first);
	node_obb ob0 = obb_at(b_first), ob1 = obb_at(split_b ? b_first + 1u : b_first);
	keep &= (obbs_meet(oa0, ob0, r, t, tol) ? 1u : 0u) | (obbs_meet(oa0, ob1, r, t, tol) ? 2u : 0u) |
	        (obbs_meet(oa1, ob0, r, t, tol) ? 4u : 0u) | (obbs_meet(oa1, ob1, r, t, tol) ? 8u : 0u);
#endif
	bool la0 = a0.count > 0u, la1 = a1.count > 0u, lb0 = b0.count > 0u, lb1 = b1.count > 0u;
	uint leaves = (la0 && lb0 ? 1u : 0u) | (la0 && lb1 ? 2u : 0u) | (la1 && lb0 ? 4u : 0u) | (la1 && lb1 ? 8u : 0u);
	emit(p, keep & children, leaves, uvec2(a_first, b_first), uvec2(a_first, b_first + 1u),
	     uvec2(a_first + (split_a ? 1u : 0u), b_first), uvec2(a_first + 1u, b_first + 1u));
}
