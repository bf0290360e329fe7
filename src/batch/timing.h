// SPDX-License-Identifier: MIT
// Device time per batch pass from Vulkan timestamp queries
// (VKCOL_BATCH_TIMESTAMPS, timing.c). A batch that is not timed has a timer
// with no query pool, and every call below then returns at once: the
// batch records no query and reads nothing back.
#pragma once

#include "batch/batch.h"

// The timestamps of one or more submissions in flight: each submission
// owns a range of the pool (a slot), begun by batch_timer_begin and read by
// batch_timer_collect once its fence has signalled.
typedef struct batch_timer {
	VkQueryPool pool;     // VK_NULL_HANDLE: not timing
	uint32_t per_slot;    // queries per slot
	uint32_t slots;
	uint32_t *used;       // per slot: queries written
	uint16_t *tags;       // per query: the stage and level its interval goes to
	uint64_t *values;     // per_slot readback values
	double tick_seconds;  // VkPhysicalDeviceLimits.timestampPeriod, in seconds
	uint64_t valid_mask;  // the queue family's timestampValidBits
	vkcol_batch_stats *stats;
} batch_timer;

// A tag: the vkcol_timed_stage of a pass and, for exact mode's traversal,
// its level (BATCH_TIMER_NO_LEVEL otherwise).
#define BATCH_TIMER_NO_LEVEL 0xffu
#define BATCH_TIMER_TAG(stage, level) ((uint16_t)(((unsigned)(stage) << 8) | ((level) & 0xffu)))

// Creates the timer of a batch: a pool of `slots` x `per_slot` queries when
// desc->flags has VKCOL_BATCH_TIMESTAMPS and the queue has timestamps
// (stats->timestamps then set), else an inactive timer. Zeroes *t first.
vkcol_result batch_timer_create(const batch_scope *s, const vkcol_batch_desc *desc, uint32_t slots, uint32_t per_slot,
                                batch_timer *t);
void batch_timer_destroy(const batch_scope *s, batch_timer *t);

// Whether the batch is timed (the upload and readback clocks run too).
static inline bool batch_timer_on(const batch_timer *t)
{
	return t->pool != VK_NULL_HANDLE;
}

// Records the reset of slot's queries and its first timestamp into cmd, at
// the start of a submission.
void batch_timer_begin(const batch_scope *s, batch_timer *t, VkCommandBuffer cmd, uint32_t slot);

// Records a timestamp after the passes recorded so far: the time from the
// previous timestamp to the moment they have all completed goes to `tag`.
// The caller sizes the slots for every mark it records; a mark beyond a
// slot's size is dropped (its time would be missing from the sums).
void batch_timer_mark(const batch_scope *s, batch_timer *t, VkCommandBuffer cmd, uint32_t slot, uint16_t tag);

// After the submission of slot has completed: reads its timestamps and adds
// each interval to stats (stage_seconds, level_seconds, gpu_seconds).
vkcol_result batch_timer_collect(const batch_scope *s, batch_timer *t, uint32_t slot);

// Adds the host seconds since `start` (batch_now) to *sum when timing.
static inline void batch_timer_host(const batch_timer *t, double start, double *sum)
{
	if (batch_timer_on(t))
		*sum += batch_now() - start;
}
