// SPDX-License-Identifier: MIT
// SPIR-V compiled from shaders/*.comp at build time and embedded in the
// library, so nothing is read from disk at run time: one module per shader
// and variant (shaders/meson.build).
#pragma once

#include <stddef.h>
#include <stdint.h>

typedef struct shader_code {
	const uint32_t *code;
	size_t size; // bytes
} shader_code;

extern const shader_code shader_cubemap_build;
extern const shader_code shader_cubemap_mip;
extern const shader_code shader_approx_pairs;
extern const shader_code shader_approx_spilled; // approx_pairs.comp, variant 1
extern const shader_code shader_approx_spilled_list; // approx_pairs.comp, variant 2
extern const shader_code shader_approx_groups;
extern const shader_code shader_approx_jobs;
extern const shader_code shader_exact_setup;
extern const shader_code shader_exact_search; // exact_setup.comp, variant 1
extern const shader_code shader_exact_walk;   // exact_setup.comp, variant 2
extern const shader_code shader_exact_args;
extern const shader_code shader_exact_traverse;
extern const shader_code shader_exact_dive;
extern const shader_code shader_exact_traverse_obb; // exact_traverse.comp, variant 1
extern const shader_code shader_exact_dive_obb;     // exact_dive.comp, variant 1
extern const shader_code shader_exact_contain;
extern const shader_code shader_exact_leaves;
extern const shader_code shader_exact_triangles; // exact_leaves.comp, variant 1
extern const shader_code shader_exact_confirm;   // exact_leaves.comp, variant 2
// In double (VKCOL_FP64), for devices with shaderFloat64.
extern const shader_code shader_exact_setup_fp64;
extern const shader_code shader_exact_search_fp64;
extern const shader_code shader_exact_walk_fp64;
extern const shader_code shader_exact_confirm_fp64;
extern const shader_code shader_exact_contain_fp64;
// Recorded queries' passes before and after each chunk's (record.comp).
extern const shader_code shader_record;
extern const shader_code shader_record_finish; // record.comp, variant 1
