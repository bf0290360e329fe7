// SPDX-License-Identifier: MIT
// Distances between triangles, segments and points in double precision, for
// the CPU reference: how far apart a non-colliding pair's surfaces are.
#pragma once

// Squared distance between the closed segments [p0, p1] and [q0, q1]. A
// segment of zero length is the point it is.
double seg_seg_dist2(const double p0[3], const double p1[3], const double q0[3], const double q1[3]);

// Squared distance from point x to the face of triangle v (its interior
// and boundary) when x projects into it, else +inf: the triangle's edges
// then hold the nearest point. +inf for a triangle without area.
double point_face_dist2(const double x[3], const double v[3][3]);

// Distance between the closed triangles p and q (three xyz corners each),
// either of them degenerate (a segment or a point): 0 when they share a
// point (tri_tri_intersect, exact), else the least distance between their
// point sets, to double rounding.
double tri_tri_distance(const double p[3][3], const double q[3][3]);
