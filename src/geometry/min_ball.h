// SPDX-License-Identifier: MIT
// The smallest ball enclosing a small point set: the bounding spheres of the
// batch pool's vertex clusters and groups (shared.h), which approx mode culls
// whole; a smaller ball is culled more often.
#pragma once

#include <stdint.h>

// Most points min_ball takes.
#define MIN_BALL_MAX_POINTS 256u

// The smallest ball holding points[0 .. count) (point i at points + i *
// stride, x, y, z), 1 <= count <= MIN_BALL_MAX_POINTS, in double: centre and
// radius. The radius is the largest distance from the centre to a point, so
// the ball holds every point whatever the rounding; for points in general
// position it is the smallest enclosing ball to rounding, for degenerate
// ones (coplanar support points) it may be slightly larger. Deterministic.
void min_ball(const float *points, uint32_t stride, uint32_t count, double centre[3], double *radius);
