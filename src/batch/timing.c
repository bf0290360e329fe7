// SPDX-License-Identifier: MIT
// Device time per batch pass (timing.h): one timestamp after each pass,
// written at VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, so that it is taken once
// every command recorded before it has completed. No barrier is added:
// passes that overlap on the device keep overlapping, and the interval
// before a timestamp is the time its pass added.
#include "batch/timing.h"

#include <string.h>

vkcol_result batch_timer_create(const batch_scope *s, const vkcol_batch_desc *desc, uint32_t slots, uint32_t per_slot,
                                batch_timer *t)
{
	const core_env *env = s->env;
	vkcol_result res = VKCOL_SUCCESS;
	memset(t, 0, sizeof(*t));
	if (!(desc->flags & VKCOL_BATCH_TIMESTAMPS) || !desc->stats)
		return VKCOL_SUCCESS;
	uint32_t family_count = 0;
	s->gpu->vki.vkGetPhysicalDeviceQueueFamilyProperties(s->gpu->physical_device, &family_count, NULL);
	VkQueueFamilyProperties families[32];
	if (family_count > 32)
		family_count = 32;
	s->gpu->vki.vkGetPhysicalDeviceQueueFamilyProperties(s->gpu->physical_device, &family_count, families);
	uint32_t bits = s->gpu->queue_family < family_count ? families[s->gpu->queue_family].timestampValidBits : 0;
	if (bits == 0) {
		CORE_WARN(env, "VKCOL_BATCH_TIMESTAMPS: the device's queue family %u has no timestamps; no device times",
		          s->gpu->queue_family);
		return VKCOL_SUCCESS;
	}
	t->valid_mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
	t->tick_seconds = 1e-9 * (double)s->gpu->props.limits.timestampPeriod;
	t->slots = slots;
	t->per_slot = per_slot;
	t->used = core_calloc(env, slots, sizeof(uint32_t));
	t->tags = core_calloc(env, (size_t)slots * per_slot, sizeof(uint16_t));
	t->values = core_calloc(env, per_slot, sizeof(uint64_t));
	if (!t->used || !t->tags || !t->values) {
		res = VKCOL_ERROR_OUT_OF_HOST_MEMORY;
		goto cleanup;
	}
	VkQueryPoolCreateInfo info = {
	    .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
	    .queryType = VK_QUERY_TYPE_TIMESTAMP,
	    .queryCount = slots * per_slot,
	};
	VK_TRY(env, s->gpu->vk.vkCreateQueryPool(s->gpu->device, &info, NULL, &t->pool));
	t->stats = desc->stats;
	t->stats->timestamps = true;
cleanup:
	if (res != VKCOL_SUCCESS)
		batch_timer_destroy(s, t);
	return res;
}

void batch_timer_destroy(const batch_scope *s, batch_timer *t)
{
	if (t->pool)
		s->gpu->vk.vkDestroyQueryPool(s->gpu->device, t->pool, NULL);
	core_free(s->env, t->used);
	core_free(s->env, t->tags);
	core_free(s->env, t->values);
	memset(t, 0, sizeof(*t));
}

void batch_timer_begin(const batch_scope *s, batch_timer *t, VkCommandBuffer cmd, uint32_t slot)
{
	if (!batch_timer_on(t))
		return;
	uint32_t first = slot * t->per_slot;
	s->gpu->vk.vkCmdResetQueryPool(cmd, t->pool, first, t->per_slot);
	s->gpu->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, t->pool, first);
	t->used[slot] = 1;
}

void batch_timer_mark(const batch_scope *s, batch_timer *t, VkCommandBuffer cmd, uint32_t slot, uint16_t tag)
{
	if (!batch_timer_on(t) || t->used[slot] == 0 || t->used[slot] >= t->per_slot)
		return;
	uint32_t query = slot * t->per_slot + t->used[slot]++;
	t->tags[query] = tag;
	s->gpu->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, t->pool, query);
}

vkcol_result batch_timer_collect(const batch_scope *s, batch_timer *t, uint32_t slot)
{
	const core_env *env = s->env;
	vkcol_result res = VKCOL_SUCCESS;
	if (!batch_timer_on(t) || t->used[slot] < 2)
		return VKCOL_SUCCESS;
	uint32_t n = t->used[slot], first = slot * t->per_slot;
	t->used[slot] = 0;
	VK_TRY(env, s->gpu->vk.vkGetQueryPoolResults(s->gpu->device, t->pool, first, n, (size_t)n * sizeof(uint64_t),
	                                             t->values, sizeof(uint64_t),
	                                             VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
	vkcol_batch_stats *stats = t->stats;
	for (uint32_t i = 1; i < n; i++) {
		uint64_t a = t->values[i - 1] & t->valid_mask, b = t->values[i] & t->valid_mask;
		// Timestamps after commands that completed out of order may step
		// back by a tick or two: such an interval counts as empty.
		double dt = b >= a ? (double)(b - a) * t->tick_seconds : 0.0;
		uint16_t tag = t->tags[first + i];
		uint32_t stage = tag >> 8, level = tag & 0xffu;
		if (stage < VKCOL_TIMED_STAGE_COUNT)
			stats->stage_seconds[stage] += dt;
		if (level != BATCH_TIMER_NO_LEVEL && level < CORE_COUNT_OF(stats->level_seconds))
			stats->level_seconds[level] += dt;
		stats->gpu_seconds += dt;
	}
cleanup:
	return res;
}
