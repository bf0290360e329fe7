// SPDX-License-Identifier: MIT
// Exact mode's list of intersecting triangle pairs (vkcol_batch_desc.triangles,
// triangle_list.c): what the device listed, what the CPU reference adds, and
// the cut that keeps whole pairs when the list is full.
#pragma once

#include "batch/batch.h"

// Where the listed triangle pairs go (desc->triangles): entries of the
// current chunk start at chunk_start; once the list is cut (full, or a
// chunk's device list overflowed) nothing more is added.
typedef struct list_sink {
	vkcol_triangle_list *out;
	uint64_t chunk_start;
	bool cut;
} list_sink;

// Adds the triangle pairs the device listed for a pass's n pairs (position
// i of the pass answers pair at[i], in increasing order) to the caller's
// list: those of the longest run of pairs from the first whose entries all
// fit. entries: the device list, 4 words (pass position, triangle a,
// triangle b, 0) per entry; found: how many it counted, of which it holds
// at most capacity. Pairs left undecided (rerun later) are skipped: their
// rerun lists them.
void list_take(list_sink *sink, const uint32_t *entries, uint32_t found, uint32_t capacity, const uint64_t *at,
               uint32_t n, const vkcol_pair_result *results);

// Adds pair `at`'s intersecting triangle pairs as the CPU reference finds
// them (a and b: its meshes, b in a's frame by b_in_a), as many as fit;
// returns how many there are.
uint64_t list_add_reference(list_sink *sink, uint64_t at, const mesh_cpu *a, const mesh_cpu *b,
                            const ref_transform *b_in_a);

// After a chunk of pairs first .. first + count - 1 (and its reruns): sorts
// the chunk's entries, and if some were lost (the caller's list is full, or
// the device's overflowed), keeps the pairs, in order, whose entries are all
// there, up to the first one that is not, and lists nothing more.
void list_close_chunk(list_sink *sink, const vkcol_pair_result *results, uint64_t first, uint64_t count);
