// SPDX-License-Identifier: MIT
// Exact mode, the first three passes. Setup, one invocation per pair: stores
// the pair's frame (B in A) for the later passes; stage 0 (bounding spheres
// and carried AABBs) and the inner-ball accept decide what they can, and
// lists the other pairs. Search, one invocation per listed pair: the
// witness early accept (a solid), or the probe (two open meshes: straddle,
// probe_from; with the early accepts off, straddle alone, which only
// orders the traversal); every other pair seeds the traversal frontier with
// its two roots (in the depth-first region when no early accept was tried).
//
// Witness early accept (A closed, its origin inside): a point of B that lies
// inside solid A makes the pair collide, when B is closed (the solids
// share a point) or when B is open and the point is a vertex of a
// connected piece of B with a vertex outside A: that piece's surface then
// runs from inside A to outside, so it crosses A's surface (an open B
// wholly inside A does not collide: only surfaces count for an open mesh).
// The outside vertex is one of the piece's six extreme vertices lying
// beyond A's AABB by more than the tolerance. (Real open assets are often
// many pieces: a body and its eyes, buttons, straps.)
// The candidate depends on A's shape:
// - A star-shaped about its origin (its cube map saw one surface on every
//   ray): B's origin (B closed only: an open mesh's origin is not on it)
//   or a vertex of B's four clusters nearest A's origin, carried into A's
//   frame, whose distance to A's origin is at most A's inner map distance
//   (channel R: the first surface hit along the ray from the origin). (The
//   "vertex inside the distance" test of Intel's US 7,928,993.)
// - Any other A: the vertex of B's clusters nearest the centre of A's
//   inner ball that comes nearest one of B's (where the solids come
//   closest); it needs no confirmation when it lies within that ball.
// The same the other way round. When neither direction's candidate holds
// and both meshes are solids of more than WITNESS_SCAN_CLUSTERS clusters,
// a third pass (the walk pass) tries more each way for the pairs whose
// nearest balls lie close (tangent_candidate: walks towards where grazing
// surfaces cross, from the nearest and the next nearest pair of inner
// balls), each confirmed from the inner ball nearest it.
// A candidate is only a guess (the map is
// sampled and filtered; the nearest vertex may lie outside), so it is
// confirmed exactly: the segment from A's origin or ball centre (inside A,
// checked in double on the host) to the candidate meets no triangle of A,
// not even within the tolerance, so the candidate is on that point's side
// of the surface: inside. One confirmation per candidate (at most three
// per direction) bounds the cost of a pair that has none.
#version 450
#include "shared.h"
#include "common.glsl"
#include "pair_common.glsl"

layout(local_size_x_id = 0) in;
#include "exact_common.glsl"
#include "map_sample.glsl"

vkcol_gpu_node tree_node(uint i)
{
	return node_at(i);
}

#include "tree_walk.glsl"
#include "exact_traverse.glsl"

// Candidates are not kept a margin below the sampled inner distance: a
// margin refused more witnesses than it saved confirmations, and a colliding
// pair without a witness costs a traversal, far more than a witness search
// (docs/performance-notes.md).

// Does the segment from o to v stay clear of every triangle of mesh m (by
// more than tol)? Conservative: anything it cannot rule out counts as a
// crossing. The walk (tree_walk.glsl) meets the boxes widened by tol, with
// the segment's parameter in [0, 1] and a slack of 1e-6 of the segment.
bool segment_clear(vkcol_gpu_mesh m, vec3 o, vec3 v, float tol)
{
	vec3 d = v - o;
	vec3 safe = mix(vec3(1e-30), d, greaterThan(abs(d), vec3(1e-30)));
	tree_ray ray = tree_ray_of(o, 1.0 / safe, 1.0, tol, 1e-6);
	bool clear = true;
	tree_walk_start(m.node_first);
	while (tree_walk_more() && clear) {
		uvec2 leaf = tree_walk_step(ray, false);
		for (uint k = leaf.x; k < leaf.x + leaf.y && clear; k++) {
			uvec4 tri = triangle_at(k);
			vec3 v0 = vertex_at(tri.x).xyz, v1 = vertex_at(tri.y).xyz, v2 = vertex_at(tri.z).xyz;
			vec3 nrm = cross(v1 - v0, v2 - v0);
			float slack = tol * length(nrm);
			float s0 = dot(nrm, o - v0), s1 = dot(nrm, v - v0);
			if ((s0 > slack && s1 > slack) || (s0 < -slack && s1 < -slack))
				continue; // both ends clearly on one side of the plane
			// The line o + s d passes through the triangle iff the three
			// signed volumes it spans with the edges agree in sign; a clear
			// disagreement rules the triangle out.
			vec3 p0 = v0 - o, p1 = v1 - o, p2 = v2 - o;
			float w0 = dot(d, cross(p0, p1)), w1 = dot(d, cross(p1, p2)), w2 = dot(d, cross(p2, p0));
			float scale = 1e-4 * length(d) * (dot(p0, p0) + dot(p1, p1) + dot(p2, p2));
			bool pos = w0 > scale || w1 > scale || w2 > scale;
			bool neg = w0 < -scale || w1 < -scale || w2 < -scale;
			clear = pos && neg;
		}
	}
	return clear;
}

// Inner ball i of closed mesh m (0: the origin's), in m's frame.
vec4 ball_of(vkcol_gpu_mesh m, uint i)
{
	return i == 0u ? vec4(m.origin_x, m.origin_y, m.origin_z, m.inner_radius)
	               : cluster_at(m.cone_first + VKCOL_CONE_TEXELS + i - 1u);
}

// Do the inner balls of closed meshes a and b overlap (then the solids share
// a point)? The origin's ball (index 0) and the mesh's ball_count more, each
// inside its solid (src/geometry/mesh_cpu.c, find_inner_balls). Returns the
// overlap of the first overlapping pair found (ra + rb - distance, a lower
// bound of the depth), or -1.
float inner_balls_overlap(vkcol_gpu_mesh a, vkcol_gpu_mesh b, pair_frames f)
{
	float depth = -1.0;
	uint na = a.inner_radius > 0.0 && b.inner_radius > 0.0 ? a.ball_count + 1u : 0u;
	for (uint j = 0u; j <= b.ball_count && na > 0u && depth < 0.0; j++) {
		vec4 sb = ball_of(b, j);
		vec3 cb = f.r_ba * sb.xyz + f.t_ba;
		for (uint i = 0u; i < na && depth < 0.0; i++) {
			vec4 sa = ball_of(a, i);
			float apart = distance(cb, sa.xyz);
			depth = apart <= sa.w + sb.w ? sa.w + sb.w - apart : -1.0;
		}
	}
	return depth;
}

// Meshes of at most this many clusters are scanned for the clusters nearest
// the other mesh's origin; larger ones are descended (near_leaf_clusters).
// The scan finds a few more witnesses than the descent, but its cost grows
// with the clusters, the descent's only with the tree's depth.
const uint WITNESS_SCAN_CLUSTERS = 256u;

// Two open meshes of at least this many vertices each go depth first when
// no early accept was tried (search_pass).
const uint LARGE_SURFACE_VERTICES = 16384u;

// Four clusters of `from` near o, to's origin in from's frame: the descent
// from from's root into the child whose box is nearer o (the nearer centre
// when o is in both) ends at a leaf near o, whose first triangle's last
// vertex lies in cluster c (the vertices are in k-d order, so neighbouring
// clusters are mostly neighbours in space): c, c + 1, c - 1,
// c + 2, the window shifted inwards at the ends of the cluster range; a mesh
// of fewer than four clusters gets them all, 0xffffffff past the last.
// `steps` bounds the descent (0: none); `node`: where it stopped.
uvec4 near_leaf_clusters(vkcol_gpu_mesh from, vec3 o, uint steps, out uint node)
{
	node = from.node_first;
	vkcol_gpu_node n = node_at(node);
	for (uint depth = 0u; n.count == 0u && depth < steps; depth++) {
		vkcol_gpu_node n0 = node_at(n.first), n1 = node_at(n.first + 1u);
		vec3 g0 = max(max(node_min(n0) - o, o - node_max(n0)), vec3(0.0));
		vec3 g1 = max(max(node_min(n1) - o, o - node_max(n1)), vec3(0.0));
		vec3 c0 = 0.5 * (node_min(n0) + node_max(n0)) - o, c1 = 0.5 * (node_min(n1) + node_max(n1)) - o;
		float d0 = dot(g0, g0), d1 = dot(g1, g1);
		bool second = d1 < d0 || (d1 == d0 && dot(c1, c1) < dot(c0, c0));
		node = second ? n.first + 1u : n.first;
		n = second ? n1 : n0;
	}
	// An inner node's `first` is a node index, not a triangle: only a leaf
	// names a cluster (the descent stopped early: the first cluster).
	uvec4 tri = n.count > 0u ? triangle_at(n.first) : uvec4(from.vertex_first);
	uint c = (max(tri.x, max(tri.y, tri.z)) - from.vertex_first) / VKCOL_CLUSTER_SIZE;
	uint count = from.cluster_count;
	c = clamp(c, 1u, max(count, 4u) - 3u);
	uvec4 near = count < 4u ? uvec4(0u, 1u, 2u, 3u) : uvec4(c, c + 1u, c - 1u, c + 2u);
	return mix(near, uvec4(0xffffffffu), greaterThanEqual(near, uvec4(count)));
}

// Keeps c among the four least keys, sorted (best_key.x the least).
void keep_four(inout vec4 best_key, inout uvec4 best, float key, uint c)
{
	if (key < best_key.z) {
		best_key.w = best_key.z;
		best.w = best.z;
		if (key < best_key.y) {
			best_key.z = best_key.y;
			best.z = best.y;
			if (key < best_key.x) {
				best_key.y = best_key.x;
				best.y = best.x;
				best_key.x = key;
				best.x = c;
			} else {
				best_key.y = key;
				best.y = c;
			}
		} else {
			best_key.z = key;
			best.z = c;
		}
	} else {
		best_key.w = key;
		best.w = c;
	}
}

// Four clusters of `from` (placed in `to`'s frame by x -> r x + t) near o
// (in to's frame). A mesh of at most WITNESS_SCAN_CLUSTERS clusters is
// scanned: the clusters that meet to's AABB, nearest o first (one pass keeps
// the nearest four, sorted; 0xffffffff past the last); with `by_surface`,
// nearest to's sampled surface instead (o is then to's origin): the least
// distance from the cluster's centre to R or G along its ray from o, less
// its radius. A larger mesh is descended (near_leaf_clusters, nearest o).
// Each loop runs no step for the other case.
uvec4 nearest_clusters(vkcol_gpu_mesh from, vkcol_gpu_mesh to, mat3 r, vec3 t, vec3 o, bool by_surface)
{
	bool scan = from.cluster_count <= WITNESS_SCAN_CLUSTERS;
	vec3 lo = box_min(to), hi = box_max(to);
	vec4 best_key = vec4(3.4e38);
	uvec4 best = uvec4(0xffffffffu);
	for (uint c = 0u; c < (scan && !by_surface ? from.cluster_count : 0u); c++) {
		vec4 cs = cluster_at(from.cluster_first + c);
		vec3 cc = r * cs.xyz + t;
		vec3 gap = max(max(lo - cc, cc - hi), vec3(0.0));
		vec3 off = cc - o;
		float d2 = dot(off, off);
		if (dot(gap, gap) > cs.w * cs.w || d2 >= best_key.w)
			continue;
		keep_four(best_key, best, d2, c);
	}
	for (uint c = 0u; c < (scan && by_surface ? from.cluster_count : 0u); c++) {
		vec4 cs = cluster_at(from.cluster_first + c);
		vec3 cc = r * cs.xyz + t;
		vec3 gap = max(max(lo - cc, cc - hi), vec3(0.0));
		vec3 off = cc - o;
		float len = length(off);
		vec2 rg = len > 0.0 ? map_sample(to.map_array, off, float(to.map_layer), 0.0) : vec2(0.0);
		float key = rg.x >= 0.0 ? min(abs(len - rg.x), abs(len - rg.y)) - cs.w : 3.0e38;
		if (dot(gap, gap) > cs.w * cs.w || key >= best_key.w)
			continue;
		keep_four(best_key, best, key, c);
	}
	uint leaf;
	uvec4 descended = near_leaf_clusters(from, transpose(r) * (o - t), scan ? 0u : VKCOL_TREE_MAX_DEPTH, leaf);
	return scan ? best : descended;
}

// Does connected piece `piece` of open mesh `from` (placed in `to`'s frame
// by x -> r x + t) reach outside solid `to`? True when one of its extreme
// vertices lies beyond to's AABB by more than tol.
bool piece_leaves(vkcol_gpu_mesh from, uint piece, vkcol_gpu_mesh to, mat3 r, vec3 t, float tol)
{
	vec3 lo = box_min(to) - vec3(tol), hi = box_max(to) + vec3(tol);
	bool out_ = false;
	for (uint k = 0u; k < VKCOL_PIECE_VERTICES; k++) {
		vec3 x = r * vertex_at(pieces[from.piece_first + VKCOL_PIECE_VERTICES * piece + k]).xyz + t;
		out_ = out_ || any(lessThan(x, lo)) || any(greaterThan(x, hi));
	}
	return out_;
}

// The inner balls of closed meshes a and b (i of a, j of b, as
// inner_balls_overlap numbers them) that come nearest to meeting (xy), and
// the pair that comes next (zw; xy again when there is none): where the
// two solids are likely nearest each other. Only the ball witnesses need
// them (find_candidate's, from xy; the walk pass's, from xy, then zw):
// (0, 0, 0, 0) when both meshes are star-shaped.
uvec4 nearest_balls(vkcol_gpu_mesh a, vkcol_gpu_mesh b, pair_frames f)
{
	float best = 3.4e38, second = 3.4e38;
	uvec4 pick = uvec4(0u);
	bool needed = ((a.flags & b.flags) & VKCOL_MESH_STAR_SHAPED) == 0u;
	for (uint j = 0u; j <= (needed ? b.ball_count : 0u); j++) {
		vec4 sb = ball_of(b, j);
		vec3 cb = f.r_ba * sb.xyz + f.t_ba;
		for (uint i = 0u; i <= (needed ? a.ball_count : 0u); i++) {
			vec4 sa = ball_of(a, i);
			float apart = distance(cb, sa.xyz) - sa.w - sb.w;
			bool first = apart < best, next = !first && apart < second;
			pick.zw = first ? pick.xy : next ? uvec2(i, j) : pick.zw;
			second = first ? best : next ? apart : second;
			pick.xy = first ? uvec2(i, j) : pick.xy;
			best = min(best, apart);
		}
	}
	return pick;
}

// Vertex k of the four clusters `near` of mesh m (k / VKCOL_CLUSTER_SIZE
// picks the cluster), as a vertex pool index; a short last cluster of the
// mesh repeats its last vertex.
uint cluster_vertex(vkcol_gpu_mesh m, uvec4 near, uint k)
{
	uint c = near[k / VKCOL_CLUSTER_SIZE];
	return m.vertex_first + min(c * VKCOL_CLUSTER_SIZE + k % VKCOL_CLUSTER_SIZE, m.vertex_count - 1u);
}

// The candidate for a witness of `from` (carried into to's frame by
// x -> r x + t) inside `to`, and the point o inside `to` to confirm it
// from. Returns whether there is one: v, its depth below to's surface as
// far as known (>= 0), whether it needs no confirmation (`inside`), and
// the vertex's pool index (`vertex`; from's origin: 0xffffffff).
// - A star-shaped `to` (VKCOL_MESH_STAR_SHAPED): o is to's origin; the
//   candidate is the first of from's origin (when from is closed: `solid`)
//   and the vertices of the four clusters of nearest_clusters whose
//   distance to o is at most to's inner map distance; depth: the inner
//   distance minus v's; inside when v is to's origin itself.
// - Any other: o is the centre of to's inner ball `ball` (nearest_balls);
//   the candidate is the vertex of those clusters nearest o, inside when
//   within the ball; depth: how far within. The map's inner distance only
//   covers the part of a solid its origin sees: on a torus, colliding poses
//   whose surfaces cross away from there found no candidate. The nearest
//   balls mark where the two solids come closest, and a vertex of one that
//   dips into the other there is the one nearest the ball's centre. On
//   star-shaped meshes (the spiky star) the map's candidates win
//   (docs/performance-notes.md).
// Each case's loop runs no step for the other: a SIMD driver such as
// lavapipe runs a branch's code whether any lane takes it or not.
bool find_candidate(vkcol_gpu_mesh from, vkcol_gpu_mesh to, mat3 r, vec3 t, bool solid, uint ball, out vec3 o,
                    out vec3 v, out float depth, out bool inside, out uint vertex)
{
	bool star = (to.flags & VKCOL_MESH_STAR_SHAPED) != 0u;
	vec4 s = ball_of(to, star ? 0u : ball);
	o = s.xyz;
	uvec4 near = nearest_clusters(from, to, r, t, o, false);
	uint clusters = uint(dot(vec4(notEqual(near, uvec4(0xffffffffu))), vec4(1.0)));
	bool found = false;
	v = o;
	depth = 0.0;
	inside = false;
	vertex = 0xffffffffu;
	// Star-shaped: candidate 0 is from's origin; k > 0: cluster_vertex
	// k - 1. One sample and no confirmation
	// in the loop: a SIMD driver such as lavapipe runs a loop's code for
	// every iteration any lane needs.
	uint total = star ? 1u + VKCOL_CLUSTER_SIZE * clusters : 0u;
	for (uint k = solid ? 0u : 1u; k < total && !found; k++) {
		uint index = cluster_vertex(from, near, max(k, 1u) - 1u);
		vec3 x = k == 0u ? vec3(from.origin_x, from.origin_y, from.origin_z) : vertex_at(index).xyz;
		vec3 point = r * x + t;
		vec3 d = point - o;
		float dist = length(d);
		vec2 rg = dist == 0.0 ? vec2(to.inner_radius) : map_sample(to.map_array, d, float(to.map_layer), 0.0);
		if (in_box(to, point) && dist <= rg.r) {
			found = true;
			v = point;
			depth = rg.r - dist;
			inside = dist == 0.0;
			vertex = k == 0u ? 0xffffffffu : index;
		}
	}
	// Any other: the nearest vertex.
	float best = 3.4e38;
	for (uint k = 0u; k < (star ? 0u : VKCOL_CLUSTER_SIZE * clusters); k++) {
		uint index = cluster_vertex(from, near, k);
		vec3 x = r * vertex_at(index).xyz + t;
		float d2 = dot(x - o, x - o);
		vertex = d2 < best ? index : vertex;
		v = d2 < best ? x : v;
		best = min(best, d2);
	}
	if (!star) {
		float dist = sqrt(best);
		found = best < 3.4e38 && in_box(to, v);
		depth = max(s.w - dist, 0.0);
		inside = dist < s.w;
	}
	return found;
}

// The inner ball of closed mesh m (as ball_of) whose surface lies nearest
// x, in m's frame: the one least |x - centre| - radius.
vec4 nearest_ball(vkcol_gpu_mesh m, vec3 x)
{
	vec4 best = ball_of(m, 0u);
	for (uint i = 1u; i <= m.ball_count; i++) {
		vec4 s = ball_of(m, i);
		best = distance(x, s.xyz) - s.w < distance(x, best.xyz) - best.w ? s : best;
	}
	return best;
}

// Steps of tangent_candidate's walk.
const uint TANGENT_STEPS = 3u;

// A walk starts from a pair of inner balls only if the gap between them is
// under this fraction of their radii's sum: where the balls lie farther
// apart, the surfaces around them seldom graze. In a CPU model of the 250k
// tori, 0.3 kept every colliding near-contact pair the first candidate left,
// and a minority of the non-colliding ones (docs/performance-notes.md).
const float WALK_REACH = 0.3;

// Do inner balls sa of A and sb of B (ball_of, each in its mesh's frame)
// lie close enough for a walk?
bool balls_close(vec4 sa, vec4 sb, pair_frames f)
{
	return distance(f.r_ba * sb.xyz + f.t_ba, sa.xyz) - sa.w - sb.w < WALK_REACH * (sa.w + sb.w);
}

// Do the walks apply to meshes a and b? Both solids (closed, origin
// inside) of more than WITNESS_SCAN_CLUSTERS clusters, one not
// star-shaped.
bool walks_apply(vkcol_gpu_mesh a, vkcol_gpu_mesh b)
{
	return min(a.cluster_count, b.cluster_count) > WITNESS_SCAN_CLUSTERS && a.inner_radius > 0.0 &&
	       b.inner_radius > 0.0 && ((a.flags & b.flags) & VKCOL_MESH_STAR_SHAPED) == 0u;
}

// A second candidate for a witness of `from` (carried into to's frame by
// x -> r x + t) inside `to`, for large meshes that are not star-shaped,
// where surfaces that graze each other leave find_candidate's guess (the
// vertex nearest a ball's centre) outside, though most such pairs have
// vertices inside where the surfaces cross. A walk from `start` (in to's frame): to's vertex a nearest
// the current point (a descent of to's tree, as near_leaf_clusters, and a
// scan of its four clusters), the normal n there (the slab of the leaf the
// descent ended in, turned away from to's inner ball nearest a), then the
// vertex of from's four clusters nearest a that lies deepest below the
// plane through a normal to n; that vertex is the next point. Where the
// surfaces cross, the vertices below the plane are the ones inside, and
// each step moves the plane's point towards the deepest of them
// (docs/performance-notes.md has how often each step count finds one).
// Returns whether the last vertex, v, lies below its plane (by `below`,
// in n's units of length) within to's box.
bool tangent_candidate(vkcol_gpu_mesh from, vkcol_gpu_mesh to, mat3 r, vec3 t, vec3 start, out vec3 v,
                       out float below)
{
	v = start;
	float low = 3.4e38, scale = 1.0;
	for (uint step = 0u; step < TANGENT_STEPS; step++) {
		uint leaf;
		uvec4 near = near_leaf_clusters(to, v, VKCOL_TREE_MAX_DEPTH, leaf);
		vec3 a = v;
		float best = 3.4e38;
		for (uint k = 0u; k < 4u * VKCOL_CLUSTER_SIZE; k++) {
			vec3 x = vertex_at(cluster_vertex(to, near, k)).xyz;
			float d2 = dot(x - v, x - v);
			a = d2 < best ? x : a;
			best = min(best, d2);
		}
		vec3 n = slab_normal(slab_at(leaf));
		n = dot(n, a - nearest_ball(to, a).xyz) < 0.0 ? -n : n;
		scale = length(n);
		near = near_leaf_clusters(from, transpose(r) * (a - t), VKCOL_TREE_MAX_DEPTH, leaf);
		low = 3.4e38;
		for (uint k = 0u; k < 4u * VKCOL_CLUSTER_SIZE; k++) {
			vec3 x = r * vertex_at(cluster_vertex(from, near, k)).xyz + t;
			float s = dot(x - a, n);
			v = s < low ? x : v;
			low = min(low, s);
		}
	}
	below = -low / max(scale, 1e-30);
	return low < 0.0 && in_box(to, v);
}

// Does straddle (below) take from's clusters nearest to's sampled
// surface?
bool surface_probe(vkcol_gpu_mesh from, vkcol_gpu_mesh to)
{
	return to.vertex_count >= LARGE_SURFACE_VERTICES && (to.flags & VKCOL_MESH_FEW_HITS) != 0u &&
	       from.cluster_count <= WITNESS_SCAN_CLUSTERS && (params.flags & VKCOL_EXACT_ORIGIN_PROBE) == 0u;
}

// Two open meshes have no solid to hold a witness. Their probe (early
// accept on): a cluster of `from` whose vertices lie on both sides of
// `to`'s nearest surface along their rays (as approx mode samples a
// crossing) marks where the surfaces likely cross; a few depth-first steps
// from the nodes of both trees around that place look for an edge that
// surely pierces a triangle (triangles_cross, the traversal's own sure
// hit). It runs only when to is large (LARGE_SURFACE_VERTICES: a
// colliding pair the probe misses then costs a deep traversal) and its
// rays mostly meet its surface once (VKCOL_MESH_FEW_HITS; setup_pass):
// from is scanned for its four clusters nearest to's sampled surface (R
// or G), and a cluster across its farthest surface (G) counts too. The
// crossings of random poses lie anywhere on the surfaces, seldom near the
// origin. (Where rays meet several surfaces, as the spider's legs behind
// its body, R and G miss most of the surface; on small pairs the scan's
// samples cost more than a traversal they spare.) A test knob,
// VKCOL_EXACT_ORIGIN_PROBE, probes any two open meshes, from from's four
// clusters nearest to's origin (nearest_clusters). Returns whether a
// cluster straddles: p, the point of to's surface on the ray of its
// vertex in front of it (to's frame); v, that vertex (from's frame);
// size, the cluster's radius.
bool straddle(vkcol_gpu_mesh from, vkcol_gpu_mesh to, mat3 r, vec3 t, out vec3 p, out vec3 v, out float size)
{
	vec3 o = vec3(to.origin_x, to.origin_y, to.origin_z);
	bool surface = surface_probe(from, to);
	uvec4 near = nearest_clusters(from, to, r, t, o, surface);
	uint clusters = uint(dot(vec4(notEqual(near, uvec4(0xffffffffu))), vec4(1.0)));
	bool found = false;
	p = o;
	v = vec3(0.0);
	size = 0.0;
	// Across R: a vertex of the cluster in front of it and one behind it
	// (the first in front gives p and v). Each loop runs no step for the
	// other case. Two loops, not one with G gated: lavapipe runs the G
	// bookkeeping whether it counts or not, and one loop measured the small
	// open pairs (troughs, the spider) 3-5 % slower (performance-notes).
	uint samples = VKCOL_CLUSTER_SIZE * clusters;
	bool below = false, above = false;
	for (uint k = 0u; k < (surface ? 0u : samples) && !found; k++) {
		if (k % VKCOL_CLUSTER_SIZE == 0u)
			below = above = false;
		vec3 x = vertex_at(cluster_vertex(from, near, k)).xyz, d = r * x + t - o;
		float dist = length(d);
		float nearest = dist > 0.0 ? map_sample(to.map_array, d, float(to.map_layer), 0.0).r : 0.0;
		// A negative sample blends in a ray that misses `to` (shared.h's
		// VKCOL_MAP_MISS): no surface for the vertex to be on either side of.
		bool in_front = dist < nearest, behind = nearest >= 0.0 && !in_front;
		p = in_front && !below ? o + d * (nearest / dist) : p;
		v = in_front && !below ? x : v;
		below = below || in_front;
		above = above || behind;
		found = below && above;
		size = found ? cluster_at(from.cluster_first + near[k / VKCOL_CLUSTER_SIZE]).w : size;
	}
	// Across R or G (x: R, y: G).
	bvec2 below2 = bvec2(false), above2 = bvec2(false);
	vec3 pr = o, pg = o, vr = vec3(0.0), vg = vec3(0.0);
	for (uint k = 0u; k < (surface ? samples : 0u) && !found; k++) {
		if (k % VKCOL_CLUSTER_SIZE == 0u)
			below2 = above2 = bvec2(false);
		vec3 x = vertex_at(cluster_vertex(from, near, k)).xyz, d = r * x + t - o;
		float dist = length(d);
		vec2 rg = dist > 0.0 ? map_sample(to.map_array, d, float(to.map_layer), 0.0) : vec2(0.0);
		bvec2 in_front = lessThan(vec2(dist), rg);
		bvec2 behind = bvec2(rg.x >= 0.0 && !in_front.x, rg.y >= 0.0 && !in_front.y);
		pr = in_front.x && !below2.x ? o + d * (rg.x / dist) : pr;
		vr = in_front.x && !below2.x ? x : vr;
		pg = in_front.y && !below2.y ? o + d * (rg.y / dist) : pg;
		vg = in_front.y && !below2.y ? x : vg;
		below2 = bvec2(below2.x || in_front.x, below2.y || in_front.y);
		above2 = bvec2(above2.x || behind.x, above2.y || behind.y);
		bool across_r = below2.x && above2.x;
		found = across_r || (below2.y && above2.y);
		p = across_r ? pr : pg;
		v = across_r ? vr : vg;
		size = found ? cluster_at(from.cluster_first + near[k / VKCOL_CLUSTER_SIZE]).w : size;
	}
	return found;
}

// The node of mesh m's tree around x (m's frame): from the root into the
// child whose box lies nearer x, until a node's half diagonal is at most
// `size` (or a leaf).
uint node_around(vkcol_gpu_mesh m, vec3 x, float size)
{
	uint node = m.node_first;
	vkcol_gpu_node n = node_at(node);
	for (uint depth = 0u; n.count == 0u && dot(extent(n), extent(n)) > size * size && depth < VKCOL_TREE_MAX_DEPTH;
	     depth++) {
		vkcol_gpu_node n0 = node_at(n.first), n1 = node_at(n.first + 1u);
		vec3 g0 = max(max(node_min(n0) - x, x - node_max(n0)), vec3(0.0));
		vec3 g1 = max(max(node_min(n1) - x, x - node_max(n1)), vec3(0.0));
		bool second = dot(g1, g1) < dot(g0, g0);
		node = second ? n.first + 1u : n.first;
		n = second ? n1 : n0;
	}
	return node;
}

// Depth-first steps of the probe, and the leaf pairs it tests.
const uint PROBE_STEPS = 48u, PROBE_LEAVES = 12u;

// Two open meshes are probed only when their bounding radii lie within this
// factor of each other: the spider at the centre of the engine (1 : 77, an
// assembly of open parts) was accepted on no pose of 4,000, and the probe
// cost it x1.21 (docs/performance-notes.md).
const float PROBE_SIZE_RATIO = 8.0;

// A pair whose straddle test found no crossing goes level by level without
// scouts only when the mesh it sampled from is at most this many times the
// other's bounding radius: a larger mesh's vertices sample the other's
// surface too sparsely to tell (a jeep or a spider against Suzanne: scouts
// measured x0.78-0.95 there; docs/performance-notes.md).
const float STRADDLE_SIZE_RATIO = 2.0;

// The probe from node pair `start` (A's node, B's node): depth-first steps
// as exact_dive.comp takes them, then the leaf pairs met tested for a sure
// crossing. Returns whether it found one.
bool probe_from(uvec2 start, pair_frames f, float tol)
{
	mat3 r = f.r_ba, abs_r = mat3(abs(r[0]), abs(r[1]), abs(r[2]));
	vec3 t = f.t_ba;
	uvec2 stack[PROBE_STEPS + 1u], leaf_pairs[PROBE_LEAVES];
	stack[0] = start;
	uint sp = 1u, found = 0u;
	for (uint step = 0u; step < PROBE_STEPS && sp > 0u && found < PROBE_LEAVES; step++) {
		sp--;
		uvec2 top = stack[sp];
		vkcol_gpu_node na = node_at(top.x), nb = node_at(top.y);
		if (na.count > 0u && nb.count > 0u) {
			leaf_pairs[found] = top;
			found++;
		} else {
			uvec2 item0, item1;
			bool keep0, keep1, leaf0, leaf1;
			split(top, na, nb, r, abs_r, t, tol, item0, item1, keep0, keep1, leaf0, leaf1);
			// Item 0, the child nearer the other node, on top: popped first.
			if (keep1) {
				stack[sp] = item1;
				sp++;
			}
			if (keep0) {
				stack[sp] = item0;
				sp++;
			}
		}
	}
	// The triangle pairs of the leaf pairs whose boxes meet, as a mask per
	// leaf pair (bit j * 4 + i: A's triangle i, B's j), then a sure-crossing
	// test for each: a SIMD group runs that loop as often as its lane with
	// the most such pairs needs.
	bool crossed = false;
	for (uint l = 0u; l < found && !crossed; l++) {
		vkcol_gpu_node na = node_at(leaf_pairs[l].x), nb = node_at(leaf_pairs[l].y);
		uint mask = 0u;
		for (uint k = 0u; k < 16u; k++) {
			uvec4 ta = triangle_at(na.first + min(k % 4u, na.count - 1u));
			uvec4 tb = triangle_at(nb.first + min(k / 4u, nb.count - 1u));
			vec3 a0 = vertex_at(ta.x).xyz, a1 = vertex_at(ta.y).xyz, a2 = vertex_at(ta.z).xyz;
			vec3 b0 = r * vertex_at(tb.x).xyz + t, b1 = r * vertex_at(tb.y).xyz + t, b2 = r * vertex_at(tb.z).xyz + t;
			vec3 gap = max(min(a0, min(a1, a2)) - max(b0, max(b1, b2)), min(b0, min(b1, b2)) - max(a0, max(a1, a2)));
			if (k % 4u < na.count && k / 4u < nb.count && all(lessThanEqual(gap, vec3(tol))))
				mask |= 1u << k;
		}
		while (mask != 0u && !crossed) {
			uint k = uint(findLSB(mask));
			mask &= mask - 1u;
			uvec4 ta = triangle_at(na.first + k % 4u), tb = triangle_at(nb.first + k / 4u);
			crossed = triangles_cross(vertex_at(ta.x).xyz, vertex_at(ta.y).xyz, vertex_at(ta.z).xyz,
			                          r * vertex_at(tb.x).xyz + t, r * vertex_at(tb.y).xyz + t,
			                          r * vertex_at(tb.z).xyz + t, tol);
		}
	}
	return crossed;
}

// 0: the setup pass (one invocation per pair); 1: the search pass (one per
// pair the setup listed); 2: the walk pass (one per pair the search listed).
// Compiled apart (exact_search, exact_walk: shaders/meson.build), so that
// each pass holds only its own code.
const uint VARIANT = VKCOL_VARIANT;

#if VKCOL_FP64
// The rotation of the quaternion w, x, y, z (any nonzero length), in double.
dmat3 quat_to_dmat3(dvec4 q)
{
	double w = q.x, x = q.y, y = q.z, z = q.w, s = 2.0 / dot(q, q);
	return dmat3(1.0 - s * (y * y + z * z), s * (x * y + w * z), s * (x * z - w * y),
	             s * (x * y - w * z), 1.0 - s * (x * x + z * z), s * (y * z + w * x),
	             s * (x * z + w * y), s * (y * z - w * x), 1.0 - s * (x * x + y * y));
}

// B's frame in A's stored one, in double: the caller's poses composed as
// the CPU reference composes them (ref_pair_transform), each mesh's centre
// (mesh_cpu.centre) added back, so that the triangles the double test
// places are the reference's to double rounding. Writes it after the float
// frame (VKCOL_FRAME_DOUBLE) and returns the float frame rounded from it.
pair_frames double_frames(uint p, vkcol_gpu_pair pr, vkcol_gpu_mesh a, vkcol_gpu_mesh b)
{
	dmat3 ra = quat_to_dmat3(dvec4(pr.qa_w, pr.qa_x, pr.qa_y, pr.qa_z));
	dmat3 rb = quat_to_dmat3(dvec4(pr.qb_w, pr.qb_x, pr.qb_y, pr.qb_z));
	dmat3 r = transpose(ra) * rb;
	dvec3 t = transpose(ra) * (dvec3(pr.tb_x, pr.tb_y, pr.tb_z) - dvec3(pr.ta_x, pr.ta_y, pr.ta_z)) +
	          r * dvec3(b.centre_x, b.centre_y, b.centre_z) - dvec3(a.centre_x, a.centre_y, a.centre_z);
	uint f = VKCOL_FRAME_VEC4S * p + VKCOL_FRAME_DOUBLE;
	for (int i = 0; i < 3; i++)
		frames[f + 2u * uint(i)] = uvec4(unpackDouble2x32(r[0][i]), unpackDouble2x32(r[1][i])),
		frames[f + 2u * uint(i) + 1u] = uvec4(unpackDouble2x32(r[2][i]), unpackDouble2x32(t[i]));
	pair_frames out_;
	out_.r_ba = mat3(r);
	out_.t_ba = vec3(t);
	out_.r_ab = transpose(out_.r_ba);
	out_.t_ab = -(out_.r_ab * out_.t_ba);
	return out_;
}
#endif

// Setup pass: the frame, stage 0, the inner balls. A pair they leave
// undecided is listed for the search pass (in the frontier level 0 writes,
// unused until then), with whether a witness search applies: one mesh
// closed and the early accept on. The search runs in a pass of its own so
// that its SIMD groups hold only pairs that search: in one pass, a group
// ran the search, masked, for the pairs stage 0 or the balls had decided.
void setup_pass(uint p)
{
	vkcol_gpu_pair pr = pair_at(p);
	vkcol_gpu_mesh a = mesh_of(pr.mesh_a), b = mesh_of(pr.mesh_b);
#if VKCOL_FP64
	pair_frames f = double_frames(p, pr, a, b);
#else
	pair_frames f = make_frames(pr);
#endif
	float tol = pair_tolerance(a, b, f.t_ba);
	frames[VKCOL_FRAME_VEC4S * p] = floatBitsToUint(vec4(f.r_ba[0], f.t_ba.x));
	frames[VKCOL_FRAME_VEC4S * p + 1u] = floatBitsToUint(vec4(f.r_ba[1], f.t_ba.y));
	frames[VKCOL_FRAME_VEC4S * p + 2u] = floatBitsToUint(vec4(f.r_ba[2], f.t_ba.z));
	frames[VKCOL_FRAME_VEC4S * p + 3u] = floatBitsToUint(vec4(tol, pair_touch_distance(a, b, f.t_ba), 0.0, 0.0));
	state[p] = uvec2(0u, 0u);
	if (!bounds_overlap(a, b, f, tol)) {
		results[p] = vkcol_gpu_result(0u, VKCOL_GPU_STAGE_BOUNDS, 0.0, 0u);
		state[p] = uvec2(0u, VKCOL_PAIR_DECIDED);
		return;
	}
	// Stage 1's accepts (the host clears the flag when every intersecting
	// triangle pair is to be listed: that needs the traversal).
	bool early = (params.flags & VKCOL_EXACT_EARLY_ACCEPT) != 0u;
	float depth = early ? inner_balls_overlap(a, b, f) : -1.0;
	if (depth >= 0.0) {
		atomicAdd(counters[VKCOL_COUNTER_BALLS], 1u);
		results[p] = vkcol_gpu_result(1u, VKCOL_GPU_STAGE_CUBE_MAP, depth, 0u);
		state[p] = uvec2(0u, VKCOL_PAIR_DECIDED);
		return;
	}
	// 1: the witness search (a solid); 2: the probe (two open meshes), or
	// with the early accepts off its straddle test alone, which picks the
	// traversal's order and accepts nothing (not when listing: every node
	// pair is visited then anyway).
	bool search = early && (a.inner_radius > 0.0 || b.inner_radius > 0.0);
	// Two large surfaces go depth first from the roots (search_pass),
	// which finds their hits as soon: no probe. Nor for meshes of very
	// different sizes (PROBE_SIZE_RATIO), nor for two meshes smaller than
	// LARGE_SURFACE_VERTICES: the clusters nearest the other's origin
	// straddle few colliding pairs of random poses (the spider's: 30 %),
	// and on the held-out models the probe cost more than its accepts
	// and its dives saved (docs/performance-notes.md). Only the surface
	// probe (surface_probe), unless a test asks for the origin's clusters.
	bool probe = (params.flags & VKCOL_EXACT_NO_PROBE) == 0u && ((a.flags | b.flags) & VKCOL_MESH_CLOSED) == 0u &&
	                 min(a.vertex_count, b.vertex_count) < LARGE_SURFACE_VERTICES &&
	                 max(a.sphere_radius, b.sphere_radius) <= PROBE_SIZE_RATIO * min(a.sphere_radius, b.sphere_radius) &&
	                 (surface_probe(a, b) || surface_probe(b, a) || (params.flags & VKCOL_EXACT_ORIGIN_PROBE) != 0u);
	uint j = atomicAdd(counters[VKCOL_COUNTER_SEARCH], 1u);
	bool ordered = early || (params.flags & VKCOL_EXACT_FIND_ALL) == 0u;
	frontier[j] = uvec4(p, search ? 1u : ordered && probe ? 2u : 0u, 0u, 0u);
}

// The ball test, for a small compact solid (its inner ball reaches
// BALL_FILL of its bounding radius) against a mesh of BALL_SIZE_RATIO times
// its bounding radius or more (a part against a body or a scene, where the
// traversal would pair the small mesh's whole tree with the few leaves of
// the large one it comes near): the large mesh's tree is walked against the
// small one's bounding ball alone, for at most BALL_WALK_NODES nodes.
// - No triangle within the ball (by more than tol): the surfaces do not
//   meet, and only containment can still make the pair collide
//   (exact_contain.comp decides it, as after a traversal without a hit).
// - With the early accept on and both meshes closed, a triangle of the
//   large mesh within the small one's inner ball (inside its solid): the
//   solids share a point, collide (the penetration reported: how far within
//   the inner ball that triangle's nearest edge reaches).
// - Otherwise, when the walk ended with at most BALL_SEED_LEAVES leaves of
//   the large mesh near the ball, they are left in ball_leaves: the
//   traversal starts from each of them against the small mesh's root
//   (every triangle pair that can meet has its large triangle in one of
//   them) instead of from the two roots; else the pair goes on as before.
// The culls and accepts rest on bounds of a triangle's true distance:
// below, the larger of the distances to its box and to its plane (that of a
// triangle whose height is at least a tenth of its longest edge: a
// sliver's normal is not trusted); above, to its nearest edge. Only for a
// compact solid: elsewhere the ball bounds the mesh loosely, the large
// mesh's surface passes through it near most poses, and the walk is spent
// (the spider against the engine: 4 % slower, no pair decided).
const float BALL_SIZE_RATIO = 4.0;
const float BALL_FILL = 0.5;
const uint BALL_WALK_NODES = 96u;
const uint BALL_UNDECIDED = 0u;
const uint BALL_APART = 1u;
const uint BALL_HIT = 2u;

float point_segment_dist2(vec3 x, vec3 p, vec3 q)
{
	vec3 d = q - p;
	float dd = dot(d, d);
	float s = dd > 0.0 ? clamp(dot(x - p, d) / dd, 0.0, 1.0) : 0.0;
	vec3 g = x - (p + s * d);
	return dot(g, g);
}

// Distance from x to the box [lo, hi].
float point_box_dist(vec3 x, vec3 lo, vec3 hi)
{
	return length(max(max(lo - x, x - hi), vec3(0.0)));
}

const uint BALL_SEED_LEAVES = 8u;
uint ball_leaves[BALL_SEED_LEAVES];

uint ball_test(vkcol_gpu_mesh big, vkcol_gpu_mesh small, mat3 r, vec3 t, bool accept, float tol, out float depth,
               out uint leaf_count)
{
	vec3 c = r * vec3(small.sphere_x, small.sphere_y, small.sphere_z) + t;
	vec3 o = r * vec3(small.origin_x, small.origin_y, small.origin_z) + t;
	float reach = small.sphere_radius + 2.0 * tol, inner = small.inner_radius - 2.0 * tol;
	accept = accept && inner > 0.0;
	bool hit = false;
	uint nodes = 0u;
	depth = 0.0;
	leaf_count = 0u;
	tree_walk_start(big.node_first);
	while (tree_walk_more() && nodes < BALL_WALK_NODES && !hit && leaf_count <= BALL_SEED_LEAVES) {
		nodes++;
		uint at = tree_stack[--tree_top];
		vkcol_gpu_node n = tree_node(at);
		bool leaf_near = false;
		bool meets = point_box_dist(c, node_min(n), node_max(n)) <= reach;
		if (meets && n.count == 0u) {
			tree_stack[tree_top++] = n.first;
			tree_stack[tree_top++] = n.first + 1u;
		}
		uint first = meets && n.count > 0u ? n.first : 0u, count = meets ? n.count : 0u;
		for (uint k = first; k < first + count && !hit; k++) {
			uvec4 tri = triangle_at(k);
			vec3 v0 = vertex_at(tri.x).xyz, v1 = vertex_at(tri.y).xyz, v2 = vertex_at(tri.z).xyz;
			vec3 e0 = v1 - v0, e1 = v2 - v1, e2 = v0 - v2, nrm = cross(e0, -e2);
			float longest = max(dot(e0, e0), max(dot(e1, e1), dot(e2, e2)));
			float nn = dot(nrm, nrm);
			float below = point_box_dist(c, min(v0, min(v1, v2)), max(v0, max(v1, v2)));
			if (nn > 0.01 * longest * longest)
				below = max(below, abs(dot(nrm, c - v0)) / sqrt(nn));
			leaf_near = leaf_near || below <= reach;
			float above2 = min(point_segment_dist2(o, v0, v1), min(point_segment_dist2(o, v1, v2),
			                                                         point_segment_dist2(o, v2, v0)));
			hit = accept && above2 < inner * inner;
			depth = hit ? inner - sqrt(above2) : 0.0;
		}
		if (leaf_near && leaf_count < BALL_SEED_LEAVES)
			ball_leaves[leaf_count] = at;
		leaf_count += leaf_near ? 1u : 0u;
	}
	// Apart: the walk ended and no leaf came near. The leaves near the ball
	// are all known only when the walk ended.
	bool ended = !tree_walk_more();
	uint ball = hit ? BALL_HIT : ended && leaf_count == 0u ? BALL_APART : BALL_UNDECIDED;
	leaf_count = ended ? leaf_count : BALL_SEED_LEAVES + 1u;
	return ball;
}

// Search pass, for pair p that the setup listed with `mode` (setup_pass):
// the witness search (1) or the probe (2), then the traversal's seed.
void search_pass(uint p, uint mode)
{
	vkcol_gpu_pair pr = pair_at(p);
	vkcol_gpu_mesh a = mesh_of(pr.mesh_a), b = mesh_of(pr.mesh_b);
	pair_frames f = stored_frames(p);
	float tol = pair_tolerance(a, b, f.t_ba);
	bool search = mode == 1u, straddled = false;
	uint seed_leaves = BALL_SEED_LEAVES + 1u;
	bool seed_big_a = false;
	// A small mesh against a large one: the ball test. Its cull holds with
	// the early accept off too; its accept only with it on.
	bool b_small = b.sphere_radius * BALL_SIZE_RATIO <= a.sphere_radius;
	bool a_small = a.sphere_radius * BALL_SIZE_RATIO <= b.sphere_radius;
	bool ball_ba = b_small && b.inner_radius >= BALL_FILL * b.sphere_radius;
	bool ball_ab = a_small && a.inner_radius >= BALL_FILL * a.sphere_radius;
	if ((ball_ba || ball_ab) && (params.flags & VKCOL_EXACT_NO_BALL) == 0u) {
		bool closed = ((a.flags & b.flags) & VKCOL_MESH_CLOSED) != 0u;
		bool early = (params.flags & VKCOL_EXACT_EARLY_ACCEPT) != 0u;
		float depth;
		uint ball = ball_test(ball_ba ? a : b, ball_ba ? b : a, ball_ba ? f.r_ba : f.r_ab, ball_ba ? f.t_ba : f.t_ab,
		                      early && closed, tol, depth, seed_leaves);
		seed_big_a = ball_ba;
		if (ball == BALL_HIT) {
			atomicAdd(counters[VKCOL_COUNTER_BALLS], 1u);
			results[p] = vkcol_gpu_result(1u, VKCOL_GPU_STAGE_CUBE_MAP, depth, 0u);
			state[p] = uvec2(0u, VKCOL_PAIR_DECIDED);
			return;
		}
		if (ball == BALL_APART)
			return; // no seed: the containment pass decides
	}
	if (mode == 2u) {
		// B's cluster across A's surface, else A's across B's. With the
		// early accepts off, no probe_from: the straddle (only where it
		// samples a large surface, surface_probe) picks the order below.
		bool crossed = false;
		bool early = (params.flags & VKCOL_EXACT_EARLY_ACCEPT) != 0u;
		for (uint direction = 0u; direction < 2u && !crossed && (early || !straddled); direction++) {
			bool ba = direction == 0u;
			vkcol_gpu_mesh from = ba ? b : a, to = ba ? a : b;
			vec3 at, v;
			float size;
			if ((early || surface_probe(from, to)) &&
			    straddle(from, to, ba ? f.r_ba : f.r_ab, ba ? f.t_ba : f.t_ab, at, v, size)) {
				straddled = true;
				if (early) {
					uint node_to = node_around(to, at, 2.0 * size), node_from = node_around(from, v, 2.0 * size);
					crossed = probe_from(ba ? uvec2(node_to, node_from) : uvec2(node_from, node_to), f, tol);
				}
			}
		}
		if (crossed) {
			atomicAdd(counters[VKCOL_COUNTER_WITNESS], 1u);
			results[p] = vkcol_gpu_result(1u, VKCOL_GPU_STAGE_CUBE_MAP, 0.0, 0u);
			state[p] = uvec2(0u, VKCOL_PAIR_DECIDED);
			return;
		}
	}
	if (search) {
		// A witness of B inside A, else of A inside B; the first candidate
		// of a direction decides it (confirmed or refuted), which bounds
		// the cost of a pair that has none. One call of each function: a
		// SIMD driver runs every call, masked.
		uvec4 balls = nearest_balls(a, b, f);
		float depth = -1.0;
		uint witness = 0u; // VKCOL_PAIR_WITNESS_DEPTH's word, with `sampled`
		bool sampled = false;
		for (uint direction = 0u; direction < 2u && depth < 0.0; direction++) {
			bool ba = direction == 0u;
			vkcol_gpu_mesh from = ba ? b : a, to = ba ? a : b;
			mat3 r = ba ? f.r_ba : f.r_ab;
			vec3 t = ba ? f.t_ba : f.t_ab;
			// An inner radius > 0: closed, origin inside. An open `from`:
			// the candidate's piece must leave `to`.
			bool solid = from.inner_radius > 0.0;
			vec3 o, v;
			float below;
			bool inside;
			uint vertex;
			if (to.inner_radius > 0.0 &&
			    find_candidate(from, to, r, t, solid, ba ? balls.x : balls.y, o, v, below, inside, vertex) &&
			    (solid || piece_leaves(from, vertex_piece(vertex), to, r, t, tol)) &&
			    (inside || segment_clear(to, o, v, tol))) {
				depth = below;
				sampled = (to.flags & VKCOL_MESH_STAR_SHAPED) != 0u;
				witness = min(vertex, VKCOL_WITNESS_ORIGIN) | (direction << 31);
			}
		}
		// Large solids that are not star-shaped, when neither guess held:
		// listed for the walk pass (tangent_candidate), when one of the
		// two nearest pairs of balls is close enough. A pass of its own
		// because a SIMD driver such as lavapipe runs the walks for every
		// SIMD group that holds one pair needing them: within this pass,
		// the non-colliding pairs that reach it paid for the walks of the
		// few.
		if (depth < 0.0 && walks_apply(a, b) &&
		    (balls_close(ball_of(a, balls.x), ball_of(b, balls.y), f) ||
		     balls_close(ball_of(a, balls.z), ball_of(b, balls.w), f))) {
			uint w = atomicAdd(counters[VKCOL_COUNTER_WALK], 1u);
			if (w < params.dive_base - params.leaf_base)
				frontier[params.capacity + w] = uvec4(p, 0u, 0u, 0u);
		}
		if (depth >= 0.0) {
			// A depth sampled from a star-shaped mesh's map: the containment
			// pass works it out again (VKCOL_PAIR_WITNESS_DEPTH).
			atomicAdd(counters[VKCOL_COUNTER_WITNESS], 1u);
			results[p] = vkcol_gpu_result(1u, VKCOL_GPU_STAGE_CUBE_MAP, sampled ? 0.0 : depth, 0u);
			state[p] = uvec2(sampled ? witness : 0u, VKCOL_PAIR_DECIDED | (sampled ? VKCOL_PAIR_WITNESS_DEPTH : 0u));
			return;
		}
	}
	// A pair the early accept could not decide goes breadth first: most of
	// them do not collide, and a breadth-first level costs an item less than
	// a depth-first step.
	// Without a search (the early accept off, or two open meshes), a pair
	// with a solid goes depth first: solids whose boxes overlap mostly
	// collide, and a hit stops a depth-first pair early. So do two large
	// surfaces, whose colliding pairs would expand thousands of items level
	// by level. Two other surfaces mostly pass by each other where their
	// boxes overlap, and proving that costs lavapipe two to three times as
	// much depth first (a lane's stack in memory, lanes idle once their
	// stack empties) as level by level; but when the probe found one's
	// vertices straddling the other's sampled surface and no sure crossing
	// near there, they mostly collide: depth first (with the early accepts
	// off too, where no probe ran: suzanne-wuson's colliding pairs at
	// random poses took 340 items each level by level). Not when listing
	// (every node pair is visited then anyway).
	// After a search, one exception: a small solid (BALL_SIZE_RATIO) against
	// a large open mesh, such as a part moved through a scene. The search
	// there looks one way only (the open mesh's vertices inside the solid:
	// few where its triangles are large), so many of the pairs it leaves
	// collide, and level by level those pair the solid's whole tree with
	// the scene's many leaves near it: depth first.
	bool solid = ((a.flags | b.flags) & VKCOL_MESH_CLOSED) != 0u;
	bool large = min(a.vertex_count, b.vertex_count) >= LARGE_SURFACE_VERTICES;
	// On a discrete GPU a depth-first step costs about what a breadth-first
	// item does, and each level pass costs alike whatever its items: every
	// pair with an open mesh goes depth first there (exact_policy, exact.c).
	bool open = ((a.flags & b.flags) & VKCOL_MESH_CLOSED) == 0u;
	bool small_solid = open && (a.inner_radius > 0.0 ? a_small && b.vertex_count >= LARGE_SURFACE_VERTICES
	                                                 : b_small && a.vertex_count >= LARGE_SURFACE_VERTICES);
	bool dive = ((solid || large || straddled) && (!search || small_solid) ||
	             open && (params.flags & VKCOL_EXACT_DIVE_OPEN) != 0u) &&
	            params.budget > 1u && (params.flags & VKCOL_EXACT_FIND_ALL) == 0u;
	// Two large trees: their paths from the roots to a hit run twice as
	// long as other pairs', and an item that stops short hands its whole
	// stack on as items of the next level: twice the steps per item.
	state[p].y = dive ? VKCOL_PAIR_DIVE | (large ? VKCOL_PAIR_DEEP : 0u) : 0u;
	// The host keeps pair_count within the breadth-first and depth-first
	// regions, so their seeds always fit; the leaf region may be smaller.
	// Two leaf roots (meshes of a few triangles) go to the leaf region,
	// unless the pair dives (exact_dive.comp tests leaves itself).
	bool leaves = !dive && node_at(a.node_first).count > 0u && node_at(b.node_first).count > 0u;
	// After a ball test that found few leaves of the large mesh near the
	// small one, the seeds are those leaves against the small one's root.
	// (Not when the small mesh is one leaf: leaf-leaf items belong in
	// the leaf region.) A diving pair has one seed, from the roots, that
	// may take params.seed_budget steps: enough to reach the leaves before
	// it hands on its stack (from the ball's leaves, its items were more).
	uint small_root = seed_big_a ? b.node_first : a.node_first;
	bool from_leaves = !dive && seed_leaves <= BALL_SEED_LEAVES && !leaves && node_at(small_root).count == 0u;
	// Any other pair with an open mesh sends its seeds ahead as scouts:
	// params.scout_budget steps depth first from the roots (or from the
	// ball's leaves), then their stacks go on level by level. Between open
	// surfaces the pair has often collided where the accepts found no
	// witness (they find none between two open meshes but the probe's, and
	// none at all when off), and the scout's path reaches a crossing before
	// the levels would expand the whole overlap region; a pair apart pays
	// its few steps, and its stack is expanded breadth first, where
	// lavapipe proves it apart cheaply. Not after a probe near a large
	// surface (surface_probe) that found no straddling cluster: it finds
	// one on nearly every colliding pair (97 % of suzanne-wuson's at
	// random poses), so the rest are mostly apart; unless the straddle
	// sampled from a much larger mesh (STRADDLE_SIZE_RATIO).
	bool unstraddled = mode == 2u && !straddled &&
	                   (surface_probe(a, b) && a.sphere_radius <= STRADDLE_SIZE_RATIO * b.sphere_radius ||
	                    surface_probe(b, a) && b.sphere_radius <= STRADDLE_SIZE_RATIO * a.sphere_radius);
	bool scout = !dive && !leaves && open && !unstraddled && params.scout_budget > 1u && params.budget > 1u &&
	             (params.flags & VKCOL_EXACT_FIND_ALL) == 0u;
	uint region = dive || scout ? REGION_DIVE : leaves ? REGION_LEAF : REGION_BREADTH;
	uint steps = dive ? params.seed_budget : scout ? params.scout_budget | VKCOL_ITEM_SCOUT : 0u;
	uint seeds = from_leaves ? seed_leaves : 1u;
	uint i = atomicAdd(counters[region_counter(region)], seeds), base, end;
	region_slots(region, base, end);
	for (uint k = 0u; k < seeds; k++) {
		uint na = from_leaves && seed_big_a ? ball_leaves[k] : a.node_first;
		uint nb = from_leaves && !seed_big_a ? ball_leaves[k] : b.node_first;
		if (base + i + k < end)
			frontier[base + i + k] = uvec4(p, na, nb, steps);
		else
			state[p].y |= VKCOL_PAIR_OVERFLOW;
	}
}

// Walk pass, for pair p that the search listed (its seed already in the
// frontier): tangent_candidate's walks, B's vertices in A then A's in B,
// from the nearest pair of inner balls, then from the next (each only when
// the two balls are close, balls_close), each walk's vertex confirmed from
// to's inner ball nearest it. A pair accepted here counts one hit in its
// state, so the traversal drops its seed (and all it would spawn) at
// once, and is marked decided, so the containment pass keeps this answer.
// The second pair of balls leaves fewer colliding pairs to the traversal
// (docs/performance-notes.md).
void walk_pass(uint p)
{
	vkcol_gpu_pair pr = pair_at(p);
	vkcol_gpu_mesh a = mesh_of(pr.mesh_a), b = mesh_of(pr.mesh_b);
	pair_frames f = stored_frames(p);
	float tol = pair_tolerance(a, b, f.t_ba);
	uvec4 balls = nearest_balls(a, b, f);
	uint walks = all(equal(balls.xy, balls.zw)) ? 2u : 4u;
	float depth = -1.0;
	for (uint walk = 0u; walk < walks && depth < 0.0; walk++) {
		bool ba = (walk & 1u) == 0u;
		uvec2 pair = walk < 2u ? balls.xy : balls.zw;
		vkcol_gpu_mesh from = ba ? b : a, to = ba ? a : b;
		mat3 r = ba ? f.r_ba : f.r_ab;
		vec3 t = ba ? f.t_ba : f.t_ab;
		vec4 ball_a = ball_of(a, pair.x), ball_b = ball_of(b, pair.y);
		vec3 start = ba ? f.r_ba * ball_b.xyz + f.t_ba : f.r_ab * ball_a.xyz + f.t_ab, v;
		float below;
		if (balls_close(ball_a, ball_b, f) && (to.flags & VKCOL_MESH_STAR_SHAPED) == 0u &&
		    tangent_candidate(from, to, r, t, start, v, below)) {
			vec4 s = nearest_ball(to, v);
			if (distance(v, s.xyz) < s.w || segment_clear(to, s.xyz, v, tol))
				depth = below;
		}
	}
	if (depth >= 0.0) {
		atomicAdd(counters[VKCOL_COUNTER_WITNESS], 1u);
		results[p] = vkcol_gpu_result(1u, VKCOL_GPU_STAGE_CUBE_MAP, depth, 0u);
		state[p] = uvec2(1u, VKCOL_PAIR_DECIDED);
	}
}

void main()
{
	uint i = linear_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
	if (VARIANT == 0u) {
		if (i < params.pair_count)
			setup_pass(i);
	} else if (VARIANT == 1u) {
		if (i < counters[VKCOL_COUNTER_SEARCH]) {
			uvec4 listed = texelFetch(frontier_texels, int(i));
			search_pass(listed.x, listed.y);
		}
	} else if (i < min(counters[VKCOL_COUNTER_WALK], params.dive_base - params.leaf_base)) {
		walk_pass(texelFetch(frontier_texels, int(params.capacity + i)).x);
	}
}
