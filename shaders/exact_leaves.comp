// SPDX-License-Identifier: MIT
// Exact mode, leaf-leaf items, in two variants (compiled apart with
// VKCOL_VARIANT, shaders/meson.build). Variant 0, one invocation per item of
// the frontier's leaf region (from params.leaf_base), culls: each triangle
// of one leaf against the other leaf's box (the box axes of the
// triangle-box separating axis test), then the remaining triangle pairs by
// their boxes and planes; it writes the pairs left, as bit masks, to the
// candidate region (from params.capacity) of the frontier it writes.
// Variant 1 (exact_triangles), one invocation per such entry, a level later,
// tests them exactly (float32, separating axes: exact_traverse.glsl).
// Why apart: a SIMD driver such as lavapipe runs a loop's body at least
// once, with every lane masked off when none needs it, so a triangle test
// after the culls cost every SIMD group one test even when no lane had a
// pair left (most groups, near contact); and variant 1 starts from the
// masks, not from the culls again. And apart from exact_traverse.comp so
// that a SIMD group never runs the triangle loops for one leaf-leaf item
// among inner ones.
#version 450
#include "shared.h"
#include "common.glsl"
#include "pair_common.glsl"

layout(local_size_x_id = 0) in;
const uint VARIANT = VKCOL_VARIANT; // shaders/meson.build: exact_triangles is variant 1
#include "exact_common.glsl"
#include "exact_traverse.glsl"

void main()
{
	uint i = linear_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
	if (i >= (VARIANT == 0u ? counters[VKCOL_COUNTER_LEAF + 2u] : counters[VKCOL_COUNTER_CAND + 2u]))
		return;
	// Variant 0: (pair, node of A, node of B, 0); variant 1: (pair, first
	// triangle of A, first of B, triangle pairs as test_candidates reads).
	uvec4 it = frontier_get((VARIANT == 0u ? params.leaf_base : params.capacity) + i);
	uint p = it.x;
	if ((params.flags & VKCOL_EXACT_FIND_ALL) == 0u && state[p].x != 0u)
		return; // this pair already has a hit
	mat3 r;
	vec3 t;
	float tol;
	load_frame(p, r, t, tol);
	if (VARIANT == 0u)
		test_leaves(p, node_at(it.y), node_at(it.z), r, mat3(abs(r[0]), abs(r[1]), abs(r[2])), t, tol, true);
	else
		test_candidates(p, it.y, it.z, it.w, r, t, tol);
}
