// SPDX-License-Identifier: MIT
// Exact mode, one level's leaf-leaf items (the frontier's leaf region, from
// params.leaf_base), one invocation per item: each triangle of one leaf is
// culled against the other leaf's box (the box axes of the triangle-box
// separating axis test), and the survivors are tested exactly (float32,
// separating axes: exact_traverse.glsl). Apart from exact_traverse.comp so
// that the SIMD groups of a CPU driver such as lavapipe are all of one kind:
// a group with one leaf-leaf item among inner ones ran the triangle loops
// with the others masked off.
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
	if (i >= counters[VKCOL_COUNTER_LEAF + 2u])
		return;
	uvec4 it = frontier_get(params.leaf_base + i);
	uint p = it.x;
	if ((params.flags & VKCOL_EXACT_FIND_ALL) == 0u && state[p].x != 0u)
		return; // this pair already has a hit
	mat3 r;
	vec3 t;
	float tol;
	load_frame(p, r, t, tol);
	mat3 abs_r = mat3(abs(r[0]), abs(r[1]), abs(r[2]));
	test_leaves(p, node_at(it.y), node_at(it.z), r, abs_r, t, tol);
}
