// SPDX-License-Identifier: MIT
// Double-precision CPU reference: the definitions the GPU results are tested
// against. Slow and exact (up to double rounding) rather than fast.
#pragma once

#include "geometry/mesh_cpu.h"
#include "geometry/tri_tri.h"

// Rigid transform x -> r x + t, double precision.
typedef struct ref_transform {
	double r[3][3];
	double t[3];
} ref_transform;

// Rotation matrix and translation of a pose (quaternion normalised in double).
// Returns false for a zero or non-finite quaternion or non-finite translation.
bool ref_pose_transform(const vkcol_pose *pose, ref_transform *out);

// inverse(a) * b: maps B's mesh coordinates into A's.
ref_transform ref_relative(const ref_transform *a, const ref_transform *b);

// The transform from mesh b's stored coordinates into mesh a's (both minus
// their mesh_cpu.centre) for the caller's poses of a and b, in double.
// Returns false for a zero or non-finite quaternion or translation.
bool ref_pair_transform(const mesh_cpu *a, const mesh_cpu *b, const vkcol_pose *pose_a, const vkcol_pose *pose_b,
                        ref_transform *out);

// The same as a pose of b in a's stored frame (a at the identity), for the
// device: the quaternion and translation computed in double, then rounded.
bool ref_pair_pose(const mesh_cpu *a, const mesh_cpu *b, const vkcol_pose *pose_a, const vkcol_pose *pose_b,
                   vkcol_pose *out);

// Is point p (mesh coordinates) inside the solid bounded by the closed mesh?
// Ray parity through the tree, robust to rays grazing edges and vertices
// (such rays are discarded and another direction is cast). Points on the
// surface count as inside. Meaningless for open meshes (returns the parity
// anyway).
bool ref_point_in_solid(const mesh_cpu *mesh, const double p[3]);

// Does some triangle of a intersect some triangle of b, with b placed into a's
// frame by b_in_a? Tree against tree.
bool ref_surfaces_intersect(const mesh_cpu *a, const mesh_cpu *b, const ref_transform *b_in_a);

// Called with each intersecting triangle pair (indices as the caller gave
// the triangles); return false to stop the search.
typedef bool (*ref_pair_visit)(void *user, uint32_t triangle_a, uint32_t triangle_b);

// Visits every intersecting triangle pair of a and b (b in a's frame by
// b_in_a), tree against tree, in no particular order. Returns false when
// visit stopped the search.
bool ref_surface_pairs(const mesh_cpu *a, const mesh_cpu *b, const ref_transform *b_in_a, ref_pair_visit visit,
                       void *user);

// The least distance between a's triangles and b's (b in a's frame by
// b_in_a), in double: 0 when the surfaces touch or cross. A solid inside
// another is at a positive distance from it, though the two collide.
// +inf when a mesh has no tree.
double ref_surface_distance(const mesh_cpu *a, const mesh_cpu *b, const ref_transform *b_in_a);

// Exact mode's touching distance for a and b (b in a's frame by b_in_a),
// as the shaders compute it (pair_touch_distance in exact_common.glsl):
// 2e-6 of the smaller bounding radius plus 1e-12 of the coordinates'
// magnitude.
double ref_touch_distance(const mesh_cpu *a, const mesh_cpu *b, const ref_transform *b_in_a);

// Sorts by (pair, triangle_a, triangle_b).
void ref_sort_triangle_pairs(vkcol_triangle_pair *entries, uint64_t count);

// The full semantics of DESIGN.md: surfaces intersect, or both meshes closed
// and one contains a vertex of the other.
bool ref_collide(const mesh_cpu *a, const mesh_cpu *b, const ref_transform *b_in_a);
// The same, allocating its scratch (the containment test's connected
// pieces) through env.
bool ref_collide_env(const core_env *env, const mesh_cpu *a, const mesh_cpu *b, const ref_transform *b_in_a);

// Every intersecting triangle pair of a and b (b in a's frame by b_in_a),
// sorted: the first `capacity` go to entries (their `pair` 0); returns how
// many there are.
uint64_t ref_triangle_pairs(const mesh_cpu *a, const mesh_cpu *b, const ref_transform *b_in_a,
                            vkcol_triangle_pair *entries, uint64_t capacity);
