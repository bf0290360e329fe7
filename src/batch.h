// SPDX-License-Identifier: MIT
// Batches of pair queries: the mesh pool the batch shaders read, chunking and
// double buffering.
#pragma once

#include "device.h"

// Frees the context's batch pool (called by vkcol_context_destroy).
void batch_pool_destroy(vkcol_context *ctx);
