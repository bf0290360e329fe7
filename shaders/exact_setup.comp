// SPDX-License-Identifier: MIT
// Exact mode, first pass, one invocation per pair: stage 0 (bounding spheres
// and carried AABBs) and the inner-ball accept decide what they can; every
// other pair seeds the traversal frontier with its two roots.
#version 450
#include "shared.h"
#include "common.glsl"
#include "pair_common.glsl"

layout(local_size_x_id = 0) in;
#include "exact_common.glsl"

void main()
{
	uint p = linear_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
	if (p >= params.pair_count)
		return;
	vkcol_gpu_pair pr = pairs[p];
	vkcol_gpu_mesh a = mesh_of(pr.mesh_a), b = mesh_of(pr.mesh_b);
	pair_frames f = make_frames(pr);
	state[p] = uvec2(0u, 0u);
	if (!bounds_overlap(a, b, f)) {
		results[p] = vkcol_gpu_result(0u, VKCOL_STAGE_BOUNDS, 0.0, 0u);
		state[p] = uvec2(0u, VKCOL_PAIR_DECIDED);
		return;
	}
	float depth = inner_ball_overlap(a, b, f);
	if (depth >= 0.0) {
		results[p] = vkcol_gpu_result(1u, VKCOL_STAGE_CUBE_MAP, depth, 0u);
		state[p] = uvec2(0u, VKCOL_PAIR_DECIDED);
		return;
	}
	// The host keeps pair_count <= capacity, so the seeds always fit.
	uint i = atomicAdd(counters[0], 1u);
	frontier0[i] = uvec4(p, a.node_first, b.node_first, 0u);
}
