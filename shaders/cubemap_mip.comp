// SPDX-License-Identifier: MIT
// One mip level of a distance cube map from the level above: R (nearest
// surface) is the minimum of the four texels it covers, G (farthest surface)
// the maximum, so a coarser level stays conservative in both directions (a
// miss, VKCOL_MAP_MISS, is the least R of any texel it is among).
#version 450
#include "shared.h"
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = VKCOL_CUBEMAP_MIP_BINDING_TEXELS) buffer Texels { vec2 texels[]; };
layout(push_constant) uniform Push { vkcol_cubemap_mip_params params; };

void main()
{
	uint n = params.dst_resolution;
	uint texel = linear_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
	if (texel >= 6u * n * n)
		return;
	uint face = texel / (n * n);
	uint j = (texel / n) % n;
	uint i = texel % n;
	uint sn = 2u * n;
	uint base = params.src_offset + face * sn * sn + (2u * j) * sn + 2u * i;
	vec2 a = texels[base], b = texels[base + 1u], c = texels[base + sn], d = texels[base + sn + 1u];
	texels[params.dst_offset + texel] = vec2(min(min(a.x, b.x), min(c.x, d.x)), max(max(a.y, b.y), max(c.y, d.y)));
}
