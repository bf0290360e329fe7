// SPDX-License-Identifier: MIT
// The context's mesh table: per mesh, its CPU analysis (geometry/mesh_cpu.h),
// its device copies, its cube map (cubemap.h), cone bounds and clearance
// field, in a slot that a vkcol_mesh handle names; and the sampler the batch
// shaders read every map with.
#pragma once

#include "geometry/clearance.h"
#include "geometry/reference.h"
#include "geometry/vertex_lod.h"
#include "gpu/memory.h"
#include "mesh/cubemap.h"
#include "pipelines.h"

// A vkcol_mesh id packs a slot's index + 1 (the low MESH_INDEX_BITS bits) and
// the low bits of the slot's generation above them, so that a stale handle
// to a reused slot is refused.
#define MESH_INDEX_BITS 20u
#define MESH_MAX_COUNT ((1u << MESH_INDEX_BITS) - 1u)

typedef struct mesh_slot {
	uint32_t generation; // bumped on destroy
	bool used;
	mesh_cpu cpu;
	// The device copies the cube map is built from.
	gpu_buffer vertices;  // vkcol_gpu_vertex per vertex
	gpu_buffer triangles; // vkcol_gpu_triangle per triangle, tree order
	gpu_buffer nodes;     // vkcol_gpu_node per node, breadth first
	uint32_t cube_resolution;
	cubemap cube;
	float *cone_bounds; // VKCOL_CONE_FLOATS, geometry/cone_bound.h
	// Wall time of vkcol_mesh_create's two parts (vkcol_mesh_info).
	double analysis_seconds, cube_map_seconds;
	// Built by the first approx batch that needs it (batch/pool.c), freed
	// with the slot.
	clearance_field clearance;
	// Likewise: approx mode's vertex levels of detail (its vertex budget).
	vertex_lod lod;
} mesh_slot;

typedef struct mesh_table {
	const core_env *env; // the context's; set before first use
	mesh_slot *slots;
	uint32_t capacity;
	cubemap_sampler sampler;
} mesh_table;

// The handle of slot `index` as it is now.
vkcol_mesh mesh_table_handle(const mesh_table *t, uint32_t index);

// The live slot a handle names, or NULL with *why set (the handle is zero,
// out of range or stale).
mesh_slot *mesh_table_find(const mesh_table *t, vkcol_mesh mesh, const char **why);

// mesh_table_find, with the error logged.
mesh_slot *mesh_table_get(const mesh_table *t, vkcol_mesh mesh);

// Validates and analyses desc (mesh_cpu_build), uploads the mesh, builds its
// cube map and cone bounds, in a free slot (or a new one) whose handle goes
// to *out. Logs the first problem, naming the mesh.
vkcol_result mesh_table_add(mesh_table *t, gpu_device *gpu, pipeline_table *pipelines, const vkcol_mesh_desc *desc,
                            vkcol_mesh *out);

// Frees a slot's mesh; its handle goes stale.
void mesh_table_remove(mesh_table *t, gpu_device *gpu, mesh_slot *slot);

// What vkcol_mesh_get_info reports of a slot.
void mesh_table_info(const mesh_slot *slot, vkcol_mesh_info *out);

// The meshes of a pair and B's frame in A's (ref_pair_transform), for the
// reference answers; logs what is wrong, naming `call`, and returns its
// error (a stale handle, a bad pose).
vkcol_result mesh_table_pair(const mesh_table *t, const vkcol_pair *pair, const char *call, const mesh_cpu **a,
                             const mesh_cpu **b, ref_transform *b_in_a);

// Frees every mesh, the sampler and the table.
void mesh_table_destroy(mesh_table *t, gpu_device *gpu);
