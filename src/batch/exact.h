// SPDX-License-Identifier: MIT
// Exact mode (exact.c).
#pragma once

#include "batch/batch.h"
#include "batch/timing.h"

// Exact mode's pipelines, in exact_buffers.pipes and .sets.
enum {
	EXACT_SETUP,
	EXACT_ARGS,
	EXACT_TRAVERSE,
	EXACT_CONTAIN,
	EXACT_DIVE,
	EXACT_LEAVES,
	EXACT_SEARCH,
	EXACT_TRIANGLES,
	EXACT_WALK,
	EXACT_CONFIRM,
	EXACT_PIPELINES
};

typedef struct exact_buffers {
	gpu_buffer pairs, results, state, frames, counters, args, list;
	// Level l reads frontier l % 2 (through its texel view) and appends to
	// the other (a storage binding); sets[i][l % 2] binds them so. Two buffers, not
	// halves of one: each binding then covers only what the level reads or
	// writes, so synchronization validation sees that the level's three
	// dispatches, which have no barrier between them, read nothing the others
	// write.
	gpu_buffer frontiers[2];
	VkDescriptorSet sets[EXACT_PIPELINES][2];
	gpu_pipeline *pipes[EXACT_PIPELINES];
	uint32_t chunk, capacity, levels, list_capacity, flags;
	bool recorded;      // a recorded batch's own buffers, else scratch buffers (exact_buffers_free gives them back)
	uint32_t budget;    // depth-first steps per item of a diving pair (1: breadth first only)
	uint32_t seed_budget; // depth-first steps of a diving pair's first item
	uint32_t scout_budget; // ... of a scout, a breadth-first pair's first item (1: none)
	uint32_t dive_base; // frontier slots [dive_base, capacity) hold depth-first items
	uint32_t leaf_base; // [0, leaf_base) breadth-first items, [leaf_base, dive_base) leaf-leaf ones; then
	                    // from capacity, dive_base - leaf_base slots: the triangle pairs the leaf culls left
	uint32_t obb_base;  // the bound node pool's vkcol_exact_params.obb_base
	batch_timer timer;  // VKCOL_BATCH_TIMESTAMPS: one slot, a chunk's submission at a time (none when recorded)
} exact_buffers;


// Does exact mode place and test triangles in double on this device
// (shaderFloat64: the _fp64 pipelines, pairs uploaded as given)?
bool exact_in_double(const batch_scope *s);

// Exact mode's traversal policy on this device: the VKCOL_EXACT_NO_PROBE
// and VKCOL_EXACT_DIVE_OPEN bits of its params (shared.h), which
// exact_buffers_create adds unless every triangle pair is listed. The knob
// exact_policy, when set, is EXACT_POLICY_SET with the bits to use.
#define EXACT_POLICY_SET 0x80000000u
uint32_t exact_policy(const batch_scope *s);

// Exact mode's buffers for chunks of up to `chunk` pairs (b->chunk: fewer
// when the frontier's breadth-first region holds fewer), its pipelines (in
// the precision the device allows, specialized for map_array) and their
// descriptor sets, on the current pool. recorded_sets: VK_NULL_HANDLE for
// vkcol_batch_run (the pairs written through a mapping, the answers and
// counters read back, the sets from the pipelines' own pools); a recorded
// batch's descriptor pool for vkcol_batch_record (every buffer
// device-local, the sets from that pool, which outlive the pipelines'
// pools' resets; the frontiers sized for the chunk).
vkcol_result exact_buffers_create(batch_scope *s, uint32_t chunk, uint32_t list_capacity, uint32_t flags,
                                  uint32_t map_array, bool obb, VkDescriptorPool recorded_sets, exact_buffers *b);
// Accepts zeroed buffers.
void exact_buffers_free(batch_scope *s, exact_buffers *b);

// Records the passes of one chunk of n pairs (b->pairs holds them, b->results
// gets their answers): counters cleared, setup, search, walk, the levels,
// containment, with the barriers between them and one after the last.
// per_pair: NULL = the setup and containment passes run n invocations; else
// their indirect dispatch, for a count the device computes (vkcol_batch_record:
// the pair slots past that count, up to a whole workgroup, hold pairs that
// stage 0 decides). timer: NULL, or a timer begun on slot 0 of cmd, which
// gets a timestamp after each pass (timing.h).
void exact_record_chunk(batch_scope *s, VkCommandBuffer cmd, const exact_buffers *b, uint32_t n,
                        const gpu_indirect *per_pair, batch_timer *timer);

// Answers desc's pairs (validated; the pool holds every mesh) in exact mode,
// in input order, in chunks submitted and waited for one at a time; lists
// their intersecting triangle pairs in desc->triangles when it is set;
// counts desc->stats's early accepts, level items, reruns and CPU
// fallbacks. map_array: as pairs_validate gives it.
vkcol_result exact_run(batch_scope *s, const vkcol_batch_desc *desc, uint32_t map_array, bool obb,
                       vkcol_pair_result *results);
