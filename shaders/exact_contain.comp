// SPDX-License-Identifier: MIT
// Exact mode, last pass, one invocation per pair: writes the answer of every
// pair the earlier passes did not decide. A hit in the traversal: collide.
// No hit and both meshes closed: one lies inside the other iff a vertex of
// some connected piece of one is inside the other. A piece with one of its
// six extreme vertices outside the other mesh's box is not; otherwise a
// vertex is tested by ray parity through the other's tree (up to 3 rays:
// the first that can tell decides, ray_parity). A pair whose frontier
// overflowed without a hit is left undecided (stage NONE): the host reruns
// it in a smaller chunk. A pair that float could not decide (a triangle
// pair, or a point on the other's surface) and no hit or containment
// decided goes to the CPU reference (stage NONE, VKCOL_RESULT_FOR_CPU).
#version 450
#include "shared.h"
#include "common.glsl"
#include "pair_common.glsl"

layout(local_size_x_id = 0) in;
#include "exact_common.glsl"

vkcol_gpu_node tree_node(uint i)
{
	return node_at(i);
}

#include "tree_walk.glsl"
#include "map_sample.glsl"

// Crossings of the ray o + s d (s > 0) with mesh m's triangles, mod 2, or
// 2 when this ray cannot tell. Whether the line o + s d passes through a
// triangle is decided by the signs of its three edges' Plücker products
// (the signed volumes d . (p_i x p_j), p_i = v_i - o): a shared edge gets
// the same value, negated, in both its triangles (computed from the same
// corners, without contraction: plucker), so a line near an edge passes
// through exactly one of them, and no rounding makes the mesh leak (the
// watertight test of S. Woop, C. Benthin and I. Wald, "Watertight
// Ray/Triangle Intersection", JCGT 2(1), 2013, here with the corners
// relative to the ray's origin). The ray cannot tell when it passes
// exactly through an edge or a corner, when it passes through a triangle
// whose normal float cannot trust (a sliver: degenerate triangles
// themselves, three zero products or mixed signs, are passed through by no
// line), or when o lies within `slack` of the plane of a triangle its line
// passes through (ahead or behind is then uncertain).
// The walk is tree_walk.glsl's; its loops end through their conditions.
// d . (a x b), computed so that swapping a and b negates it exactly: no
// multiply-add contraction (`precise`), whose one rounding of a product
// would differ between the two orders.
real plucker(real3 d, real3 a, real3 b)
{
	precise real3 c = cross(a, b);
	precise real w = dot(d, c);
	return w;
}

uint ray_parity(vkcol_gpu_mesh m, real3 o_real, vec3 d_float, real slack)
{
	// The walk through the tree in float, its boxes widened to cover o's
	// rounding; the triangles in the precision of o.
	vec3 o = vec3(o_real);
	real3 d = real3(d_float);
	float box_slack = float(slack) + 1e-6 * max(abs(o.x), max(abs(o.y), abs(o.z)));
	tree_ray ray = tree_ray_of(o, 1.0 / d_float, 3.4e38, box_slack, 1e-30);
	uint crossings = 0u;
	bool unclear = false;
	tree_walk_start(m.node_first);
	while (tree_walk_more() && !unclear) {
		uvec2 leaf = tree_walk_step(ray, false);
		for (uint k = leaf.x; k < leaf.x + leaf.y && !unclear; k++) {
			uvec4 tri = triangle_at(k);
			real3 v0 = real3(vertex_at(tri.x).xyz), v1 = real3(vertex_at(tri.y).xyz), v2 = real3(vertex_at(tri.z).xyz);
			real3 p0 = v0 - o_real, p1 = v1 - o_real, p2 = v2 - o_real;
			real w0 = plucker(d, p0, p1), w1 = plucker(d, p1, p2), w2 = plucker(d, p2, p0);
			bool through = (w0 > 0.0 && w1 > 0.0 && w2 > 0.0) || (w0 < 0.0 && w1 < 0.0 && w2 < 0.0);
			bool some = w0 != 0.0 || w1 != 0.0 || w2 != 0.0;
			bool on_edge = !through && some && ((w0 >= 0.0 && w1 >= 0.0 && w2 >= 0.0) ||
			                                    (w0 <= 0.0 && w1 <= 0.0 && w2 <= 0.0));
			real3 e1 = v1 - v0, e2 = v2 - v0, nrm = cross(e1, e2);
			real ln = length(nrm), h = dot(nrm, p0), dn = dot(nrm, d);
			bool sliver = ln <= 1e-3 * length(e1) * length(e2);
			unclear = on_edge || (through && (sliver || abs(h) <= slack * ln));
			// Ahead when o and the point at infinity along d lie on
			// opposite sides of the plane: h and dn of one sign.
			crossings += through && (h > 0.0) == (dn > 0.0) ? 1u : 0u;
		}
	}
	return unclear ? 2u : crossings & 1u;
}

// The first ray's direction: towards the face of m's box nearest x, tilted
// off that axis (so that it runs along no face or edge of an axis-aligned
// mesh): it leaves the box, and the tree's boxes, soonest. A point near the
// surface of a body but outside it, as most of the pairs the traversal
// proves apart, otherwise sent its ray across the whole body.
vec3 exit_direction(vkcol_gpu_mesh m, vec3 x)
{
	vec3 below = x - box_min(m), above = box_max(m) - x, gap = min(below, above);
	vec3 side = mix(vec3(-1.0), vec3(1.0), lessThan(above, below));
	vec3 d = gap.x <= gap.y && gap.x <= gap.z ? vec3(side.x, 0.2847, -0.1731)
	         : gap.y <= gap.z                 ? vec3(0.2153, side.y, 0.1592)
	                                          : vec3(-0.1838, 0.2467, side.z);
	return normalize(d);
}

// Is the point inside m: 1, 0, or 2 when no ray can tell (the point lies
// within slack of m's surface, or every ray met an edge or a sliver)? The
// first ray that can tell decides by its parity: towards the nearest face
// of m's box, then three fixed directions.
uint inside(vkcol_gpu_mesh m, real3 point, real slack)
{
	const vec3 dirs[3] = vec3[3](normalize(vec3(0.5773503, 0.5773397, 0.5773609)),
	                             normalize(vec3(-0.2672612, 0.8017837, -0.5345225)),
	                             normalize(vec3(0.8164966, -0.4082483, -0.4082483)));
	uint parity = 2u;
	for (int k = 0; k < 4 && parity == 2u; k++)
		parity = ray_parity(m, point, k == 0 ? exit_direction(m, vec3(point)) : dirs[k - 1], slack);
	return parity;
}

// Does the piece of `from` whose extreme vertices start at pieces[first]
// lie inside `to` (x -> r x + t into to's frame, in float for the box
// test, rr x + tr in the precision of the rays): 1, 0, or 2 when float
// cannot tell? With no surface crossing, iff one of its vertices does. A
// piece inside lies in to's box, and so do its six extreme vertices: one
// beyond the box by more than tol rules it out without a ray. The ray's
// slack: what the point's coordinates may be off by (tol in float, a
// trifle of them in double).
uint piece_inside(vkcol_gpu_mesh to, uint first, mat3 r, vec3 t, real3x3 rr, real3 tr, float tol)
{
	bool boxed = true;
	for (uint k = 0u; k < VKCOL_PIECE_VERTICES && boxed; k++) {
		vec3 x = r * vertex_at(pieces[first + k]).xyz + t;
		boxed = all(greaterThanEqual(x, box_min(to) - vec3(tol))) && all(lessThanEqual(x, box_max(to) + vec3(tol)));
	}
	real3 point = rr * real3(vertex_at(pieces[first]).xyz) + tr;
	real slack = VKCOL_FP64 != 0 ? real(1e-12) * real(tol) : real(tol);
	return boxed ? inside(to, point, slack) : 0u;
}

// The depth of the witness the search pass found inside a star-shaped mesh
// (VKCOL_PAIR_WITNESS_DEPTH, shared.h): as find_candidate sampled it, from
// the mesh's origin. Here, one invocation per pair in pair order, so that
// its bits do not depend on the order the device listed the pairs in.
float witness_depth(uint p, uint witness)
{
	vkcol_gpu_pair pr = pair_at(p);
	vkcol_gpu_mesh a = mesh_of(pr.mesh_a), b = mesh_of(pr.mesh_b);
	pair_frames f = stored_frames(p);
	bool ba = (witness >> 31) == 0u;
	vkcol_gpu_mesh from = ba ? b : a, to = ba ? a : b;
	uint vertex = witness & VKCOL_WITNESS_ORIGIN;
	vec3 x = vertex == VKCOL_WITNESS_ORIGIN ? vec3(from.origin_x, from.origin_y, from.origin_z) : vertex_at(vertex).xyz;
	vec3 d = (ba ? f.r_ba * x + f.t_ba : f.r_ab * x + f.t_ab) - vec3(to.origin_x, to.origin_y, to.origin_z);
	float dist = length(d);
	vec2 rg = dist == 0.0 ? vec2(to.inner_radius) : map_sample(to.map_array, d, float(to.map_layer), 0.0);
	return max(rg.r - dist, 0.0);
}

void main()
{
	uint p = linear_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
	if (p >= params.pair_count)
		return;
	uvec2 st = state[p];
	if ((st.y & VKCOL_PAIR_DECIDED) != 0u) {
		if ((st.y & VKCOL_PAIR_WITNESS_DEPTH) != 0u)
			results[p].penetration = witness_depth(p, st.x);
		return;
	}
	// An overflow loses part of the search: the pair is rerun, unless a hit
	// already decided it and only the answer (not every triangle pair) is
	// wanted.
	bool find_all = (params.flags & VKCOL_EXACT_FIND_ALL) != 0u;
	if ((st.y & VKCOL_PAIR_OVERFLOW) != 0u && (find_all || st.x == 0u)) {
		results[p] = vkcol_gpu_result(0u, VKCOL_GPU_STAGE_NONE, 0.0, 0u);
		return;
	}
	// Listing: a triangle pair float could not decide may be missing from
	// the list, so the CPU lists the pair.
	if (find_all && (st.y & VKCOL_PAIR_UNDECIDED) != 0u) {
		results[p] = vkcol_gpu_result(0u, VKCOL_GPU_STAGE_NONE, 0.0, VKCOL_RESULT_FOR_CPU);
		return;
	}
	// Without a list the traversal stops at the first hit, but items of the
	// same level may have found others meanwhile, as many as the order in
	// which the device ran them: 1, so that the same pairs give the same
	// answers.
	if (st.x > 0u) {
		results[p] = vkcol_gpu_result(1u, VKCOL_GPU_STAGE_TREE, 0.0, find_all ? st.x : 1u);
		return;
	}
	vkcol_gpu_pair pr = pair_at(p);
	vkcol_gpu_mesh a = mesh_of(pr.mesh_a), b = mesh_of(pr.mesh_b);
	uint contained = 0u;
	if ((a.flags & b.flags & VKCOL_MESH_CLOSED) != 0u) {
		pair_frames f = stored_frames(p);
		mat3 r;
		vec3 t;
		float tol;
		load_frame(p, r, t, tol);
		// Both ways in the rays' precision: A's frame from B's is the
		// inverse.
		real3x3 r_ba, r_ab;
		real3 t_ba, t_ab;
		load_frame_real(p, r_ba, t_ba);
		r_ab = transpose(r_ba);
		t_ab = -(r_ab * t_ba);
		// B's pieces in A, then A's in B: one loop and one call of
		// piece_inside, since a SIMD driver such as lavapipe runs every
		// call's code (here three ray walks), masked, taken or not. A piece
		// float cannot place leaves the pair undecided, unless another is
		// surely inside.
		uint total = b.piece_count + a.piece_count;
		bool unsure = false;
		for (uint k = 0u; k < total && contained != 1u; k++) {
			bool ba = k < b.piece_count;
			uint first = ba ? b.piece_first + VKCOL_PIECE_VERTICES * k
			                : a.piece_first + VKCOL_PIECE_VERTICES * (k - b.piece_count);
			contained = piece_inside(ba ? a : b, first, ba ? f.r_ba : f.r_ab, ba ? f.t_ba : f.t_ab, ba ? r_ba : r_ab,
			                         ba ? t_ba : t_ab, tol);
			unsure = unsure || contained == 2u;
		}
		contained = contained == 1u ? 1u : unsure ? 2u : 0u;
	}
	bool undecided = contained == 2u || (contained == 0u && (st.y & VKCOL_PAIR_UNDECIDED) != 0u);
	results[p] = undecided        ? vkcol_gpu_result(0u, VKCOL_GPU_STAGE_NONE, 0.0, VKCOL_RESULT_FOR_CPU)
	             : contained == 1u ? vkcol_gpu_result(1u, VKCOL_GPU_STAGE_CONTAINMENT, 0.0, 0u)
	                               : vkcol_gpu_result(0u, VKCOL_GPU_STAGE_TREE, 0.0, 0u);
}
