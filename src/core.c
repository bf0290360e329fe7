// SPDX-License-Identifier: MIT
// Allocation through the caller's hooks (or libc), logging through the
// caller's logger (or stderr), parallel tasks (the caller's job system, the
// calling thread, or short-lived threads of the library's own), and the
// names of results.
#include "core.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *libc_alloc(void *user, size_t size)
{
	(void)user;
	return malloc(size);
}

static void libc_free(void *user, void *ptr)
{
	(void)user;
	free(ptr);
}

static void stderr_log(void *user, vkcol_log_level level, const char *message)
{
	(void)user;
	static const char *const names[] = {"", "error", "warning", "info", "debug"};
	fprintf(stderr, "vkcollide: %s: %s\n", names[level <= VKCOL_LOG_DEBUG ? level : 0], message);
}

void core_env_init(core_env *env, const vkcol_allocator *allocator, vkcol_log_fn log, void *log_user,
                   vkcol_log_level level)
{
	memset(env, 0, sizeof(*env));
	// Both hooks or neither: a caller-supplied alloc with libc free would corrupt.
	if (allocator && allocator->alloc && allocator->free) {
		env->allocator = *allocator;
	} else {
		env->allocator.alloc = libc_alloc;
		env->allocator.free = libc_free;
	}
	env->log = log ? log : stderr_log;
	env->log_user = log ? log_user : NULL;
	env->level = (level == VKCOL_LOG_DEFAULT || level > VKCOL_LOG_DEBUG) ? VKCOL_LOG_WARNING : level;
}

void core_env_set_parallel(core_env *env, vkcol_threads threads, vkcol_parallel_fn parallel, void *parallel_user)
{
	env->threads = threads;
	env->parallel = parallel;
	env->parallel_user = parallel ? parallel_user : NULL;
}

// One thread's share of core_parallel_for: tasks first, first + stride, ...
typedef struct parallel_share {
	void (*task)(void *user, uint32_t index);
	void *user;
	uint32_t first, stride, count;
} parallel_share;

static void *run_share(void *arg)
{
	const parallel_share *share = arg;
	for (uint32_t i = share->first; i < share->count; i += share->stride)
		share->task(share->user, i);
	return NULL;
}

void core_parallel_for(const core_env *env, uint32_t count, void (*task)(void *user, uint32_t index), void *user)
{
	if (count == 0)
		return;
	if (env->parallel) {
		env->parallel(env->parallel_user, count, task, user);
		return;
	}
	long cores = env->threads == VKCOL_THREADS_CALLER ? 1 : sysconf(_SC_NPROCESSORS_ONLN);
	uint32_t width = cores < 1 ? 1 : cores > (long)CORE_MAX_THREADS ? CORE_MAX_THREADS : (uint32_t)cores;
	width = width > count ? count : width;
	pthread_t threads[CORE_MAX_THREADS];
	parallel_share shares[CORE_MAX_THREADS];
	bool started[CORE_MAX_THREADS] = {false};
	for (uint32_t i = 0; i < width; i++)
		shares[i] = (parallel_share){task, user, i, width, count};
	for (uint32_t i = 1; i < width; i++)
		started[i] = pthread_create(&threads[i], NULL, run_share, &shares[i]) == 0;
	run_share(&shares[0]);
	for (uint32_t i = 1; i < width; i++) {
		if (started[i])
			pthread_join(threads[i], NULL);
		else
			run_share(&shares[i]);
	}
}

void *core_alloc(const core_env *env, size_t size)
{
	if (size == 0)
		size = 1;
	void *p = env->allocator.alloc(env->allocator.user, size);
	if (!p)
		core_log(env, VKCOL_LOG_ERROR, "out of host memory allocating %zu bytes", size);
	return p;
}

void *core_calloc(const core_env *env, size_t count, size_t size)
{
	if (size != 0 && count > SIZE_MAX / size) {
		core_log(env, VKCOL_LOG_ERROR, "allocation of %zu x %zu bytes overflows", count, size);
		return NULL;
	}
	void *p = core_alloc(env, count * size);
	if (p)
		memset(p, 0, count * size);
	return p;
}

void core_free(const core_env *env, void *ptr)
{
	if (ptr)
		env->allocator.free(env->allocator.user, ptr);
}

bool core_grow(const core_env *env, void **array, size_t elem, size_t *capacity, size_t need)
{
	if (need <= *capacity)
		return true;
	size_t cap = *capacity ? *capacity : 8;
	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			return false;
		cap *= 2;
	}
	if (elem != 0 && cap > SIZE_MAX / elem)
		return false;
	void *p = core_alloc(env, cap * elem);
	if (!p)
		return false;
	if (*array)
		memcpy(p, *array, *capacity * elem);
	memset((char *)p + *capacity * elem, 0, (cap - *capacity) * elem);
	core_free(env, *array);
	*array = p;
	*capacity = cap;
	return true;
}

void core_logv(const core_env *env, vkcol_log_level level, const char *fmt, va_list args)
{
	if (!env || level > env->level)
		return;
	char message[1024];
	vsnprintf(message, sizeof(message), fmt, args);
	env->log(env->log_user, level, message);
}

void core_log(const core_env *env, vkcol_log_level level, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	core_logv(env, level, fmt, args);
	va_end(args);
}

VKCOL_API const char *vkcol_result_string(vkcol_result result)
{
	switch (result) {
	case VKCOL_SUCCESS:
		return "success";
	case VKCOL_ERROR_INVALID_ARGUMENT:
		return "invalid argument";
	case VKCOL_ERROR_OUT_OF_HOST_MEMORY:
		return "out of host memory";
	case VKCOL_ERROR_OUT_OF_DEVICE_MEMORY:
		return "out of device memory";
	case VKCOL_ERROR_VULKAN_UNAVAILABLE:
		return "Vulkan is unavailable (no loader or no instance)";
	case VKCOL_ERROR_NO_DEVICE:
		return "no suitable Vulkan device";
	case VKCOL_ERROR_DEVICE_LOST:
		return "device lost";
	case VKCOL_ERROR_VULKAN:
		return "Vulkan error";
	case VKCOL_ERROR_UNSUPPORTED:
		return "unsupported by the device";
	case VKCOL_ERROR_EMPTY_MESH:
		return "empty mesh";
	case VKCOL_ERROR_INDEX_OUT_OF_RANGE:
		return "index out of range";
	case VKCOL_ERROR_NON_FINITE_POSITION:
		return "non-finite vertex coordinate";
	case VKCOL_ERROR_TOO_LARGE:
		return "too large";
	case VKCOL_ERROR_INVALID_HANDLE:
		return "invalid handle";
	case VKCOL_ERROR_INTERRUPTED:
		return "interrupted";
	case VKCOL_ERROR_OUT_OF_DATE:
		return "out of date (a mesh was created or destroyed since)";
	}
	return "unknown result";
}
