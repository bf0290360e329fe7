// SPDX-License-Identifier: MIT
// A batch's pairs (pairs.c): their validation and their copy for the device.
#pragma once

#include "batch/batch.h"

// Checks every pair of desc before any work starts, so that an error never
// discards answers already computed (the first bad pair is logged and its
// error returned). *map_array: the cube array every mesh of the batch has
// its map in, or VKCOL_MAP_ARRAYS when they differ (the map-sampling
// pipelines are specialized for it: map_sample.glsl). *obb: whether every
// mesh of the batch has oriented boxes (aabb_tree.h: the trees whose
// obb_worth makes them worth testing; the others' would hold all, and cost
// the tests for nothing).
vkcol_result pairs_validate(const batch_scope *s, const vkcol_batch_desc *desc, uint32_t *map_array, bool *obb);

// Into how many tasks pairs_validate and pairs_upload split count pairs, run
// by core_parallel_for (the context's threads): one per 2^14 pairs, at most
// PAIRS_MAX_TASKS, on a GPU; one on a CPU device (lavapipe), whose passes
// run on the same cores (a test knob overrides both).
#define PAIRS_MAX_TASKS 64u
uint32_t pairs_split(const batch_scope *s, uint64_t count);

// Copies pairs[at[i]] (pairs[i] when at is NULL), i < count, for the
// device, validated already. A pair of a recentred mesh (mesh_cpu.centre),
// or with a pose farther from the origin than 4x the meshes' reach from
// their own origins, goes as B's pose in A's stored frame with A at the
// identity, computed in double (ref_pair_pose): the shaders' float frames
// (make_frames) would otherwise subtract large translations and lose the
// precision of the meshes' size. Other pairs, and every pair when
// `as_given` (exact mode in double: exact_setup.comp composes the poses in
// double itself, centres included), go as they are. With `ids` (approx
// mode's vertex budget, pool_budget_ids) the mesh ids are written through
// it; with `exact_records` (vkcol_batch_run in exact mode) through
// pool_exact_pair. `out` is only written, whole pairs in order within each
// task (pairs_split): it may be device memory the host writes across the bus,
// where reading it back is slow.
void pairs_upload(const batch_scope *s, const vkcol_pair *pairs, uint64_t count, const uint64_t *at, bool as_given,
                  const uint32_t *ids, bool exact_records, vkcol_gpu_pair *out);
