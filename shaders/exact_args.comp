// SPDX-License-Identifier: MIT
// Exact mode, between levels, one invocation: turns the count of items the
// previous level wrote into the indirect dispatch of this level (a 2D grid
// past 65535 workgroups), clamped to the frontier's capacity (the items past
// it were dropped and their pairs flagged for a rerun), records the count for
// the statistics and clears the other frontier's counter.
#version 450
#include "shared.h"
#include "common.glsl"
#include "pair_common.glsl"

layout(local_size_x = 1) in;
#include "exact_common.glsl"

void main()
{
	uint in_index = params.level & 1u;
	uint raw = counters[in_index];
	uint n = min(raw, params.capacity);
	counters[2] = n;
	if (params.level < VKCOL_MAX_LEVELS)
		counters[VKCOL_COUNTER_LEVELS + params.level] = raw;
	counters[in_index ^ 1u] = 0u;
	uint groups = (n + VKCOL_WORKGROUP_SIZE - 1u) / VKCOL_WORKGROUP_SIZE;
	uint x = min(groups, 65535u);
	args[0] = x;
	args[1] = x == 0u ? 1u : (groups + x - 1u) / x;
	args[2] = 1u;
}
