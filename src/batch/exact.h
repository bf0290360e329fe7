// SPDX-License-Identifier: MIT
// Exact mode (exact.c).
#pragma once

#include "batch/batch.h"

// Answers desc's pairs (validated; the pool holds every mesh) in exact mode,
// in input order, in chunks submitted and waited for one at a time; lists
// their intersecting triangle pairs in desc->triangles when it is set;
// counts desc->stats's early accepts, level items, reruns and CPU
// fallbacks. map_array: as pairs_validate gives it.
vkcol_result exact_run(batch_scope *s, const vkcol_batch_desc *desc, uint32_t map_array, vkcol_pair_result *results);
