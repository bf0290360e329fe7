// SPDX-License-Identifier: MIT
// The renderer uses vkcollide's answers on the GPU (renderer_embed.c): one
// invocation per pair, marking both objects of a colliding pair (bit 0),
// or of a pair the query left undecided (bit 1), for the vertex shader.
#version 450

layout(local_size_x = 64) in;

// vkcol_pair_result
struct result {
	uint collide, stage;
	float penetration;
	uint triangle_pairs;
};

layout(std430, binding = 0) readonly buffer Results { result results[]; };
layout(std430, binding = 1) readonly buffer PairObjects { uvec2 pair_objects[]; };
layout(std430, binding = 2) buffer Hits { uint hits[]; };
layout(push_constant) uniform Push { uint pair_count; };

void main()
{
	uint p = gl_GlobalInvocationID.x;
	if (p >= pair_count)
		return;
	result r = results[p];
	uint mark = r.collide != 0u ? 1u : r.stage == 0u ? 2u : 0u;
	if (mark != 0u) {
		atomicOr(hits[pair_objects[p].x], mark);
		atomicOr(hits[pair_objects[p].y], mark);
	}
}
