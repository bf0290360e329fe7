// SPDX-License-Identifier: MIT
// The renderer's own animation (renderer_embed.c), one invocation per pair
// of objects: each object's pose at the frame's time (an orbit about its
// home and a spin), written as the renderer's object poses (for drawing)
// and as vkcollide's pairs (vkcol_pair's std430 layout, 64 bytes), which
// the query recorded after this pass reads on the GPU.
#version 450
#include "scene.glsl"

layout(local_size_x = 64) in;

struct object {
	uint mesh_id;    // the vkcollide mesh (vkcol_mesh.id)
	uint pad0, pad1, pad2;
	vec4 home;       // xyz
	vec4 orbit;      // radius, angular speed, phase, lift
	vec4 spin;       // unit axis xyz, angular speed
};

// vkcol_pair: mesh ids, then pose a and pose b (quaternion w x y z,
// translation x y z).
struct vkcol_pair {
	uint mesh_a, mesh_b;
	float qa_w, qa_x, qa_y, qa_z, ta_x, ta_y, ta_z;
	float qb_w, qb_x, qb_y, qb_z, tb_x, tb_y, tb_z;
};

layout(std430, binding = 0) readonly buffer Objects { object objects[]; };
layout(std430, binding = 1) readonly buffer Frame { float time; uint object_count; uint pair_count; };
layout(std430, binding = 2) readonly buffer PairObjects { uvec2 pair_objects[]; };
layout(std430, binding = 3) writeonly buffer Poses { pose poses[]; };
layout(std430, binding = 4) writeonly buffer Pairs { vkcol_pair pairs[]; };

pose object_pose(uint i)
{
	object o = objects[i];
	float a = o.orbit.y * time + o.orbit.z;
	vec3 t = o.home.xyz + o.orbit.x * vec3(cos(a), sin(a), o.orbit.w * sin(2.0 * a));
	float half_angle = 0.5 * o.spin.w * time;
	return pose(vec4(o.spin.xyz * sin(half_angle), cos(half_angle)), vec4(t, 0.0));
}

void main()
{
	uint p = gl_GlobalInvocationID.x;
	if (p < object_count)
		poses[p] = object_pose(p);
	if (p >= pair_count)
		return;
	uvec2 ij = pair_objects[p];
	pose a = object_pose(ij.x), b = object_pose(ij.y);
	pairs[p] = vkcol_pair(objects[ij.x].mesh_id, objects[ij.y].mesh_id, a.q.w, a.q.x, a.q.y, a.q.z, a.t.x, a.t.y,
	                      a.t.z, b.q.w, b.q.x, b.q.y, b.q.z, b.t.x, b.t.y, b.t.z);
}
