// SPDX-License-Identifier: MIT
// Exact mode, one level of the breadth-first traversal, one invocation per
// frontier item (pair, node of A, node of B) whose boxes overlap. The larger
// of the two nodes is split, and each child pair whose boxes overlap goes to
// the next frontier (B's box is carried into A's frame: the box of a rotated
// box from |R|). Testing children before writing them keeps the frontier to
// overlapping pairs only. When both nodes are leaves, their triangles are
// culled against the other leaf's box (the box axes of the triangle-box
// separating axis test), and the survivors tested exactly (float32,
// separating axes). A pair with a hit spawns no more work, unless every
// intersecting triangle pair is to be listed.
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


// Do the boxes (centre ca, half extents ea) of A and (cb, eb) of B overlap,
// B placed in A's frame by x -> r x + t (abs_r = |r|), with slack tol? Both
// ways: B's box carried into A's frame against A's, and A's carried into
// B's against B's (the six face axes of the two boxes; the nine edge-edge
// axes of a full box-box separating axis test are left out).
bool carried_overlap(vec3 ca, vec3 ea, vec3 cb, vec3 eb, mat3 r, mat3 abs_r, vec3 t, float tol)
{
	vec3 gap = r * cb + t - ca; // B's centre relative to A's, in A's frame
	return all(lessThanEqual(abs(gap), abs_r * eb + ea + vec3(tol))) &&
	       all(lessThanEqual(abs(gap * r), ea * abs_r + eb + vec3(tol)));
}

vec3 centre(vkcol_gpu_node n)
{
	return 0.5 * (node_min(n) + node_max(n));
}

vec3 extent(vkcol_gpu_node n)
{
	return 0.5 * (node_max(n) - node_min(n));
}

// Records a hit of pair p; returns true when the pair's search should stop.
bool hit(uint p, uint tri_a, uint tri_b)
{
	atomicAdd(state[p].x, 1u);
	if ((params.flags & VKCOL_EXACT_FIND_ALL) == 0u)
		return true;
	uint j = atomicAdd(counters[VKCOL_COUNTER_LIST], 1u);
	if (j < params.list_capacity)
		list[j] = uvec4(p, tri_a, tri_b, 0u);
	return false;
}

// Both leaves: every triangle pair that survives the box culls is tested.
void test_leaves(uint p, vkcol_gpu_node na, vkcol_gpu_node nb, mat3 r, mat3 abs_r, vec3 t, float tol)
{
	// A's triangles against B's leaf box carried into A's frame (bit k:
	// triangle na.first + k may meet it; leaves of more than 32 triangles
	// skip this cull past the 32nd).
	vec3 cb = r * centre(nb) + t, eb = abs_r * extent(nb) + vec3(tol);
	uint mask = 0u;
	for (uint k = 0u; k < na.count && k < 32u; k++) {
		uvec4 tri = triangles[na.first + k];
		vec3 a0 = vertices[tri.x].xyz, a1 = vertices[tri.y].xyz, a2 = vertices[tri.z].xyz;
		vec3 lo = min(a0, min(a1, a2)), hi = max(a0, max(a1, a2));
		if (all(lessThanEqual(max(lo - cb, cb - hi), eb)))
			mask |= 1u << k;
	}
	if (mask == 0u && na.count <= 32u)
		return;
	vec3 la = node_min(na) - vec3(tol), ha = node_max(na) + vec3(tol);
	for (uint tb = nb.first; tb < nb.first + nb.count; tb++) {
		uvec4 tri_b = triangles[tb];
		vec3 b0 = r * vertices[tri_b.x].xyz + t;
		vec3 b1 = r * vertices[tri_b.y].xyz + t;
		vec3 b2 = r * vertices[tri_b.z].xyz + t;
		vec3 lb = min(b0, min(b1, b2)) - vec3(tol), hb = max(b0, max(b1, b2)) + vec3(tol);
		// B's triangle against A's leaf box.
		if (any(greaterThan(lb, ha)) || any(lessThan(hb, la)))
			continue;
		for (uint k = 0u; k < na.count; k++) {
			if (k < 32u && (mask & (1u << k)) == 0u)
				continue;
			uvec4 tri_a = triangles[na.first + k];
			vec3 a0 = vertices[tri_a.x].xyz, a1 = vertices[tri_a.y].xyz, a2 = vertices[tri_a.z].xyz;
			vec3 lo = min(a0, min(a1, a2)), hi = max(a0, max(a1, a2));
			if (any(greaterThan(lb, hi)) || any(lessThan(hb, lo)))
				continue; // the two triangles' boxes are apart
			if (triangles_intersect(a0, a1, a2, b0, b1, b2, tol) && hit(p, tri_a.w, tri_b.w))
				return;
		}
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
	if ((params.flags & VKCOL_EXACT_FIND_ALL) == 0u && state[p].x != 0u)
		return; // this pair already has a hit
	mat3 r;
	vec3 t;
	float tol;
	load_frame(p, r, t, tol);
	mat3 abs_r = mat3(abs(r[0]), abs(r[1]), abs(r[2]));
	vkcol_gpu_node na = nodes[it.y], nb = nodes[it.z];
	if (na.count > 0u && nb.count > 0u) {
		test_leaves(p, na, nb, r, abs_r, t, tol);
		return;
	}
	// Split the larger node (by box diagonal), or the one that is not a leaf;
	// keep the children whose boxes overlap the other node's.
	vec3 ea = extent(na), eb = extent(nb);
	bool split_b = na.count > 0u || (nb.count == 0u && dot(eb, eb) > dot(ea, ea));
	uvec4 item0, item1;
	bool keep0, keep1;
	if (split_b) {
		vec3 ca = centre(na);
		vkcol_gpu_node c0 = nodes[nb.first], c1 = nodes[nb.first + 1u];
		keep0 = carried_overlap(ca, ea, centre(c0), extent(c0), r, abs_r, t, tol);
		keep1 = carried_overlap(ca, ea, centre(c1), extent(c1), r, abs_r, t, tol);
		item0 = uvec4(p, it.y, nb.first, 0u);
		item1 = uvec4(p, it.y, nb.first + 1u, 0u);
	} else {
		vec3 cb = centre(nb);
		vkcol_gpu_node c0 = nodes[na.first], c1 = nodes[na.first + 1u];
		keep0 = carried_overlap(centre(c0), extent(c0), cb, eb, r, abs_r, t, tol);
		keep1 = carried_overlap(centre(c1), extent(c1), cb, eb, r, abs_r, t, tol);
		item0 = uvec4(p, na.first, it.z, 0u);
		item1 = uvec4(p, na.first + 1u, it.z, 0u);
	}
	uint n = (keep0 ? 1u : 0u) + (keep1 ? 1u : 0u);
	if (n == 0u)
		return;
	if (!keep0)
		item0 = item1;
	uint out_index = in_index ^ 1u;
	uint j = atomicAdd(counters[out_index], n);
	if (j + n > params.capacity)
		atomicOr(state[p].y, VKCOL_PAIR_OVERFLOW);
	// Items that fit are written even so: the next level reads every slot
	// below the clamped count, so none may be left stale.
	if (j < params.capacity) {
		if (out_index == 0u)
			frontier0[j] = item0;
		else
			frontier1[j] = item0;
	}
	if (n == 2u && j + 1u < params.capacity) {
		if (out_index == 0u)
			frontier0[j + 1u] = item1;
		else
			frontier1[j + 1u] = item1;
	}
}
