// SPDX-License-Identifier: MIT
// Batches of pair queries: the mesh pool the batch shaders read, chunking and
// double buffering.
#pragma once

#include "context.h"

// Frees the context's batch pool (called by vkcol_context_destroy).
void batch_pool_destroy(vkcol_context *ctx);

// The device's raw cube-sampling rate (samples per second) on the pool's cube
// array of this resolution, with the batch stage's sampler: `samples` samples
// at pseudo-random directions, after one warm-up run. For the benchmarks;
// builds the pool if needed (at least one mesh of that resolution must exist).
vkcol_result batch_raw_sampling_rate(vkcol_context *ctx, uint32_t resolution, uint64_t samples, double *rate);
