// SPDX-License-Identifier: MIT
// A batch's pairs: every one checked before any work starts (live mesh
// handles, finite poses, non-zero quaternions), so that an error never
// discards answers already computed; and copied for the device, in double
// where float frames would lose the meshes' precision.
#include "batch/pairs.h"

#include <math.h>
#include <string.h>

#include "batch/pool.h"
#include "geometry/reference.h"

static bool finite3(const float *v, int n)
{
	for (int i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return false;
	return true;
}

typedef struct upload_job {
	const batch_scope *s;
	const vkcol_pair *pairs;
	uint64_t count;
	const uint64_t *at;
	bool as_given;
	const uint32_t *ids;
	bool exact_records;
	vkcol_gpu_pair *out;
	uint32_t tasks;
} upload_job;

// Pairs [first, end) of the job.
static void upload_range(const upload_job *job, uint64_t first, uint64_t end)
{
	const batch_scope *s = job->s;
	const vkcol_pair *pairs = job->pairs;
	const uint64_t *at = job->at;
	const uint32_t *ids = job->ids;
	vkcol_gpu_pair *out = job->out;
	if (job->as_given) {
		for (uint64_t i = first; i < end; i++) {
			vkcol_gpu_pair p;
			memcpy(&p, &pairs[at ? at[i] : i], sizeof(p));
			if (ids)
				pool_budget_pair(ids, &p);
			else if (job->exact_records)
				pool_exact_pair(s, &p);
			out[i] = p;
		}
		return;
	}
	// Batches mostly repeat their meshes: the last pair's lookup is kept.
	uint32_t last_a = 0, last_b = 0;
	const mesh_cpu *a = NULL, *b = NULL;
	float limit = 0.0f; // 4x the meshes' reach; -1 when one is recentred
	for (uint64_t i = first; i < end; i++) {
		const vkcol_pair *in = &pairs[at ? at[i] : i];
		if (a == NULL || in->a.id != last_a || in->b.id != last_b) {
			last_a = in->a.id, last_b = in->b.id;
			a = &mesh_table_get(s->meshes, in->a)->cpu, b = &mesh_table_get(s->meshes, in->b)->cpu;
			float reach = 0.0f;
			bool recentred = false;
			for (int k = 0; k < 3; k++) {
				reach = fmaxf(reach, fabsf(a->sphere_center[k]) + fabsf(b->sphere_center[k]));
				recentred = recentred || a->centre[k] != 0.0f || b->centre[k] != 0.0f;
			}
			limit = recentred ? -1.0f : 4.0f * (reach + a->sphere_radius + b->sphere_radius);
		}
		float far = 0.0f;
		for (int k = 0; k < 3; k++)
			far = fmaxf(far, fmaxf(fabsf(in->pose_a.translation[k]), fabsf(in->pose_b.translation[k])));
		vkcol_pose rel;
		vkcol_gpu_pair p;
		if (far <= limit || !ref_pair_pose(a, b, &in->pose_a, &in->pose_b, &rel))
			memcpy(&p, in, sizeof(p));
		else
			p = (vkcol_gpu_pair){.mesh_a = in->a.id, .mesh_b = in->b.id, .qa_w = 1.0f,
			                     .qb_w = rel.rotation[0], .qb_x = rel.rotation[1], .qb_y = rel.rotation[2],
			                     .qb_z = rel.rotation[3], .tb_x = rel.translation[0], .tb_y = rel.translation[1],
			                     .tb_z = rel.translation[2]};
		if (ids)
			pool_budget_pair(ids, &p);
		else if (job->exact_records)
			pool_exact_pair(s, &p);
		out[i] = p;
	}
}

static void upload_task(void *user, uint32_t index)
{
	const upload_job *job = user;
	upload_range(job, job->count * index / job->tasks, job->count * (index + 1) / job->tasks);
}

void pairs_upload(const batch_scope *s, const vkcol_pair *pairs, uint64_t count, const uint64_t *at, bool as_given,
                  const uint32_t *ids, bool exact_records, vkcol_gpu_pair *out)
{
	upload_job job = {s, pairs, count, at, as_given, ids, exact_records, out, pairs_split(s, count)};
	if (job.tasks == 1)
		upload_range(&job, 0, count);
	else
		core_parallel_for(s->env, job.tasks, upload_task, &job);
}

// What pairs_validate found in one range of pairs: the first bad pair (and
// what is wrong with it), and the cube resolutions of the meshes.
typedef enum pair_fault { FAULT_NONE, FAULT_MESH, FAULT_NON_FINITE, FAULT_ZERO_QUATERNION } pair_fault;

typedef struct validate_range {
	uint64_t first, end;
	uint64_t bad;     // the first bad pair's index, or end
	pair_fault fault;
	int side;         // 0: a, 1: b
	uint32_t resolution; // 0: none yet
	bool mixed;
	bool no_obb;         // a mesh's tree has no oriented boxes (aabb_tree.h)
} validate_range;

static void validate_pairs(const batch_scope *s, const vkcol_pair *pairs, validate_range *r)
{
	r->bad = r->end;
	r->fault = FAULT_NONE;
	// Batches mostly repeat their meshes: the last pair's are not looked up
	// again.
	uint32_t last_a = 0, last_b = 0;
	for (uint64_t p = r->first; p < r->end; p++) {
		const vkcol_pair *pr = &pairs[p];
		if (p == r->first || pr->a.id != last_a || pr->b.id != last_b) {
			const vkcol_mesh ids[2] = {pr->a, pr->b};
			for (int m = 0; m < 2; m++) {
				const char *why;
				const mesh_slot *slot = mesh_table_find(s->meshes, ids[m], &why);
				if (slot == NULL) {
					r->bad = p, r->fault = FAULT_MESH, r->side = m;
					return;
				}
				r->no_obb = r->no_obb || !slot->cpu.tree.obbs;
				uint32_t res = slot->cube.resolution;
				r->mixed = r->mixed || (r->resolution != 0 && res != r->resolution);
				r->resolution = res;
			}
			last_a = pr->a.id, last_b = pr->b.id;
		}
		const vkcol_pose *poses[2] = {&pr->pose_a, &pr->pose_b};
		for (int m = 0; m < 2; m++) {
			const float *q = poses[m]->rotation;
			if (!finite3(q, 4) || !finite3(poses[m]->translation, 3)) {
				r->bad = p, r->fault = FAULT_NON_FINITE, r->side = m;
				return;
			}
			if (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] < 1e-12f) {
				r->bad = p, r->fault = FAULT_ZERO_QUATERNION, r->side = m;
				return;
			}
		}
	}
}

// Pairs per task of the host's per-pair work when it is split over threads
// (pairs_split): enough that starting a thread costs little beside it.
#define PAIRS_PER_TASK (1u << 14)

uint32_t pairs_split(const batch_scope *s, uint64_t count)
{
	uint64_t per_task = s->state->knobs.host_pairs_per_task ? s->state->knobs.host_pairs_per_task : PAIRS_PER_TASK;
	// A CPU device (lavapipe) runs the passes on the same cores.
	if (!s->state->knobs.host_pairs_per_task && s->gpu->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU)
		return 1;
	uint64_t tasks = (count + per_task - 1) / per_task;
	return tasks < 1 ? 1 : tasks > PAIRS_MAX_TASKS ? PAIRS_MAX_TASKS : (uint32_t)tasks;
}

typedef struct validate_job {
	const batch_scope *s;
	const vkcol_pair *pairs;
	validate_range *ranges;
} validate_job;

static void validate_task(void *user, uint32_t index)
{
	validate_job *job = user;
	validate_pairs(job->s, job->pairs, &job->ranges[index]);
}

vkcol_result pairs_validate(const batch_scope *s, const vkcol_batch_desc *desc, uint32_t *map_array, bool *obb)
{
	const core_env *env = s->env;
	validate_range ranges[PAIRS_MAX_TASKS];
	uint32_t tasks = pairs_split(s, desc->pair_count);
	for (uint32_t t = 0; t < tasks; t++)
		ranges[t] = (validate_range){.first = desc->pair_count * t / tasks, .end = desc->pair_count * (t + 1) / tasks};
	validate_job job = {s, desc->pairs, ranges};
	if (tasks == 1)
		validate_task(&job, 0);
	else
		core_parallel_for(env, tasks, validate_task, &job);
	uint32_t resolution = 0;
	bool mixed = false;
	bool no_obb = false;
	for (uint32_t t = 0; t < tasks; t++) {
		const validate_range *r = &ranges[t];
		if (r->fault != FAULT_NONE) {
			unsigned long long p = (unsigned long long)r->bad;
			char side = r->side == 0 ? 'a' : 'b';
			switch (r->fault) {
			case FAULT_MESH:
				CORE_ERROR(env, "pair %llu: mesh %c (id %u) is not a live mesh of this context", p, side,
				           r->side == 0 ? desc->pairs[r->bad].a.id : desc->pairs[r->bad].b.id);
				return VKCOL_ERROR_INVALID_HANDLE;
			case FAULT_NON_FINITE:
				CORE_ERROR(env, "pair %llu: pose %c has a non-finite number", p, side);
				return VKCOL_ERROR_INVALID_ARGUMENT;
			default:
				CORE_ERROR(env, "pair %llu: pose %c has a zero quaternion", p, side);
				return VKCOL_ERROR_INVALID_ARGUMENT;
			}
		}
		mixed = mixed || r->mixed || (resolution != 0 && r->resolution != 0 && r->resolution != resolution);
		no_obb = no_obb || r->no_obb;
		if (r->resolution)
			resolution = r->resolution;
	}
	*obb = !no_obb;
	*map_array = mixed || resolution == 0 ? VKCOL_MAP_ARRAYS : pool_array_index(resolution);
	return VKCOL_SUCCESS;
}
