// SPDX-License-Identifier: MIT
// AABB tree (surface area heuristic, or the balanced split of CN 102663825),
// flattened breadth first.
#pragma once

#include "core.h"
#include "shared.h"

// The deepest level a tree may have (root = 0), vkcol_mesh_desc.max_depth's
// bound: the walks of a tree, here and in the shaders, size their stacks by
// it. A depth-first walk of one tree, which pops a node and pushes its two
// children, holds at most AABB_TREE_STACK nodes.
#define AABB_TREE_MAX_DEPTH VKCOL_TREE_MAX_DEPTH
#define AABB_TREE_STACK (AABB_TREE_MAX_DEPTH + 1)

typedef struct aabb_tree {
	vkcol_gpu_node *nodes;  // node_count nodes, breadth-first order, root = 0
	uint32_t node_count;
	// Per node, a slab holding its triangles: 4 floats (o, m, h), every
	// vertex v of the node's triangles has |n . (v - c) - m| <= h, where c is
	// the centre of its box as float32 computes it, 0.5 * (min + max), and
	// n = aabb_tree_slab_normal(o), the direction of the triangles'
	// area-weighted normal (+z when they cancel out). h is +infinity, the
	// slab holding all, when the box's centre or the distances overflow
	// float. Thin where the surface is nearly flat, which is where a box is
	// loose when the surface runs diagonally to its axes.
	float *slabs;
	// Per node, an oriented box holding its triangles: 16 floats, for each
	// axis k its unit direction a_k (in float) and half extent e_k, then the
	// box's centre c (3 floats, then 0): every corner v of the node's
	// triangles has |a_k . (v - c)| <= e_k, evaluated in double on the
	// stored floats. Axes along the principal directions of the corners
	// (Gottschalk, Lin & Manocha, "OBBTree"). Infinite extents (a box that
	// holds all) where coordinates overflow. NULL in a tree that does not
	// keep them (aabb_tree_keeps_obbs; not computed there): aabb_tree_obb.
	float *obbs;
	// The fraction of nodes whose oriented box is less than half the volume
	// of their box cut by their slab (roughly): thin parts lying diagonally,
	// where the oriented boxes prune what boxes and slabs do not. Measured on
	// every node of a tree of up to 4,096 nodes, else on about 1,024. Exact
	// mode tests the oriented boxes in batches whose meshes all keep them
	// (aabb_tree_keeps_obbs; pairs_validate, the _obb pipelines).
	float obb_worth;
	// level k holds nodes level_first[k] .. level_first[k + 1] - 1;
	// level_count + 1 entries
	uint32_t *level_first;
	uint32_t level_count;   // = depth + 1
	// Tree order: leaf L holds original triangles
	// triangles[L.first .. L.first + L.count - 1]; triangle_count entries.
	uint32_t *triangles;
	uint32_t triangle_count;
	uint32_t depth;         // deepest level, root = 0
	uint32_t leaf_count;
	uint32_t leaf_min, leaf_max; // triangles per leaf
} aabb_tree;

// A tree whose obb_worth is at least this computes its oriented boxes, and
// exact mode's traversal tests them in batches of such trees (the _obb
// pipelines); below it, the boxes and slabs alone prune about as much, for
// less ...
#define AABB_TREE_OBB_WORTH 0.02f
// ... unless the tree has at least this many nodes (about 2,000 leaves):
// there a node pair the oriented boxes part high up spares a large subtree
// pair below, and their 15 axes part node pairs that boxes and slabs do not
// even where no box is much smaller (docs/performance-notes.md, "Oriented
// boxes for large trees").
#define AABB_TREE_OBB_NODES 4096u

static inline bool aabb_tree_keeps_obbs(float obb_worth, uint32_t node_count)
{
	return obb_worth >= AABB_TREE_OBB_WORTH || node_count >= AABB_TREE_OBB_NODES;
}

// How a node's triangles are split between its two children.
typedef enum aabb_split {
	// The surface area heuristic: the boundary between 16 equal bins of the
	// centroids' extent, on any axis, that minimises the children's areas
	// weighted by their triangle counts; where no boundary separates the
	// centroids, AABB_SPLIT_TWO_CENTRES.
	AABB_SPLIT_SAH,
	// CN 102663825: the node's longest axis; each triangle centroid's
	// projection joins the nearer of the two extreme projections, ties go to
	// the group with fewer members; if one group would be empty the
	// triangles are split at the median of the projections instead, so every
	// split makes progress.
	AABB_SPLIT_TWO_CENTRES,
} aabb_split;

// Builds the tree over triangle_count triangles (indices[3 t + k] index
// positions[3 v + k]; tightly packed, already validated). A node becomes a
// leaf when it holds <= leaf_size triangles or is at depth max_depth
// (<= AABB_TREE_MAX_DEPTH); otherwise `split` divides it.
vkcol_result aabb_tree_build(const core_env *env, const float *positions, const uint32_t *indices,
                             uint32_t triangle_count, uint32_t leaf_size, uint32_t max_depth, aabb_split split,
                             aabb_tree *out);

// The normal of a slab from its first two floats, as the GPU decodes it
// (shaders/exact_traverse.glsl): the octahedral encoding, not normalized
// (|n.x| + |n.y| + |n.z| = 1); the slab's m and h are measured along it.
void aabb_tree_slab_normal(const float o[2], float n[3]);

// The span [*enter, *exit] of the ray o + s d, s >= 0, within node n's box
// widened by pad on every side (inv_d = 1 / d; an infinite component is
// fine where o lies off that axis's slab planes): empty when *enter >
// *exit. The slab test of the CPU's ray casts (reference.c, cubemap_cpu.c),
// in double.
void aabb_tree_ray_span(const vkcol_gpu_node *n, const double o[3], const double inv_d[3], double pad, double *enter,
                        double *exit);

// Node i's oriented box (16 floats, as `obbs` holds them), or a box that
// holds all where the tree has none.
void aabb_tree_obb(const aabb_tree *tree, uint32_t i, float out[16]);

// Accepts a zeroed or partially built tree.
void aabb_tree_free(const core_env *env, aabb_tree *tree);
