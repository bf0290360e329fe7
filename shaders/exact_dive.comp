// SPDX-License-Identifier: MIT
// Exact mode, one level of the traversal for the items of pairs that no
// early accept was tried on (VKCOL_PAIR_DIVE, set by exact_setup.comp: open
// meshes, or the early accept off; most of them collide), and for the
// scouts of pairs that go breadth first (VKCOL_ITEM_SCOUT), which live in
// the frontier's upper region (from params.dive_base): each invocation goes depth first
// below its item's node pair for up to params.budget steps (a pair's seed,
// from the roots, params.seed_budget: to the leaves), so that a
// colliding pair's first hit comes after a path of node pairs instead of
// after the whole overlap region expanded level by level; a hit stops every
// item of the pair at its next step. What is left on an invocation's stack
// goes to the next level's frontier, so no node pair is dropped and the
// dispatches stay one pair per level. (A separate shader over its own items:
// on lavapipe, the loop made the breadth-first items of the same shader
// slower, and so did a second dispatch over the whole frontier.)
#version 450
#include "shared.h"
#include "common.glsl"
#include "pair_common.glsl"

layout(local_size_x_id = 0) in;
#define VKCOL_OBB (VKCOL_VARIANT == 1) // exact_dive_obb (shaders/meson.build)
#include "exact_common.glsl"
#include "exact_traverse.glsl"

// Node pairs one invocation can hold: it pops one and pushes at most two per
// step, so params.budget steps need budget + 1 slots (the host clamps).
#define STACK_SIZE (VKCOL_TRAVERSE_BUDGET_MAX + 1u)

void main()
{
	uint i = linear_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
	if (i >= counters[VKCOL_COUNTER_DIVE + VKCOL_COUNTER_CLAMPED])
		return;
	uvec4 it = frontier_get(params.dive_base + i);
	uint p = it.x;
	bool find_all = (params.flags & VKCOL_EXACT_FIND_ALL) != 0u;
	if (!find_all && had_hit(p))
		return; // this pair already has a hit
	mat3 r;
	vec3 t;
	float tol;
	load_frame(p, r, t, tol);
	mat3 abs_r = mat3(abs(r[0]), abs(r[1]), abs(r[2]));

	// Leaf-leaf pairs met on the way are collected and tested after the
	// steps: lavapipe runs a branch's code whether any lane takes it or
	// not, so a triangle test inside the loop would cost every step.
	uvec2 stack[STACK_SIZE], leaf_pairs[STACK_SIZE];
	stack[0] = it.yz;
	uint sp = 1u, steps = 0u, found = 0u;
	bool stop = false;
	// A pair's first item (its seed, from the roots) may go further than
	// the rest: to the leaves, before its stack is handed on. A scout's
	// stack goes on breadth first.
	bool scout = (it.w & VKCOL_ITEM_SCOUT) != 0u;
	uint seed_steps = it.w & ~VKCOL_ITEM_SCOUT;
	uint budget = seed_steps != 0u                         ? min(seed_steps, VKCOL_TRAVERSE_BUDGET_MAX)
	              : (state[p].y & VKCOL_PAIR_DEEP) != 0u ? min(2u * params.budget, VKCOL_TRAVERSE_BUDGET_MAX)
	                                                     : params.budget;
	while (sp > 0u && steps < budget && !stop) {
		steps++;
		sp--;
		uvec2 top = stack[sp];
		vkcol_gpu_node na = node_at(top.x), nb = node_at(top.y);
		if (na.count > 0u && nb.count > 0u) {
			leaf_pairs[found] = top;
			found++;
		} else {
			uvec2 item0, item1;
			bool keep0, keep1, leaf0, leaf1;
			split(top, na, nb, r, abs_r, t, tol, item0, item1, keep0, keep1, leaf0, leaf1);
			// Item 0, the child nearer the other node, on top: popped first.
			if (keep1) {
				stack[sp] = item1;
				sp++;
			}
			if (keep0) {
				stack[sp] = item0;
				sp++;
			}
		}
		// Another item of the pair may have found a hit meanwhile.
		if (!stop && !find_all && sp > 0u && steps < budget)
			stop = state[p].x != 0u;
	}
	// The leaf pairs met: a sure crossing stops the pair; the triangle pairs
	// that no separating axis parts and float cannot vouch for go to the
	// next level's confirmations, and meanwhile the pair's unexplored node
	// pairs stay in the frontier.
	for (uint k = 0u; k < found && !stop; k++)
		stop = test_leaves(p, node_at(leaf_pairs[k].x), node_at(leaf_pairs[k].y), r, abs_r, t, tol, false);
	if (stop || sp == 0u)
		return;
	uint end;
	// (A leaf-leaf pair among a scout's goes to the leaf region one level
	// later: exact_traverse.comp tests it as an item whose nodes it cannot
	// split.)
	uint slot = frontier_reserve(p, scout ? REGION_BREADTH : REGION_DIVE, sp, end);
	for (uint k = 0u; k < sp && slot + k < end; k++)
		frontier_put(slot + k, uvec4(p, stack[k], 0u));
}
