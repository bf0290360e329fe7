// SPDX-License-Identifier: MIT
// The steps of the exact-mode traversal shared by exact_traverse.comp (one
// breadth-first step per frontier item) and exact_dive.comp (depth-first
// steps below the items of diving pairs).
// Triangle test: two triangles are disjoint iff some axis separates them;
// the candidate axes are the two normals, the nine edge-edge cross products
// and, for coplanar triangles, each normal crossed with each edge (the
// separating axis theorem for convex polytopes). In float with the culls'
// slack this only proves pairs apart (a degenerate triangle has no normal
// and its axes vanish: it is never separated here); what it leaves,
// triangles_touch (tri_distance.glsl) decides.
#ifndef VKCOL_EXACT_TRAVERSE_GLSL
#define VKCOL_EXACT_TRAVERSE_GLSL

#include "tri_distance.glsl"

// The _obb variants of exact_traverse.comp and exact_dive.comp also test the
// nodes' oriented boxes (obbs_meet), for batches whose meshes' trees all have
// them worth it (aabb_tree.h, obb_worth): a SIMD driver such as lavapipe runs
// the code of a branch no lane takes, so a pipeline of its own, not a flag.
#ifndef VKCOL_OBB
#define VKCOL_OBB 0
#endif

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

// The two normals are not tried here: test_leaves culls by them first.
bool triangles_intersect(vec3 a0, vec3 a1, vec3 a2, vec3 b0, vec3 b1, vec3 b2, float tol)
{
	vec3 ea[3] = vec3[3](a1 - a0, a2 - a1, a0 - a2);
	vec3 eb[3] = vec3[3](b1 - b0, b2 - b1, b0 - b2);
	float la[3] = float[3](dot(ea[0], ea[0]), dot(ea[1], ea[1]), dot(ea[2], ea[2]));
	float lb[3] = float[3](dot(eb[0], eb[0]), dot(eb[1], eb[1]), dot(eb[2], eb[2]));
	vec3 na = cross(ea[0], ea[1]), nb = cross(eb[0], eb[1]);
	float lna = la[0] * la[1], lnb = lb[0] * lb[1];
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


// Do the boxes of A (half extents ea) and B (eb) overlap, B placed in A's
// frame by x -> r x + t (abs_r = |r|), with slack tol? gap: B's box centre
// minus A's, in A's frame. The full box-box separating axis test: the six
// face axes of the two boxes first (B's box carried into A's frame against
// A's, and A's into B's against B's), then the nine edge-edge axes A_i x B_j
// (they prune pairs the face axes and the slabs leave:
// docs/performance-notes.md).
bool carried_overlap(vec3 gap, vec3 ea, vec3 eb, mat3 r, mat3 abs_r, float tol)
{
	// Apart only where an axis provably separates (a NaN from an infinite
	// extent, coordinates near float's range end, does not), as below.
	if (any(greaterThan(abs(gap), abs_r * eb + ea + vec3(tol))) ||
	    any(greaterThan(abs(gap * r), ea * abs_r + eb + vec3(tol))))
		return false;
	// The nine axes A_i x B_j: row i of r over j is rt[i].
	mat3 rt = transpose(r), art = transpose(abs_r);
	vec3 eb1 = eb.yzx, eb2 = eb.zxy;
	bool apart = false;
	for (int i = 0; i < 3; i++) {
		int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
		vec3 ra = ea[i1] * art[i2] + ea[i2] * art[i1];
		vec3 rb = eb1 * art[i].zxy + eb2 * art[i].yzx;
		vec3 d = abs(gap[i2] * rt[i1] - gap[i1] * rt[i2]);
		apart = apart || any(greaterThan(d, ra + rb + vec3(tol)));
	}
	return !apart;
}

// Do the slabs (slab_at) of A's node (sa, box half extents ea) and of B's
// (sb, eb) meet the other node, with slack tol? g: B's box centre minus
// A's, in A's frame. Along n_a, A's triangles lie within A's slab; B's
// within two intervals, either of which apart from A's slab separates the
// nodes (two intervals that each meet a third, and each other, share a
// point with it: Helly's theorem on the line):
// - B's box: it spans dot(|r^T n_a|, eb) about its centre, which lies at
//   n_a . g from A's box centre;
// - B's slab and box together: n_a = k n_b + w with w orthogonal to n_b
//   (k = n_a . n_b / n_b . n_b), so n_a . d = k (n_b . d) + w . d for d from
//   B's centre to a vertex of B's node, the first term within B's slab
//   (k m_b +- |k| h_b) and the second within B's box (dot(|r^T w|, eb)).
// Near contact the second is the tight one: two nearly parallel patches,
// each thin along its normal, lie apart along it while their boxes, fat
// along any direction not an axis, overlap. B's slab against A's node
// likewise, with n_b carried into A's frame (A's centre lies at -n_b . g
// from B's).
bool slabs_meet(vec3 g, vec3 ea, vec3 eb, vec4 sa, vec4 sb, mat3 r, float tol)
{
	vec3 na = slab_normal(sa), nb = r * slab_normal(sb);
	float ab = dot(na, nb), ka = ab / dot(nb, nb), kb = ab / dot(na, na);
	vec3 wa = na - ka * nb, wb = nb - kb * na;
	float ga = dot(na, g) - sa.z, gb = dot(nb, g) + sb.z;
	// Apart only where an interval provably is: a slab that holds all (h
	// infinite, aabb_tree.h) against normals at right angles gives 0 * inf,
	// a NaN, which must not count as apart.
	return !(abs(ga) > sa.w + dot(abs(na * r), eb) + tol ||
	         abs(gb) > sb.w + dot(abs(nb), ea) + tol ||
	         abs(ga + ka * sb.z) > sa.w + abs(ka) * sb.w + dot(abs(wa * r), eb) + tol ||
	         abs(gb - kb * sa.z) > sb.w + abs(kb) * sa.w + dot(abs(wb), ea) + tol);
}

// Do the oriented boxes of A's node (a) and B's (b) overlap, B placed in A's
// frame by x -> r x + t, with slack tol? The 15 axes of the box-box
// separating axis test (Gottschalk, Lin & Manocha, "OBBTree", SIGGRAPH
// 1996), B's axes carried into A's frame: the faces of each, then the nine
// edge-edge axes A_i x B_j. Apart only where an axis provably separates (an
// infinite extent, or a NaN from one, separates nothing). The stored axes are
// unit and orthogonal to float's precision; tol covers the difference.
bool obbs_meet(node_obb a, node_obb b, mat3 r, vec3 t, float tol)
{
	mat3 ra = mat3(a.a0, a.a1, a.a2), rb = r * mat3(b.a0, b.a1, b.a2);
	mat3 c = transpose(ra) * rb; // c[j][i] = A_i . B_j
	mat3 ac = mat3(abs(c[0]), abs(c[1]), abs(c[2]));
	vec3 d = r * b.c + t - a.c;
	vec3 ta = d * ra, tb = d * rb; // A_i . d, B_j . d
	if (any(greaterThan(abs(ta), a.e + ac * b.e + vec3(tol))) || any(greaterThan(abs(tb), b.e + a.e * ac + vec3(tol))))
		return false;
	// T . (A_i x B_j) = ta[i2] C[i1][j] - ta[i1] C[i2][j]; the radii as in
	// carried_overlap.
	mat3 ct = transpose(c), act = transpose(ac); // rows: ct[i][j] = A_i . B_j
	vec3 eb1 = b.e.yzx, eb2 = b.e.zxy;
	bool apart = false;
	for (int i = 0; i < 3; i++) {
		int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
		vec3 lhs = abs(ta[i2] * ct[i1] - ta[i1] * ct[i2]);
		vec3 rad = a.e[i1] * act[i2] + a.e[i2] * act[i1] + eb1 * act[i].zxy + eb2 * act[i].yzx;
		apart = apart || any(greaterThan(lhs, rad + vec3(tol)));
	}
	return !apart;
}

// May A's node (box centre ca, half extents ea, slab sa) and B's (cb, eb,
// sb) hold intersecting triangles? Their boxes overlap and each slab meets
// the other node (slabs_meet).
bool nodes_meet(vec3 ca, vec3 ea, vec4 sa, vec3 cb, vec3 eb, vec4 sb, mat3 r, mat3 abs_r, vec3 t, float tol)
{
	vec3 gap = r * cb + t - ca; // B's centre relative to A's, in A's frame
	return carried_overlap(gap, ea, eb, r, abs_r, tol) && slabs_meet(gap, ea, eb, sa, sb, r, tol);
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

// The frontier this level reads, at slot.
uvec4 frontier_get(uint slot)
{
	return texelFetch(frontier_texels, int(slot));
}

// Writes item at slot of the frontier the next level reads.
void frontier_put(uint slot, uvec4 item)
{
	frontier[slot] = item;
}

// Reserves n slots for pair p in a region of the next level's frontier;
// returns the first slot, and in `end` the region's end. A pair whose slots
// do not all fit is flagged for a rerun; the slots that fit are written
// even so, since the next level reads every slot below the clamped count
// and none may be left stale.
uint frontier_reserve(uint p, uint region, uint n, out uint end)
{
	uint out_index = (params.level & 1u) ^ 1u;
	uint j = atomicAdd(counters[region_counter(region) + out_index], n);
	uint base;
	region_slots(region, base, end);
	if (j + n > end - base)
		atomicOr(state[p].y, VKCOL_PAIR_OVERFLOW);
	return base + j;
}


// Writes an entry of triangle pairs `bits` (bit j * 4 + k: A's triangle
// first_a + k and B's first_b + j, in the triangle pool) of pair p to
// `region` (REGION_CAND or REGION_CONFIRM) of the frontier the next level
// reads. A pair whose entry does not fit is flagged for a rerun.
void put_entry(uint region, uint p, uint first_a, uint first_b, uint bits)
{
	uint end, slot = frontier_reserve(p, region, 1u, end);
	if (slot < end)
		frontier_put(slot, uvec4(p, first_a, first_b, bits));
}

// Triangle pair `bit` of an entry (as put_entry: A's triangle first_a +
// bit % 4, B's first_b + bit / 4), B's carried into A's frame by
// x -> r x + t, in float; returns the two triangles' original indices.
uvec2 candidate_triangles(uint first_a, uint first_b, uint bit, mat3 r, vec3 t, out vec3 a0, out vec3 a1, out vec3 a2,
                          out vec3 b0, out vec3 b1, out vec3 b2)
{
	uvec4 tri_a = triangle_at(first_a + bit % 4u);
	uvec4 tri_b = triangle_at(first_b + bit / 4u);
	a0 = vertex_at(tri_a.x).xyz, a1 = vertex_at(tri_a.y).xyz, a2 = vertex_at(tri_a.z).xyz;
	b0 = r * vertex_at(tri_b.x).xyz + t;
	b1 = r * vertex_at(tri_b.y).xyz + t;
	b2 = r * vertex_at(tri_b.z).xyz + t;
	return uvec2(tri_a.w, tri_b.w);
}

// The separating axes, in float with the culls' slack tol, on the triangle
// pairs of `bits` (as put_entry): an axis that separates by more proves a
// pair apart. A pair no axis separates is a hit when one's edge passes
// through the other's face by more than float's error (crossing, in float:
// most hits of colliding pairs are such crossings); the others go to the
// confirmation region for exact_confirm (confirm_candidates), one entry
// for all of them. Returns true when the pair's search should stop (a hit,
// unless listing). Two loops: a SIMD driver such as lavapipe runs a loop's
// body for every iteration any lane needs, so the crossing test runs only
// as often as the lane with the most pairs left needs it.
bool test_candidates(uint p, uint first_a, uint first_b, uint bits, mat3 r, vec3 t, float tol)
{
	uint maybe = 0u;
	while (bits != 0u) {
		uint bit = uint(findLSB(bits));
		bits &= bits - 1u;
		vec3 a0, a1, a2, b0, b1, b2;
		candidate_triangles(first_a, first_b, bit, r, t, a0, a1, a2, b0, b1, b2);
		if (triangles_intersect(a0, a1, a2, b0, b1, b2, tol))
			maybe |= 1u << bit;
	}
	bool stop = false;
	uint left = 0u;
	while (maybe != 0u && !stop) {
		uint bit = uint(findLSB(maybe));
		maybe &= maybe - 1u;
		vec3 a0, a1, a2, b0, b1, b2;
		uvec2 originals = candidate_triangles(first_a, first_b, bit, r, t, a0, a1, a2, b0, b1, b2);
		if (triangles_cross(a0, a1, a2, b0, b1, b2, tol))
			stop = hit(p, originals.x, originals.y);
		else
			left |= 1u << bit;
	}
	if (left != 0u && !stop)
		put_entry(REGION_CONFIRM, p, first_a, first_b, left);
	return stop;
}

// The last word on the triangle pairs of `bits` (as put_entry) that no
// separating axis could part: triangles_touch, in double where the device
// has it. A hit counts for the pair (and stops its search, unless
// listing); a pair float cannot decide is flagged for the CPU reference.
void confirm_candidates(uint p, uint first_a, uint first_b, uint bits, float tol)
{
	real3x3 rr;
	real3 tr;
	load_frame_real(p, rr, tr);
	real touch = real(load_touch_distance(p));
	// The coordinates' error: none to speak of in double, the culls' slack
	// in float.
	real err = VKCOL_FP64 != 0 ? real(0.0) : real(tol);
	bool stop = false;
	while (bits != 0u && !stop) {
		uint bit = uint(findLSB(bits));
		bits &= bits - 1u;
		uvec4 tri_a = triangle_at(first_a + bit % 4u);
		uvec4 tri_b = triangle_at(first_b + bit / 4u);
		real3 a0 = real3(vertex_at(tri_a.x).xyz), a1 = real3(vertex_at(tri_a.y).xyz), a2 = real3(vertex_at(tri_a.z).xyz);
		real3 b0 = rr * real3(vertex_at(tri_b.x).xyz) + tr;
		real3 b1 = rr * real3(vertex_at(tri_b.y).xyz) + tr;
		real3 b2 = rr * real3(vertex_at(tri_b.z).xyz) + tr;
		uint touching = triangles_touch(a0, a1, a2, b0, b1, b2, touch, err);
		if (touching == TOUCH_HIT)
			stop = hit(p, tri_a.w, tri_b.w);
		else if (touching == TOUCH_UNDECIDED)
			atomicOr(state[p].y, VKCOL_PAIR_UNDECIDED);
	}
}

// Both leaves: the culls (A's triangles against B's leaf box, B's against
// A's, then each remaining pair's triangle boxes and the two triangles'
// planes, the first two axes of the separating axis test, which
// triangles_intersect then leaves out) collect the surviving triangle pairs
// as bits of a mask, one per window of 4 of A's triangles and batch of 8 of
// B's; with cull_only each mask goes to the candidate region for
// exact_triangles (exact_leaves.comp's variant 0), else the remaining axes
// run here (test_candidates; exact_dive.comp), and the function returns
// true when the pair's search should stop (a hit, unless listing). Either
// way what survives all axes and is no sure crossing is confirmed at the
// next level (exact_confirm).
// The loops end through their conditions, not early returns: see
// exact_setup.comp for the lavapipe miscompile this avoids inside loops.
// Masks first and tests after: a SIMD driver such as lavapipe runs a
// branch's code whether any lane takes it or not, so a triangle test
// inside the cull loops would cost every triangle pair of every lane. A's
// triangles are held in variables for the window (loops of constant
// length, unrolled, index them by constants, so they stay out of memory).
bool test_leaves(uint p, vkcol_gpu_node na, vkcol_gpu_node nb, mat3 r, mat3 abs_r, vec3 t, float tol, bool cull_only)
{
	vec3 cb = r * centre(nb) + t, eb = abs_r * extent(nb) + vec3(tol);
	vec3 la = node_min(na) - vec3(tol), ha = node_max(na) + vec3(tol);
	bool stop = false;
	for (uint wa = 0u; wa < na.count && !stop; wa += 4u) {
		uint na_w = min(na.count - wa, 4u);
		// A's triangles of the window, kept (constant indices after
		// unrolling: registers, not memory).
		vec3 A0[4], A1[4], A2[4], NA[4], LO[4], HI[4];
		float LNA[4];
		uint mask = 0u;
		for (uint k = 0u; k < 4u; k++) {
			uvec4 tri = triangle_at(na.first + wa + min(k, na_w - 1u));
			vec3 a0 = vertex_at(tri.x).xyz, a1 = vertex_at(tri.y).xyz, a2 = vertex_at(tri.z).xyz;
			vec3 lo = min(a0, min(a1, a2)), hi = max(a0, max(a1, a2));
			vec3 ea0 = a1 - a0, ea1 = a2 - a1;
			A0[k] = a0; A1[k] = a1; A2[k] = a2; LO[k] = lo; HI[k] = hi;
			NA[k] = cross(ea0, ea1);
			LNA[k] = dot(ea0, ea0) * dot(ea1, ea1);
			if (k < na_w && all(lessThanEqual(max(lo - cb, cb - hi), eb)))
				mask |= 1u << k;
		}
		for (uint jb = 0u; jb < nb.count && mask != 0u && !stop; jb += 8u) {
			uint nb_b = min(nb.count - jb, 8u);
			// Bit j * 4 + k: B's triangle jb + j and A's k may meet.
			uint candidates = 0u;
			for (uint j = 0u; j < nb_b; j++) {
				uvec4 tri_b = triangle_at(nb.first + jb + j);
				vec3 b0 = r * vertex_at(tri_b.x).xyz + t;
				vec3 b1 = r * vertex_at(tri_b.y).xyz + t;
				vec3 b2 = r * vertex_at(tri_b.z).xyz + t;
				vec3 lb = min(b0, min(b1, b2)) - vec3(tol), hb = max(b0, max(b1, b2)) + vec3(tol);
				bool near = !(any(greaterThan(lb, ha)) || any(lessThan(hb, la)));
				vec3 eb0 = b1 - b0, eb1 = b2 - b1;
				// B's triangle's normal (not the node nb).
				vec3 normal_b = cross(eb0, eb1);
				float len_b = dot(eb0, eb0) * dot(eb1, eb1);
				for (uint k = 0u; k < 4u; k++) {
					if (near && (mask & (1u << k)) != 0u && !(any(greaterThan(lb, HI[k])) || any(lessThan(hb, LO[k]))) &&
					    !separates(NA[k], LNA[k], A0[k], A1[k], A2[k], b0, b1, b2, tol) &&
					    !separates(normal_b, len_b, A0[k], A1[k], A2[k], b0, b1, b2, tol))
						candidates |= 1u << (j * 4u + k);
				}
			}
			if (cull_only) {
				if (candidates != 0u)
					put_entry(REGION_CAND, p, na.first + wa, nb.first + jb, candidates);
			} else {
				stop = test_candidates(p, na.first + wa, nb.first + jb, candidates, r, t, tol);
			}
		}
	}
	return stop;
}

// nodes_meet for the node that stays (centre cs, half extents es, slab ss)
// and a child of the other (cc, ec, sc); the child is B's when split_b. One
// call with its arguments selected, not a ?: of two calls: a SIMD driver
// such as lavapipe runs both.
bool child_meets(bool split_b, vec3 cs, vec3 es, vec4 ss, vec3 cc, vec3 ec, vec4 sc, mat3 r, mat3 abs_r, vec3 t,
                 float tol)
{
	return nodes_meet(split_b ? cs : cc, split_b ? es : ec, split_b ? ss : sc, split_b ? cc : cs, split_b ? ec : es,
	                  split_b ? sc : ss, r, abs_r, t, tol);
}

// Splits the larger node of an overlapping pair (by box diagonal), or the one
// that is not a leaf, and keeps the children that may meet the other node
// (nodes_meet: boxes and slabs). Item 0 is the child whose centre lies
// nearer the node that stays (both in A's frame): the depth-first walks
// (exact_dive.comp, the probe) pop it first, since a colliding pair's hit
// is likelier there. leaf0, leaf1: item k pairs two leaves.
// Branch free: a SIMD driver such as lavapipe runs both sides of a branch
// with the lanes masked off, which would double the box tests.
void split(uvec2 top, vkcol_gpu_node na, vkcol_gpu_node nb, mat3 r, mat3 abs_r, vec3 t, float tol,
           out uvec2 item0, out uvec2 item1, out bool keep0, out bool keep1, out bool leaf0, out bool leaf1)
{
	vec3 ea = extent(na), eb = extent(nb);
	bool split_b = na.count > 0u || (nb.count == 0u && dot(eb, eb) > dot(ea, ea));
	uint first = split_b ? nb.first : na.first;
	vkcol_gpu_node c0 = node_at(first), c1 = node_at(first + 1u);
	// The node that stays, and the two children, as the A or B side.
	vec3 cs = split_b ? centre(na) : centre(nb), es = split_b ? ea : eb;
	vec3 cc0 = centre(c0), ec0 = extent(c0), cc1 = centre(c1), ec1 = extent(c1);
	vec4 ss = slab_at(split_b ? top.x : top.y), s0 = slab_at(first), s1 = slab_at(first + 1u);
	bool meets0 = child_meets(split_b, cs, es, ss, cc0, ec0, s0, r, abs_r, t, tol);
	bool meets1 = child_meets(split_b, cs, es, ss, cc1, ec1, s1, r, abs_r, t, tol);
#if VKCOL_OBB
	node_obb os = obb_at(split_b ? top.x : top.y), o0 = obb_at(first), o1 = obb_at(first + 1u);
	meets0 = meets0 && obbs_meet(split_b ? os : o0, split_b ? o0 : os, r, t, tol);
	meets1 = meets1 && obbs_meet(split_b ? os : o1, split_b ? o1 : os, r, t, tol);
#endif
	bool other_leaf = (split_b ? na.count : nb.count) > 0u;
	// Is child 1's centre nearer the node that stays (both in A's frame)?
	vec3 at = split_b ? cs : r * cs + t;
	vec3 x0 = split_b ? r * cc0 + t : cc0, x1 = split_b ? r * cc1 + t : cc1;
	bool swap = distance(x1, at) < distance(x0, at);
	uint near_child = swap ? first + 1u : first, far_child = swap ? first : first + 1u;
	keep0 = swap ? meets1 : meets0;
	keep1 = swap ? meets0 : meets1;
	leaf0 = other_leaf && (swap ? c1.count : c0.count) > 0u;
	leaf1 = other_leaf && (swap ? c0.count : c1.count) > 0u;
	item0 = split_b ? uvec2(top.x, near_child) : uvec2(near_child, top.y);
	item1 = split_b ? uvec2(top.x, far_child) : uvec2(far_child, top.y);
}

// Appends the kept items of pair p (bit k of keep: item k; up to four) to
// the next level's frontier: those pairing two leaves (bit k of leaves) to
// the leaf region, the others to the breadth-first region, or, once the
// pair has spawned VKCOL_DIVE_AFTER items that way (a wide overlap region,
// as a colliding pair has), to the depth-first one. No local array:
// lavapipe keeps a dynamically indexed one in memory, per invocation. One
// store in a loop over the kept items, not one per possible item: lavapipe
// runs a branch's code whether any lane takes it or not.
void emit(uint p, uint keep, uint leaves, uvec2 item0, uvec2 item1, uvec2 item2, uvec2 item3)
{
	uint inner = keep & ~leaves, leaf = keep & leaves;
	uint leaf_end = 0u, inner_end = 0u, leaf_slot = 0u, inner_slot = 0u;
	if (leaf != 0u)
		leaf_slot = frontier_reserve(p, REGION_LEAF, uint(bitCount(leaf)), leaf_end);
	if (inner != 0u) {
		uint n = uint(bitCount(inner));
		bool dive = params.budget > 1u &&
		            atomicAdd(state[p].y, n << VKCOL_PAIR_ITEMS_SHIFT) >> VKCOL_PAIR_ITEMS_SHIFT >= VKCOL_DIVE_AFTER;
		inner_slot = frontier_reserve(p, dive ? REGION_DIVE : REGION_BREADTH, n, inner_end);
	}
	while (keep != 0u) {
		uint k = uint(findLSB(keep));
		keep &= keep - 1u;
		bool is_leaf = ((leaves >> k) & 1u) != 0u;
		uvec2 item = k == 0u ? item0 : k == 1u ? item1 : k == 2u ? item2 : item3;
		uint slot = is_leaf ? leaf_slot : inner_slot;
		if (slot < (is_leaf ? leaf_end : inner_end))
			frontier_put(slot, uvec4(p, item, 0u));
		leaf_slot += is_leaf ? 1u : 0u;
		inner_slot += is_leaf ? 0u : 1u;
	}
}

#endif
