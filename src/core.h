// SPDX-License-Identifier: MIT
// Allocation, logging, parallel CPU work and the TRY macro shared by every
// part of the library. A core_env is what CPU-only code (tree building, the
// reference, the clearance fields) needs from a context, so that it can run
// and be tested without a device. (The GPU layer's VK_TRY is in
// gpu/device.h.)
#pragma once

#include "vkcollide.h"

#include <stdarg.h>

typedef struct core_env {
	vkcol_allocator allocator; // both hooks set (libc when the caller gave none)
	vkcol_log_fn log;          // never NULL
	void *log_user;
	vkcol_log_level level;     // most verbose level delivered
	vkcol_threads threads;     // how core_parallel_for runs tasks when `parallel` is NULL
	vkcol_parallel_fn parallel; // the caller's job system, or NULL
	void *parallel_user;
} core_env;

// Fills env from the desc fields (NULL hooks = libc, NULL log = stderr);
// parallel work on the library's own threads (core_env_set_parallel).
void core_env_init(core_env *env, const vkcol_allocator *allocator, vkcol_log_fn log, void *log_user,
                   vkcol_log_level level);

// How core_parallel_for runs its tasks: through `parallel` when it is not
// NULL, else as `threads` says (vkcol_context_desc's fields).
void core_env_set_parallel(core_env *env, vkcol_threads threads, vkcol_parallel_fn parallel, void *parallel_user);

// Calls task(user, i) once for each i < count and returns when all have
// returned: through the caller's job system, on the calling thread alone, or
// on up to CORE_MAX_THREADS threads of the library's own (one per online
// core, the calling thread among them, started and joined here; a thread
// that cannot be started leaves its tasks to the calling thread). Tasks must
// not depend on which thread runs them, nor on their order.
#define CORE_MAX_THREADS 16u
void core_parallel_for(const core_env *env, uint32_t count, void (*task)(void *user, uint32_t index), void *user);

void *core_alloc(const core_env *env, size_t size);
// Zero-filled; NULL when count * size overflows.
void *core_calloc(const core_env *env, size_t count, size_t size);
void core_free(const core_env *env, void *ptr);
// Grows *array (of element size elem) to hold at least need elements,
// doubling; *capacity is updated. Returns false on allocation failure or
// overflow, leaving *array untouched.
bool core_grow(const core_env *env, void **array, size_t elem, size_t *capacity, size_t need);

#if defined(__GNUC__)
#define CORE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CORE_PRINTF(f, a)
#endif

void core_log(const core_env *env, vkcol_log_level level, const char *fmt, ...) CORE_PRINTF(3, 4);
void core_logv(const core_env *env, vkcol_log_level level, const char *fmt, va_list args);

#define CORE_ERROR(env, ...) core_log((env), VKCOL_LOG_ERROR, __VA_ARGS__)
#define CORE_WARN(env, ...) core_log((env), VKCOL_LOG_WARNING, __VA_ARGS__)
#define CORE_INFO(env, ...) core_log((env), VKCOL_LOG_INFO, __VA_ARGS__)
#define CORE_DEBUG(env, ...) core_log((env), VKCOL_LOG_DEBUG, __VA_ARGS__)

// Evaluates an expression returning vkcol_result; on failure stores it in
// `res` and jumps to cleanup.
#define TRY(expr)                                                                          \
	do {                                                                                   \
		res = (expr);                                                                      \
		if (res != VKCOL_SUCCESS)                                                          \
			goto cleanup;                                                                  \
	} while (0)

#define CORE_COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))
