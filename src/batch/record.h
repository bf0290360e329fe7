// SPDX-License-Identifier: MIT
// Recorded queries (record.c): vkcol_gpu_batch and vkcol_batch_record.
#pragma once

#include "batch/batch.h"

// Frees every vkcol_gpu_batch of the batch state (vkcol_context_destroy,
// before the pool and the meshes they read).
void record_free_all(batch_scope *s);

// The device buffer holding a recorded exact batch's pairs as its passes
// read them (after record.comp's prepare pass: the records' ids), the last
// chunk's; VK_NULL_HANDLE for an approx batch. For tests.
VkBuffer record_exact_pairs(const vkcol_gpu_batch *b);
