// SPDX-License-Identifier: MIT
// Allocation, logging and the TRY macro shared by every part of the library.
// A core_env is what CPU-only code (tree building, the reference) needs from
// a context, so that it can run and be tested without a device. (The GPU
// layer's VK_TRY is in gpu/device.h.)
#pragma once

#include "vkcollide.h"

#include <stdarg.h>

typedef struct core_env {
	vkcol_allocator allocator; // both hooks set (libc when the caller gave none)
	vkcol_log_fn log;          // never NULL
	void *log_user;
	vkcol_log_level level;     // most verbose level delivered
} core_env;

// Fills env from the desc fields (NULL hooks = libc, NULL log = stderr).
void core_env_init(core_env *env, const vkcol_allocator *allocator, vkcol_log_fn log, void *log_user,
                   vkcol_log_level level);

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
