// SPDX-License-Identifier: MIT
// Exact mode, one level of the breadth-first traversal, one invocation per
// frontier item (pair, node of A, node of B) whose boxes overlap. Both nodes
// are split (only the inner one when the other is a leaf), and each child
// pair whose boxes overlap goes to the next frontier: B's box is carried into A's frame (the box of a rotated
// box from |R|) and A's into B's. Testing children before writing them keeps
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
#include "exact_common.glsl"
#include "exact_traverse.glsl"

void main()
{
	uint i = linear_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
	if (i >= counters[2])
		return;
	uvec4 it = frontier_get(i);
	uint p = it.x;
	if ((params.flags & VKCOL_EXACT_FIND_ALL) == 0u && state[p].x != 0u)
		return; // this pair already has a hit
	mat3 r;
	vec3 t;
	float tol;
	load_frame(p, r, t, tol);
	mat3 abs_r = mat3(abs(r[0]), abs(r[1]), abs(r[2]));
	vkcol_gpu_node na = node_at(it.y), nb = node_at(it.z);
	if (na.count > 0u || nb.count > 0u) {
		// One leaf (two leaves are exact_leaves.comp's): split the other node.
		uvec2 item0, item1;
		bool keep0, keep1, leaf0, leaf1;
		split(it.yz, na, nb, r, abs_r, t, tol, item0, item1, keep0, keep1, leaf0, leaf1);
		emit(p, (keep0 ? 1u : 0u) | (keep1 ? 2u : 0u), (leaf0 ? 1u : 0u) | (leaf1 ? 2u : 0u), item0, item1, item1,
		     item1);
		return;
	}
	// Both inner nodes: split both at once (four child pairs, one frontier
	// item instead of two levels of them: on lavapipe an item's fixed cost
	// outweighs its box tests).
	vkcol_gpu_node a0 = node_at(na.first), a1 = node_at(na.first + 1u);
	vkcol_gpu_node b0 = node_at(nb.first), b1 = node_at(nb.first + 1u);
	vec3 ca0 = centre(a0), ea0 = extent(a0), ca1 = centre(a1), ea1 = extent(a1);
	vec3 cb0 = centre(b0), eb0 = extent(b0), cb1 = centre(b1), eb1 = extent(b1);
	uint keep = (carried_overlap(ca0, ea0, cb0, eb0, r, abs_r, t, tol) ? 1u : 0u) |
	            (carried_overlap(ca0, ea0, cb1, eb1, r, abs_r, t, tol) ? 2u : 0u) |
	            (carried_overlap(ca1, ea1, cb0, eb0, r, abs_r, t, tol) ? 4u : 0u) |
	            (carried_overlap(ca1, ea1, cb1, eb1, r, abs_r, t, tol) ? 8u : 0u);
	bool la0 = a0.count > 0u, la1 = a1.count > 0u, lb0 = b0.count > 0u, lb1 = b1.count > 0u;
	uint leaves = (la0 && lb0 ? 1u : 0u) | (la0 && lb1 ? 2u : 0u) | (la1 && lb0 ? 4u : 0u) | (la1 && lb1 ? 8u : 0u);
	emit(p, keep, leaves, uvec2(na.first, nb.first), uvec2(na.first, nb.first + 1u), uvec2(na.first + 1u, nb.first),
	     uvec2(na.first + 1u, nb.first + 1u));
}
