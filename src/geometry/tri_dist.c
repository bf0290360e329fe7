// SPDX-License-Identifier: MIT
// Distances between triangles, segments and points in double precision.
//
// Two disjoint convex polygons come nearest either between an edge of one
// and an edge of the other, or between a corner of one and the face of the
// other; so the distance of two triangles that do not intersect is the
// least of 9 segment-segment and 6 point-face distances, and a degenerate
// triangle (a segment or a point) is covered by its edges alone. The
// segment-segment distance follows C. Ericson, "Real-Time Collision
// Detection", Morgan Kaufmann 2005, section 5.1.9 (closest points of two
// segments, degenerate segments included); the point-face distance is the
// distance to the plane when the point projects inside the triangle (the
// three edge-side tests of section 5.1.5's Voronoi regions).
#include "geometry/tri_dist.h"

#include <math.h>

#include "geometry/tri_tri.h"
#include "geometry/vec3d.h"

static double clamp01(double x)
{
	return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
}

double seg_seg_dist2(const double p0[3], const double p1[3], const double q0[3], const double q1[3])
{
	double d1[3], d2[3], r[3];
	sub3(p1, p0, d1);
	sub3(q1, q0, d2);
	sub3(p0, q0, r);
	double a = dot3(d1, d1), e = dot3(d2, d2), f = dot3(d2, r);
	double s = 0.0, t = 0.0;
	if (a <= 0.0 && e <= 0.0) {
		s = t = 0.0;
	} else if (a <= 0.0) {
		t = clamp01(f / e);
	} else {
		double c = dot3(d1, r);
		if (e <= 0.0) {
			s = clamp01(-c / a);
		} else {
			double b = dot3(d1, d2), denom = a * e - b * b;
			// Parallel segments (denom 0): any s gives a nearest pair once t
			// is clamped and s recomputed from it.
			s = denom > 0.0 ? clamp01((b * f - c * e) / denom) : 0.0;
			t = (b * s + f) / e;
			if (t < 0.0) {
				t = 0.0;
				s = clamp01(-c / a);
			} else if (t > 1.0) {
				t = 1.0;
				s = clamp01((b - c) / a);
			}
		}
	}
	double g[3];
	for (int k = 0; k < 3; k++)
		g[k] = (p0[k] + d1[k] * s) - (q0[k] + d2[k] * t);
	return dot3(g, g);
}

double point_face_dist2(const double x[3], const double v[3][3])
{
	double e0[3], e1[3], n[3];
	sub3(v[1], v[0], e0);
	sub3(v[2], v[0], e1);
	cross3(e0, e1, n);
	double nn = dot3(n, n);
	if (!(nn > 0.0))
		return INFINITY;
	for (int i = 0; i < 3; i++) {
		double edge[3], to[3], c[3];
		sub3(v[(i + 1) % 3], v[i], edge);
		sub3(x, v[i], to);
		cross3(edge, to, c);
		if (dot3(n, c) < 0.0)
			return INFINITY;
	}
	double to[3];
	sub3(x, v[0], to);
	double h = dot3(n, to);
	return h * h / nn;
}

double tri_tri_distance(const double p[3][3], const double q[3][3])
{
	if (tri_tri_intersect(p, q))
		return 0.0;
	double best = INFINITY;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			best = fmin(best, seg_seg_dist2(p[i], p[(i + 1) % 3], q[j], q[(j + 1) % 3]));
	for (int i = 0; i < 3; i++) {
		best = fmin(best, point_face_dist2(p[i], q));
		best = fmin(best, point_face_dist2(q[i], p));
	}
	return sqrt(best);
}
