// SPDX-License-Identifier: MIT
// Vertex levels of detail for approx mode's vertex budget
// (vkcol_batch_desc.vertex_budget): nested in resolution like a cube map's
// mips, each level keeps about a quarter of the vertices of the one before
// (surface samples: halving their spacing quadruples them), spread evenly
// over the surface by uniform-grid vertex clustering (Rossignac and Borrel,
// "Multi-resolution 3D approximations for rendering complex scenes", 1993):
// one vertex per occupied cell, the one nearest the cell's centre, the cell
// size chosen so that the level holds at most its share.
#pragma once

#include "core.h"
#include "geometry/mesh_cpu.h"

// Levels stop before one would keep fewer than this many vertices: a
// budget below it gets the coarsest level.
#define VERTEX_LOD_MIN 64u
#define VERTEX_LOD_MAX_LEVELS 8u

typedef struct vertex_lod {
	// Level l = 1 .. level_count (level 0 is every used vertex, not stored)
	// keeps count[l - 1] vertices (welded representatives, indices into
	// mesh_cpu.positions), vertices[first[l - 1] ..].
	uint32_t level_count;
	uint32_t count[VERTEX_LOD_MAX_LEVELS];
	uint32_t first[VERTEX_LOD_MAX_LEVELS];
	// The grid's cell edge per level: every used vertex lies in a cell
	// whose kept vertex is within sqrt(3) cell of it.
	double cell[VERTEX_LOD_MAX_LEVELS];
	uint32_t used; // level 0's vertex count: the welded vertices some triangle uses
	uint32_t *vertices;
	bool built;
} vertex_lod;

// Builds m's levels: level l keeps at most used >> 2l vertices. Deterministic.
// Returns VKCOL_ERROR_OUT_OF_HOST_MEMORY when its memory cannot be had.
vkcol_result vertex_lod_build(const core_env *env, const mesh_cpu *m, vertex_lod *out);

// The level a budget picks: 0 when every vertex fits, else the finest level
// of at most `budget` vertices, else the coarsest.
uint32_t vertex_lod_level(const vertex_lod *lod, uint32_t budget);

void vertex_lod_free(const core_env *env, vertex_lod *lod);
