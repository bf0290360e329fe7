// SPDX-License-Identifier: MIT
// Exact mode, leaf-leaf items, in three variants (compiled apart with
// VKCOL_VARIANT, shaders/meson.build). Variant 0, one invocation per item of
// the frontier's leaf region (from params.leaf_base), culls: each triangle
// of one leaf against the other leaf's box (the box axes of the
// triangle-box separating axis test), then the remaining triangle pairs by
// their boxes and planes; it writes the pairs left, as bit masks, to the
// candidate region (from params.capacity) of the frontier it writes.
// Variant 1 (exact_triangles), one invocation per such entry, a level later,
// tries the remaining separating axes on them (float, test_candidates): a
// pair no axis parts whose edges cross by more than float's error is a hit,
// the other pairs go to the confirmation region. Variant 2
// (exact_confirm), one invocation per entry there, a level later again,
// decides them (triangles_touch: in double on devices with shaderFloat64,
// the _fp64 build; a hit stops the pair).
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
const uint VARIANT = VKCOL_VARIANT; // shaders/meson.build: exact_triangles 1, exact_confirm 2
#include "exact_common.glsl"
#include "exact_traverse.glsl"

void main()
{
	uint i = linear_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
	uint count = VARIANT == 0u ? counters[VKCOL_COUNTER_LEAF + VKCOL_COUNTER_CLAMPED]
	           : VARIANT == 1u ? counters[VKCOL_COUNTER_CAND + VKCOL_COUNTER_CLAMPED]
	                           : counters[VKCOL_COUNTER_CONFIRM + VKCOL_COUNTER_CLAMPED];
	if (i >= count)
		return;
	// Variant 0: (pair, node of A, node of B, 0); variants 1 and 2: (pair,
	// first triangle of A, first of B, triangle pairs as put_entry writes
	// them), from the candidate and the confirmation regions.
	uint base = VARIANT == 0u ? params.leaf_base
	          : VARIANT == 1u ? params.capacity
	                          : params.capacity + (params.dive_base - params.leaf_base);
	uvec4 it = frontier_get(base + i);
	uint p = it.x;
	if ((params.flags & VKCOL_EXACT_FIND_ALL) == 0u && had_hit(p))
		return; // this pair already has a hit
	mat3 r;
	vec3 t;
	float tol;
	load_frame(p, r, t, tol);
#if VKCOL_VARIANT == 0
	test_leaves(p, node_at(it.y), node_at(it.z), r, mat3(abs(r[0]), abs(r[1]), abs(r[2])), t, tol, true);
#elif VKCOL_VARIANT == 1
	test_candidates(p, it.y, it.z, it.w, r, t, tol);
#else
	confirm_candidates(p, it.y, it.z, it.w, tol);
#endif
}
