// SPDX-License-Identifier: MIT
// Exact mode's list of intersecting triangle pairs: the device appends hits
// to a list per chunk; the host keeps whole pairs of it, adds the pairs the
// CPU reference answered, sorts each chunk, and cuts between pairs when the
// caller's list or the device's is full, so that every pair it lists is
// listed completely.
#include "batch/triangle_list.h"

void list_take(list_sink *sink, const uint32_t *entries, uint32_t found, uint32_t capacity, const uint64_t *at,
               uint32_t n, const vkcol_pair_result *results)
{
	vkcol_triangle_list *out = sink->out;
	if (sink->cut)
		return;
	if (found > capacity)
		out->truncated = true; // the device list overflowed: list_close_chunk trims
	uint64_t room = out->capacity - out->count, need = 0;
	uint32_t fit = 0; // pairs 0 .. fit - 1 of the pass fit
	while (fit < n && need + results[at[fit]].triangle_pairs <= room)
		need += results[at[fit++]].triangle_pairs;
	if (fit < n)
		out->truncated = true;
	uint32_t stored = found < capacity ? found : capacity;
	for (uint32_t k = 0; k < stored; k++) {
		uint32_t local = entries[4 * k];
		if (local >= fit || results[at[local]].stage == VKCOL_STAGE_NONE)
			continue;
		out->entries[out->count++] = (vkcol_triangle_pair){at[local], entries[4 * k + 1], entries[4 * k + 2]};
	}
}

uint64_t list_add_reference(list_sink *sink, uint64_t at, const mesh_cpu *a, const mesh_cpu *b,
                            const ref_transform *b_in_a)
{
	vkcol_triangle_list *out = sink->out;
	uint64_t room = sink->cut ? 0 : out->capacity - out->count;
	uint64_t found = ref_triangle_pairs(a, b, b_in_a, out->entries + out->count, room);
	uint64_t kept = found < room ? found : room;
	for (uint64_t k = 0; k < kept; k++)
		out->entries[out->count + k].pair = at;
	out->count += kept;
	if (found > room)
		out->truncated = true;
	return found;
}

void list_close_chunk(list_sink *sink, const vkcol_pair_result *results, uint64_t first, uint64_t count)
{
	vkcol_triangle_list *out = sink->out;
	if (sink->cut)
		return;
	vkcol_triangle_pair *e = out->entries + sink->chunk_start;
	uint64_t n = out->count - sink->chunk_start;
	ref_sort_triangle_pairs(e, n);
	if (out->truncated) {
		uint64_t k = 0;
		for (uint64_t pair = first; pair < first + count; pair++) {
			uint64_t run = 0;
			while (k + run < n && e[k + run].pair == pair)
				run++;
			if (run != results[pair].triangle_pairs)
				break;
			k += run;
		}
		out->count = sink->chunk_start + k;
		sink->cut = true;
	}
	sink->chunk_start = out->count;
}
