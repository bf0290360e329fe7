// SPDX-License-Identifier: MIT
// Tests for tri_box_overlap (src/tri_box.c).
//
// - Hand-made cases on small integers, each checked in every variant that
//   must not change the answer: all 6 corner orders, the 48 signed
//   permutations of the axes (applied to triangle and box), and three exact
//   placements (as given, translated, scaled by 2^-20 and translated).
// - Random small-integer pairs, rich in touching configurations, degenerate
//   triangles and flat boxes, against an exact oracle that shares nothing
//   with the separating axis test: a corner inside the box, or the triangle
//   meeting one of the 12 triangles of the box's surface (tri_tri_intersect,
//   exact for these inputs).
// - Random general-position pairs against clipping the triangle by the six
//   slabs of the box in long double.

#include "test.h"
#include "geometry/tri_box.h"
#include "geometry/tri_tri.h"

#include <stdbool.h>
#include <stdint.h>

// Before C2x a double[3][3] does not convert to const double (*)[3] without
// a (pedantic) warning; this cast adds the qualifier explicitly.
#define C3(t) ((const double(*)[3])(t))

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

// Signed axis permutation m (0..47), then scale and offset.
static void place_point(const double in[3], int m, double scale, const double offset[3], double out[3])
{
	const int *axes = perms[m % 6];
	int flips = m / 6;
	for (int k = 0; k < 3; k++) {
		double s = ((flips >> k) & 1) ? -1.0 : 1.0;
		out[k] = s * in[axes[k]] * scale + offset[k];
	}
}

// The box's corners min and max moved the same way, re-sorted per axis
// (a flipped axis swaps them).
static void place_box(const double bmin[3], const double bmax[3], int m, double scale, const double offset[3],
                      double out_min[3], double out_max[3])
{
	double a[3], b[3];
	place_point(bmin, m, scale, offset, a);
	place_point(bmax, m, scale, offset, b);
	for (int k = 0; k < 3; k++) {
		out_min[k] = a[k] < b[k] ? a[k] : b[k];
		out_max[k] = a[k] < b[k] ? b[k] : a[k];
	}
}

static int variants_wrong(const double t[3][3], const double bmin[3], const double bmax[3], bool expected,
                          int *total)
{
	static const double scales[3] = {1.0, 1.0, 0x1.0p-20};
	static const double offsets[3][3] = {{0, 0, 0}, {7, -3, 5}, {0.5, -0.25, 3}};
	int wrong = 0;
	*total = 0;
	for (int frame = 0; frame < 3; frame++) {
		for (int m = 0; m < 48; m++) {
			double lo[3], hi[3];
			place_box(bmin, bmax, m, scales[frame], offsets[frame], lo, hi);
			for (int a = 0; a < 6; a++) {
				double ta[3][3];
				for (int i = 0; i < 3; i++) {
					place_point(t[perms[a][i]], m, scales[frame], offsets[frame], ta[i]);
				}
				wrong += tri_box_overlap(C3(ta), lo, hi) != expected;
				*total += 1;
			}
		}
	}
	return wrong;
}

#define CHECK_CASE(t, lo, hi, expected)                                                     \
	do {                                                                                    \
		int total_;                                                                         \
		int wrong_ = variants_wrong(t, lo, hi, expected, &total_);                          \
		ENSURE_MSG(wrong_ == 0, "%s in [%s, %s]: %d of %d variants not %s", #t, #lo, #hi, wrong_, \
		           total_, (expected) ? "true" : "false");                                 \
	} while (0)

// The box for most cases: [0, 4]^3.
static const double lo4[3] = {0, 0, 0};
static const double hi4[3] = {4, 4, 4};

static void test_inside_and_through(void)
{
	static const double inside[3][3] = {{1, 1, 1}, {2, 1, 1}, {1, 2, 2}};
	CHECK_CASE(inside, lo4, hi4, true);
	// No corner inside: the plane z = 2 slices the box.
	static const double slicing[3][3] = {{-10, -10, 2}, {20, -10, 2}, {-10, 20, 2}};
	CHECK_CASE(slicing, lo4, hi4, true);
	// A long thin triangle through the box, corners far outside.
	static const double skewer[3][3] = {{-5, -4, -6}, {9, 8, 10}, {-5, -3, -6}};
	CHECK_CASE(skewer, lo4, hi4, true);
	static const double far[3][3] = {{10, 10, 10}, {11, 10, 10}, {10, 11, 10}};
	CHECK_CASE(far, lo4, hi4, false);
}

static void test_touching(void)
{
	// A corner on the top face, the rest above.
	static const double on_face[3][3] = {{2, 2, 4}, {3, 5, 7}, {1, 6, 8}};
	CHECK_CASE(on_face, lo4, hi4, true);
	static const double above_face[3][3] = {{2, 2, 5}, {3, 5, 7}, {1, 6, 8}};
	CHECK_CASE(above_face, lo4, hi4, false);
	// A corner on the vertical box edge x = y = 4.
	static const double on_edge[3][3] = {{4, 4, 2}, {6, 5, 2}, {5, 6, 3}};
	CHECK_CASE(on_edge, lo4, hi4, true);
	static const double on_corner[3][3] = {{4, 4, 4}, {6, 5, 5}, {5, 6, 7}};
	CHECK_CASE(on_corner, lo4, hi4, true);
	// An edge along the box edge y = z = 0, overlapping x in [2, 4].
	static const double edge_on_edge[3][3] = {{2, 0, 0}, {6, 0, 0}, {3, -2, -2}};
	CHECK_CASE(edge_on_edge, lo4, hi4, true);
	static const double edge_beside_edge[3][3] = {{2, -1, 0}, {6, -1, 0}, {3, -2, -2}};
	CHECK_CASE(edge_beside_edge, lo4, hi4, false);
	// Lying on the top face, partly, and in its plane but beside it.
	static const double on_top[3][3] = {{1, 1, 4}, {3, 1, 4}, {1, 3, 4}};
	CHECK_CASE(on_top, lo4, hi4, true);
	static const double over_top[3][3] = {{3, 3, 4}, {8, 3, 4}, {3, 8, 4}};
	CHECK_CASE(over_top, lo4, hi4, true);
	static const double beside_top[3][3] = {{5, 5, 4}, {8, 5, 4}, {5, 8, 4}};
	CHECK_CASE(beside_top, lo4, hi4, false);
}

static void test_single_axis(void)
{
	// Only the normal separates: the plane x + y + z = 13 passes the corner
	// (4, 4, 4) at distance 1/sqrt(3) though the bounding boxes overlap.
	static const double plane_clear[3][3] = {{13, 0, 0}, {0, 13, 0}, {0, 0, 13}};
	CHECK_CASE(plane_clear, lo4, hi4, false);
	// x + y + z = 12 holds the corner (4, 4, 4), the triangle's centroid.
	static const double plane_touch[3][3] = {{12, 0, 0}, {0, 12, 0}, {0, 0, 12}};
	CHECK_CASE(plane_touch, lo4, hi4, true);
	// Only an edge axis separates: in the plane z = 2, which cuts the box,
	// bounding boxes overlapping, the edge on x + y = 9 stays clear of the
	// box's x + y <= 8; on x + y = 8 it touches the box edge at (4, 4, 2).
	static const double edge_clear[3][3] = {{6, 3, 2}, {3, 6, 2}, {8, 8, 2}};
	CHECK_CASE(edge_clear, lo4, hi4, false);
	static const double edge_touch[3][3] = {{5, 3, 2}, {3, 5, 2}, {8, 8, 2}};
	CHECK_CASE(edge_touch, lo4, hi4, true);
	// The same with a tilted triangle: it leans over the edge x = y = 4.
	static const double tilted_clear[3][3] = {{6, 3, 0}, {3, 6, 4}, {9, 9, 2}};
	CHECK_CASE(tilted_clear, lo4, hi4, false);
	static const double tilted_touch[3][3] = {{5, 3, 0}, {3, 5, 4}, {9, 9, 2}};
	CHECK_CASE(tilted_touch, lo4, hi4, true);
}

static void test_degenerate(void)
{
	static const double seg_through[3][3] = {{-1, 2, 2}, {5, 2, 2}, {2, 2, 2}};
	CHECK_CASE(seg_through, lo4, hi4, true);
	// Bounding boxes overlap; the segment runs along x + y = 9, then 8.
	static const double seg_clear[3][3] = {{6, 3, 2}, {3, 6, 2}, {6, 3, 2}};
	CHECK_CASE(seg_clear, lo4, hi4, false);
	static const double seg_touch[3][3] = {{5, 3, 2}, {3, 5, 2}, {5, 3, 2}};
	CHECK_CASE(seg_touch, lo4, hi4, true);
	// A skew segment passing the box edge x = y = 4 diagonally in z.
	static const double seg_skew_clear[3][3] = {{6, 3, 0}, {3, 6, 4}, {6, 3, 0}};
	CHECK_CASE(seg_skew_clear, lo4, hi4, false);
	static const double point_in[3][3] = {{2, 2, 2}, {2, 2, 2}, {2, 2, 2}};
	CHECK_CASE(point_in, lo4, hi4, true);
	static const double point_corner[3][3] = {{4, 4, 4}, {4, 4, 4}, {4, 4, 4}};
	CHECK_CASE(point_corner, lo4, hi4, true);
	static const double point_out[3][3] = {{5, 2, 2}, {5, 2, 2}, {5, 2, 2}};
	CHECK_CASE(point_out, lo4, hi4, false);

	// Flat box: the square [0, 4]^2 at z = 2.
	static const double flat_lo[3] = {0, 0, 2}, flat_hi[3] = {4, 4, 2};
	static const double piercing[3][3] = {{1, 1, 0}, {2, 1, 4}, {1, 2, 4}};
	CHECK_CASE(piercing, flat_lo, flat_hi, true);
	static const double over_flat[3][3] = {{1, 1, 3}, {2, 1, 4}, {1, 2, 4}};
	CHECK_CASE(over_flat, flat_lo, flat_hi, false);
	// Point box against a triangle.
	static const double tri[3][3] = {{0, 0, 0}, {4, 0, 0}, {0, 4, 0}};
	static const double dot_in[3] = {1, 1, 0}, dot_edge[3] = {2, 2, 0}, dot_out[3] = {3, 3, 0};
	CHECK_CASE(tri, dot_in, dot_in, true);
	CHECK_CASE(tri, dot_edge, dot_edge, true);
	CHECK_CASE(tri, dot_out, dot_out, false);
}

static void test_inverted_box(void)
{
	static const double tri[3][3] = {{-10, -10, 2}, {20, -10, 2}, {-10, 20, 2}};
	for (int k = 0; k < 3; k++) {
		double lo[3] = {0, 0, 0}, hi[3] = {4, 4, 4};
		lo[k] = 5;
		ENSURE(!tri_box_overlap(tri, lo, hi));
	}
	double nan_lo[3] = {0, NAN, 0}, hi[3] = {4, 4, 4};
	ENSURE(!tri_box_overlap(tri, nan_lo, hi));
}

// ---------------------------------------------------------------------------
// Exact oracle for small integers: the closed triangle meets the closed box
// iff a corner is in the box or the triangle meets the box's surface (a
// triangle with a point inside and every corner outside crosses the
// surface). The surface is 12 triangles, possibly degenerate for flat boxes,
// which tri_tri_intersect handles exactly.

static bool oracle_exact(const double t[3][3], const double lo[3], const double hi[3])
{
	for (int i = 0; i < 3; i++) {
		bool in = true;
		for (int k = 0; k < 3; k++) {
			in = in && lo[k] <= t[i][k] && t[i][k] <= hi[k];
		}
		if (in) {
			return true;
		}
	}
	for (int k = 0; k < 3; k++) {
		int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
		for (int side = 0; side < 2; side++) {
			// The face at x_k = lo or hi: corners (k1, k2) in {lo, hi}^2.
			double c[4][3];
			for (int j = 0; j < 4; j++) {
				c[j][k] = side ? hi[k] : lo[k];
				c[j][k1] = (j == 1 || j == 2) ? hi[k1] : lo[k1];
				c[j][k2] = (j >= 2) ? hi[k2] : lo[k2];
			}
			const double f0[3][3] = {{c[0][0], c[0][1], c[0][2]}, {c[1][0], c[1][1], c[1][2]},
			                         {c[2][0], c[2][1], c[2][2]}};
			const double f1[3][3] = {{c[0][0], c[0][1], c[0][2]}, {c[2][0], c[2][1], c[2][2]},
			                         {c[3][0], c[3][1], c[3][2]}};
			if (tri_tri_intersect(t, f0) || tri_tri_intersect(t, f1)) {
				return true;
			}
		}
	}
	return false;
}

static void test_random_small_integers(void)
{
	uint64_t rng = 3;
	const int rounds = 100000;
	int wrong = 0, order_dependent = 0, hits = 0, degenerate = 0, flat = 0;
	for (int r = 0; r < rounds; r++) {
		double lo[3], hi[3], t[3][3];
		for (int k = 0; k < 3; k++) {
			lo[k] = (double)random_int(&rng, 0, 3);
			hi[k] = lo[k] + (double)random_int(&rng, 0, 5);
			flat += lo[k] == hi[k];
		}
		long long extent = r % 2 ? 5 : 6;
		for (int i = 0; i < 3; i++) {
			for (int k = 0; k < 3; k++) {
				t[i][k] = (double)random_int(&rng, -1, extent);
			}
		}
		if (r % 8 == 0) {
			// Degenerate: a corner repeated, or on the line of the others.
			for (int k = 0; k < 3; k++) {
				t[2][k] = r % 16 == 0 ? t[1][k] : 2 * t[1][k] - t[0][k];
			}
		}
		bool expected = oracle_exact(C3(t), lo, hi);
		bool got = tri_box_overlap(C3(t), lo, hi);
		if (got != expected && wrong < 5) {
			fprintf(stderr, "expected %d: (%g %g %g) (%g %g %g) (%g %g %g) in [%g %g %g, %g %g %g]\n", expected,
			        t[0][0], t[0][1], t[0][2], t[1][0], t[1][1], t[1][2], t[2][0], t[2][1], t[2][2], lo[0],
			        lo[1], lo[2], hi[0], hi[1], hi[2]);
		}
		wrong += got != expected;
		const int *perm = perms[random_int(&rng, 0, 5)];
		double tp[3][3];
		for (int i = 0; i < 3; i++) {
			for (int k = 0; k < 3; k++) {
				tp[i][k] = t[perm[i]][k];
			}
		}
		order_dependent += tri_box_overlap(C3(tp), lo, hi) != got;
		hits += expected;
		double u[3], v[3];
		for (int k = 0; k < 3; k++) {
			u[k] = t[1][k] - t[0][k];
			v[k] = t[2][k] - t[0][k];
		}
		degenerate += u[1] * v[2] == u[2] * v[1] && u[2] * v[0] == u[0] * v[2] && u[0] * v[1] == u[1] * v[0];
	}
	printf("     small integers: %d pairs, %d overlapping, %d degenerate triangles, %d flat box axes\n", rounds,
	       hits, degenerate, flat);
	ENSURE_MSG(wrong == 0, "%d of %d disagree with the exact oracle", wrong, rounds);
	ENSURE_MSG(order_dependent == 0, "%d of %d change with the corner order", order_dependent, rounds);
	ENSURE(hits > rounds * 3 / 10 && hits < rounds * 6 / 10);
	ENSURE(degenerate > rounds / 100);
}

// ---------------------------------------------------------------------------
// Clipping oracle, long double: Sutherland-Hodgman clipping of the triangle
// by the six closed half-spaces of the box; they overlap iff something is
// left. Run on the box grown and shrunk by a small margin: samples where the
// two disagree are too near touching for this arithmetic and are rejected.

typedef long double lvec[3];

// Keeps the part of polygon in[0..n) where sign * (x_axis - bound) >= 0.
static int clip_half_space(const lvec *in, int n, int axis, long double bound, long double sign, lvec *out)
{
	int m = 0;
	for (int i = 0; i < n; i++) {
		const long double *a = in[i], *b = in[(i + 1) % n];
		long double sa = sign * (a[axis] - bound), sb = sign * (b[axis] - bound);
		if (sa >= 0) {
			for (int k = 0; k < 3; k++) {
				out[m][k] = a[k];
			}
			m++;
		}
		if ((sa >= 0) != (sb >= 0)) {
			long double f = sa / (sa - sb);
			for (int k = 0; k < 3; k++) {
				out[m][k] = a[k] + f * (b[k] - a[k]);
			}
			m++;
		}
	}
	return m;
}

static bool clip_overlap(const double t[3][3], const double lo[3], const double hi[3], long double pad)
{
	// A triangle cut by 6 planes keeps at most 9 corners.
	lvec poly[2][16];
	int n = 3;
	for (int i = 0; i < 3; i++) {
		for (int k = 0; k < 3; k++) {
			poly[0][i][k] = t[i][k];
		}
	}
	int cur = 0;
	for (int k = 0; k < 3 && n > 0; k++) {
		n = clip_half_space((const lvec *)poly[cur], n, k, (long double)lo[k] - pad, 1.0L, poly[1 - cur]);
		cur = 1 - cur;
		n = n > 0 ? clip_half_space((const lvec *)poly[cur], n, k, (long double)hi[k] + pad, -1.0L, poly[1 - cur]) : 0;
		cur = 1 - cur;
	}
	return n > 0;
}

static void test_random_general_position(void)
{
	uint64_t rng = 2024;
	const int wanted = 100000;
	int tested = 0, rejected = 0, hits = 0, wrong = 0, order_dependent = 0;
	while (tested < wanted) {
		double lo[3], hi[3], t[3][3];
		for (int k = 0; k < 3; k++) {
			lo[k] = random_unit(&rng);
			hi[k] = lo[k] + 0.1 + 0.45 * (random_unit(&rng) + 1.0);
		}
		for (int i = 0; i < 3; i++) {
			for (int k = 0; k < 3; k++) {
				t[i][k] = 0.5 * (lo[k] + hi[k]) + 1.5 * random_unit(&rng);
			}
		}
		bool grown = clip_overlap(C3(t), lo, hi, 1e-9L), shrunk = clip_overlap(C3(t), lo, hi, -1e-9L);
		if (grown != shrunk) {
			rejected++;
			continue;
		}
		tested++;
		hits += grown;
		bool got = tri_box_overlap(C3(t), lo, hi);
		wrong += got != grown;
		const int *perm = perms[random_int(&rng, 0, 5)];
		double tp[3][3];
		for (int i = 0; i < 3; i++) {
			for (int k = 0; k < 3; k++) {
				tp[i][k] = t[perm[i]][k];
			}
		}
		order_dependent += tri_box_overlap(C3(tp), lo, hi) != got;
	}
	printf("     general position: %d pairs, %d overlapping (%.1f%%), %d rejected as near-touching\n", tested,
	       hits, 100.0 * hits / tested, rejected);
	ENSURE_MSG(wrong == 0, "%d of %d disagree with clipping", wrong, tested);
	ENSURE_MSG(order_dependent == 0, "%d of %d change with the corner order", order_dependent, tested);
	ENSURE(hits > tested * 3 / 10 && hits < tested * 6 / 10);
}

int main(int argc, char **argv)
{
	TEST_INIT(argc, argv);
	RUN_TEST(test_inside_and_through);
	RUN_TEST(test_touching);
	RUN_TEST(test_single_axis);
	RUN_TEST(test_degenerate);
	RUN_TEST(test_inverted_box);
	RUN_TEST(test_random_small_integers);
	RUN_TEST(test_random_general_position);
	return TEST_SUMMARY();
}
