// SPDX-License-Identifier: MIT
// Approx mode's cluster jobs (shared.h), one invocation per job: the
// cluster's vertices against the other mesh's cube map. A job whose vertex
// lies inside marks its pair colliding; the pair's penetration is the depth
// its first such cluster in job order finds (shared.h), which the spilled
// variant of approx_pairs.comp works out again after the jobs: with the
// jobs of a pair in flight together, the depth any one of them found would
// depend on the order the device ran them in.
#version 450
#include "shared.h"
#include "common.glsl"
#include "pair_common.glsl"
#include "approx_common.glsl"
#include "approx_job.glsl"

void main()
{
	uint p, c, key;
	side s;
	if (!open_job(CLUSTER_JOBS, p, c, key, s))
		return;
	// Word 2 holds ~(the least key found inside) once a job has found one,
	// 0 before (the pair pass wrote a penetration of 0.0).
	if (result_words[4u * p + 2u] > ~key)
		return;
	// One call of test_cluster: a SIMD driver runs every call, masked.
	if (test_cluster(s, c) >= 0.0) {
		result_words[4u * p] = 1u;
		if (atomicMax(result_words[4u * p + 2u], ~key) == 0u)
			atomicOr(result_words[4u * p + 3u], VKCOL_RESULT_HIT);
	}
	add_stats();
}
