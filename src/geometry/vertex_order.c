// SPDX-License-Identifier: MIT
// K-d order of the batch pool's vertices (vertex_order.h). The split at the
// median of the longest axis is the k-d tree's of J. L. Bentley,
// "Multidimensional binary search trees used for associative searching",
// CACM 18(9), 1975; the median is found by Hoare's selection (C. A. R.
// Hoare, "Algorithm 65: Find", CACM 4(7), 1961).

#include "geometry/vertex_order.h"

#include <math.h>
#include <stddef.h>

// Reorders items[0 .. n) so that items[k] is the item a sort by key would
// put there, none before it with a larger key and none after it with a
// smaller one: Hoare's selection with a median-of-three pivot, linear on
// average, duplicate keys included.
static void select_nth(vertex_key *items, int64_t n, int64_t k)
{
	int64_t lo = 0, hi = n - 1;
	while (lo < hi) {
		float a = items[lo].key, b = items[lo + (hi - lo) / 2].key, c = items[hi].key;
		float pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
		int64_t i = lo, j = hi;
		while (i <= j) {
			while (items[i].key < pivot)
				i++;
			while (items[j].key > pivot)
				j--;
			if (i <= j) {
				vertex_key t = items[i];
				items[i++] = items[j];
				items[j--] = t;
			}
		}
		// [lo, j] <= pivot <= [i, hi]; between them, keys equal to it.
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

void vertex_order_cells(const float *positions, vertex_key *items, uint32_t count, uint32_t cluster,
                        uint32_t group)
{
	if (count <= cluster)
		return;
	float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (uint32_t i = 0; i < count; i++)
		for (int k = 0; k < 3; k++) {
			lo[k] = fminf(lo[k], positions[3 * (size_t)items[i].vertex + k]);
			hi[k] = fmaxf(hi[k], positions[3 * (size_t)items[i].vertex + k]);
		}
	int axis = 0;
	for (int k = 1; k < 3; k++)
		axis = hi[k] - lo[k] > hi[axis] - lo[axis] ? k : axis;
	for (uint32_t i = 0; i < count; i++)
		items[i].key = positions[3 * (size_t)items[i].vertex + axis];
	// count > unit: both sides get vertices, the left a whole number of
	// units, so every cell starts at a multiple of its unit and only the
	// rightmost, where the mesh's vertices end, may be short.
	uint32_t unit = count > group ? group : cluster;
	uint32_t left = (count + unit - 1) / unit / 2 * unit;
	select_nth(items, count, left);
	vertex_order_cells(positions, items, left, cluster, group);
	vertex_order_cells(positions, items + left, count - left, cluster, group);
}
