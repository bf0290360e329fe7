// SPDX-License-Identifier: MIT
// Exact mode, last pass, one invocation per pair: writes the answer of every
// pair the earlier passes did not decide. A hit in the traversal: collide.
// No hit and both meshes closed: one lies inside the other iff a vertex of
// some connected piece of one is inside the other. A piece with one of its
// six extreme vertices outside the other mesh's box is not; otherwise a
// vertex is tested by ray parity through the other's tree (up to 3 rays: a
// ray passing within the tolerance of an edge or vertex is discarded, and
// the first clear one decides). A pair
// whose frontier overflowed without a hit is left undecided (stage NONE):
// the host reruns it in a smaller chunk.
#version 450
#include "shared.h"
#include "common.glsl"
#include "pair_common.glsl"

layout(local_size_x_id = 0) in;
#include "exact_common.glsl"

const uint STACK_SIZE = 64u; // > max tree depth (48) + 1

// Crossings of the ray o + t d (t > 0) with mesh m's triangles, mod 2; or 2
// when the ray passes too close to an edge or vertex to count reliably. The
// loops end through their conditions, not a `return` (see segment_clear in
// exact_setup.comp: lavapipe miscompiled an early return in such a loop).
uint ray_parity(vkcol_gpu_mesh m, vec3 o, vec3 d)
{
	vec3 inv_d = 1.0 / d;
	uint stack[STACK_SIZE];
	uint top = 0u;
	stack[top++] = m.node_first;
	uint crossings = 0u;
	bool unclear = false;
	while (top > 0u && !unclear) {
		vkcol_gpu_node n = node_at(stack[--top]);
		vec3 t0 = (node_min(n) - o) * inv_d, t1 = (node_max(n) - o) * inv_d;
		vec3 lo = min(t0, t1), hi = max(t0, t1);
		float enter = max(max(lo.x, lo.y), max(lo.z, 0.0)), leave = min(min(hi.x, hi.y), hi.z);
		if (enter > leave * (1.0 + 1e-5) + 1e-30)
			continue;
		if (n.count == 0u) {
			stack[top++] = n.first;
			stack[top++] = n.first + 1u;
			continue;
		}
		for (uint k = n.first; k < n.first + n.count && !unclear; k++) {
			uvec4 tri = triangle_at(k);
			vec3 v0 = vertex_at(tri.x).xyz, v1 = vertex_at(tri.y).xyz, v2 = vertex_at(tri.z).xyz;
			vec3 e1 = v1 - v0, e2 = v2 - v0;
			vec3 pv = cross(d, e2);
			float det = dot(e1, pv);
			float scale = sqrt(dot(e1, e1) * dot(e2, e2));
			if (abs(det) <= 1e-7 * scale)
				continue; // ray parallel to the plane: no crossing
			vec3 s = o - v0;
			float u = dot(s, pv) / det;
			vec3 q = cross(s, e1);
			float v = dot(d, q) / det;
			float t = dot(e2, q) / det;
			const float eps = 1e-5;
			if (u < -eps || v < -eps || u + v > 1.0 + eps || t < -eps * max(length(s), 1e-30))
				continue;
			// Grazing an edge or vertex, or starting on the surface: unclear.
			unclear = u <= eps || v <= eps || u + v >= 1.0 - eps || t <= eps * max(length(s), 1e-30);
			crossings++;
		}
	}
	return unclear ? 2u : crossings & 1u;
}

// Is the point inside m? The first ray that passes clear of every edge and
// vertex decides by its parity.
bool inside(vkcol_gpu_mesh m, vec3 point)
{
	const vec3 dirs[3] = vec3[3](normalize(vec3(0.5773503, 0.5773397, 0.5773609)),
	                             normalize(vec3(-0.2672612, 0.8017837, -0.5345225)),
	                             normalize(vec3(0.8164966, -0.4082483, -0.4082483)));
	uint parity = 2u;
	for (int k = 0; k < 3 && parity == 2u; k++)
		parity = ray_parity(m, point, dirs[k]);
	// Every ray grazing: the point is within the tolerance of the surface,
	// where touching counts.
	return parity != 0u;
}

// Does the piece of `from` whose extreme vertices start at pieces[first]
// lie inside `to` (x -> r x + t into to's frame)? With no surface crossing,
// iff one of its vertices does. A piece inside lies in to's box, and so do
// its six extreme vertices: any one outside rules it out without a ray.
bool piece_inside(vkcol_gpu_mesh to, uint first, mat3 r, vec3 t)
{
	bool boxed = true;
	for (uint k = 0u; k < VKCOL_PIECE_VERTICES && boxed; k++)
		boxed = in_box(to, r * vertex_at(pieces[first + k]).xyz + t);
	return boxed && inside(to, r * vertex_at(pieces[first]).xyz + t);
}

void main()
{
	uint p = linear_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
	if (p >= params.pair_count)
		return;
	uvec2 st = state[p];
	if ((st.y & VKCOL_PAIR_DECIDED) != 0u)
		return;
	// An overflow loses part of the search: the pair is rerun, unless a hit
	// already decided it and only the answer (not every triangle pair) is
	// wanted.
	bool find_all = (params.flags & VKCOL_EXACT_FIND_ALL) != 0u;
	if ((st.y & VKCOL_PAIR_OVERFLOW) != 0u && (find_all || st.x == 0u)) {
		results[p] = vkcol_gpu_result(0u, VKCOL_STAGE_NONE, 0.0, 0u);
		return;
	}
	if (st.x > 0u) {
		results[p] = vkcol_gpu_result(1u, VKCOL_STAGE_TREE, 0.0, st.x);
		return;
	}
	vkcol_gpu_pair pr = pair_at(p);
	vkcol_gpu_mesh a = mesh_of(pr.mesh_a), b = mesh_of(pr.mesh_b);
	bool contained = false;
	if ((a.flags & b.flags & VKCOL_MESH_CLOSED) != 0u) {
		pair_frames f = make_frames(pr);
		// B's pieces in A, then A's in B: one loop and one call of
		// piece_inside, since a SIMD driver such as lavapipe runs every
		// call's code (here three ray walks), masked, taken or not.
		uint total = b.piece_count + a.piece_count;
		for (uint k = 0u; k < total && !contained; k++) {
			bool ba = k < b.piece_count;
			uint first = ba ? b.piece_first + VKCOL_PIECE_VERTICES * k
			                : a.piece_first + VKCOL_PIECE_VERTICES * (k - b.piece_count);
			contained = piece_inside(ba ? a : b, first, ba ? f.r_ba : f.r_ab, ba ? f.t_ba : f.t_ab);
		}
	}
	results[p] = contained ? vkcol_gpu_result(1u, VKCOL_STAGE_CONTAINMENT, 0.0, 0u)
	                       : vkcol_gpu_result(0u, VKCOL_STAGE_TREE, 0.0, 0u);
}
