// SPDX-License-Identifier: MIT
// GLSL helpers shared by the compute shaders.
#ifndef VKCOL_COMMON_GLSL
#define VKCOL_COMMON_GLSL

// Linear workgroup index of a dispatch that gpu_pipeline_dispatch may have
// split into a 2D grid (maxComputeWorkGroupCount is 65535 on lavapipe).
uint linear_group_id()
{
	return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
}

// Direction through the centre of texel (i, j) of cube face `face` (0..5 =
// +X -X +Y -Y +Z -Z) at resolution n, following the face selection and
// (s, t) conventions of the Vulkan specification ("Cube Map Face Selection
// and Transformations"): s = (sc / |ma| + 1) / 2, t = (tc / |ma| + 1) / 2.
vec3 cube_texel_direction(uint face, uint i, uint j, uint n)
{
	float sc = 2.0 * (float(i) + 0.5) / float(n) - 1.0;
	float tc = 2.0 * (float(j) + 0.5) / float(n) - 1.0;
	switch (face) {
	case 0u: return vec3(1.0, -tc, -sc);
	case 1u: return vec3(-1.0, -tc, sc);
	case 2u: return vec3(sc, 1.0, tc);
	case 3u: return vec3(sc, -1.0, -tc);
	case 4u: return vec3(sc, -tc, 1.0);
	default: return vec3(-sc, -tc, -1.0);
	}
}

// Rotation matrix of the unit quaternion q = (w, x, y, z) stored as
// vec4(x, y, z, w); GLSL matrices are column major.
mat3 quat_to_mat3(vec4 q)
{
	float x = q.x, y = q.y, z = q.z, w = q.w;
	// precise: no fused multiply-adds, so that every shader and call site
	// gets the same bits (approx mode answers a pair in two passes alike).
	precise mat3 m = mat3(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z), 2.0 * (x * z - w * y),
	                      2.0 * (x * y - w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + w * x),
	                      2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y));
	return m;
}

#endif
