// SPDX-License-Identifier: MIT
// What the renderer_embed example's shaders share: an object's pose (a
// unit quaternion, x y z w, and a position) and the rotation of a vector.
struct pose {
	vec4 q;
	vec4 t;
};

vec3 rotate(vec4 q, vec3 v)
{
	return v + 2.0 * cross(q.xyz, cross(q.xyz, v) + q.w * v);
}
