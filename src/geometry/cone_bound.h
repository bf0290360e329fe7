// SPDX-License-Identifier: MIT
// Cone bounds of a distance cube map: per cell of a coarse cube, an upper
// bound of the map's outer distance (channel G) over a cone of directions
// (the layout is in shaders/shared.h, the lookup in shaders/cone_bound.glsl).
#pragma once

#include "geometry/mesh_cpu.h"

// Fills out (VKCOL_CONE_FLOATS floats) for mesh m and a map of the given
// resolution: each bound is at least the outer distance that linear
// filtering at level 0 can return in any direction within
// VKCOL_CONE_ANGLE(level) of the cell. The map stores per texel the farthest
// surface point on the texel's ray; that point lies on a triangle the ray
// meets, no farther than the triangle's farthest vertex. So the bound is the
// largest vertex distance over the triangles whose bounding cone (from the
// origin) comes within the cell's radius + the level's angle + the filter's
// reach (4 texels of angle) of the cell centre, found by a pruned walk of the
// mesh's AABB tree. Padding slots are 0.
void cone_bounds_build(const mesh_cpu *m, uint32_t resolution, float *out);

// How far from a sample's direction linear filtering at level 0 of a map of
// this resolution reads texels, in radians, with room for rounding: a texel
// spans at most 2 / resolution radians, and filtering (seamless across
// faces) reads texels within 1.5 texels of the direction; 4 texels are
// allowed. The cone bounds and the clearance fields (clearance.h) both
// widen by it.
double cone_filter_reach(uint32_t resolution);
