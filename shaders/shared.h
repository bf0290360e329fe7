// SPDX-License-Identifier: MIT
// Structures and constants shared by the C host and the GLSL shaders, so that
// std430 layouts cannot drift (the zeux/niagara approach). Only scalar members:
// no vec3 in std430, and the C side _Static_asserts every size.
#ifndef VKCOL_SHARED_H
#define VKCOL_SHARED_H

#ifdef VULKAN // GLSL compiled by glslc for Vulkan
#define VKCOL_U32 uint
#define VKCOL_F32 float
#define VKCOL_STRUCT(name) struct name
#define VKCOL_STRUCT_END(name) ;
#else
#include <stdint.h>
#define VKCOL_U32 uint32_t
#define VKCOL_F32 float
#define VKCOL_STRUCT(name) typedef struct name
#define VKCOL_STRUCT_END(name) name;
#endif

// Workgroup size of one-dimensional compute shaders (a specialization
// constant in the shaders, constant_id 0; this is its default).
#define VKCOL_WORKGROUP_SIZE 64

// A node of a flattened AABB tree. Nodes are stored breadth first: level k of
// the tree is one contiguous index range. count == 0: internal node whose
// children are nodes `first` and `first + 1`. count > 0: leaf holding the
// tree-ordered triangles first .. first + count - 1.
VKCOL_STRUCT(vkcol_gpu_node) {
	VKCOL_F32 min_x, min_y, min_z;
	VKCOL_U32 first;
	VKCOL_F32 max_x, max_y, max_z;
	VKCOL_U32 count;
} VKCOL_STRUCT_END(vkcol_gpu_node)

// A triangle in tree order: its three vertex indices and its index in the
// caller's triangle list (reported in results).
VKCOL_STRUCT(vkcol_gpu_triangle) {
	VKCOL_U32 v0, v1, v2;
	VKCOL_U32 original;
} VKCOL_STRUCT_END(vkcol_gpu_triangle)

// A vertex position padded to 16 bytes (std430 has no packed vec3 arrays).
VKCOL_STRUCT(vkcol_gpu_vertex) {
	VKCOL_F32 x, y, z, pad;
} VKCOL_STRUCT_END(vkcol_gpu_vertex)

// Push constants of the smoke-test shader.
VKCOL_STRUCT(vkcol_smoke_params) {
	VKCOL_U32 count;
	VKCOL_U32 multiplier;
} VKCOL_STRUCT_END(vkcol_smoke_params)

#ifndef VULKAN
_Static_assert(sizeof(vkcol_gpu_node) == 32, "std430 layout of vkcol_gpu_node");
_Static_assert(sizeof(vkcol_gpu_triangle) == 16, "std430 layout of vkcol_gpu_triangle");
_Static_assert(sizeof(vkcol_gpu_vertex) == 16, "std430 layout of vkcol_gpu_vertex");
_Static_assert(sizeof(vkcol_smoke_params) == 8, "push constant layout of vkcol_smoke_params");
#endif

#endif
