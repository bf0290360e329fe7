// SPDX-License-Identifier: MIT
// Exact triangle-triangle intersection predicate in double precision.
#pragma once

#include <stdbool.h>

// Do the closed triangles p and q (three xyz corners each) share at least one
// point? Touching at a vertex or along an edge counts; coplanar overlap counts.
// Degenerate triangles (collinear corners: segments, or points) are handled as
// the point sets they are. Decisions use only the signs of orientation
// determinants, so inputs with small integer (or dyadic) coordinates are
// decided exactly.
bool tri_tri_intersect(const double p[3][3], const double q[3][3]);
