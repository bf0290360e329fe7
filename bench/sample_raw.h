// SPDX-License-Identifier: MIT
// Push constants of bench/sample_raw.comp, shared by the shader and
// bench_sampling.c (shared.h's macros give both the same layout).
#ifndef VKCOL_BENCH_SAMPLE_RAW_H
#define VKCOL_BENCH_SAMPLE_RAW_H

#include "shared.h"

VKCOL_STRUCT(vkcol_sample_raw_params) {
	VKCOL_U32 invocations;
	VKCOL_U32 samples_per_invocation;
	VKCOL_U32 layers; // cubes in the array
	VKCOL_F32 lod;
} VKCOL_STRUCT_END(vkcol_sample_raw_params)

#ifndef VULKAN
_Static_assert(sizeof(vkcol_sample_raw_params) == 16, "push constant layout");
#endif

#endif
