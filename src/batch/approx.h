// SPDX-License-Identifier: MIT
// Approx mode (approx.c).
#pragma once

#include "batch/batch.h"

// Answers desc's pairs (validated; the pool holds every mesh, with its
// clearance field) in approx mode, in input order, counting desc->stats's
// vertex tests and cube samples. map_array: as pairs_validate gives it.
vkcol_result approx_run(batch_scope *s, const vkcol_batch_desc *desc, uint32_t map_array, vkcol_pair_result *results);
