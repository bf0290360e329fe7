// SPDX-License-Identifier: MIT
// Approx mode's group jobs (shared.h), one invocation per job: the balls of
// the group's clusters against the other mesh's box and cone bounds
// (approx_pairs.comp), and a cluster job for each cluster that may hold a
// vertex inside, for approx_jobs.comp. Every invocation tests the same
// number of balls, where approx_pairs.comp's pairs would loop over as many
// groups as the pair of their SIMD group that touches the most. When the
// cluster list is full, the pair is spilled (shared.h): a flag and a place
// in the list of spilled pairs, where
// testing the clusters here would be code that a SIMD driver runs, masked,
// in every invocation.
#version 450
#include "shared.h"
#include "common.glsl"
#include "pair_common.glsl"
#include "approx_common.glsl"
#include "approx_job.glsl"

void main()
{
	uint p, g, key, closest;
	side s;
	if (!open_job(GROUP_JOBS, p, g, key, s))
		return;
	// Only the clusters' balls: a cluster that may hold an inside vertex
	// passes its own test whatever its group's ball does.
	// The first to spill the pair lists it.
	if (!group_jobs(p, s, g, group_mask(s, g, closest)) &&
	    (atomicOr(result_words[4u * p + 3u], VKCOL_RESULT_SPILLED) & VKCOL_RESULT_SPILLED) == 0u)
		list_spilled(p);
}
