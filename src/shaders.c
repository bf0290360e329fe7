// SPDX-License-Identifier: MIT
#include "shaders.h"

static const uint32_t smoke_spv[] = {
#include "smoke.spv.inc"
};

const shader_code shader_smoke = {smoke_spv, sizeof(smoke_spv)};
