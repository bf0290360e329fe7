// SPDX-License-Identifier: MIT
// Draws one object (renderer_embed.c): its mesh's vertices placed by the
// pose the animation pass wrote, its colour from the marks the colour pass
// made from vkcollide's answers. gl_InstanceIndex is the object.
#version 450
#include "scene.glsl"

layout(location = 0) in vec3 position;
layout(std430, binding = 0) readonly buffer Poses { pose poses[]; };
layout(std430, binding = 1) readonly buffer Hits { uint hits[]; };
layout(push_constant) uniform Push { mat4 view_projection; };

layout(location = 0) out vec3 world;
layout(location = 1) flat out uint mark;

void main()
{
	pose p = poses[gl_InstanceIndex];
	world = rotate(p.q, position) + p.t.xyz;
	mark = hits[gl_InstanceIndex];
	gl_Position = view_projection * vec4(world, 1.0);
}
