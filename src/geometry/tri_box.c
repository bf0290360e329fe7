// SPDX-License-Identifier: MIT
// Triangle-box overlap by the separating axis test.
//
// Algorithm: T. Akenine-Möller, "Fast 3D Triangle-Box Overlap Testing",
// Journal of Graphics Tools 6(1), 2001, 29-33. With the box centred at the
// origin, a closed convex triangle and the closed box are disjoint iff their
// projections on one of 13 axes are disjoint: the 3 box axes, the triangle's
// normal, and the 9 cross products of a box axis with a triangle edge.
// Projections are compared with strict inequalities, so touching sets
// overlap.
//
// Degenerate triangles need no special case: a zero normal or a zero cross
// product projects everything to 0 and never separates, and the remaining
// axes (box axes, and box axis x segment direction) are exactly the
// separating axes of a box against a segment or a point.

#include "geometry/tri_box.h"

#include <math.h>

// Are the projections of the corners, p[0..2], clear of the box's projection
// [-r, r]?
static bool separated(double p0, double p1, double p2, double r)
{
	double lo = fmin(p0, fmin(p1, p2));
	double hi = fmax(p0, fmax(p1, p2));
	return lo > r || hi < -r;
}

bool tri_box_overlap(const double tri[3][3], const double box_min[3], const double box_max[3])
{
	double h[3], v[3][3];
	for (int k = 0; k < 3; k++) {
		if (!(box_min[k] <= box_max[k])) {
			return false; // inverted (or NaN) box: empty
		}
		// Centre and half extent; exact for small integer or dyadic bounds.
		double c = 0.5 * (box_min[k] + box_max[k]);
		h[k] = 0.5 * (box_max[k] - box_min[k]);
		for (int i = 0; i < 3; i++) {
			v[i][k] = tri[i][k] - c;
		}
	}

	// Box axes first: the triangle's bounding box against the box, the
	// cheapest test and the one that rejects most pairs in culling.
	for (int k = 0; k < 3; k++) {
		if (separated(v[0][k], v[1][k], v[2][k], h[k])) {
			return false;
		}
	}

	double e[3][3]; // edges v0->v1, v1->v2, v2->v0
	for (int k = 0; k < 3; k++) {
		e[0][k] = v[1][k] - v[0][k];
		e[1][k] = v[2][k] - v[1][k];
		e[2][k] = v[0][k] - v[2][k];
	}

	// The triangle's plane n . x = n . v0 misses the box iff its distance
	// from the centre exceeds the box's extent along n.
	double n[3] = {
		e[0][1] * e[1][2] - e[0][2] * e[1][1],
		e[0][2] * e[1][0] - e[0][0] * e[1][2],
		e[0][0] * e[1][1] - e[0][1] * e[1][0],
	};
	double d = n[0] * v[0][0] + n[1] * v[0][1] + n[2] * v[0][2];
	double r = h[0] * fabs(n[0]) + h[1] * fabs(n[1]) + h[2] * fabs(n[2]);
	if (fabs(d) > r) {
		return false;
	}

	// Box axis k x edge j. For k = x the axis is (0, -e_z, e_y), and so on
	// cyclically: a = (0, -e[k+2], e[k+1]) in the frame rotated to put k first.
	for (int j = 0; j < 3; j++) {
		for (int k = 0; k < 3; k++) {
			int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
			double a1 = -e[j][k2], a2 = e[j][k1];
			double p0 = a1 * v[0][k1] + a2 * v[0][k2];
			double p1 = a1 * v[1][k1] + a2 * v[1][k2];
			double p2 = a1 * v[2][k1] + a2 * v[2][k2];
			double rk = h[k1] * fabs(a1) + h[k2] * fabs(a2);
			if (separated(p0, p1, p2, rk)) {
				return false;
			}
		}
	}
	return true;
}
