// SPDX-License-Identifier: MIT
// The host side of a mesh: validated copy, topology analysis, AABB tree and
// interior origin. Built without a device (mesh_cpu_build), then uploaded by
// vkcol_mesh_create.
#pragma once

#include "geometry/aabb_tree.h"
#include "core.h"

// At most this many inner balls per mesh besides the origin's.
#define MESH_INNER_BALLS VKCOL_INNER_BALLS

typedef struct mesh_cpu {
	uint32_t vertex_count;
	uint32_t triangle_count;
	// Subtracted from the caller's positions when the mesh lies farther from
	// its coordinate origin than its own size (else 0): every position,
	// box, origin and ball below is relative to it, so that float work on
	// the device keeps the precision of the mesh's size, not of its
	// placement. vkcol_mesh_get_info and the poses (ref_pair_transform)
	// add it back.
	float centre[3];
	float *positions;       // 3 floats per vertex, tightly packed copy, minus centre
	uint32_t *indices;      // 3 per triangle, caller's order
	uint32_t *weld;         // per vertex: representative vertex with equal position
	uint32_t unique_vertex_count;
	uint32_t degenerate_count;
	uint32_t boundary_edge_count;
	uint32_t nonmanifold_edge_count;
	bool closed;
	double volume;          // closed meshes: |signed volume|, else 0
	float aabb_min[3], aabb_max[3];
	float sphere_center[3];
	float sphere_radius;
	float origin[3];
	bool origin_inside;
	// Distance from origin (as stored, in float) to the nearest triangle when
	// origin_inside, else 0: the ball of this radius around the origin lies
	// inside the solid.
	double inner_radius;
	// More balls inside the solid (closed meshes with an inside origin,
	// else none): centre and radius, the distance from the float centre to
	// the nearest triangle (rounded to float).
	uint32_t ball_count;
	float balls[MESH_INNER_BALLS][4];
	aabb_tree tree;
	// A second tree of one triangle a leaf, built for a mesh of up to
	// MESH_FINE_TREE_MAX triangles whose leaf size the caller left to the
	// library (else empty, node_count 0). Exact mode traverses it instead
	// of `tree` against a mesh whose triangles are much smaller
	// (pool_exact_pair): there a leaf of four large triangles, paired with
	// the other mesh's fine nodes, holds far more of them than its triangles
	// come near.
	aabb_tree fine_tree;
	// The square root of the mean area of its triangles with area: how
	// coarse it is, in mesh units.
	float triangle_scale;
	// The mean half-width of the slabs of tree's leaves: how far a leaf's
	// triangles stray from one plane, in mesh units.
	float leaf_thickness;
	double tree_seconds;    // wall time of the tree's build (vkcol_mesh_info.tree_seconds)
	char name[64];
} mesh_cpu;

// The most triangles a mesh with a fine tree (mesh_cpu.fine_tree) has.
#define MESH_FINE_TREE_MAX 65536u

// Validates desc (as vkcol_mesh_check), copies it and computes everything in
// mesh_cpu. Logs the first problem with the mesh name, triangle and vertex.
vkcol_result mesh_cpu_build(const core_env *env, const vkcol_mesh_desc *desc, mesh_cpu *out);

// Accepts a zeroed or partially built mesh.
void mesh_cpu_free(const core_env *env, mesh_cpu *mesh);

// What float rounding of points at the mesh's coordinates may err by: a few
// ulps (about 6e-8 relative) of its largest absolute coordinate, generously
// (1e-5 of it). Taken off every distance the float shaders trust.
double mesh_rounding_margin(const mesh_cpu *m);

// Squared distance from p to triangle abc: Ericson's closest point by the
// Voronoi regions of its vertices, edges and face. A triangle without area
// whose two corners coincide can give NaN (0 / 0 on its empty edge).
double mesh_point_triangle_dist2(const double p[3], const double a[3], const double b[3], const double c[3]);
