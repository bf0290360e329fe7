// SPDX-License-Identifier: MIT
// Recorded queries (vkcol_batch_record, src/batch/record.c), one invocation
// per pair slot of a chunk, around each chunk's passes of either mode:
//  variant 0, before: reads the query's count (the caller's, copied by the
//    recorded commands, or the recorded one), writes the indirect dispatch
//    of the chunk's per-pair passes, and checks each pair the host never
//    saw: live mesh ids of the batch's pool, finite poses, non-zero
//    quaternions. An invalid pair, and a slot past the count up to a whole
//    workgroup (which the per-pair passes run), gets the stand-in pair (one
//    mesh against itself, apart beyond their bounding spheres: stage 0
//    decides it at once), so no pass reads an unknown mesh. Where the
//    passes compose frames in float (approx mode; exact mode without
//    shaderFloat64), a pair of a recentred mesh goes as B's pose in A's
//    stored frame, A at the identity, as pairs_upload does on the host;
//    other poses go as given.
//  variant 1, after: the public answers (past the count: all zero; invalid:
//    undecided, VKCOL_UNDECIDED_INVALID; stage NONE: undecided, with why),
//    and the summary's counts.
#version 450
#include "shared.h"
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(push_constant) uniform Push { vkcol_record_params params; };

layout(std430, set = 0, binding = VKCOL_RECORD_BINDING_PAIRS) buffer Pairs { vkcol_gpu_pair pairs[]; };
layout(std430, set = 0, binding = VKCOL_RECORD_BINDING_MESHES) readonly buffer Meshes { vkcol_gpu_mesh meshes[]; };
layout(std430, set = 0, binding = VKCOL_RECORD_BINDING_IDS) readonly buffer Ids { uint ids[]; };
layout(std430, set = 0, binding = VKCOL_RECORD_BINDING_STATE) buffer State { uint state[]; };
layout(std430, set = 0, binding = VKCOL_RECORD_BINDING_RESULTS) buffer Results { vkcol_gpu_result results[]; };

const bool PREPARE = VKCOL_VARIANT == 0;

// Is id the handle of a mesh the batch's pool holds?
bool live(uint id)
{
	uint slot = (id & params.mesh_index_mask) - 1u; // id 0: slot 0xffffffff
	return slot < params.mesh_slots && ids[slot] == id;
}

// Neither NaN nor infinite, by its bits (drivers may fold isnan away).
bool finite(float x)
{
	return (floatBitsToUint(x) & 0x7f800000u) != 0x7f800000u;
}

bool valid(vkcol_gpu_pair p)
{
	vec4 qa = vec4(p.qa_x, p.qa_y, p.qa_z, p.qa_w), qb = vec4(p.qb_x, p.qb_y, p.qb_z, p.qb_w);
	vec3 ta = vec3(p.ta_x, p.ta_y, p.ta_z), tb = vec3(p.tb_x, p.tb_y, p.tb_z);
	bool ok = live(p.mesh_a) && live(p.mesh_b);
	for (int k = 0; k < 4; k++)
		ok = ok && finite(qa[k]) && finite(qb[k]);
	for (int k = 0; k < 3; k++)
		ok = ok && finite(ta[k]) && finite(tb[k]);
	// As the host checks a vkcol_pair (pairs_validate).
	return ok && dot(qa, qa) >= 1e-12 && dot(qb, qb) >= 1e-12;
}

// The id the passes read a live mesh by: with a vertex budget, that of the
// record of the level it picks (VKCOL_RECORD_BUDGET); in exact mode its own
// record's (VKCOL_RECORD_FINE: fine_id picks a fine tree's); else the
// handle.
uint pass_id(uint id)
{
	if ((params.flags & VKCOL_RECORD_BUDGET) != 0u)
		return ids[params.mesh_slots + (id & params.mesh_index_mask) - 1u];
	if ((params.flags & VKCOL_RECORD_FINE) != 0u)
		return id & params.mesh_index_mask;
	return id;
}

// Exact mode: the record of `id`'s fine tree against `other`'s mesh, where
// pool_exact_pair (batch/pool.c) picks it, else pass_id's.
uint fine_id(uint id, uint other)
{
	uint slot = (id & params.mesh_index_mask) - 1u, other_slot = (other & params.mesh_index_mask) - 1u;
	uint fine = ids[params.mesh_slots + slot];
	float scale = uintBitsToFloat(ids[2u * params.mesh_slots + slot]);
	float thickness = uintBitsToFloat(ids[3u * params.mesh_slots + slot]);
	float other_scale = uintBitsToFloat(ids[2u * params.mesh_slots + other_slot]);
	return fine != 0u && scale >= VKCOL_FINE_RATIO * other_scale && thickness >= VKCOL_FINE_THICKNESS * other_scale
	           ? fine
	           : slot + 1u;
}

vkcol_gpu_pair stand_in()
{
	uint id = pass_id(params.stand_in_mesh);
	return vkcol_gpu_pair(id, id, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, params.stand_in_apart, 0.0,
	                      0.0);
}

vec3 centre(uint id)
{
	vkcol_gpu_mesh m = meshes[(id & params.mesh_index_mask) - 1u];
	return vec3(m.centre_x, m.centre_y, m.centre_z);
}

// B's pose in A's stored frame (x_A = R x_B + t with both meshes' stored,
// recentred positions), A at the identity: R = Ra^T Rb, the quaternion
// conj(qa) qb; t = Ra^T (Rb cb + tb - ta) - ca (ref_pair_pose, in float).
vkcol_gpu_pair relative(vkcol_gpu_pair p, vec3 ca, vec3 cb)
{
	vec4 qa = normalize(vec4(p.qa_x, p.qa_y, p.qa_z, p.qa_w)), qb = normalize(vec4(p.qb_x, p.qb_y, p.qb_z, p.qb_w));
	mat3 ra = quat_to_mat3(qa), rb = quat_to_mat3(qb);
	vec3 t = transpose(ra) * (rb * cb + vec3(p.tb_x, p.tb_y, p.tb_z) - vec3(p.ta_x, p.ta_y, p.ta_z)) - ca;
	// conj(qa) qb with vectors x y z and scalars w.
	float w = qa.w * qb.w + dot(qa.xyz, qb.xyz);
	vec3 v = qa.w * qb.xyz - qb.w * qa.xyz - cross(qa.xyz, qb.xyz);
	return vkcol_gpu_pair(p.mesh_a, p.mesh_b, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, w, v.x, v.y, v.z, t.x, t.y, t.z);
}

void prepare(uint i)
{
	uint count = min(state[VKCOL_RECORD_COUNT], params.pair_count);
	uint n = count > params.chunk_first ? min(count - params.chunk_first, params.chunk_slots) : 0u;
	if (i == 0u) {
		state[VKCOL_RECORD_ARGS] = (n + VKCOL_WORKGROUP_SIZE - 1u) / VKCOL_WORKGROUP_SIZE;
		state[VKCOL_RECORD_ARGS + 1] = 1u;
		state[VKCOL_RECORD_ARGS + 2] = 1u;
		state[VKCOL_RECORD_CHUNK_PAIRS] = n;
	}
	if (i >= params.chunk_slots)
		return;
	if (i >= n) {
		// The per-pair passes run whole workgroups, up to the slots.
		if (i < (n + VKCOL_WORKGROUP_SIZE - 1u) / VKCOL_WORKGROUP_SIZE * VKCOL_WORKGROUP_SIZE)
			pairs[i] = stand_in();
		state[VKCOL_RECORD_SLOTS + i] = VKCOL_SLOT_PAST;
		return;
	}
	vkcol_gpu_pair p = pairs[i];
	if (!valid(p)) {
		pairs[i] = stand_in();
		state[VKCOL_RECORD_SLOTS + i] = VKCOL_SLOT_INVALID;
		return;
	}
	if ((params.flags & VKCOL_RECORD_RELATIVE) != 0u) {
		vec3 ca = centre(p.mesh_a), cb = centre(p.mesh_b);
		if (any(notEqual(ca, vec3(0.0))) || any(notEqual(cb, vec3(0.0))))
			p = relative(p, ca, cb);
	}
	bool fine = (params.flags & VKCOL_RECORD_FINE) != 0u;
	uint a = fine ? fine_id(p.mesh_a, p.mesh_b) : pass_id(p.mesh_a);
	p.mesh_b = fine ? fine_id(p.mesh_b, p.mesh_a) : pass_id(p.mesh_b);
	p.mesh_a = a;
	pairs[i] = p;
	state[VKCOL_RECORD_SLOTS + i] = VKCOL_SLOT_PAIR;
}

void finish(uint i)
{
	if (i >= params.chunk_slots)
		return;
	uint n = state[VKCOL_RECORD_CHUNK_PAIRS], slot = state[VKCOL_RECORD_SLOTS + i];
	vkcol_gpu_result r = results[i];
	if (i >= n)
		r = vkcol_gpu_result(0u, VKCOL_GPU_STAGE_NONE, 0.0, 0u);
	else if (slot == VKCOL_SLOT_INVALID)
		r = vkcol_gpu_result(0u, VKCOL_GPU_STAGE_NONE, 0.0, VKCOL_GPU_UNDECIDED_INVALID);
	else if (r.stage == VKCOL_GPU_STAGE_NONE)
		// Exact mode: float could not decide it, else its traversal
		// overflowed the batch's frontier (exact_contain.comp).
		r = vkcol_gpu_result(0u, VKCOL_GPU_STAGE_NONE, 0.0,
		                     r.triangle_pairs == VKCOL_RESULT_FOR_CPU ? VKCOL_GPU_UNDECIDED_FLOAT
		                                                              : VKCOL_GPU_UNDECIDED_SCRATCH);
	results[i] = r;
	if (i >= n)
		return;
	if (i == 0u)
		atomicAdd(state[VKCOL_RECORD_SUMMARY], n);
	if (r.collide != 0u)
		atomicAdd(state[VKCOL_RECORD_SUMMARY + 1], 1u);
	if (r.stage == VKCOL_GPU_STAGE_NONE)
		atomicAdd(state[VKCOL_RECORD_SUMMARY + 2], 1u);
	if (slot == VKCOL_SLOT_INVALID)
		atomicAdd(state[VKCOL_RECORD_SUMMARY + 3], 1u);
}

void main()
{
	uint i = linear_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
	if (PREPARE)
		prepare(i);
	else
		finish(i);
}
