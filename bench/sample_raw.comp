// SPDX-License-Identifier: MIT
// The device's raw cube-sampling rate: each invocation takes
// samples_per_invocation samples of one cube array at pseudo-random
// directions, with the sampler the batch stage uses, and writes their sum (so
// nothing is optimised away). The benchmark compares stage 1's samples per
// second with this (bench_sampling.c builds its pipeline through the
// library's GPU layer).
#version 450
#include "sample_raw.h"
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = 0) writeonly buffer Out { float sums[]; };
layout(set = 0, binding = 1) uniform samplerCubeArray map;
layout(push_constant) uniform Push { vkcol_sample_raw_params params; };

// PCG-style integer hash: cheap, decorrelated directions.
uint hash(uint x)
{
	x = x * 747796405u + 2891336453u;
	x = ((x >> ((x >> 28u) + 4u)) ^ x) * 277803737u;
	return (x >> 22u) ^ x;
}

void main()
{
	uint i = linear_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
	if (i >= params.invocations)
		return;
	uint h = hash(i);
	float sum = 0.0;
	for (uint s = 0u; s < params.samples_per_invocation; s++) {
		uint a = hash(h + s), b = hash(a), c = hash(b);
		vec3 d = vec3(float(a & 0xffffu), float(b & 0xffffu), float(c & 0xffffu)) / 32767.5 - 1.0;
		sum += textureLod(map, vec4(d, float(c % params.layers)), params.lod).g;
		h = c;
	}
	sums[i] = sum;
}
