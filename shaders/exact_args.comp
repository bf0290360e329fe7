// SPDX-License-Identifier: MIT
// Exact mode, between levels, one invocation: turns the counts of items the
// previous level wrote (breadth-first pairs' items from the frontier's start,
// leaf-leaf items from params.leaf_base, depth-first pairs' from
// params.dive_base) into the indirect dispatches of this level (a 2D grid
// past 65535 workgroups), clamped to the frontier's capacity (the items past
// it were dropped and their pairs flagged for a rerun), records the count for
// the statistics and clears the other frontier's counter. Before level 0,
// the search and the walk passes' dispatches (VKCOL_ARGS_FOR_SEARCH,
// VKCOL_ARGS_FOR_WALK).
#version 450
#include "shared.h"
#include "common.glsl"
#include "pair_common.glsl"

layout(local_size_x = 1) in;
#include "exact_common.glsl"

// Indirect dispatch arguments for n invocations at word `at` of args.
void set_args(uint at, uint n)
{
	uint groups = (n + VKCOL_WORKGROUP_SIZE - 1u) / VKCOL_WORKGROUP_SIZE;
	uint x = min(groups, 65535u);
	args[at] = x;
	args[at + 1u] = x == 0u ? 1u : (groups + x - 1u) / x;
	args[at + VKCOL_COUNTER_CLAMPED] = 1u;
}

void main()
{
	if (params.level == VKCOL_ARGS_FOR_SEARCH) {
		set_args(4u * VKCOL_ARGS_SEARCH, counters[VKCOL_COUNTER_SEARCH]);
		return;
	}
	if (params.level == VKCOL_ARGS_FOR_WALK) {
		set_args(4u * VKCOL_ARGS_WALK, min(counters[VKCOL_COUNTER_WALK], params.dive_base - params.leaf_base));
		return;
	}
	uint in_index = params.level & 1u;
	uint raw = counters[VKCOL_COUNTER_BREADTH + in_index];
	uint raw_dive = counters[VKCOL_COUNTER_DIVE + in_index];
	uint raw_leaf = counters[VKCOL_COUNTER_LEAF + in_index];
	uint n = min(raw, params.leaf_base);
	uint n_dive = min(raw_dive, params.capacity - params.dive_base);
	uint n_leaf = min(raw_leaf, params.dive_base - params.leaf_base);
	counters[VKCOL_COUNTER_BREADTH + VKCOL_COUNTER_CLAMPED] = n;
	counters[VKCOL_COUNTER_DIVE + VKCOL_COUNTER_CLAMPED] = n_dive;
	counters[VKCOL_COUNTER_LEAF + VKCOL_COUNTER_CLAMPED] = n_leaf;
	if (params.level < VKCOL_MAX_LEVELS)
		counters[VKCOL_COUNTER_LEVELS + params.level] = raw + raw_dive + raw_leaf;
	counters[VKCOL_COUNTER_BREADTH + (in_index ^ 1u)] = 0u;
	counters[VKCOL_COUNTER_DIVE + (in_index ^ 1u)] = 0u;
	counters[VKCOL_COUNTER_LEAF + (in_index ^ 1u)] = 0u;
	counters[VKCOL_COUNTER_CAND + (in_index ^ 1u)] = 0u;
	counters[VKCOL_COUNTER_CONFIRM + (in_index ^ 1u)] = 0u;
	set_args(4u * VKCOL_ARGS_TRAVERSE, n);   // exact_traverse.comp
	set_args(4u * VKCOL_ARGS_DIVE, n_dive);  // exact_dive.comp
	set_args(4u * VKCOL_ARGS_LEAVES, n_leaf); // exact_leaves.comp
	// exact_leaves.comp's variant 1: the triangle pairs the previous level's
	// culls left (clamped as the regions are: the pairs of entries that did
	// not fit were flagged).
	uint n_cand = min(counters[VKCOL_COUNTER_CAND + in_index], params.dive_base - params.leaf_base);
	counters[VKCOL_COUNTER_CAND + VKCOL_COUNTER_CLAMPED] = n_cand;
	set_args(4u * VKCOL_ARGS_TRIANGLES, n_cand);
	// Variant 2 (exact_confirm): the triangle pairs the previous level's
	// separating axes left.
	uint n_confirm = min(counters[VKCOL_COUNTER_CONFIRM + in_index], params.dive_base - params.leaf_base);
	counters[VKCOL_COUNTER_CONFIRM + VKCOL_COUNTER_CLAMPED] = n_confirm;
	set_args(4u * VKCOL_ARGS_CONFIRM, n_confirm);
}
