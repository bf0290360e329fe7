// SPDX-License-Identifier: MIT
// The context's mesh table: slots named by generation-checked handles, each
// holding a mesh's CPU analysis, its device copies, its cube map (Intel,
// US 7,928,993; mesh/cubemap.c), its cone bounds and, once an approx batch
// needed it, its clearance field.
#include "mesh/mesh_table.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "geometry/cone_bound.h"
#include "gpu/device.h"

#define MESH_DEFAULT_CUBE_RESOLUTION 64u

// Handles keep the low 12 bits of a slot's generation.
#define MESH_GENERATION_MASK ((1u << (32u - MESH_INDEX_BITS)) - 1u)

vkcol_mesh mesh_table_handle(const mesh_table *t, uint32_t index)
{
	vkcol_mesh h = {((t->slots[index].generation & MESH_GENERATION_MASK) << MESH_INDEX_BITS) | (index + 1)};
	return h;
}

mesh_slot *mesh_table_find(const mesh_table *t, vkcol_mesh mesh, const char **why)
{
	uint32_t low = mesh.id & MESH_MAX_COUNT;
	if (mesh.id == 0 || low == 0) {
		*why = "is zero";
		return NULL;
	}
	uint32_t index = low - 1;
	if (index >= t->capacity || t->slots == NULL) {
		*why = "is out of range (from another context?)";
		return NULL;
	}
	mesh_slot *slot = &t->slots[index];
	if (!slot->used || (slot->generation & MESH_GENERATION_MASK) != mesh.id >> MESH_INDEX_BITS) {
		*why = "refers to a destroyed mesh";
		return NULL;
	}
	return slot;
}

mesh_slot *mesh_table_get(const mesh_table *t, vkcol_mesh mesh)
{
	const char *why = "";
	mesh_slot *slot = mesh_table_find(t, mesh, &why);
	if (slot == NULL)
		CORE_ERROR(t->env, "mesh handle %#x %s", mesh.id, why);
	return slot;
}

// Frees what the slot holds, keeping its generation.
static void slot_release(mesh_table *t, gpu_device *gpu, mesh_slot *slot)
{
	gpu_buffer_destroy(gpu, &slot->vertices);
	gpu_buffer_destroy(gpu, &slot->triangles);
	gpu_buffer_destroy(gpu, &slot->nodes);
	cubemap_destroy(gpu, &slot->cube);
	core_free(t->env, slot->cone_bounds);
	clearance_free(t->env, &slot->clearance);
	vertex_lod_free(t->env, &slot->lod);
	mesh_cpu_free(t->env, &slot->cpu);
	uint32_t generation = slot->generation;
	memset(slot, 0, sizeof(*slot));
	slot->generation = generation;
}

// A device buffer named after the mesh, holding size bytes of data.
static vkcol_result upload(gpu_device *gpu, const char *mesh_name, const char *what, const void *data,
                           VkDeviceSize size, gpu_buffer *out)
{
	char name[96];
	snprintf(name, sizeof(name), "%s %s", mesh_name, what);
	return gpu_buffer_create_filled(gpu, data, size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, name, out);
}

// The device copies cubemap_build reads: the vertices as they are, the
// triangles in tree order with their original index, the tree's nodes.
static vkcol_result upload_mesh(gpu_device *gpu, mesh_slot *slot)
{
	const core_env *env = gpu->env;
	const mesh_cpu *m = &slot->cpu;
	vkcol_result res = VKCOL_SUCCESS;
	vkcol_gpu_vertex *vertices = core_calloc(env, m->vertex_count, sizeof(vkcol_gpu_vertex));
	vkcol_gpu_triangle *triangles = core_calloc(env, m->triangle_count, sizeof(vkcol_gpu_triangle));
	if (vertices == NULL || triangles == NULL) {
		res = VKCOL_ERROR_OUT_OF_HOST_MEMORY;
		goto cleanup;
	}
	for (uint32_t v = 0; v < m->vertex_count; ++v) {
		vertices[v].x = m->positions[3 * (size_t)v];
		vertices[v].y = m->positions[3 * (size_t)v + 1];
		vertices[v].z = m->positions[3 * (size_t)v + 2];
	}
	for (uint32_t i = 0; i < m->triangle_count; ++i) {
		uint32_t t = m->tree.triangles[i];
		triangles[i].v0 = m->indices[3 * (size_t)t];
		triangles[i].v1 = m->indices[3 * (size_t)t + 1];
		triangles[i].v2 = m->indices[3 * (size_t)t + 2];
		triangles[i].original = t;
	}
	TRY(upload(gpu, m->name, "vertices", vertices, (VkDeviceSize)m->vertex_count * sizeof(vkcol_gpu_vertex),
	           &slot->vertices));
	TRY(upload(gpu, m->name, "triangles", triangles, (VkDeviceSize)m->triangle_count * sizeof(vkcol_gpu_triangle),
	           &slot->triangles));
	TRY(upload(gpu, m->name, "tree nodes", m->tree.nodes, (VkDeviceSize)m->tree.node_count * sizeof(vkcol_gpu_node),
	           &slot->nodes));
cleanup:
	core_free(env, vertices);
	core_free(env, triangles);
	return res;
}

vkcol_result mesh_table_add(mesh_table *t, gpu_device *gpu, pipeline_table *pipelines, const vkcol_mesh_desc *desc,
                            vkcol_mesh *out)
{
	const core_env *env = t->env;
	vkcol_result res = VKCOL_SUCCESS;
	mesh_slot *slot = NULL;
	uint32_t index = 0;

	// A free slot, or a new one.
	for (index = 0; index < t->capacity; ++index) {
		if (!t->slots[index].used)
			break;
	}
	if (index == t->capacity) {
		if (index >= MESH_MAX_COUNT) {
			CORE_ERROR(env, "vkcol_mesh_create: the context already holds %u meshes, the most it can", index);
			return VKCOL_ERROR_TOO_LARGE;
		}
		size_t capacity = t->capacity;
		if (!core_grow(env, (void **)&t->slots, sizeof(mesh_slot), &capacity, (size_t)index + 1))
			return VKCOL_ERROR_OUT_OF_HOST_MEMORY;
		// Handles have MESH_INDEX_BITS for the index: never hand out more.
		t->capacity = capacity > MESH_MAX_COUNT ? MESH_MAX_COUNT : (uint32_t)capacity;
	}
	slot = &t->slots[index];

	struct timespec t0, t1, t2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	TRY(mesh_cpu_build(env, desc, &slot->cpu));
	const mesh_cpu *m = &slot->cpu;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	TRY(upload_mesh(gpu, slot));
	slot->cube_resolution = desc->cube_resolution ? desc->cube_resolution : MESH_DEFAULT_CUBE_RESOLUTION;
	slot->cone_bounds = core_calloc(env, VKCOL_CONE_FLOATS, sizeof(float));
	if (slot->cone_bounds == NULL) {
		res = VKCOL_ERROR_OUT_OF_HOST_MEMORY;
		goto cleanup;
	}
	TRY(cubemap_build(gpu, pipelines, &t->sampler, m, &slot->vertices, &slot->triangles, &slot->nodes,
	                  slot->cube_resolution, &slot->cube, m->closed ? NULL : slot->cone_bounds));
	cone_bounds_build(m, slot->cube_resolution, slot->cone_bounds);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	slot->analysis_seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
	slot->cube_map_seconds = (double)(t2.tv_sec - t1.tv_sec) + 1e-9 * (double)(t2.tv_nsec - t1.tv_nsec);
	slot->used = true;
	*out = mesh_table_handle(t, index);
	CORE_DEBUG(env, "mesh '%s': %u vertices (%u unique), %u triangles, %s, tree depth %u, %u nodes", m->name,
	           m->vertex_count, m->unique_vertex_count, m->triangle_count, m->closed ? "closed" : "open",
	           m->tree.depth, m->tree.node_count);

cleanup:
	if (res != VKCOL_SUCCESS && slot != NULL)
		slot_release(t, gpu, slot);
	return res;
}

void mesh_table_remove(mesh_table *t, gpu_device *gpu, mesh_slot *slot)
{
	slot_release(t, gpu, slot);
	slot->generation++;
}

void mesh_table_info(const mesh_slot *slot, vkcol_mesh_info *out)
{
	const mesh_cpu *m = &slot->cpu;
	out->vertex_count = m->vertex_count;
	out->unique_vertex_count = m->unique_vertex_count;
	out->triangle_count = m->triangle_count;
	out->degenerate_count = m->degenerate_count;
	out->closed = m->closed;
	out->boundary_edge_count = m->boundary_edge_count;
	out->nonmanifold_edge_count = m->nonmanifold_edge_count;
	// In the caller's coordinates.
	for (int k = 0; k < 3; ++k) {
		double c = m->centre[k];
		out->aabb_min[k] = (float)(m->aabb_min[k] + c);
		out->aabb_max[k] = (float)(m->aabb_max[k] + c);
		out->sphere_center[k] = (float)(m->sphere_center[k] + c);
		out->origin[k] = (float)(m->origin[k] + c);
	}
	out->sphere_radius = m->sphere_radius;
	out->origin_inside = m->origin_inside;
	out->inner_radius = m->origin_inside ? m->inner_radius : 0.0;
	out->inner_ball_count = m->ball_count;
	out->volume = m->volume;
	out->tree_depth = m->tree.depth;
	out->tree_node_count = m->tree.node_count;
	out->tree_leaf_count = m->tree.leaf_count;
	out->tree_leaf_min = m->tree.leaf_min;
	out->tree_leaf_max = m->tree.leaf_max;
	out->tree_leaf_mean = m->tree.leaf_count ? (float)((double)m->triangle_count / m->tree.leaf_count) : 0.0f;
	out->cube_resolution = slot->cube_resolution;
	out->device_bytes = (uint64_t)slot->vertices.size + slot->triangles.size + slot->nodes.size + slot->cube.bytes;
	out->cube_multi_hit_fraction = slot->cube.multi_hit_fraction;
	out->star_shaped = slot->cube.multi_hit_fraction == 0.0f;
	out->tree_seconds = m->tree_seconds;
	out->analysis_seconds = slot->analysis_seconds;
	out->cube_map_seconds = slot->cube_map_seconds;
}

vkcol_result mesh_table_pair(const mesh_table *t, const vkcol_pair *pair, const char *call, const mesh_cpu **a,
                             const mesh_cpu **b, ref_transform *b_in_a)
{
	const mesh_slot *sa = mesh_table_get(t, pair->a);
	const mesh_slot *sb = mesh_table_get(t, pair->b);
	if (sa == NULL || sb == NULL)
		return VKCOL_ERROR_INVALID_HANDLE;
	if (!ref_pair_transform(&sa->cpu, &sb->cpu, &pair->pose_a, &pair->pose_b, b_in_a)) {
		CORE_ERROR(t->env, "%s: a pose has a zero or non-finite rotation, or a non-finite translation", call);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	*a = &sa->cpu;
	*b = &sb->cpu;
	return VKCOL_SUCCESS;
}

void mesh_table_destroy(mesh_table *t, gpu_device *gpu)
{
	for (uint32_t i = 0; i < t->capacity; i++)
		if (t->slots[i].used)
			mesh_table_remove(t, gpu, &t->slots[i]);
	cubemap_sampler_destroy(gpu, &t->sampler);
	core_free(t->env, t->slots);
	t->slots = NULL;
	t->capacity = 0;
}
