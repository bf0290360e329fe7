// SPDX-License-Identifier: MIT
// The context: creates the GPU device and owns the library's pipelines, the
// mesh table and the batch pool, and tears them down in the one order that
// frees each before what it was made from. The public functions that need
// the mesh table (meshes, the reference answers) unpack the context here.
#include "context.h"

#include <math.h>
#include <string.h>


VKCOL_API vkcol_result vkcol_context_create(const vkcol_context_desc *desc, vkcol_context **out)
{
	static const vkcol_context_desc defaults = {0};
	if (!out)
		return VKCOL_ERROR_INVALID_ARGUMENT;
	*out = NULL;
	if (!desc)
		desc = &defaults;
	core_env env;
	core_env_init(&env, &desc->allocator, desc->log, desc->log_user, desc->log_level);
	if (desc->validation > VKCOL_VALIDATION_OFF) {
		CORE_ERROR(&env, "vkcol_context_desc.validation: %d is not a vkcol_validation value", (int)desc->validation);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	if (desc->threads > VKCOL_THREADS_CALLER) {
		CORE_ERROR(&env, "vkcol_context_desc.threads: %d is not a vkcol_threads value", (int)desc->threads);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	core_env_set_parallel(&env, desc->threads, desc->parallel, desc->parallel_user);
	vkcol_context *ctx = core_calloc(&env, 1, sizeof(*ctx));
	if (!ctx)
		return VKCOL_ERROR_OUT_OF_HOST_MEMORY;
	ctx->env = env;
	ctx->meshes.env = &ctx->env;
	vkcol_result res = gpu_device_create(&ctx->gpu, &ctx->env, desc);
	if (res != VKCOL_SUCCESS) {
		vkcol_context_destroy(ctx);
		return res;
	}
	*out = ctx;
	return VKCOL_SUCCESS;
}

VKCOL_API void vkcol_context_destroy(vkcol_context *ctx)
{
	if (!ctx)
		return;
	// Each layer before the ones it was made from: the batch pool copies
	// the meshes, the meshes' maps were built with the pipelines, and all
	// of them live on the device.
	gpu_device_wait_idle(&ctx->gpu);
	batch_scope scope;
	batch_scope_of(ctx, &scope);
	batch_state_free(&scope);
	mesh_table_destroy(&ctx->meshes, &ctx->gpu);
	pipeline_table_destroy(&ctx->gpu, &ctx->pipelines);
	gpu_device_destroy(&ctx->gpu);
	core_env env = ctx->env;
	core_free(&env, ctx);
}

bool batch_scope_of(vkcol_context *ctx, batch_scope *out)
{
	if (!ctx)
		return false;
	*out = (batch_scope){&ctx->env, &ctx->gpu, &ctx->pipelines, &ctx->meshes, &ctx->batch};
	return true;
}

VKCOL_API vkcol_result vkcol_context_get_device_info(const vkcol_context *ctx, vkcol_device_info *out)
{
	if (!ctx || !out)
		return VKCOL_ERROR_INVALID_ARGUMENT;
	*out = ctx->gpu.info;
	return VKCOL_SUCCESS;
}

VKCOL_API uint64_t vkcol_context_trim(vkcol_context *ctx)
{
	if (!ctx)
		return 0;
	uint64_t before = ctx->gpu.memory_bytes;
	gpu_scratch_free_all(&ctx->gpu);
	return before - ctx->gpu.memory_bytes;
}

VKCOL_API uint64_t vkcol_context_validation_message_count(const vkcol_context *ctx)
{
	return ctx ? ctx->gpu.validation_messages : 0;
}

VKCOL_API vkcol_result vkcol_enumerate_devices(const vkcol_context_desc *desc, vkcol_device_info *infos,
                                               uint32_t capacity, uint32_t *count, uint32_t *chosen)
{
	static const vkcol_context_desc defaults = {0};
	if (!count || (capacity > 0 && !infos))
		return VKCOL_ERROR_INVALID_ARGUMENT;
	if (!desc)
		desc = &defaults;
	core_env env;
	core_env_init(&env, &desc->allocator, desc->log, desc->log_user, desc->log_level);
	return gpu_enumerate_devices(&env, desc->device, infos, capacity, count, chosen);
}

VKCOL_API vkcol_result vkcol_mesh_create(vkcol_context *ctx, const vkcol_mesh_desc *desc, vkcol_mesh *out)
{
	if (out != NULL)
		out->id = 0;
	if (ctx == NULL || out == NULL) {
		if (ctx != NULL)
			CORE_ERROR(&ctx->env, "vkcol_mesh_create: out must not be NULL");
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	return mesh_table_add(&ctx->meshes, &ctx->gpu, &ctx->pipelines, desc, out);
}

VKCOL_API void vkcol_mesh_destroy(vkcol_context *ctx, vkcol_mesh mesh)
{
	if (ctx == NULL || mesh.id == 0)
		return;
	const char *why = "";
	mesh_slot *slot = mesh_table_find(&ctx->meshes, mesh, &why);
	if (slot == NULL) {
		CORE_WARN(&ctx->env, "vkcol_mesh_destroy: ignoring mesh handle %#x, which %s", mesh.id, why);
		return;
	}
	mesh_table_remove(&ctx->meshes, &ctx->gpu, slot);
}

VKCOL_API vkcol_result vkcol_mesh_get_info(const vkcol_context *ctx, vkcol_mesh mesh, vkcol_mesh_info *out)
{
	if (out != NULL)
		memset(out, 0, sizeof(*out));
	if (ctx == NULL || out == NULL) {
		if (ctx != NULL)
			CORE_ERROR(&ctx->env, "vkcol_mesh_get_info: out must not be NULL");
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	const mesh_slot *slot = mesh_table_get(&ctx->meshes, mesh);
	if (slot == NULL)
		return VKCOL_ERROR_INVALID_HANDLE;
	mesh_table_info(slot, out);
	return VKCOL_SUCCESS;
}

// A public reference call's pair: its two meshes and B's frame in A's.
typedef struct reference_args {
	const mesh_cpu *a, *b;
	ref_transform b_in_a;
} reference_args;

// Checks a public reference call's arguments and looks its pair up; logs
// what is wrong, naming the call, and returns its error.
static vkcol_result reference_pair(const vkcol_context *ctx, const vkcol_pair *pair, bool outputs_given,
                                   const char *call, reference_args *out)
{
	if (ctx == NULL || pair == NULL || !outputs_given) {
		if (ctx != NULL)
			CORE_ERROR(&ctx->env, "%s: the pair and the outputs must not be NULL", call);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	return mesh_table_pair(&ctx->meshes, pair, call, &out->a, &out->b, &out->b_in_a);
}

// What a public reference call answers about a pair, as a double (collide:
// 1 or 0).
typedef enum reference_query { REFERENCE_COLLIDE, REFERENCE_DISTANCE, REFERENCE_TOUCH } reference_query;

// The shared body of the public reference calls that answer one value: the
// pair looked up (reference_pair), then the query; *value gets the call's
// default (no collision, an infinite distance, no band) on any error.
static vkcol_result reference_answer(const vkcol_context *ctx, const vkcol_pair *pair, const char *call,
                                     reference_query query, double *value)
{
	const double defaults[] = {[REFERENCE_COLLIDE] = 0.0, [REFERENCE_DISTANCE] = INFINITY, [REFERENCE_TOUCH] = 0.0};
	if (value != NULL)
		*value = defaults[query];
	reference_args r;
	vkcol_result res = reference_pair(ctx, pair, value != NULL, call, &r);
	if (res != VKCOL_SUCCESS)
		return res;
	switch (query) {
	case REFERENCE_COLLIDE:
		*value = ref_collide_env(&ctx->env, r.a, r.b, &r.b_in_a) ? 1.0 : 0.0;
		break;
	case REFERENCE_DISTANCE:
		*value = ref_surface_distance(r.a, r.b, &r.b_in_a);
		break;
	case REFERENCE_TOUCH:
		*value = ref_touch_distance(r.a, r.b, &r.b_in_a);
		break;
	}
	return VKCOL_SUCCESS;
}

VKCOL_API vkcol_result vkcol_reference_collide(const vkcol_context *ctx, const vkcol_pair *pair, bool *collide)
{
	double value = 0.0;
	vkcol_result res =
	    reference_answer(ctx, pair, "vkcol_reference_collide", REFERENCE_COLLIDE, collide ? &value : NULL);
	if (collide != NULL)
		*collide = value != 0.0;
	return res;
}

VKCOL_API vkcol_result vkcol_reference_distance(const vkcol_context *ctx, const vkcol_pair *pair, double *distance)
{
	return reference_answer(ctx, pair, "vkcol_reference_distance", REFERENCE_DISTANCE, distance);
}

VKCOL_API vkcol_result vkcol_pair_touch_distance(const vkcol_context *ctx, const vkcol_pair *pair, double *distance)
{
	return reference_answer(ctx, pair, "vkcol_pair_touch_distance", REFERENCE_TOUCH, distance);
}

VKCOL_API vkcol_result vkcol_reference_triangle_pairs(const vkcol_context *ctx, const vkcol_pair *pair,
                                                      vkcol_triangle_pair *entries, uint64_t capacity,
                                                      uint64_t *count)
{
	if (count != NULL)
		*count = 0;
	reference_args r;
	vkcol_result res = reference_pair(ctx, pair, count != NULL && (capacity == 0 || entries != NULL),
	                                  "vkcol_reference_triangle_pairs", &r);
	if (res == VKCOL_SUCCESS)
		*count = ref_triangle_pairs(r.a, r.b, &r.b_in_a, entries, capacity);
	return res;
}
