// SPDX-License-Identifier: MIT
// Approx mode (approx.c).
#pragma once

#include "batch/batch.h"
#include "batch/timing.h"

// Approx mode's pipelines: approx_pairs.comp, its spilled variant,
// approx_groups.comp, approx_jobs.comp.
enum { APPROX_PAIRS, APPROX_SPILLED, APPROX_SPILLED_LIST, APPROX_GROUPS, APPROX_JOBS, APPROX_PIPELINES };

// One chunk's buffers, pipelines and descriptor sets: a frame of approx_run
// (its buffers the context's scratch), or a recorded batch's (its own).
typedef struct approx_chunk {
	gpu_buffer *pairs;    // room pairs
	gpu_buffer *results;  // room results
	gpu_buffer *stats;    // VKCOL_STAT_WORDS counters, zeroed per chunk when collected
	gpu_buffer *jobs;     // cluster jobs, group jobs (shared.h): approx_jobs_bytes
	gpu_buffer *job_args; // their indirect dispatches and counts
	gpu_pipeline *pipes[APPROX_PIPELINES];
	VkDescriptorSet sets[APPROX_PIPELINES];
	uint32_t job_capacity, group_capacity, spill_capacity; // spill_capacity: the chunk's pairs
} approx_chunk;

// Pairs per chunk: `most` (0 = the default, 2^16) within the device's
// dispatch and binding limits.
uint32_t approx_chunk_limit(const batch_scope *s, uint32_t most);

// Sets c's job lists' capacities for chunks of `room` pairs.
void approx_job_capacities(const batch_scope *s, uint64_t room, approx_chunk *c);

// Bytes of c's job buffer (after approx_job_capacities).
VkDeviceSize approx_jobs_bytes(const approx_chunk *c);

// Gets the pipelines (specialized for map_array) and writes c's descriptor
// sets on the current pool for its buffers: from the pipelines' own pools
// when recorded_sets is VK_NULL_HANDLE (vkcol_batch_run), else from
// recorded_sets (a recorded batch's, whose sets outlive those pools' resets).
vkcol_result approx_chunk_bind(batch_scope *s, uint32_t map_array, VkDescriptorPool recorded_sets, approx_chunk *c);

// Records one chunk's passes over n pairs (c->pairs holds them, c->results
// gets their answers): the job lists emptied (and the counters zeroed when
// `stats`), approx_pairs, approx_groups, approx_jobs, approx_spilled, with
// a barrier before each and after the last. per_pair: NULL = approx_pairs
// runs n invocations; else its indirect dispatch, for a count the device
// computes (vkcol_batch_record: the slots past that count, up to a whole
// workgroup, hold pairs that stage 0 decides). mesh_index_mask: how the
// pairs' ids name pool records (MESH_MAX_COUNT; all ones where a vertex
// budget rewrote them, pool_budget_pair).
// timer: NULL, or a timer begun on `slot` of cmd, which gets a timestamp
// after each pass (timing.h).
void approx_record_chunk(batch_scope *s, VkCommandBuffer cmd, const approx_chunk *c, uint32_t n, uint32_t mip_level,
                         uint32_t mesh_index_mask, bool stats, const gpu_indirect *per_pair, batch_timer *timer,
                         uint32_t slot);

// Answers desc's pairs (validated; the pool holds every mesh, with its
// clearance field) in approx mode, in input order, counting desc->stats's
// vertex tests and cube samples. map_array: as pairs_validate gives it.
vkcol_result approx_run(batch_scope *s, const vkcol_batch_desc *desc, uint32_t map_array, vkcol_pair_result *results);
