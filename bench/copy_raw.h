// SPDX-License-Identifier: MIT
// Push constants of bench/copy_raw.comp, shared by the shader and
// raw_rates.c (shared.h's macros give both the same layout).
#ifndef VKCOL_BENCH_COPY_RAW_H
#define VKCOL_BENCH_COPY_RAW_H

#include "shared.h"

VKCOL_STRUCT(vkcol_copy_raw_params) {
	VKCOL_U32 vec4s;       // 16-byte elements to copy
	VKCOL_U32 invocations; // the grid's invocations: each one's stride
	VKCOL_U32 pad0;
	VKCOL_U32 pad1;
} VKCOL_STRUCT_END(vkcol_copy_raw_params)

#ifndef VULKAN
_Static_assert(sizeof(vkcol_copy_raw_params) == 16, "push constant layout");
#endif

#endif
