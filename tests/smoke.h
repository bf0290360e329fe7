// SPDX-License-Identifier: MIT
// Push constants of tests/smoke.comp, shared by the shader and
// test_gpu_smoke.c (shared.h's macros give both the same layout).
#ifndef VKCOL_TEST_SMOKE_H
#define VKCOL_TEST_SMOKE_H

#include "shared.h"

VKCOL_STRUCT(vkcol_smoke_params) {
	VKCOL_U32 count;
	VKCOL_U32 multiplier;
} VKCOL_STRUCT_END(vkcol_smoke_params)

#ifndef VULKAN
_Static_assert(sizeof(vkcol_smoke_params) == 8, "push constant layout of vkcol_smoke_params");
#endif

#endif
