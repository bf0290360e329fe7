// SPDX-License-Identifier: MIT
// The SPIR-V of shaders/*.comp, compiled by glslc at build time
// (shaders/meson.build) and embedded as arrays.
#include "shaders.h"

static const uint32_t cubemap_build_spv[] = {
#include "cubemap_build.spv.inc"
};
const shader_code shader_cubemap_build = {cubemap_build_spv, sizeof(cubemap_build_spv)};

static const uint32_t cubemap_mip_spv[] = {
#include "cubemap_mip.spv.inc"
};
const shader_code shader_cubemap_mip = {cubemap_mip_spv, sizeof(cubemap_mip_spv)};

static const uint32_t approx_pairs_spv[] = {
#include "approx_pairs.spv.inc"
};
const shader_code shader_approx_pairs = {approx_pairs_spv, sizeof(approx_pairs_spv)};

static const uint32_t approx_spilled_spv[] = {
#include "approx_spilled.spv.inc"
};
const shader_code shader_approx_spilled = {approx_spilled_spv, sizeof(approx_spilled_spv)};
static const uint32_t approx_spilled_list_spv[] = {
#include "approx_spilled_list.spv.inc"
};
const shader_code shader_approx_spilled_list = {approx_spilled_list_spv, sizeof(approx_spilled_list_spv)};

static const uint32_t approx_groups_spv[] = {
#include "approx_groups.spv.inc"
};
const shader_code shader_approx_groups = {approx_groups_spv, sizeof(approx_groups_spv)};

static const uint32_t approx_jobs_spv[] = {
#include "approx_jobs.spv.inc"
};
const shader_code shader_approx_jobs = {approx_jobs_spv, sizeof(approx_jobs_spv)};

static const uint32_t exact_setup_spv[] = {
#include "exact_setup.spv.inc"
};
const shader_code shader_exact_setup = {exact_setup_spv, sizeof(exact_setup_spv)};

static const uint32_t exact_search_spv[] = {
#include "exact_search.spv.inc"
};
const shader_code shader_exact_search = {exact_search_spv, sizeof(exact_search_spv)};

static const uint32_t exact_walk_spv[] = {
#include "exact_walk.spv.inc"
};
const shader_code shader_exact_walk = {exact_walk_spv, sizeof(exact_walk_spv)};

static const uint32_t exact_args_spv[] = {
#include "exact_args.spv.inc"
};
const shader_code shader_exact_args = {exact_args_spv, sizeof(exact_args_spv)};

static const uint32_t exact_traverse_spv[] = {
#include "exact_traverse.spv.inc"
};
const shader_code shader_exact_traverse = {exact_traverse_spv, sizeof(exact_traverse_spv)};

static const uint32_t exact_dive_spv[] = {
#include "exact_dive.spv.inc"
};
const shader_code shader_exact_dive = {exact_dive_spv, sizeof(exact_dive_spv)};

static const uint32_t exact_traverse_obb_spv[] = {
#include "exact_traverse_obb.spv.inc"
};
const shader_code shader_exact_traverse_obb = {exact_traverse_obb_spv, sizeof(exact_traverse_obb_spv)};

static const uint32_t exact_dive_obb_spv[] = {
#include "exact_dive_obb.spv.inc"
};
const shader_code shader_exact_dive_obb = {exact_dive_obb_spv, sizeof(exact_dive_obb_spv)};

static const uint32_t exact_contain_spv[] = {
#include "exact_contain.spv.inc"
};
const shader_code shader_exact_contain = {exact_contain_spv, sizeof(exact_contain_spv)};

static const uint32_t exact_leaves_spv[] = {
#include "exact_leaves.spv.inc"
};
const shader_code shader_exact_leaves = {exact_leaves_spv, sizeof(exact_leaves_spv)};

static const uint32_t exact_triangles_spv[] = {
#include "exact_triangles.spv.inc"
};
const shader_code shader_exact_triangles = {exact_triangles_spv, sizeof(exact_triangles_spv)};

static const uint32_t exact_setup_fp64_spv[] = {
#include "exact_setup_fp64.spv.inc"
};
const shader_code shader_exact_setup_fp64 = {exact_setup_fp64_spv, sizeof(exact_setup_fp64_spv)};

static const uint32_t exact_search_fp64_spv[] = {
#include "exact_search_fp64.spv.inc"
};
const shader_code shader_exact_search_fp64 = {exact_search_fp64_spv, sizeof(exact_search_fp64_spv)};

static const uint32_t exact_walk_fp64_spv[] = {
#include "exact_walk_fp64.spv.inc"
};
const shader_code shader_exact_walk_fp64 = {exact_walk_fp64_spv, sizeof(exact_walk_fp64_spv)};

static const uint32_t exact_confirm_spv[] = {
#include "exact_confirm.spv.inc"
};
const shader_code shader_exact_confirm = {exact_confirm_spv, sizeof(exact_confirm_spv)};

static const uint32_t exact_confirm_fp64_spv[] = {
#include "exact_confirm_fp64.spv.inc"
};
const shader_code shader_exact_confirm_fp64 = {exact_confirm_fp64_spv, sizeof(exact_confirm_fp64_spv)};

static const uint32_t exact_contain_fp64_spv[] = {
#include "exact_contain_fp64.spv.inc"
};
const shader_code shader_exact_contain_fp64 = {exact_contain_fp64_spv, sizeof(exact_contain_fp64_spv)};

static const uint32_t record_spv[] = {
#include "record.spv.inc"
};
const shader_code shader_record = {record_spv, sizeof(record_spv)};

static const uint32_t record_finish_spv[] = {
#include "record_finish.spv.inc"
};
const shader_code shader_record_finish = {record_finish_spv, sizeof(record_finish_spv)};
