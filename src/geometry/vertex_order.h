// SPDX-License-Identifier: MIT
// The order of a mesh's vertices in the batch vertex pool: the cells of a
// k-d split, so that every cluster and every group of clusters the approx
// mode culls whole (shared.h) is a compact cell of space.
#pragma once

#include <stdint.h>

// A vertex index with the coordinate a split compares it by (scratch of
// vertex_order_cells).
typedef struct vertex_key {
	float key;
	uint32_t vertex;
} vertex_key;

// Reorders items[0 .. count) (their `vertex` fields index positions, 3
// floats per vertex; `key` is scratch) into the cells of a k-d split: a cell
// of more than `cluster` vertices is split at the median of the longest axis
// of its vertices' box, in whole groups (`group` vertices, a multiple of
// `cluster`) while it holds more than one group, then in whole clusters.
// Every run of `cluster` (or `group`) consecutive items from a multiple of
// `cluster` (or `group`) is then one cell; only the last run may be short.
// Deterministic; O(count log(count / cluster)) time, no memory of its own.
void vertex_order_cells(const float *positions, vertex_key *items, uint32_t count, uint32_t cluster,
                        uint32_t group);
