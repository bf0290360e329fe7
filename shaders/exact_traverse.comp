// SPDX-License-Identifier: MIT
// Exact mode, one level of the breadth-first traversal, one invocation per
// frontier item (pair, node of A, node of B). B's node box is carried into
// A's frame (the box of a rotated box from |R|); when it overlaps A's node
// box, the larger of the two nodes is split and both children go to the next
// frontier; when both are leaves their triangles are tested exactly (float32,
// separating axes). A pair with a hit spawns no more work.
// Triangle test: two triangles are disjoint iff some axis separates them;
// the candidate axes are the two normals, the nine edge-edge cross products
// and, for coplanar triangles, each normal crossed with each edge (the
// separating axis theorem for convex polytopes). Touching (within the pair's
// tolerance) counts as intersecting.
#version 450
#include "shared.h"
#include "common.glsl"
#include "pair_common.glsl"

layout(local_size_x_id = 0) in;
#include "exact_common.glsl"

// Is `axis` (derived from vectors whose squared lengths multiply to ref) a
// separating axis of triangles a and b, with slack tol (length units)?
// Near-degenerate axes (nearly parallel edges) are skipped: the other axes
// cover those configurations.
bool separates(vec3 axis, float ref, vec3 a0, vec3 a1, vec3 a2, vec3 b0, vec3 b1, vec3 b2, float tol)
{
	float len2 = dot(axis, axis);
	if (len2 <= 1e-10 * ref)
		return false;
	float pa0 = dot(axis, a0), pa1 = dot(axis, a1), pa2 = dot(axis, a2);
	float pb0 = dot(axis, b0), pb1 = dot(axis, b1), pb2 = dot(axis, b2);
	float amin = min(pa0, min(pa1, pa2)), amax = max(pa0, max(pa1, pa2));
	float bmin = min(pb0, min(pb1, pb2)), bmax = max(pb0, max(pb1, pb2));
	float slack = tol * sqrt(len2);
	return amax < bmin - slack || bmax < amin - slack;
}

bool triangles_intersect(vec3 a0, vec3 a1, vec3 a2, vec3 b0, vec3 b1, vec3 b2, float tol)
{
	vec3 ea[3] = vec3[3](a1 - a0, a2 - a1, a0 - a2);
	vec3 eb[3] = vec3[3](b1 - b0, b2 - b1, b0 - b2);
	float la[3] = float[3](dot(ea[0], ea[0]), dot(ea[1], ea[1]), dot(ea[2], ea[2]));
	float lb[3] = float[3](dot(eb[0], eb[0]), dot(eb[1], eb[1]), dot(eb[2], eb[2]));
	vec3 na = cross(ea[0], ea[1]), nb = cross(eb[0], eb[1]);
	float lna = la[0] * la[1], lnb = lb[0] * lb[1];
	if (separates(na, lna, a0, a1, a2, b0, b1, b2, tol) || separates(nb, lnb, a0, a1, a2, b0, b1, b2, tol))
		return false;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			if (separates(cross(ea[i], eb[j]), la[i] * lb[j], a0, a1, a2, b0, b1, b2, tol))
				return false;
	for (int i = 0; i < 3; i++) {
		if (separates(cross(na, ea[i]), lna * la[i], a0, a1, a2, b0, b1, b2, tol))
			return false;
		if (separates(cross(nb, eb[i]), lnb * lb[i], a0, a1, a2, b0, b1, b2, tol))
			return false;
	}
	return true;
}

void emit(uint out_index, uvec4 item0, uvec4 item1, uint p)
{
	uint j = atomicAdd(counters[out_index], 2u);
	if (j + 2u > params.capacity) {
		atomicOr(state[p].y, VKCOL_PAIR_OVERFLOW);
		return;
	}
	if (out_index == 0u) {
		frontier0[j] = item0;
		frontier0[j + 1u] = item1;
	} else {
		frontier1[j] = item0;
		frontier1[j + 1u] = item1;
	}
}

void main()
{
	uint i = linear_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
	if (i >= counters[2])
		return;
	uint in_index = params.level & 1u;
	uvec4 it = in_index == 0u ? frontier0[i] : frontier1[i];
	uint p = it.x;
	if (state[p].x != 0u)
		return; // this pair already has a hit
	vkcol_gpu_pair pr = pairs[p];
	vkcol_gpu_mesh a = mesh_of(pr.mesh_a), b = mesh_of(pr.mesh_b);
	pair_frames f = make_frames(pr);
	float tol = pair_tolerance(a, b, f.t_ba);

	vkcol_gpu_node na = nodes[it.y], nb = nodes[it.z];
	vec3 ca = 0.5 * (node_min(na) + node_max(na)), ea = 0.5 * (node_max(na) - node_min(na));
	vec3 cb = 0.5 * (node_min(nb) + node_max(nb)), eb = 0.5 * (node_max(nb) - node_min(nb));
	mat3 abs_r = mat3(abs(f.r_ba[0]), abs(f.r_ba[1]), abs(f.r_ba[2]));
	if (any(greaterThan(abs(f.r_ba * cb + f.t_ba - ca), abs_r * eb + ea + vec3(tol))))
		return;

	if (na.count > 0u && nb.count > 0u) {
		for (uint ta = na.first; ta < na.first + na.count; ta++) {
			uvec4 tri_a = triangles[ta];
			vec3 a0 = vertices[tri_a.x].xyz, a1 = vertices[tri_a.y].xyz, a2 = vertices[tri_a.z].xyz;
			for (uint tb = nb.first; tb < nb.first + nb.count; tb++) {
				uvec4 tri_b = triangles[tb];
				vec3 b0 = f.r_ba * vertices[tri_b.x].xyz + f.t_ba;
				vec3 b1 = f.r_ba * vertices[tri_b.y].xyz + f.t_ba;
				vec3 b2 = f.r_ba * vertices[tri_b.z].xyz + f.t_ba;
				if (triangles_intersect(a0, a1, a2, b0, b1, b2, tol)) {
					atomicAdd(state[p].x, 1u);
					return;
				}
			}
		}
		return;
	}
	// Split the larger node (by box diagonal), or the one that is not a leaf.
	bool split_b = na.count > 0u || (nb.count == 0u && dot(eb, eb) > dot(ea, ea));
	uint out_index = in_index ^ 1u;
	if (split_b)
		emit(out_index, uvec4(p, it.y, nb.first, 0u), uvec4(p, it.y, nb.first + 1u, 0u), p);
	else
		emit(out_index, uvec4(p, na.first, it.z, 0u), uvec4(p, na.first + 1u, it.z, 0u), p);
}
