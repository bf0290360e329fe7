// SPDX-License-Identifier: MIT
// Triangle-box overlap predicate in double precision.
#pragma once

#include <stdbool.h>

// Do the closed triangle tri (three xyz corners) and the closed axis-aligned
// box [box_min, box_max] share at least one point? Touching counts (a corner
// on a face, an edge along an edge, a triangle lying on a face). Degenerate
// triangles (collinear or coincident corners) are the segments or points they
// span; a box may be flat or a single point (box_min == box_max on some or all
// axes). An inverted box (box_min > box_max on some axis) is empty: false.
//
// Decided by the separating axis test in double precision. The answer is
// exact when the arithmetic is, e.g. for small integer or dyadic coordinates
// (the box centre and half extents are then exact too); otherwise
// configurations within rounding error of touching (a few units in the last
// place of the coordinates) may go either way, so a caller that must never
// miss an overlap (culling) should pad the box by that much.
bool tri_box_overlap(const double tri[3][3], const double box_min[3], const double box_max[3]);
