// SPDX-License-Identifier: MIT
// Vertex levels of detail by uniform-grid vertex clustering (Rossignac and
// Borrel, "Multi-resolution 3D approximations for rendering complex scenes",
// 1993): see vertex_lod.h.
#include "geometry/vertex_lod.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// A grid cell met so far: its key + 1 (0: empty slot), the vertex nearest
// its centre and that vertex's squared distance to it.
typedef struct cell {
	uint64_t key;
	uint32_t vertex;
	float d2;
} cell;

// Cell coordinates have 21 bits per axis.
#define CELL_AXIS_MAX ((1u << 21) - 1u)

// The cells of edge h (from lo) that the n vertices `list` occupy, in
// `table` (2^k slots, mask = 2^k - 1, at least 2 (limit + 1)). Returns how
// many, or limit + 1 as soon as there are more than limit.
static uint32_t grid_cells(const float *positions, const uint32_t *list, uint32_t n, const double lo[3], double h,
                           uint32_t limit, cell *table, uint32_t mask)
{
	memset(table, 0, ((size_t)mask + 1) * sizeof(cell));
	uint32_t cells = 0;
	for (uint32_t i = 0; i < n; i++) {
		const float *p = &positions[3 * (size_t)list[i]];
		uint64_t key = 0;
		float d2 = 0.0f;
		for (int k = 0; k < 3; k++) {
			double c = floor((p[k] - lo[k]) / h);
			uint32_t ic = c < 0 ? 0u : c > CELL_AXIS_MAX ? CELL_AXIS_MAX : (uint32_t)c;
			double off = p[k] - (lo[k] + (ic + 0.5) * h);
			d2 += (float)(off * off);
			key = key << 21 | ic;
		}
		key++;
		// Fibonacci hashing of the key.
		uint32_t s = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & mask;
		while (table[s].key != 0 && table[s].key != key)
			s = (s + 1) & mask;
		if (table[s].key == 0) {
			if (cells == limit)
				return limit + 1;
			table[s] = (cell){key, list[i], d2};
			cells++;
		} else if (d2 < table[s].d2 || (d2 == table[s].d2 && list[i] < table[s].vertex)) {
			table[s].vertex = list[i];
			table[s].d2 = d2;
		}
	}
	return cells;
}

static int compare_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

vkcol_result vertex_lod_build(const core_env *env, const mesh_cpu *m, vertex_lod *out)
{
	memset(out, 0, sizeof(*out));
	uint8_t *seen = core_calloc(env, m->vertex_count ? m->vertex_count : 1, 1);
	uint32_t *list = core_calloc(env, m->vertex_count ? m->vertex_count : 1, sizeof(uint32_t));
	uint32_t n = 0;
	if (!seen || !list)
		goto fail;
	for (size_t i = 0; i < 3 * (size_t)m->triangle_count; i++) {
		uint32_t v = m->weld ? m->weld[m->indices[i]] : m->indices[i];
		if (!seen[v]) {
			seen[v] = 1;
			list[n++] = v;
		}
	}
	core_free(env, seen);
	seen = NULL;
	qsort(list, n, sizeof(uint32_t), compare_u32);
	out->used = n;
	uint32_t levels = 0, total = 0;
	while (levels < VERTEX_LOD_MAX_LEVELS && (n >> (2 * (levels + 1))) >= VERTEX_LOD_MIN) {
		total += n >> (2 * (levels + 1));
		levels++;
	}
	out->built = true;
	if (levels == 0) {
		core_free(env, list);
		return VKCOL_SUCCESS;
	}
	// Room for level 1's share and one more, twice over.
	uint32_t slots = 1;
	while (slots < 2 * ((n >> 2) + 1))
		slots <<= 1;
	cell *table = core_calloc(env, slots, sizeof(cell));
	out->vertices = core_calloc(env, total, sizeof(uint32_t));
	if (!table || !out->vertices) {
		core_free(env, table);
		goto fail;
	}
	double lo[3], extent = 0.0;
	for (int k = 0; k < 3; k++) {
		lo[k] = m->aabb_min[k];
		extent = fmax(extent, (double)m->aabb_max[k] - m->aabb_min[k]);
	}
	if (!(extent > 0.0))
		extent = 1.0;
	// The smallest cell edge whose level keeps at most its share, by
	// bisection of the edge's logarithm between an edge that keeps more
	// (`small`) and one that keeps at most the share (`large`). Cells of
	// edge `extent` hold the box in at most 8 (at most any share); of
	// extent / 2^20, every distinct position alone (or clamped at the box's
	// far side, where a cell of 2^21 holds the rest): more than any share.
	// The first guess brackets from where a surface across the box would
	// keep the share, each next level from twice the last level's edge
	// (surfaces: a quarter of the vertices).
	uint32_t next = 0;
	double guess = extent / sqrt((double)(n >> 2));
	for (uint32_t l = 0; l < levels; l++) {
		uint32_t target = n >> (2 * (l + 1));
		const double floor_edge = extent / (double)(1u << 20);
		double small = fmax(guess / 2.0, floor_edge), large = fmin(guess * 2.0, extent);
		while (small > floor_edge && grid_cells(m->positions, list, n, lo, small, target, table, slots - 1) <= target)
			small = fmax(small / 4.0, floor_edge);
		while (large < extent && grid_cells(m->positions, list, n, lo, large, target, table, slots - 1) > target)
			large = fmin(large * 4.0, extent);
		for (int step = 0; step < 8; step++) {
			double h = sqrt(small * large);
			if (grid_cells(m->positions, list, n, lo, h, target, table, slots - 1) <= target)
				large = h;
			else
				small = h;
		}
		uint32_t cells = grid_cells(m->positions, list, n, lo, large, target, table, slots - 1);
		guess = 2.0 * large;
		out->first[l] = next;
		out->count[l] = cells;
		out->cell[l] = large;
		for (uint32_t s = 0; s < slots; s++)
			if (table[s].key != 0)
				out->vertices[next++] = table[s].vertex;
		// Independent of the hash table's layout.
		qsort(&out->vertices[out->first[l]], cells, sizeof(uint32_t), compare_u32);
	}
	out->level_count = levels;
	core_free(env, table);
	core_free(env, list);
	return VKCOL_SUCCESS;
fail:
	core_free(env, seen);
	core_free(env, list);
	vertex_lod_free(env, out);
	return VKCOL_ERROR_OUT_OF_HOST_MEMORY;
}

uint32_t vertex_lod_level(const vertex_lod *lod, uint32_t budget)
{
	if (budget == 0 || lod->used <= budget || lod->level_count == 0)
		return 0;
	for (uint32_t l = 1; l <= lod->level_count; l++)
		if (lod->count[l - 1] <= budget)
			return l;
	return lod->level_count;
}

void vertex_lod_free(const core_env *env, vertex_lod *lod)
{
	core_free(env, lod->vertices);
	memset(lod, 0, sizeof(*lod));
}
