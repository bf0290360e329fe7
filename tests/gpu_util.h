// SPDX-License-Identifier: MIT
// Shared set-up of the GPU test suites: a context with the validation layer
// (from VKCOLLIDE_VALIDATION=1), a logger that counts unexpected messages, and
// mesh creation from meshgen.
#pragma once

#include <stdlib.h>

#include "meshgen.h"
#include "test.h"

static int gpu_log_errors;
static int gpu_log_expected; // > 0 while a test provokes that many messages
static char gpu_last_message[1024]; // the last warning or error, expected or not

static void gpu_test_log(void *user, vkcol_log_level level, const char *message)
{
	(void)user;
	if (level > VKCOL_LOG_WARNING)
		return;
	snprintf(gpu_last_message, sizeof(gpu_last_message), "%s", message);
	if (gpu_log_expected > 0) {
		gpu_log_expected--;
		return;
	}
	gpu_log_errors++;
	fprintf(stderr, "library: %s\n", message);
}

static inline vkcol_context *gpu_context(void)
{
	vkcol_context_desc desc = {.log = gpu_test_log};
	vkcol_context *ctx = NULL;
	vkcol_result r = vkcol_context_create(&desc, &ctx);
	if (r != VKCOL_SUCCESS) {
		fprintf(stderr, "vkcol_context_create: %s\n", vkcol_result_string(r));
		return NULL;
	}
	return ctx;
}

// Exit 77 (skipped) when no device exists at all.
static inline int gpu_probe(void)
{
	vkcol_context_desc quiet = {.log_level = VKCOL_LOG_ERROR};
	uint32_t count = 0;
	vkcol_device_info info;
	return vkcol_enumerate_devices(&quiet, &info, 1, &count, NULL) == VKCOL_SUCCESS && count > 0;
}

static inline vkcol_mesh gpu_mesh(vkcol_context *ctx, const meshgen_mesh *m, uint32_t resolution, const char *name)
{
	vkcol_mesh_desc d = meshgen_desc(m, name);
	d.cube_resolution = resolution;
	vkcol_mesh mesh = {0};
	vkcol_result r = vkcol_mesh_create(ctx, &d, &mesh);
	ENSURE_MSG(r == VKCOL_SUCCESS, "vkcol_mesh_create(%s): %s", name, vkcol_result_string(r));
	return mesh;
}

// A cube of half-extent `half` centred on the origin (12 triangles), at the
// given cube-map resolution. The library copies the data, so nothing is kept.
static inline vkcol_mesh gpu_cube(vkcol_context *ctx, float half, uint32_t resolution, const char *name)
{
	meshgen_mesh box;
	const float lo[3] = {-half, -half, -half}, hi[3] = {half, half, half};
	vkcol_mesh mesh = {0};
	ENSURE(meshgen_box(&box, lo, hi, 1, false));
	mesh = gpu_mesh(ctx, &box, resolution, name);
	meshgen_free(&box);
	return mesh;
}

static inline vkcol_pose pose_identity(void)
{
	vkcol_pose p = {{1, 0, 0, 0}, {0, 0, 0}};
	return p;
}

static inline vkcol_pose pose_at(float x, float y, float z)
{
	vkcol_pose p = {{1, 0, 0, 0}, {x, y, z}};
	return p;
}

// Rotation by angle (radians) about the unit axis (ax, ay, az), then a translation.
static inline vkcol_pose pose_rot(float angle, float ax, float ay, float az, float x, float y, float z)
{
	float s = sinf(angle / 2);
	vkcol_pose p = {{cosf(angle / 2), ax * s, ay * s, az * s}, {x, y, z}};
	return p;
}

// Every error or warning the library logged was one a test provoked.
static void test_no_unexpected_log_messages(void)
{
	ENSURE_EQ_INT(gpu_log_errors, 0);
}
