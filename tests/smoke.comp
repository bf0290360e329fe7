// SPDX-License-Identifier: MIT
// Smoke test of the shader path (tests/test_gpu_smoke.c, which builds its
// pipeline through the GPU layer): out[i] = in[i] * multiplier + i.
#version 450
#include "smoke.h"

layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint values_in[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint values_out[]; };
layout(push_constant) uniform Push { vkcol_smoke_params params; };

void main()
{
	uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
	if (i >= params.count)
		return;
	values_out[i] = values_in[i] * params.multiplier + i;
}
