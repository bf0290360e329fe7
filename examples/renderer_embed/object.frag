// SPDX-License-Identifier: MIT
// Flat shading from the surface's screen-space derivatives: red for an
// object in a colliding pair, yellow for one in an undecided pair, grey
// otherwise.
#version 450

layout(location = 0) in vec3 world;
layout(location = 1) flat in uint mark;
layout(location = 0) out vec4 colour;

void main()
{
	vec3 n = normalize(cross(dFdx(world), dFdy(world)));
	float light = 0.3 + 0.7 * abs(dot(n, normalize(vec3(0.4, -0.5, 0.75))));
	vec3 base = (mark & 1u) != 0u ? vec3(0.85, 0.1, 0.08) : (mark & 2u) != 0u ? vec3(0.9, 0.8, 0.1) : vec3(0.62);
	colour = vec4(base * light, 1.0);
}
