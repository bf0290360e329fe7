// SPDX-License-Identifier: MIT
// Independent check of every invariant aabb_tree.h promises, shared by the
// tree, mesh and model suites (header only: test_models links no meshgen).
#pragma once

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "geometry/aabb_tree.h"

typedef struct tree_check_result {
	uint32_t violations;
	char first[256]; // the first violation found, "" if none
} tree_check_result;

static inline void tree_check_fail(tree_check_result *r, const char *fmt, ...)
{
	if (r->violations++ == 0) {
		va_list args;
		va_start(args, fmt);
		vsnprintf(r->first, sizeof(r->first), fmt, args);
		va_end(args);
	}
}

static inline bool tree_check_box_contains(const vkcol_gpu_node *outer, const vkcol_gpu_node *inner)
{
	return outer->min_x <= inner->min_x && outer->min_y <= inner->min_y && outer->min_z <= inner->min_z &&
	       outer->max_x >= inner->max_x && outer->max_y >= inner->max_y && outer->max_z >= inner->max_z;
}

static inline bool tree_check_box_equal(const vkcol_gpu_node *a, const vkcol_gpu_node *b)
{
	return a->min_x == b->min_x && a->min_y == b->min_y && a->min_z == b->min_z && a->max_x == b->max_x &&
	       a->max_y == b->max_y && a->max_z == b->max_z;
}

// The box of triangle t's corners, as floats (exact: min and max only).
static inline vkcol_gpu_node tree_check_triangle_box(const float *positions, const uint32_t *indices, uint32_t t)
{
	vkcol_gpu_node b = {INFINITY, INFINITY, INFINITY, 0, -INFINITY, -INFINITY, -INFINITY, 0};
	for (int c = 0; c < 3; ++c) {
		const float *p = positions + 3 * (size_t)indices[3 * (size_t)t + c];
		b.min_x = fminf(b.min_x, p[0]);
		b.min_y = fminf(b.min_y, p[1]);
		b.min_z = fminf(b.min_z, p[2]);
		b.max_x = fmaxf(b.max_x, p[0]);
		b.max_y = fmaxf(b.max_y, p[1]);
		b.max_z = fmaxf(b.max_z, p[2]);
	}
	return b;
}

static inline void tree_check_union(vkcol_gpu_node *a, const vkcol_gpu_node *b)
{
	a->min_x = fminf(a->min_x, b->min_x);
	a->min_y = fminf(a->min_y, b->min_y);
	a->min_z = fminf(a->min_z, b->min_z);
	a->max_x = fmaxf(a->max_x, b->max_x);
	a->max_y = fmaxf(a->max_y, b->max_y);
	a->max_z = fmaxf(a->max_z, b->max_z);
}

// Checks the layout (levels contiguous, children a consecutive pair of the
// next level, in order), the boxes (a leaf's box is exactly its triangles'
// box, an internal node's exactly the union of its children's), the leaves
// (every triangle in exactly one leaf, counts <= leaf_size except at
// max_depth), and the statistics (depth, leaf count, min, max).
// Each node's subtree triangle range [lo, hi) in tree order, computed bottom
// up from the leaves (breadth-first order: children come after parents).
// Returns the number of inner nodes whose children's ranges do not meet
// (described in *r), or UINT32_MAX (out of memory; *lo and *hi NULL).
static inline uint32_t tree_check_ranges(const aabb_tree *tree, uint32_t **lo_out, uint32_t **hi_out,
                                         tree_check_result *r)
{
	uint32_t bad = 0;
	uint32_t *lo = malloc((tree->node_count ? tree->node_count : 1) * sizeof(uint32_t));
	uint32_t *hi = malloc((tree->node_count ? tree->node_count : 1) * sizeof(uint32_t));
	*lo_out = lo;
	*hi_out = hi;
	if (lo == NULL || hi == NULL) {
		free(lo);
		free(hi);
		*lo_out = *hi_out = NULL;
		tree_check_fail(r, "out of memory in the checker");
		return UINT32_MAX;
	}
	for (uint32_t i = tree->node_count; i-- > 0;) {
		const vkcol_gpu_node *n = &tree->nodes[i];
		if (n->count > 0) {
			lo[i] = n->first;
			hi[i] = n->first + n->count;
		} else {
			lo[i] = lo[n->first] < lo[n->first + 1] ? lo[n->first] : lo[n->first + 1];
			hi[i] = hi[n->first] > hi[n->first + 1] ? hi[n->first] : hi[n->first + 1];
			if (hi[n->first] != lo[n->first + 1]) {
				bad++;
				tree_check_fail(r, "node %u: its children's triangles are not contiguous", i);
			}
		}
	}
	return bad;
}

// Every node's slab (aabb_tree.h) holds every corner of every triangle
// below it: |n . (v - c) - m| <= h in double, with c = 0.5f * (min + max)
// as float32 computes it and n = aabb_tree_slab_normal(o); o within
// [-1, 1]^2, m finite, h >= 0 (+infinity: the slab holds all). Node i's
// triangles are triangles[lo .. hi).
static inline void tree_check_slab(const aabb_tree *tree, const float *positions, const uint32_t *indices, uint32_t i,
                                   uint32_t lo, uint32_t hi, tree_check_result *r)
{
	const vkcol_gpu_node *n = &tree->nodes[i];
	const float *s = &tree->slabs[4 * (size_t)i];
	float nf[3];
	aabb_tree_slab_normal(s, nf);
	if (!(s[3] >= 0.0f) || !isfinite(s[2]) || !(fabsf(s[0]) <= 1.0f && fabsf(s[1]) <= 1.0f)) {
		tree_check_fail(r, "node %u slab (%g %g %g %g): not an encoded normal, a finite offset and a width", i, s[0],
		                s[1], s[2], s[3]);
		return;
	}
	const float c[3] = {0.5f * (n->min_x + n->max_x), 0.5f * (n->min_y + n->max_y), 0.5f * (n->min_z + n->max_z)};
	for (uint32_t j = lo; j < hi; ++j)
		for (int k = 0; k < 3; ++k) {
			const float *v = positions + 3 * (size_t)indices[3 * (size_t)tree->triangles[j] + k];
			double d = nf[0] * ((double)v[0] - c[0]) + nf[1] * ((double)v[1] - c[1]) + nf[2] * ((double)v[2] - c[2]);
			if (fabs(d - s[2]) > s[3]) {
				tree_check_fail(r, "node %u slab (width %g) misses a corner of triangle %u by %g", i, s[3],
				                tree->triangles[j], fabs(d) - s[3]);
				return;
			}
		}
}

// Every node's oriented box (aabb_tree.h) holds every corner of every
// triangle below it: |a_k . (v - c)| <= e_k in double on the stored floats;
// its axes unit and orthogonal to within 1e-6, its extents >= 0 (+infinity:
// the box holds all).
static inline void tree_check_obb(const aabb_tree *tree, const float *positions, const uint32_t *indices, uint32_t i,
                                  uint32_t lo, uint32_t hi, tree_check_result *r)
{
	const float *o = &tree->obbs[16 * (size_t)i];
	bool shaped = true;
	for (int a = 0; a < 3; ++a)
		for (int b = a; b < 3; ++b) {
			double d = (double)o[4 * a] * o[4 * b] + (double)o[4 * a + 1] * o[4 * b + 1] +
			           (double)o[4 * a + 2] * o[4 * b + 2];
			shaped = shaped && fabs(d - (a == b ? 1.0 : 0.0)) <= 1e-6;
		}
	if (!shaped || !(o[3] >= 0.0f && o[7] >= 0.0f && o[11] >= 0.0f)) {
		tree_check_fail(r, "node %u oriented box: axes not orthonormal or a negative extent", i);
		return;
	}
	if (isinf(o[3]) && isinf(o[7]) && isinf(o[11]))
		return; // a box that holds all
	for (uint32_t j = lo; j < hi; ++j)
		for (int k = 0; k < 3; ++k) {
			const float *v = positions + 3 * (size_t)indices[3 * (size_t)tree->triangles[j] + k];
			for (int a = 0; a < 3; ++a) {
				double d = o[4 * a] * ((double)v[0] - o[12]) + o[4 * a + 1] * ((double)v[1] - o[13]) +
				           o[4 * a + 2] * ((double)v[2] - o[14]);
				if (fabs(d) > o[4 * a + 3]) {
					tree_check_fail(r, "node %u oriented box misses a corner of triangle %u by %g along axis %d", i,
					                tree->triangles[j], fabs(d) - o[4 * a + 3], a);
					return;
				}
			}
		}
}

// Both of the above for every node. A node's triangles are a contiguous run
// of triangles[] (the build splits in place), found bottom up from the
// leaves' ranges.
static inline void tree_check_bounds(const aabb_tree *tree, const float *positions, const uint32_t *indices,
                                     tree_check_result *r)
{
	if (tree->slabs == NULL || (tree->obbs != NULL) != aabb_tree_keeps_obbs(tree->obb_worth, tree->node_count)) {
		tree_check_fail(r, "tree slabs missing, or oriented boxes missing (or kept) against obb_worth %g, %u nodes",
		                tree->obb_worth, tree->node_count);
		return;
	}
	uint32_t *lo, *hi;
	if (tree_check_ranges(tree, &lo, &hi, r) == 0)
		for (uint32_t i = 0; i < tree->node_count; ++i) {
			tree_check_slab(tree, positions, indices, i, lo[i], hi[i], r);
			if (tree->obbs)
				tree_check_obb(tree, positions, indices, i, lo[i], hi[i], r);
		}
	free(lo);
	free(hi);
}

static inline tree_check_result tree_check(const aabb_tree *tree, const float *positions, const uint32_t *indices,
                                           uint32_t triangle_count, uint32_t leaf_size, uint32_t max_depth)
{
	tree_check_result r = {0, ""};
	if (tree->nodes == NULL || tree->level_first == NULL || tree->triangles == NULL) {
		tree_check_fail(&r, "tree arrays missing");
		return r;
	}
	if (tree->triangle_count != triangle_count)
		tree_check_fail(&r, "triangle_count %u, expected %u", tree->triangle_count, triangle_count);
	if (tree->level_count != tree->depth + 1)
		tree_check_fail(&r, "level_count %u but depth %u", tree->level_count, tree->depth);
	if (tree->depth > max_depth)
		tree_check_fail(&r, "depth %u exceeds max_depth %u", tree->depth, max_depth);
	if (tree->level_first[0] != 0 || tree->level_first[1] != 1)
		tree_check_fail(&r, "level 0 is not exactly the root");
	for (uint32_t k = 0; k < tree->level_count; ++k) {
		if (tree->level_first[k + 1] <= tree->level_first[k])
			tree_check_fail(&r, "level %u is empty", k);
	}
	if (tree->level_first[tree->level_count] != tree->node_count) {
		tree_check_fail(&r, "levels end at %u, node_count %u", tree->level_first[tree->level_count], tree->node_count);
		return r;
	}

	uint32_t *covered = calloc(triangle_count ? triangle_count : 1, sizeof(uint32_t));
	uint32_t *seen = calloc(triangle_count ? triangle_count : 1, sizeof(uint32_t));
	if (covered == NULL || seen == NULL) {
		free(covered);
		free(seen);
		tree_check_fail(&r, "out of memory in the checker");
		return r;
	}
	uint32_t leaves = 0, leaf_min = UINT32_MAX, leaf_max = 0;
	for (uint32_t k = 0; k < tree->level_count && r.violations == 0; ++k) {
		uint32_t next = tree->level_first[k + 1]; // where level k + 1 starts
		uint32_t internal = 0;
		for (uint32_t i = tree->level_first[k]; i < tree->level_first[k + 1]; ++i) {
			const vkcol_gpu_node *n = &tree->nodes[i];
			if (n->count == 0) {
				// The j-th internal node of level k owns the j-th pair of level k + 1.
				uint32_t want = next + 2 * internal++;
				if (k + 1 >= tree->level_count || n->first != want || n->first + 1 >= tree->level_first[k + 2]) {
					tree_check_fail(&r, "node %u (level %u) has children %u, expected %u in level %u", i, k, n->first,
					                want, k + 1);
					break;
				}
				vkcol_gpu_node u = tree->nodes[n->first];
				tree_check_union(&u, &tree->nodes[n->first + 1]);
				if (!tree_check_box_contains(n, &tree->nodes[n->first]) ||
				    !tree_check_box_contains(n, &tree->nodes[n->first + 1]))
					tree_check_fail(&r, "node %u does not contain its children's boxes", i);
				else if (!tree_check_box_equal(n, &u))
					tree_check_fail(&r, "node %u is not the tight union of its children", i);
				continue;
			}
			leaves++;
			leaf_min = n->count < leaf_min ? n->count : leaf_min;
			leaf_max = n->count > leaf_max ? n->count : leaf_max;
			if (n->count > leaf_size && k != max_depth)
				tree_check_fail(&r, "leaf %u at level %u holds %u > %u triangles", i, k, n->count, leaf_size);
			if ((uint64_t)n->first + n->count > triangle_count) {
				tree_check_fail(&r, "leaf %u range %u+%u out of bounds", i, n->first, n->count);
				continue;
			}
			vkcol_gpu_node box = {INFINITY, INFINITY, INFINITY, 0, -INFINITY, -INFINITY, -INFINITY, 0};
			for (uint32_t j = n->first; j < n->first + n->count; ++j) {
				covered[j]++;
				uint32_t t = tree->triangles[j];
				if (t >= triangle_count) {
					tree_check_fail(&r, "leaf %u holds triangle %u >= %u", i, t, triangle_count);
					continue;
				}
				seen[t]++;
				vkcol_gpu_node tb = tree_check_triangle_box(positions, indices, t);
				if (!tree_check_box_contains(n, &tb))
					tree_check_fail(&r, "leaf %u does not contain triangle %u", i, t);
				tree_check_union(&box, &tb);
			}
			if (!tree_check_box_equal(n, &box))
				tree_check_fail(&r, "leaf %u box is not the tight box of its triangles", i);
		}
		if (k + 1 < tree->level_count && 2 * internal != tree->level_first[k + 2] - next)
			tree_check_fail(&r, "level %u has %u internal nodes but level %u has %u nodes", k, internal, k + 1,
			                tree->level_first[k + 2] - next);
		if (k + 1 == tree->level_count && internal != 0)
			tree_check_fail(&r, "the last level has internal nodes");
	}
	for (uint32_t t = 0; t < triangle_count && r.violations == 0; ++t) {
		if (covered[t] != 1)
			tree_check_fail(&r, "position %u of triangles[] is in %u leaves", t, covered[t]);
		if (seen[t] != 1)
			tree_check_fail(&r, "triangle %u is in %u leaves", t, seen[t]);
	}
	if (r.violations == 0 && (leaves != tree->leaf_count || leaf_min != tree->leaf_min || leaf_max != tree->leaf_max))
		tree_check_fail(&r, "statistics: %u leaves (%u..%u), the tree says %u (%u..%u)", leaves, leaf_min, leaf_max,
		                tree->leaf_count, tree->leaf_min, tree->leaf_max);
	free(covered);
	free(seen);
	if (r.violations == 0)
		tree_check_bounds(tree, positions, indices, &r);
	return r;
}

// The centroid of the triangle at tree position j along axis, as
// aabb_tree.c computes it: float((a + b + c) / 3) in double.
static inline float tree_check_centroid(const aabb_tree *tree, const float *positions, const uint32_t *indices,
                                        uint32_t j, int axis)
{
	const uint32_t *t = indices + 3 * (size_t)tree->triangles[j];
	return (float)(((double)positions[3 * (size_t)t[0] + axis] + positions[3 * (size_t)t[1] + axis] +
	                positions[3 * (size_t)t[2] + axis]) /
	               3.0);
}

// Checks the split rule of CN 102663825 at every internal node: on the
// longest axis of the node's box, every triangle of the first child is no
// farther from the smallest centroid projection than from the largest, every
// triangle of the second child the reverse, and the equidistant ones are
// shared out as "to the smaller group" gives. The centroid of a triangle is
// float((a + b + c) / 3) computed in double, as aabb_tree.c documents.
// Returns the number of nodes violating it (first one described in *r).
static inline uint32_t tree_check_split_rule(const aabb_tree *tree, const float *positions, const uint32_t *indices,
                                             tree_check_result *r)
{
	uint32_t *lo, *hi;
	uint32_t bad = tree_check_ranges(tree, &lo, &hi, r);
	if (bad == UINT32_MAX)
		return 1;
	for (uint32_t i = 0; i < tree->node_count; ++i) {
		const vkcol_gpu_node *n = &tree->nodes[i];
		if (n->count > 0)
			continue;
		double ex = (double)n->max_x - n->min_x, ey = (double)n->max_y - n->min_y, ez = (double)n->max_z - n->min_z;
		int axis = (ex >= ey && ex >= ez) ? 0 : (ey >= ez ? 1 : 2);
		float pmin = INFINITY, pmax = -INFINITY;
		for (uint32_t j = lo[i]; j < hi[i]; ++j) {
			float c = tree_check_centroid(tree, positions, indices, j, axis);
			pmin = fminf(pmin, c);
			pmax = fmaxf(pmax, c);
		}
		uint32_t near_lo = 0, near_hi = 0, ties_lo = 0, ties_hi = 0;
		bool wrong_side = false;
		for (int side = 0; side < 2; ++side) {
			uint32_t child = n->first + side;
			for (uint32_t j = lo[child]; j < hi[child]; ++j) {
				float c = tree_check_centroid(tree, positions, indices, j, axis);
				double dlo = (double)c - pmin, dhi = (double)pmax - c;
				if (dlo == dhi)
					*(side == 0 ? &ties_lo : &ties_hi) += 1;
				else if ((dlo < dhi) != (side == 0))
					wrong_side = true;
				else
					*(side == 0 ? &near_lo : &near_hi) += 1;
			}
		}
		// Equidistant ones, one at a time, to the group smaller at that moment
		// (the first group when equal).
		uint32_t a = near_lo, b = near_hi;
		for (uint32_t k = 0; k < ties_lo + ties_hi; ++k) {
			if (a <= b)
				a++;
			else
				b++;
		}
		if (wrong_side || a != near_lo + ties_lo) {
			bad++;
			tree_check_fail(r, "node %u: split breaks the two-centre rule (near %u/%u, ties %u/%u)", i, near_lo,
			                near_hi, ties_lo, ties_hi);
		}
	}
	free(lo);
	free(hi);
	return bad;
}

// Every internal node's children are separated along some axis: no centroid
// of the first child beyond any of the second's (true of both splits).
static inline uint32_t tree_check_separated(const aabb_tree *tree, const float *positions, const uint32_t *indices,
                                            tree_check_result *r)
{
	uint32_t *lo, *hi;
	uint32_t bad = tree_check_ranges(tree, &lo, &hi, r);
	if (bad == UINT32_MAX)
		return 1;
	for (uint32_t i = 0; i < tree->node_count; ++i) {
		const vkcol_gpu_node *n = &tree->nodes[i];
		if (n->count > 0)
			continue;
		bool separated = false;
		for (int axis = 0; axis < 3 && !separated; ++axis) {
			float first_max = -INFINITY, second_min = INFINITY;
			for (int side = 0; side < 2; ++side)
				for (uint32_t j = lo[n->first + side]; j < hi[n->first + side]; ++j) {
					float c = tree_check_centroid(tree, positions, indices, j, axis);
					if (side == 0)
						first_max = fmaxf(first_max, c);
					else
						second_min = fminf(second_min, c);
				}
			separated = first_max <= second_min;
		}
		if (!separated) {
			bad++;
			tree_check_fail(r, "node %u: no axis separates its children's centroids", i);
		}
	}
	free(lo);
	free(hi);
	return bad;
}
