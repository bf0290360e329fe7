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
#include "approx_job.glsl"

void main()
{
	uint p, c;
	side s;
	if (!open_job(CLUSTER_JOBS, p, c, s))
		return;
	// One call of test_cluster: a SIMD driver runs every call, masked.
	float depth = test_cluster(s, c);
	if (depth >= 0.0) {
		result_words[4u * p] = 1u;
		atomicMax(result_words[4u * p + 2u], floatBitsToUint(depth));
	}
	add_stats();
}
