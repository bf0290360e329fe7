// SPDX-License-Identifier: MIT
// Cone bounds of a distance cube map: per cell of a coarse cube, an upper
// bound of the map's outer distance (channel G) over a cone of directions,
// and for an open mesh bounds of its inner distance (R) and a lower bound of
// G (the layout is in shaders/shared.h, the lookup in
// shaders/cone_bound.glsl).
#pragma once

#include "core.h"
#include "geometry/mesh_cpu.h"

// Fills the first component of each cell's vec4 in out (VKCOL_CONE_FLOATS
// floats, the layout of shaders/shared.h; the other components are left as
// they are) for mesh m and a map of the given resolution: each bound is at
// least the outer distance that linear
// filtering at level 0 can return in any direction within
// VKCOL_CONE_ANGLE(level) of the cell. The map stores per texel the farthest
// surface point on the texel's ray; that point lies on a triangle the ray
// meets, no farther than the triangle's farthest vertex. So the bound is the
// largest vertex distance over the triangles whose bounding cone (from the
// origin) comes within the cell's radius + the level's angle + the filter's
// reach (4 texels of angle) of the cell centre, found by a pruned walk of the
// mesh's AABB tree.
void cone_bounds_build(const mesh_cpu *m, uint32_t resolution, float *out);

// Fills the other three components of each cell's vec4 in out (an open
// mesh's cone bounds; the first component is left as it is) from the
// level-0 texels of its map of this resolution (R, G per texel, the layout
// of geometry/cubemap_cpu.h; a miss is VKCOL_MAP_MISS): the least R, the greatest R
// and the least G that linear filtering at level 0 can return in any
// direction within the cell's cone, widened as cone_bounds_build widens:
// over the texels whose directions lie within the cell's radius + the
// level's angle + cone_filter_reach of its centre (filtering blends
// texels, so it returns a value between the least and the greatest of
// them; texels are taken by buckets of 64 x 64 per face, so above that
// resolution a few beyond the reach may widen a span), with a rounding
// margin (scale: the mesh's bounding radius). Its work memory is a few
// MB whatever the resolution (27 ms at resolution 64, 0.42 s at 1,024). A
// cone that a ray misses gets lower bounds of 0 (so a least R above 0 says
// that none does). Returns
// VKCOL_ERROR_OUT_OF_HOST_MEMORY when its work arrays cannot be allocated.
vkcol_result cone_open_bounds_build(const core_env *env, const float *level0, uint32_t resolution, double scale,
                                    float *out);

// How far from a sample's direction linear filtering at level 0 of a map of
// this resolution reads texels, in radians, with room for rounding: a texel
// spans at most 2 / resolution radians, and filtering (seamless across
// faces) reads texels within 1.5 texels of the direction; 4 texels are
// allowed. The cone bounds and the clearance fields (clearance.h) both
// widen by it.
double cone_filter_reach(uint32_t resolution);
