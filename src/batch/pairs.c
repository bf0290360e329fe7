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

void pairs_upload(const batch_scope *s, const vkcol_pair *pairs, uint64_t count, const uint64_t *at, bool as_given,
                  const uint32_t *ids, vkcol_gpu_pair *out)
{
	if (as_given) {
		for (uint64_t i = 0; i < count; i++) {
			vkcol_gpu_pair p;
			memcpy(&p, &pairs[at ? at[i] : i], sizeof(p));
			if (ids)
				pool_budget_pair(ids, &p);
			out[i] = p;
		}
		return;
	}
	// Batches mostly repeat their meshes: the last pair's lookup is kept.
	uint32_t last_a = 0, last_b = 0;
	const mesh_cpu *a = NULL, *b = NULL;
	float limit = 0.0f; // 4x the meshes' reach; -1 when one is recentred
	for (uint64_t i = 0; i < count; i++) {
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
		out[i] = p;
	}
}

vkcol_result pairs_validate(const batch_scope *s, const vkcol_batch_desc *desc, uint32_t *map_array)
{
	const core_env *env = s->env;
	uint32_t resolution = 0;
	bool mixed = false;
	for (uint64_t p = 0; p < desc->pair_count; p++) {
		const vkcol_pair *pr = &desc->pairs[p];
		const vkcol_mesh ids[2] = {pr->a, pr->b};
		for (int m = 0; m < 2; m++) {
			const char *why;
			const mesh_slot *slot = mesh_table_find(s->meshes, ids[m], &why);
			if (slot == NULL) {
				CORE_ERROR(env, "pair %llu: mesh %c (id %u) is not a live mesh of this context",
				           (unsigned long long)p, m == 0 ? 'a' : 'b', ids[m].id);
				return VKCOL_ERROR_INVALID_HANDLE;
			}
			uint32_t r = slot->cube.resolution;
			mixed = mixed || (resolution != 0 && r != resolution);
			resolution = r;
		}
		const vkcol_pose *poses[2] = {&pr->pose_a, &pr->pose_b};
		for (int m = 0; m < 2; m++) {
			const float *q = poses[m]->rotation;
			if (!finite3(q, 4) || !finite3(poses[m]->translation, 3)) {
				CORE_ERROR(env, "pair %llu: pose %c has a non-finite number", (unsigned long long)p, m == 0 ? 'a' : 'b');
				return VKCOL_ERROR_INVALID_ARGUMENT;
			}
			if (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] < 1e-12f) {
				CORE_ERROR(env, "pair %llu: pose %c has a zero quaternion", (unsigned long long)p, m == 0 ? 'a' : 'b');
				return VKCOL_ERROR_INVALID_ARGUMENT;
			}
		}
	}
	*map_array = mixed || resolution == 0 ? VKCOL_MAP_ARRAYS : pool_array_index(resolution);
	return VKCOL_SUCCESS;
}
