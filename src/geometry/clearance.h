// SPDX-License-Identifier: MIT
// Clearance field of a distance cube map: on a grid over the mesh's box, how
// far each grid point lies from every point the map's linear filtering at
// level 0 could call inside (the layout is in shaders/shared.h, the lookup
// in shaders/cone_bound.glsl). Where the cone bounds (cone_bound.h) bound the
// map per cone of directions, and so are loose wherever a long, thin part of
// the mesh (a leg, a spike) shares a cone with empty space, the field bounds
// it per point in space.
#pragma once

#include "geometry/cone_bound.h"
#include "geometry/mesh_cpu.h"

typedef struct clearance_field {
	uint32_t dims[3];  // grid points per axis, each >= 1
	float min[3];      // the mesh's box minimum; point (i, j, k) is at min + (i + 1/2, j + 1/2, k + 1/2) cell
	float cell;        // edge of a grid cell (cubic)
	float reach;       // cone_filter_reach of the map's resolution, rounded up to float
	float *values;     // dims[0] * dims[1] * dims[2], x fastest
} clearance_field;

// Grid points per mesh: CLEARANCE_POINTS_PER_TRIANGLE per triangle, within
// CLEARANCE_MIN_POINTS and CLEARANCE_MAX_POINTS (128 KiB of floats), so the
// field's memory and build time follow the mesh's size.
#define CLEARANCE_POINTS_PER_TRIANGLE 8u
#define CLEARANCE_MIN_POINTS 4096u
#define CLEARANCE_MAX_POINTS 32768u

// Builds the field of mesh m for a map of the given resolution. With U the
// union of the tetrahedra (origin, triangle) over the mesh's triangles, and
// delta the angle the filter reaches (cone_filter_reach), value(p) is 0 (no
// clearance) or at most dist(p, U) - delta |p - origin|, less a margin for
// float rounding. A point x that the filtered map calls inside (|x - o| <=
// G(x - o)) has a texel direction u within delta of x's whose ray meets the
// surface at G(u) >= |x - o|, so the point at distance |x - o| along u lies
// in U and dist(x, U) <= delta |x - o|. Hence, for any grid point p, x is
// outside by the map when value(p) > (1 + delta) |x - p|, and every point of
// a ball (c, r) is when value(p) > (1 + delta) (|c - p| + r) (never for a
// value of 0). Only approx mode reads the field: the batch pool builds it, on
// the CPU, for each mesh that has none when an approx batch first needs the
// pool (batch/pool.c's pool_ensure), so contexts that run exact batches alone
// never pay for it. The grid's rows are dealt into tasks that env's threads
// run (core_parallel_for: the library's own, the calling thread alone, or
// the caller's job system): the values do not depend on which. Returns
// VKCOL_ERROR_OUT_OF_HOST_MEMORY when the values cannot be allocated.
vkcol_result clearance_build(const core_env *env, const mesh_cpu *m, uint32_t resolution, clearance_field *out);

void clearance_free(const core_env *env, clearance_field *f);

// Distance from p to the tetrahedron (o, a, b, c), 0 inside; exposed for
// the tests' brute-force check.
double clearance_tet_distance(const double p[3], const double o[3], const double a[3], const double b[3],
                              const double c[3]);
