// SPDX-License-Identifier: MIT
// What the two job passes (approx_groups.comp, approx_jobs.comp) share: the
// results as words and the opening of an invocation's job. Included after
// approx_common.glsl.
#ifndef VKCOL_APPROX_JOB_GLSL
#define VKCOL_APPROX_JOB_GLSL

// The results as words: (collide, stage, penetration bits, spilled) per pair
// (shared.h). Depths are >= 0, so their bit patterns order as the floats do.
layout(std430, set = 0, binding = VKCOL_BINDING_RESULTS) buffer Results { uint result_words[]; };

// This invocation's job of list `list` (CLUSTER_JOBS or GROUP_JOBS): its
// pair p, its cluster or group, its key (a cluster job's, job_key) and the
// side of the pair it names. False when there is none (past the list's
// end, or an empty slot): such a job does nothing.
bool open_job(uint list, out uint p, out uint index, out uint key, out side s)
{
	uint i = linear_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
	p = NONE;
	index = 0u;
	key = 0u;
	if (i >= min(job_args[4u * list + VKCOL_JOB_COUNT], list_capacity(list)))
		return false;
	uvec2 job = job_at(list_base(list) + i);
	p = job.x;
	if (p == NONE)
		return false;
	vkcol_gpu_pair pr = pair_at(p);
	s = side_of(pr, make_frames(pr), job.y >> 31);
	index = job.y & 0x3fffffffu;
	key = job.y;
	return true;
}

#endif
