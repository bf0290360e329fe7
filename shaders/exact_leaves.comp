// SPDX-License-Identifier: MIT
// Exact mode, one invocation per leaf-leaf item, in two variants (compiled
// apart with VKCOL_VARIANT, shaders/meson.build). Variant 0 reads the
// frontier's leaf region (from params.leaf_base) and culls: each triangle of
// one leaf against the other leaf's box (the box axes of the triangle-box
// separating axis test), then the remaining triangle pairs by their boxes
// and planes; it copies the items with a triangle pair left to the
// candidate region (from params.cand_base) of the frontier it writes.
// Variant 1 (exact_triangles), a level later, reads them there and tests
// their triangle pairs exactly (float32, separating axes:
// exact_traverse.glsl).
// Why apart: a SIMD driver such as lavapipe runs a loop's body at least
// once, with every lane masked off when none needs it, so a triangle test
// after the culls cost every SIMD group one test even when no lane had a
// pair left (most groups, near contact). And apart from exact_traverse.comp
// so that a SIMD group never runs the triangle loops for one leaf-leaf item
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
	if (i >= (VARIANT == 0u ? counters[VKCOL_COUNTER_LEAF + 2u] : counters[VKCOL_COUNTER_CAND + (params.level & 1u)]))
		return;
	uvec4 it = frontier_get((VARIANT == 0u ? params.leaf_base : params.cand_base) + i);
	uint p = it.x;
	if ((params.flags & VKCOL_EXACT_FIND_ALL) == 0u && state[p].x != 0u)
		return; // this pair already has a hit
	mat3 r;
	vec3 t;
	float tol;
	load_frame(p, r, t, tol);
	mat3 abs_r = mat3(abs(r[0]), abs(r[1]), abs(r[2]));
	bool left = test_leaves(p, node_at(it.y), node_at(it.z), r, abs_r, t, tol, VARIANT == 0u);
	if (VARIANT == 0u && left) {
		// The candidate region is as large as the leaf region: every item fits.
		uint j = atomicAdd(counters[VKCOL_COUNTER_CAND + ((params.level & 1u) ^ 1u)], 1u);
		frontier_put(params.cand_base + j, it);
	}
}
