// SPDX-License-Identifier: MIT
// Tests for tri_tri_intersect (src/tri_tri.c).
//
// - Hand-made cases on small integers, each checked in every variant that
//   must not change the answer: both argument orders, all 6 x 6 corner
//   orders, the 48 signed permutations of the axes, and three exact
//   placements (as given, translated, scaled by 2^-20 and translated).
// - Large-integer cases (coordinates near 2^40) and mixed-magnitude
//   fractional cases whose decisive determinants are exactly zero while a
//   plain double evaluation rounds them to noise: checks that the
//   predicates are exact, not just exact on small numbers.
// - Random small-integer pairs, rich in degenerate, coplanar and touching
//   configurations, against a separating-axis oracle in integer arithmetic.
// - Random general-position pairs against clipping in long double.

#include "test.h"
#include "geometry/tri_tri.h"

#include <stdbool.h>
#include <stdint.h>

// Before C2x a double[3][3] does not convert to const double (*)[3] without
// a (pedantic) warning; these casts add the qualifier explicitly.
#define C3(t) ((const double(*)[3])(t))
#define CI3(t) ((const ivec *)(t))

typedef long long ivec[3];

static const int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};

static uint64_t next_random(uint64_t *state)
{
	// splitmix64
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

// Uniform in [lo, hi].
static long long random_int(uint64_t *state, long long lo, long long hi)
{
	return lo + (long long)(next_random(state) % (uint64_t)(hi - lo + 1));
}

// Uniform in [-1, 1).
static double random_unit(uint64_t *state)
{
	return (double)(next_random(state) >> 11) * 0x1.0p-52 - 1.0;
}

// out = corners of t in order perm, axes permuted and sign-flipped by
// m (0..47), then scaled and offset. Exact for the inputs used here.
static void place(const double t[3][3], const int perm[3], int m, double scale, const double offset[3],
                  double out[3][3])
{
	const int *axes = perms[m % 6];
	int flips = m / 6;
	for (int i = 0; i < 3; i++) {
		for (int k = 0; k < 3; k++) {
			double s = ((flips >> k) & 1) ? -1.0 : 1.0;
			out[i][k] = s * t[perm[i]][axes[k]] * scale + offset[k];
		}
	}
}

// How many of the variants of (p, q) that must all give the same answer
// disagree with expected.
static int variants_wrong(const double p[3][3], const double q[3][3], bool expected, int *total)
{
	static const double scales[3] = {1.0, 1.0, 0x1.0p-20};
	static const double offsets[3][3] = {{0, 0, 0}, {7, -3, 5}, {0.5, -0.25, 3}};
	int wrong = 0;
	*total = 0;
	for (int frame = 0; frame < 3; frame++) {
		for (int m = 0; m < 48; m++) {
			for (int a = 0; a < 6; a++) {
				double pa[3][3];
				place(C3(p), perms[a], m, scales[frame], offsets[frame], pa);
				for (int b = 0; b < 6; b++) {
					double qb[3][3];
					place(C3(q), perms[b], m, scales[frame], offsets[frame], qb);
					wrong += tri_tri_intersect(C3(pa), C3(qb)) != expected;
					wrong += tri_tri_intersect(C3(qb), C3(pa)) != expected;
					*total += 2;
				}
			}
		}
	}
	return wrong;
}

#define CHECK_CASE(p, q, expected)                                                          \
	do {                                                                                    \
		int total_;                                                                         \
		int wrong_ = variants_wrong(p, q, expected, &total_);                               \
		ENSURE_MSG(wrong_ == 0, "%s vs %s: %d of %d variants not %s", #p, #q, wrong_, total_, \
		           (expected) ? "true" : "false");                                          \
	} while (0)

// The reference triangle for most cases: right triangle in z = 0, legs 4.
static const double base[3][3] = {{0, 0, 0}, {4, 0, 0}, {0, 4, 0}};

static void test_crossing(void)
{
	// q pierces base's interior: one corner below, two above.
	static const double pierce[3][3] = {{1, 1, -1}, {2, 1, 1}, {1, 2, 1}};
	CHECK_CASE(base, pierce, true);
	// Each pierces the other: q's interior crosses base's edge x = 0 at
	// (0, 0.5, 0) while base's interior holds q's crossing of z = 0 at (1, 1).
	static const double linked[3][3] = {{1, 1, -2}, {1, 1, 2}, {-3, -1, 1}};
	CHECK_CASE(base, linked, true);
}

static void test_separated(void)
{
	static const double parallel[3][3] = {{0, 0, 1}, {4, 0, 1}, {0, 4, 1}};
	CHECK_CASE(base, parallel, false);
	// q crosses z = 0 on the segment (5.5, 5)-(5, 5.5), outside base.
	static const double plane_hit_outside[3][3] = {{5, 5, -1}, {6, 5, 1}, {5, 6, 1}};
	CHECK_CASE(base, plane_hit_outside, false);
	// Each crosses the other's plane (q lies in y = 1), but on the common
	// line base covers x in [0, 3] and q covers [5, 6].
	static const double disjoint_intervals[3][3] = {{5, 1, -1}, {5, 1, 1}, {7, 1, 1}};
	CHECK_CASE(base, disjoint_intervals, false);
	// As above with q covering [3, 4]: the intervals touch at (3, 1, 0).
	static const double touching_intervals[3][3] = {{3, 1, -1}, {3, 1, 1}, {5, 1, 1}};
	CHECK_CASE(base, touching_intervals, true);
	// q's lowest corner one unit above base's interior.
	static const double hovering[3][3] = {{1, 1, 1}, {1, 1, 3}, {2, 3, 4}};
	CHECK_CASE(base, hovering, false);
}

static void test_shared_vertex(void)
{
	static const double above[3][3] = {{0, 0, 0}, {-3, 1, 2}, {1, -3, 5}};
	CHECK_CASE(base, above, true);
	static const double coplanar_opposite[3][3] = {{0, 0, 0}, {-4, 0, 0}, {0, -4, 0}};
	CHECK_CASE(base, coplanar_opposite, true);
	// The same two triangles one unit apart.
	static const double coplanar_apart[3][3] = {{-1, 0, 0}, {-5, 0, 0}, {-1, -4, 0}};
	CHECK_CASE(base, coplanar_apart, false);
}

static void test_vertex_on_other(void)
{
	// q's corner in base's interior, the rest above.
	static const double on_interior[3][3] = {{1, 1, 0}, {1, 1, 3}, {2, 3, 4}};
	CHECK_CASE(base, on_interior, true);
	// q's corner inside base's edge y = 0, the rest above.
	static const double on_edge[3][3] = {{2, 0, 0}, {1, 1, 3}, {2, 3, 4}};
	CHECK_CASE(base, on_edge, true);
	// Just past the hypotenuse x + y = 4 in the plane.
	static const double past_edge[3][3] = {{3, 2, 0}, {1, 1, 3}, {2, 3, 4}};
	CHECK_CASE(base, past_edge, false);
}

static void test_edge_on_edge(void)
{
	// q (in y = 0) shares the line of base's edge y = 0.
	static const double collinear_overlap[3][3] = {{2, 0, 0}, {6, 0, 0}, {3, 0, 5}};
	CHECK_CASE(base, collinear_overlap, true);
	static const double collinear_end_to_end[3][3] = {{4, 0, 0}, {8, 0, 0}, {6, 0, 3}};
	CHECK_CASE(base, collinear_end_to_end, true);
	static const double collinear_gap[3][3] = {{5, 0, 0}, {8, 0, 0}, {6, 0, 3}};
	CHECK_CASE(base, collinear_gap, false);
	// q (in x = 2) has an edge crossing base's edge at (2, 0, 0), and meets
	// z = 0 nowhere else inside base.
	static const double crossing_edges[3][3] = {{2, 0, -1}, {2, 0, 1}, {2, -3, 1}};
	CHECK_CASE(base, crossing_edges, true);
	static const double crossing_missed[3][3] = {{2, -1, -1}, {2, -1, 1}, {2, -4, 1}};
	CHECK_CASE(base, crossing_missed, false);
}

static void test_coplanar(void)
{
	static const double overlapping[3][3] = {{1, 1, 0}, {5, 1, 0}, {1, 5, 0}};
	CHECK_CASE(base, overlapping, true);
	static const double disjoint[3][3] = {{3, 2, 0}, {5, 5, 0}, {6, 2, 0}};
	CHECK_CASE(base, disjoint, false);
	static const double inside[3][3] = {{1, 1, 0}, {2, 1, 0}, {1, 2, 0}};
	CHECK_CASE(base, inside, true);
	CHECK_CASE(inside, base, true);
	static const double shared_edge[3][3] = {{0, 0, 0}, {4, 0, 0}, {0, -4, 0}};
	CHECK_CASE(base, shared_edge, true);
	static const double partial_edge[3][3] = {{2, 0, 0}, {6, 0, 0}, {4, -3, 0}};
	CHECK_CASE(base, partial_edge, true);
	static const double vertex_on_edge[3][3] = {{2, 2, 0}, {5, 5, 0}, {6, 2, 0}};
	CHECK_CASE(base, vertex_on_edge, true);
	// Star of David: edges cross, no corner inside the other.
	static const double star_a[3][3] = {{0, 0, 0}, {6, 0, 0}, {3, 6, 0}};
	static const double star_b[3][3] = {{0, 4, 0}, {6, 4, 0}, {3, -2, 0}};
	CHECK_CASE(star_a, star_b, true);
	// A tilted plane x + y + z = 4.
	static const double tilted[3][3] = {{4, 0, 0}, {0, 4, 0}, {0, 0, 4}};
	static const double tilted_touch[3][3] = {{2, 2, 0}, {4, 2, -2}, {3, 4, -3}};
	CHECK_CASE(tilted, tilted_touch, true);
	static const double tilted_apart[3][3] = {{3, 2, -1}, {5, 2, -3}, {4, 4, -4}};
	CHECK_CASE(tilted, tilted_apart, false);
}

static void test_degenerate(void)
{
	// Collinear corners: the segment (1, 1, -1)-(1, 1, 3), listed out of order.
	static const double seg_pierce[3][3] = {{1, 1, -1}, {1, 1, 3}, {1, 1, 1}};
	CHECK_CASE(base, seg_pierce, true);
	static const double seg_miss[3][3] = {{5, 5, -1}, {5, 5, 3}, {5, 5, 1}};
	CHECK_CASE(base, seg_miss, false);
	static const double seg_in_plane_across[3][3] = {{-1, 1, 0}, {5, 1, 0}, {2, 1, 0}};
	CHECK_CASE(base, seg_in_plane_across, true);
	static const double seg_in_plane_outside[3][3] = {{-1, 5, 0}, {5, 5, 0}, {2, 5, 0}};
	CHECK_CASE(base, seg_in_plane_outside, false);
	// Two coincident corners: a segment standing on base.
	static const double seg_ending_on[3][3] = {{1, 1, 0}, {1, 1, 5}, {1, 1, 5}};
	CHECK_CASE(base, seg_ending_on, true);
	static const double seg_above[3][3] = {{1, 1, 1}, {1, 1, 5}, {1, 1, 2}};
	CHECK_CASE(base, seg_above, false);

	static const double point_on[3][3] = {{1, 1, 0}, {1, 1, 0}, {1, 1, 0}};
	CHECK_CASE(base, point_on, true);
	static const double point_on_edge[3][3] = {{2, 0, 0}, {2, 0, 0}, {2, 0, 0}};
	CHECK_CASE(base, point_on_edge, true);
	static const double point_above[3][3] = {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}};
	CHECK_CASE(base, point_above, false);
	static const double point_in_plane_outside[3][3] = {{3, 3, 0}, {3, 3, 0}, {3, 3, 0}};
	CHECK_CASE(base, point_in_plane_outside, false);

	// Segment against segment.
	static const double diagonal[3][3] = {{0, 0, 0}, {4, 4, 0}, {2, 2, 0}};
	static const double anti_diagonal[3][3] = {{0, 4, 0}, {4, 0, 0}, {1, 3, 0}};
	CHECK_CASE(diagonal, anti_diagonal, true);
	static const double skew[3][3] = {{0, 4, 1}, {4, 0, 1}, {2, 2, 1}};
	CHECK_CASE(diagonal, skew, false);
	static const double parallel_seg[3][3] = {{0, 1, 0}, {4, 5, 0}, {2, 3, 0}};
	CHECK_CASE(diagonal, parallel_seg, false);
	static const double collinear_seg[3][3] = {{3, 3, 0}, {6, 6, 0}, {5, 5, 0}};
	CHECK_CASE(diagonal, collinear_seg, true);
	static const double collinear_seg_apart[3][3] = {{5, 5, 0}, {6, 6, 0}, {5, 5, 0}};
	CHECK_CASE(diagonal, collinear_seg_apart, false);
	// A segment whose end is on the other's interior (T shape).
	static const double t_stem[3][3] = {{2, 2, 0}, {2, 2, 3}, {2, 2, 1}};
	CHECK_CASE(diagonal, t_stem, true);

	// Point against segment and point.
	static const double point_mid[3][3] = {{2, 2, 0}, {2, 2, 0}, {2, 2, 0}};
	static const double point_off[3][3] = {{2, 3, 0}, {2, 3, 0}, {2, 3, 0}};
	CHECK_CASE(diagonal, point_mid, true);
	CHECK_CASE(diagonal, point_off, false);
	CHECK_CASE(point_mid, point_mid, true);
	CHECK_CASE(point_mid, point_off, false);

	// Identical triangles, proper and degenerate.
	CHECK_CASE(base, base, true);
	CHECK_CASE(diagonal, diagonal, true);
}

// Coordinates near 2^40 in the plane z = x + y, whose normal is a multiple
// of (1, 1, -1): points in or beside the plane give determinants that are
// exactly zero or +-D with |D| near 2^82, while rounding the products to
// double leaves noise far larger than that. The answers follow from the
// construction, not from any computed determinant.
static void random_in_plane(uint64_t *rng, double out[3])
{
	// Multiples of 3 so that centroids are integers.
	long long x = 3 * random_int(rng, -(1ll << 38), 1ll << 38);
	long long y = 3 * random_int(rng, -(1ll << 38), 1ll << 38);
	out[0] = (double)x;
	out[1] = (double)y;
	out[2] = (double)(x + y);
}

static void test_exact_large(void)
{
	uint64_t rng = 42;
	int wrong[6] = {0, 0, 0, 0, 0, 0};
	const int rounds = 2000;
	for (int r = 0; r < rounds; r++) {
		double p[3][3], q[3][3];
		for (int i = 0; i < 3; i++) {
			random_in_plane(&rng, p[i]);
		}
		// q touches p at p's centroid; its other corners lie off the plane
		// on the side where x + y - z > 0.
		for (int k = 0; k < 3; k++) {
			q[0][k] = (p[0][k] + p[1][k] + p[2][k]) / 3.0;
		}
		for (int i = 1; i < 3; i++) {
			random_in_plane(&rng, q[i]);
			q[i][2] -= (double)random_int(&rng, 1, 1000);
		}
		wrong[0] += !tri_tri_intersect(C3(p), C3(q)) + !tri_tri_intersect(C3(q), C3(p));
		// One unit off the plane on the same side: no contact.
		q[0][2] -= 1.0;
		wrong[1] += tri_tri_intersect(C3(p), C3(q)) + tri_tri_intersect(C3(q), C3(p));

		// Coplanar: q = p reflected through p0 touches p at p0 only; moved
		// by p1 - p0 it touches along part of the edge p0p1 (the move is
		// on the boundary of p - q); moved by p0 - p1 it is clear of p.
		for (int i = 0; i < 3; i++) {
			for (int k = 0; k < 3; k++) {
				q[i][k] = 2.0 * p[0][k] - p[i][k];
			}
		}
		wrong[2] += !tri_tri_intersect(C3(p), C3(q));
		double moved[3][3], away[3][3];
		for (int i = 0; i < 3; i++) {
			for (int k = 0; k < 3; k++) {
				moved[i][k] = q[i][k] + (p[1][k] - p[0][k]);
				away[i][k] = q[i][k] - (p[1][k] - p[0][k]);
			}
		}
		wrong[2] += !tri_tri_intersect(C3(p), C3(moved)) + !tri_tri_intersect(C3(moved), C3(p));
		wrong[3] += tri_tri_intersect(C3(p), C3(away)) + tri_tri_intersect(C3(away), C3(p));
	}
	for (int r = 0; r < rounds; r++) {
		// Coplanar, q's corner at the midpoint of p's edge p1p2 and the rest
		// beyond that edge: the midpoint's 2D orientation against the edge
		// is exactly zero. Coordinates are multiples of 6: midpoints exact.
		double p[3][3], q[3][3], m[3], out[3], along[3];
		for (int i = 0; i < 3; i++) {
			random_in_plane(&rng, p[i]);
			for (int k = 0; k < 3; k++) {
				p[i][k] *= 2.0;
			}
		}
		for (int k = 0; k < 3; k++) {
			m[k] = 0.5 * (p[1][k] + p[2][k]);
			out[k] = m[k] - p[0][k];
			along[k] = 0.5 * (p[2][k] - p[1][k]);
			q[0][k] = m[k];
			q[1][k] = m[k] + out[k] + along[k];
			q[2][k] = m[k] + out[k] - along[k];
		}
		wrong[4] += !tri_tri_intersect(C3(p), C3(q)) + !tri_tri_intersect(C3(q), C3(p));
		// One lattice step (1, 0, 1) in the plane either way: one of the two
		// moves q's corner into p, the other takes q clear of p.
		double plus[3][3], minus[3][3];
		for (int i = 0; i < 3; i++) {
			for (int k = 0; k < 3; k++) {
				double step = k == 1 ? 0.0 : 1.0;
				plus[i][k] = q[i][k] + step;
				minus[i][k] = q[i][k] - step;
			}
		}
		bool hit_plus = tri_tri_intersect(C3(p), C3(plus)), hit_minus = tri_tri_intersect(C3(p), C3(minus));
		wrong[5] += hit_plus == hit_minus;
		wrong[5] += tri_tri_intersect(C3(plus), C3(p)) != hit_plus;
		wrong[5] += tri_tri_intersect(C3(minus), C3(p)) != hit_minus;
	}
	ENSURE_MSG(wrong[0] == 0, "vertex touching a plane: %d wrong", wrong[0]);
	ENSURE_MSG(wrong[1] == 0, "vertex one unit off a plane: %d wrong", wrong[1]);
	ENSURE_MSG(wrong[2] == 0, "coplanar touching: %d wrong", wrong[2]);
	ENSURE_MSG(wrong[3] == 0, "coplanar apart: %d wrong", wrong[3]);
	ENSURE_MSG(wrong[4] == 0, "corner on an edge midpoint: %d wrong", wrong[4]);
	ENSURE_MSG(wrong[5] == 0, "corner a lattice step from an edge: %d wrong", wrong[5]);
}

// Points on the line y = 3x, z = 0 with 50-bit mantissas (so 3x is exact)
// and magnitudes from 2^-50 to 2^20: their differences round, so a plain
// double 2D orientation of three of them is noise instead of zero.
static void test_exact_fractional(void)
{
	uint64_t rng = 99;
	const long long bits50 = (1ll << 50) - 1;
	int wrong[4] = {0, 0, 0, 0};
	const int rounds = 2000;
	for (int r = 0; r < rounds; r++) {
		double xa = -(double)random_int(&rng, 1, bits50) * 0x1.0p-50;                  // [-1, 0)
		double xb = (double)((1ll << 49) + random_int(&rng, 0, (1ll << 49) - 1)) * 0x1.0p-30; // [2^19, 2^20)
		double xm = (double)random_int(&rng, 0, bits50) * 0x1.0p-40;                    // [0, 2^10)
		// p: edge ab on the line, c below it; q: corner m on ab, the rest
		// above the line.
		const double p[3][3] = {{xa, 3 * xa, 0}, {xb, 3 * xb, 0}, {xb, 0, 0}};
		const double q[3][3] = {{xm, 3 * xm, 0}, {xm - 1, 3 * xm + 1, 0}, {xm - 2, 3 * xm + 5, 0}};
		// q with m lifted just above the line.
		const double q_above[3][3] = {
			{xm, 3 * xm + 0x1.0p-30, 0}, {xm - 1, 3 * xm + 1, 0}, {xm - 2, 3 * xm + 5, 0}};
		wrong[0] += !tri_tri_intersect(p, q) + !tri_tri_intersect(q, p);
		wrong[1] += tri_tri_intersect(p, q_above) + tri_tri_intersect(q_above, p);
		// Degenerate: the segment ab (corner a repeated) and the point m.
		const double seg[3][3] = {{xa, 3 * xa, 0}, {xb, 3 * xb, 0}, {xa, 3 * xa, 0}};
		const double point[3][3] = {{xm, 3 * xm, 0}, {xm, 3 * xm, 0}, {xm, 3 * xm, 0}};
		const double point_above[3][3] = {{q_above[0][0], q_above[0][1], 0},
		                                  {q_above[0][0], q_above[0][1], 0},
		                                  {q_above[0][0], q_above[0][1], 0}};
		wrong[2] += !tri_tri_intersect(seg, point) + !tri_tri_intersect(point, seg);
		wrong[3] += tri_tri_intersect(seg, point_above) + tri_tri_intersect(point_above, seg);
	}
	ENSURE_MSG(wrong[0] == 0, "corner on a rounded edge line: %d wrong", wrong[0]);
	ENSURE_MSG(wrong[1] == 0, "corner just above it: %d wrong", wrong[1]);
	ENSURE_MSG(wrong[2] == 0, "point on a rounded segment: %d wrong", wrong[2]);
	ENSURE_MSG(wrong[3] == 0, "point just beside it: %d wrong", wrong[3]);
}

// ---------------------------------------------------------------------------
// Separating-axis oracle for integer corners. Two closed convex polytopes
// are disjoint iff some direction strictly separates their projections, and
// it suffices to try the facet normals of the Minkowski difference within
// its affine hull, plus a normal of that hull. Every such direction is in
// the set built from the 15 differences V between the 6 corners: V itself
// (the hull is a line or point), v x w (facet normals of a solid
// difference, or the normal of a flat one), and (v x w) x x (in-plane facet
// normals of a flat difference, or a normal of a line-shaped one pointing at
// the other line). Trying more directions than needed cannot produce a
// wrong "disjoint".

static void icross(const long long *a, const long long *b, long long *out)
{
	out[0] = a[1] * b[2] - a[2] * b[1];
	out[1] = a[2] * b[0] - a[0] * b[2];
	out[2] = a[0] * b[1] - a[1] * b[0];
}

static bool separates(const long long *axis, const ivec p[3], const ivec q[3])
{
	if (axis[0] == 0 && axis[1] == 0 && axis[2] == 0) {
		return false;
	}
	long long pmin = 0, pmax = 0, qmin = 0, qmax = 0;
	for (int i = 0; i < 3; i++) {
		long long dp = axis[0] * p[i][0] + axis[1] * p[i][1] + axis[2] * p[i][2];
		long long dq = axis[0] * q[i][0] + axis[1] * q[i][1] + axis[2] * q[i][2];
		if (i == 0 || dp < pmin) {
			pmin = dp;
		}
		if (i == 0 || dp > pmax) {
			pmax = dp;
		}
		if (i == 0 || dq < qmin) {
			qmin = dq;
		}
		if (i == 0 || dq > qmax) {
			qmax = dq;
		}
	}
	return pmax < qmin || qmax < pmin;
}

static bool sat_intersect(const ivec p[3], const ivec q[3])
{
	const long long *pts[6] = {p[0], p[1], p[2], q[0], q[1], q[2]};
	ivec v[15];
	int n = 0;
	for (int i = 0; i < 6; i++) {
		for (int j = i + 1; j < 6; j++) {
			for (int k = 0; k < 3; k++) {
				v[n][k] = pts[j][k] - pts[i][k];
			}
			n++;
		}
	}
	ivec cross[105];
	int nc = 0;
	for (int i = 0; i < 15; i++) {
		if (separates(v[i], p, q)) {
			return false;
		}
		for (int j = i + 1; j < 15; j++) {
			icross(v[i], v[j], cross[nc]);
			if (separates(cross[nc], p, q)) {
				return false;
			}
			nc++;
		}
	}
	for (int i = 0; i < nc; i++) {
		if (cross[i][0] == 0 && cross[i][1] == 0 && cross[i][2] == 0) {
			continue;
		}
		for (int j = 0; j < 15; j++) {
			ivec axis;
			icross(cross[i], v[j], axis);
			if (separates(axis, p, q)) {
				return false;
			}
		}
	}
	return true;
}

static int dimension_of(const ivec t[3])
{
	ivec u, v, n;
	for (int k = 0; k < 3; k++) {
		u[k] = t[1][k] - t[0][k];
		v[k] = t[2][k] - t[0][k];
	}
	icross(u, v, n);
	if (n[0] != 0 || n[1] != 0 || n[2] != 0) {
		return 2;
	}
	bool same = true;
	for (int k = 0; k < 3; k++) {
		same = same && u[k] == 0 && v[k] == 0;
	}
	return same ? 0 : 1;
}

static void print_pair(const double p[3][3], const double q[3][3], bool expected)
{
	fprintf(stderr, "expected %d:", expected);
	for (int i = 0; i < 6; i++) {
		const double *v = i < 3 ? p[i] : q[i - 3];
		fprintf(stderr, " %s(%g %g %g)", i == 3 ? "| " : "", v[0], v[1], v[2]);
	}
	fprintf(stderr, "\n");
}

static void test_random_small_integers(void)
{
	uint64_t rng = 7;
	const int rounds = 100000;
	int wrong = 0, asymmetric = 0, order_dependent = 0, hits = 0, degenerate = 0, coplanar = 0;
	for (int r = 0; r < rounds; r++) {
		// Small grids make degenerate corners, shared corners, coplanar and
		// touching pairs common; the larger grid mixes in general position.
		long long extent = r % 3 == 0 ? 2 : r % 3 == 1 ? 3 : 6;
		ivec ip[3], iq[3];
		for (int i = 0; i < 3; i++) {
			for (int k = 0; k < 3; k++) {
				ip[i][k] = random_int(&rng, 0, extent);
				iq[i][k] = random_int(&rng, 0, extent);
			}
		}
		if (r % 4 == 3) {
			// Both in one plane z = a x + b y + c.
			long long a = random_int(&rng, -1, 1), b = random_int(&rng, -1, 1), c = random_int(&rng, 0, 2);
			for (int i = 0; i < 3; i++) {
				ip[i][2] = a * ip[i][0] + b * ip[i][1] + c;
				iq[i][2] = a * iq[i][0] + b * iq[i][1] + c;
			}
		}
		double p[3][3], q[3][3];
		for (int i = 0; i < 3; i++) {
			for (int k = 0; k < 3; k++) {
				p[i][k] = (double)ip[i][k];
				q[i][k] = (double)iq[i][k];
			}
		}
		bool expected = sat_intersect(CI3(ip), CI3(iq));
		bool got = tri_tri_intersect(C3(p), C3(q));
		wrong += got != expected;
		asymmetric += tri_tri_intersect(C3(q), C3(p)) != got;
		double pp[3][3], qq[3][3];
		static const double zero[3] = {0, 0, 0};
		place(C3(p), perms[random_int(&rng, 0, 5)], 0, 1.0, zero, pp);
		place(C3(q), perms[random_int(&rng, 0, 5)], 0, 1.0, zero, qq);
		order_dependent += tri_tri_intersect(C3(pp), C3(qq)) != got;
		if ((got != expected || tri_tri_intersect(C3(q), C3(p)) != got) && wrong + asymmetric <= 5) {
			print_pair(C3(p), C3(q), expected);
		}
		hits += expected;
		int dp = dimension_of(CI3(ip)), dq = dimension_of(CI3(iq));
		degenerate += dp < 2 || dq < 2;
		if (dp == 2 && dq == 2) {
			// All corners of q on p's plane.
			ivec u, v, n;
			for (int k = 0; k < 3; k++) {
				u[k] = ip[1][k] - ip[0][k];
				v[k] = ip[2][k] - ip[0][k];
			}
			icross(u, v, n);
			bool flat = true;
			for (int i = 0; i < 3; i++) {
				long long d = n[0] * (iq[i][0] - ip[0][0]) + n[1] * (iq[i][1] - ip[0][1]) +
				              n[2] * (iq[i][2] - ip[0][2]);
				flat = flat && d == 0;
			}
			coplanar += flat;
		}
	}
	printf("     small integers: %d pairs, %d intersecting, %d with a degenerate triangle, %d coplanar\n",
	       rounds, hits, degenerate, coplanar);
	ENSURE_MSG(wrong == 0, "%d of %d disagree with the separating-axis oracle", wrong, rounds);
	ENSURE_MSG(asymmetric == 0, "%d of %d change when the arguments swap", asymmetric, rounds);
	ENSURE_MSG(order_dependent == 0, "%d of %d change with the corner order", order_dependent, rounds);
	// The mix must actually exercise every path.
	ENSURE(hits > rounds / 5 && hits < rounds * 4 / 5);
	ENSURE(degenerate > rounds / 50);
	ENSURE(coplanar > rounds / 10);
}

// ---------------------------------------------------------------------------
// Clipping oracle for general position, long double: each triangle meets the
// other's plane in a segment on the planes' common line; the triangles
// intersect iff the segments overlap. Samples too close to a decision
// boundary for this arithmetic (corner near the other plane, nearly
// degenerate triangle, segment ends nearly meeting) are rejected.

typedef long double lvec[3];

static void lcross(const long double *a, const long double *b, long double *out)
{
	out[0] = a[1] * b[2] - a[2] * b[1];
	out[1] = a[2] * b[0] - a[0] * b[2];
	out[2] = a[0] * b[1] - a[1] * b[0];
}

static long double ldot(const long double *a, const long double *b)
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// Unit normal of t; false if t is nearly degenerate.
static bool unit_normal(const double t[3][3], lvec n)
{
	lvec u, v;
	for (int k = 0; k < 3; k++) {
		u[k] = (long double)t[1][k] - t[0][k];
		v[k] = (long double)t[2][k] - t[0][k];
	}
	lcross(u, v, n);
	long double len = sqrtl(ldot(n, n));
	if (len < 1e-3L) {
		return false;
	}
	for (int k = 0; k < 3; k++) {
		n[k] /= len;
	}
	return true;
}

// Signed distances of t's corners to the plane (origin, n); false if one is
// nearly zero.
static bool plane_distances(const double t[3][3], const double origin[3], const lvec n, long double d[3])
{
	for (int i = 0; i < 3; i++) {
		lvec w = {(long double)t[i][0] - origin[0], (long double)t[i][1] - origin[1],
		          (long double)t[i][2] - origin[2]};
		d[i] = ldot(n, w);
		if (fabsl(d[i]) < 1e-7L) {
			return false;
		}
	}
	return true;
}

// t's segment on the plane where the corners have distances d (not all of
// one sign), as an interval of positions along dir.
static void plane_interval(const double t[3][3], const long double d[3], const lvec dir, long double *lo,
                           long double *hi)
{
	int n = 0;
	long double s[2] = {0, 0};
	for (int i = 0; i < 3; i++) {
		int j = (i + 1) % 3;
		if ((d[i] < 0) != (d[j] < 0)) {
			long double f = d[i] / (d[i] - d[j]);
			lvec x;
			for (int k = 0; k < 3; k++) {
				x[k] = t[i][k] + f * ((long double)t[j][k] - t[i][k]);
			}
			s[n++] = ldot(dir, x);
		}
	}
	*lo = s[0] < s[1] ? s[0] : s[1];
	*hi = s[0] < s[1] ? s[1] : s[0];
}

// 1 intersecting, 0 disjoint, -1 rejected.
static int clip_oracle(const double p[3][3], const double q[3][3])
{
	lvec np, nq;
	long double dp[3], dq[3];
	if (!unit_normal(p, np) || !unit_normal(q, nq) || !plane_distances(q, p[0], np, dq) ||
	    !plane_distances(p, q[0], nq, dp)) {
		return -1;
	}
	if ((dq[0] > 0) == (dq[1] > 0) && (dq[1] > 0) == (dq[2] > 0)) {
		return 0;
	}
	if ((dp[0] > 0) == (dp[1] > 0) && (dp[1] > 0) == (dp[2] > 0)) {
		return 0;
	}
	lvec dir;
	lcross(np, nq, dir);
	long double len = sqrtl(ldot(dir, dir));
	for (int k = 0; k < 3; k++) {
		dir[k] /= len;
	}
	long double plo, phi, qlo, qhi;
	plane_interval(p, dp, dir, &plo, &phi);
	plane_interval(q, dq, dir, &qlo, &qhi);
	long double gap = (plo > qlo ? plo : qlo) - (phi < qhi ? phi : qhi);
	if (fabsl(gap) < 1e-7L) {
		return -1;
	}
	return gap <= 0;
}

// Corners on the unit sphere (corners in a cube make many slivers).
static void random_on_sphere(uint64_t *rng, double out[3])
{
	for (;;) {
		double x = random_unit(rng), y = random_unit(rng), z = random_unit(rng);
		double r2 = x * x + y * y + z * z;
		if (r2 > 0.01 && r2 <= 1.0) {
			double r = sqrt(r2);
			out[0] = x / r;
			out[1] = y / r;
			out[2] = z / r;
			return;
		}
	}
}

static void test_random_general_position(void)
{
	uint64_t rng = 12345;
	const int wanted = 100000;
	int tested = 0, rejected = 0, hits = 0, wrong = 0, asymmetric = 0, order_dependent = 0;
	while (tested < wanted) {
		double p[3][3], q[3][3];
		// q: corners on a sphere of radius 1/2 around a random point of p.
		double wa = 0.5 * (random_unit(&rng) + 1.0), wb = 0.5 * (random_unit(&rng) + 1.0);
		if (wa + wb > 1.0) {
			wa = 1.0 - wa;
			wb = 1.0 - wb;
		}
		for (int i = 0; i < 3; i++) {
			random_on_sphere(&rng, p[i]);
		}
		for (int i = 0; i < 3; i++) {
			random_on_sphere(&rng, q[i]);
			for (int k = 0; k < 3; k++) {
				q[i][k] = 0.5 * q[i][k] + p[0][k] + wa * (p[1][k] - p[0][k]) + wb * (p[2][k] - p[0][k]);
			}
		}
		int expected = clip_oracle(C3(p), C3(q));
		if (expected < 0) {
			rejected++;
			continue;
		}
		tested++;
		hits += expected;
		bool got = tri_tri_intersect(C3(p), C3(q));
		wrong += got != (expected == 1);
		asymmetric += tri_tri_intersect(C3(q), C3(p)) != got;
		double pp[3][3], qq[3][3];
		static const double zero[3] = {0, 0, 0};
		place(C3(p), perms[random_int(&rng, 0, 5)], 0, 1.0, zero, pp);
		place(C3(q), perms[random_int(&rng, 0, 5)], 0, 1.0, zero, qq);
		order_dependent += tri_tri_intersect(C3(pp), C3(qq)) != got;
	}
	printf("     general position: %d pairs, %d intersecting (%.1f%%), %d rejected as near-touching\n",
	       tested, hits, 100.0 * hits / tested, rejected);
	ENSURE_MSG(wrong == 0, "%d of %d disagree with clipping", wrong, tested);
	ENSURE_MSG(asymmetric == 0, "%d of %d change when the arguments swap", asymmetric, tested);
	ENSURE_MSG(order_dependent == 0, "%d of %d change with the corner order", order_dependent, tested);
	ENSURE(hits > tested * 3 / 10 && hits < tested * 6 / 10);
}

int main(int argc, char **argv)
{
	TEST_INIT(argc, argv);
	RUN_TEST(test_crossing);
	RUN_TEST(test_separated);
	RUN_TEST(test_shared_vertex);
	RUN_TEST(test_vertex_on_other);
	RUN_TEST(test_edge_on_edge);
	RUN_TEST(test_coplanar);
	RUN_TEST(test_degenerate);
	RUN_TEST(test_exact_large);
	RUN_TEST(test_exact_fractional);
	RUN_TEST(test_random_small_integers);
	RUN_TEST(test_random_general_position);
	return TEST_SUMMARY();
}
