// SPDX-License-Identifier: MIT
// The context: the GPU device, the library's pipelines, the mesh table and
// the batch pool, created and torn down in one place (context.c).
#pragma once

#include "batch/batch.h"
#include "gpu/device.h"
#include "mesh/mesh_table.h"
#include "pipelines.h"

struct vkcol_context {
	core_env env;
	gpu_device gpu;
	pipeline_table pipelines;
	mesh_table meshes;

	batch_state batch; // the batch pool and the test knobs
};
