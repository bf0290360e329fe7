// SPDX-License-Identifier: MIT
// Smallest enclosing ball (min_ball.h): the randomized incremental algorithm
// of E. Welzl, "Smallest enclosing disks (balls and ellipsoids)", New
// Results and New Trends in Computer Science, LNCS 555, Springer, 1991, in
// its iterative form (a point outside the ball of the points before it lies
// on the boundary of their ball with it), on a fixed shuffle of the points.
// Circumcentres of a triangle and of a tetrahedron from the usual
// cross-product and 3x3 solve formulas.

#include "geometry/min_ball.h"

#include "geometry/vec3d.h"

#include <math.h>
#include <string.h>

typedef struct ball {
	double c[3];
	double r2; // < 0: empty
} ball;

// Does b hold p, up to rounding?
static int holds(const ball *b, const double p[3])
{
	return dist2_3(b->c, p) <= b->r2 * (1.0 + 1e-12) + 1e-300;
}

static ball two_point_ball(const double a[3], const double b[3])
{
	ball out;
	for (int k = 0; k < 3; k++)
		out.c[k] = 0.5 * (a[k] + b[k]);
	out.r2 = 0.25 * dist2_3(a, b);
	return out;
}

// The smallest ball with s[0 .. n) on its boundary (n <= 4); for a
// degenerate set (three points on a line, four in a plane) a ball that
// holds them instead.
static ball boundary_ball(double (*s)[3], int n)
{
	ball out = {{0, 0, 0}, -1.0};
	if (n == 0)
		return out;
	if (n == 1) {
		memcpy(out.c, s[0], sizeof out.c);
		out.r2 = 0;
		return out;
	}
	if (n == 2)
		return two_point_ball(s[0], s[1]);
	double b[3], c[3], nrm[3];
	sub3(s[1], s[0], b);
	sub3(s[2], s[0], c);
	cross3(b, c, nrm);
	double n2 = dot3(nrm, nrm);
	if (n == 3) {
		if (!(n2 > 1e-24 * dot3(b, b) * dot3(c, c))) {
			// On a line: the ball of the two farthest apart.
			double d01 = dist2_3(s[0], s[1]), d02 = dist2_3(s[0], s[2]), d12 = dist2_3(s[1], s[2]);
			return d01 >= d02 && d01 >= d12 ? two_point_ball(s[0], s[1])
			       : d02 >= d12             ? two_point_ball(s[0], s[2])
			                                : two_point_ball(s[1], s[2]);
		}
		// centre = s0 + ((|b|^2 c - |c|^2 b) x (b x c)) / (2 |b x c|^2)
		double w[3], x[3];
		for (int k = 0; k < 3; k++)
			w[k] = dot3(b, b) * c[k] - dot3(c, c) * b[k];
		cross3(w, nrm, x);
		for (int k = 0; k < 3; k++)
			out.c[k] = s[0][k] + x[k] / (2.0 * n2);
		out.r2 = dist2_3(out.c, s[0]);
		return out;
	}
	// Four points: the centre x solves 2 (s_i - s_0) . x = |s_i|^2 - |s_0|^2,
	// i = 1, 2, 3 (Cramer's rule).
	double d[3], rows[3][3], rhs[3];
	sub3(s[3], s[0], d);
	const double *e[3] = {b, c, d};
	for (int i = 0; i < 3; i++) {
		for (int k = 0; k < 3; k++)
			rows[i][k] = 2.0 * e[i][k];
		rhs[i] = dot3(s[i + 1], s[i + 1]) - dot3(s[0], s[0]);
	}
	double c12[3];
	cross3(rows[1], rows[2], c12);
	double det = dot3(rows[0], c12);
	double scale = sqrt(dot3(b, b) * dot3(c, c) * dot3(d, d));
	if (!(fabs(det) > 1e-12 * 8.0 * scale)) {
		// In a plane: the ball of the first three, grown to the fourth.
		out = boundary_ball(s, 3);
		double r2 = dist2_3(out.c, s[3]);
		out.r2 = out.r2 > r2 ? out.r2 : r2;
		return out;
	}
	double c20[3], c01[3];
	cross3(rows[2], rows[0], c20);
	cross3(rows[0], rows[1], c01);
	for (int k = 0; k < 3; k++)
		out.c[k] = (rhs[0] * c12[k] + rhs[1] * c20[k] + rhs[2] * c01[k]) / det;
	out.r2 = dist2_3(out.c, s[0]);
	return out;
}

// The smallest ball of p[0 .. n) with s[0 .. ns) on its boundary.
static ball welzl(double (*p)[3], int n, double (*s)[3], int ns)
{
	ball b = boundary_ball(s, ns);
	if (ns == 4)
		return b;
	for (int i = 0; i < n; i++)
		if (b.r2 < 0 || !holds(&b, p[i])) {
			memcpy(s[ns], p[i], sizeof s[ns]);
			b = welzl(p, i, s, ns + 1);
		}
	return b;
}

void min_ball(const float *points, uint32_t stride, uint32_t count, double centre[3], double *radius)
{
	double p[MIN_BALL_MAX_POINTS][3], s[4][3];
	uint32_t n = count < MIN_BALL_MAX_POINTS ? count : MIN_BALL_MAX_POINTS;
	if (n == 0) { // outside the contract; a defined answer, not a read of p[0]
		memset(centre, 0, 3 * sizeof(double));
		*radius = 0;
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		for (int k = 0; k < 3; k++)
			p[i][k] = points[(size_t)i * stride + k];
	// A fixed shuffle: the expected linear time holds for any input order.
	uint64_t state = 0x9e3779b97f4a7c15ull;
	for (uint32_t i = n; i > 1; i--) {
		state ^= state << 13, state ^= state >> 7, state ^= state << 17;
		uint32_t j = (uint32_t)(state % i);
		double t[3];
		memcpy(t, p[i - 1], sizeof t);
		memcpy(p[i - 1], p[j], sizeof t);
		memcpy(p[j], t, sizeof t);
	}
	ball b = welzl(p, (int)n, s, 0);
	if (!(b.r2 >= 0) || !isfinite(b.c[0] + b.c[1] + b.c[2]))
		memcpy(b.c, p[0], sizeof b.c);
	double r2 = 0;
	for (uint32_t i = 0; i < n; i++) {
		double d2 = dist2_3(b.c, p[i]);
		r2 = r2 > d2 ? r2 : d2;
	}
	memcpy(centre, b.c, sizeof b.c);
	*radius = sqrt(r2);
}
