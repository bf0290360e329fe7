// SPDX-License-Identifier: MIT
// Approx mode's cluster jobs (shared.h), one invocation per job: the
// cluster's vertices against the other mesh's cube map. A job whose vertex
// lies inside marks its pair colliding and raises its penetration estimate
// to that vertex's depth; the jobs of a pair already found colliding do
// nothing.
#version 450
#include "shared.h"
#include "common.glsl"
#include "pair_common.glsl"
#include "approx_common.glsl"

// The results as words: (collide, stage, penetration bits, 0) per pair.
// Depths are >= 0, so their bit patterns order as the floats do.
layout(std430, set = 0, binding = 3) buffer Results { uint result_words[]; };

void main()
{
	uint i = linear_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
	if (i >= min(job_args[3], params.job_capacity))
		return;
	uvec2 job = jobs[i];
	uint p = job.x;
	if (p == NONE || result_words[4u * p] != 0u)
		return;
	vkcol_gpu_pair pr = pairs[p];
	// One call of test_cluster: a SIMD driver runs every call, masked.
	side s = side_of(pr, make_frames(pr), job.y >> 31);
	float depth = test_cluster(s.from, s.to, s.r, s.t, job.y & 0x7fffffffu);
	if (depth >= 0.0) {
		result_words[4u * p] = 1u;
		atomicMax(result_words[4u * p + 2u], floatBitsToUint(depth));
	}
	add_stats();
}
