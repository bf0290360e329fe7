// SPDX-License-Identifier: MIT
// The device's memory bandwidth: each invocation copies vec4s from one
// buffer to the other, consecutive invocations consecutive vec4s (a grid
// stride loop), the plainest traffic a device can have. raw_rates.c counts
// the bytes read plus the bytes written.
#version 450
#include "copy_raw.h"
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uvec4 dst[]; };
layout(push_constant) uniform Push { vkcol_copy_raw_params params; };

void main()
{
	uint i = linear_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
	for (; i < params.vec4s; i += params.invocations)
		dst[i] = src[i];
}
