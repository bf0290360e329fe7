// SPDX-License-Identifier: MIT
// Distances between triangles (tri_dist.h), degenerate ones included,
// against bounds computed another way: a dense sample of points on both
// triangles bounds the distance from above, and the separation of their
// projections along a direction bounds it from below (along the direction
// between the nearest samples, the bound is tight).
#include <stdbool.h>
#include <stdint.h>

#include "test.h"
#include "geometry/tri_dist.h"
#include "geometry/tri_tri.h"

static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double random_unit(uint64_t *state)
{
	return (double)(next_random(state) >> 11) * 0x1.0p-53;
}

// Separation of the triangles' projections on direction d (any length):
// a lower bound of their distance, times |d|.
static double separation(const double p[3][3], const double q[3][3], const double d[3])
{
	double pmin = INFINITY, pmax = -INFINITY, qmin = INFINITY, qmax = -INFINITY;
	for (int i = 0; i < 3; i++) {
		double x = p[i][0] * d[0] + p[i][1] * d[1] + p[i][2] * d[2];
		double y = q[i][0] * d[0] + q[i][1] * d[1] + q[i][2] * d[2];
		pmin = fmin(pmin, x), pmax = fmax(pmax, x), qmin = fmin(qmin, y), qmax = fmax(qmax, y);
	}
	double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
	return len > 0.0 ? fmax(fmax(qmin - pmax, pmin - qmax), 0.0) / len : 0.0;
}

#define SAMPLES 40

// Point (i, j) of an (SAMPLES + 1)-point barycentric grid of t (i + j <= SAMPLES).
static void grid_point(const double t[3][3], int i, int j, double out[3])
{
	double u = (double)i / SAMPLES, v = (double)j / SAMPLES;
	for (int k = 0; k < 3; k++)
		out[k] = t[0][k] + u * (t[1][k] - t[0][k]) + v * (t[2][k] - t[0][k]);
}

// Upper and lower bounds of the distance of p and q, found by sampling.
static void sampled_bounds(const double p[3][3], const double q[3][3], double *upper, double *lower)
{
	double best = INFINITY, bp[3] = {0}, bq[3] = {0};
	for (int i = 0; i <= SAMPLES; i++)
		for (int j = 0; i + j <= SAMPLES; j++) {
			double x[3];
			grid_point(p, i, j, x);
			for (int k = 0; k <= SAMPLES; k++)
				for (int l = 0; k + l <= SAMPLES; l++) {
					double y[3];
					grid_point(q, k, l, y);
					double d2 = (x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) +
					            (x[2] - y[2]) * (x[2] - y[2]);
					if (d2 < best) {
						best = d2;
						memcpy(bp, x, sizeof(bp));
						memcpy(bq, y, sizeof(bq));
					}
				}
		}
	*upper = sqrt(best);
	double dir[3] = {bq[0] - bp[0], bq[1] - bp[1], bq[2] - bp[2]};
	*lower = separation(p, q, dir);
}

// The corners of t, each snapped to a random one of the others with
// probability 1/4 (points and segments), or three collinear.
static void random_triangle(uint64_t *rng, double scale, const double at[3], double t[3][3])
{
	for (int c = 0; c < 3; c++)
		for (int k = 0; k < 3; k++)
			t[c][k] = at[k] + scale * (2.0 * random_unit(rng) - 1.0);
	int form = (int)(next_random(rng) % 8);
	if (form == 0) { // a point
		memcpy(t[1], t[0], sizeof(t[0]));
		memcpy(t[2], t[0], sizeof(t[0]));
	} else if (form == 1) { // two equal corners
		memcpy(t[2], t[0], sizeof(t[0]));
	} else if (form == 2) { // three collinear corners
		double s = random_unit(rng);
		for (int k = 0; k < 3; k++)
			t[2][k] = t[0][k] + s * (t[1][k] - t[0][k]);
	}
}

// Random pairs (a fifth of them degenerate on each side) at random gaps:
// the distance lies within the sampled bounds (up to the grid's spacing
// below), and is zero exactly when the triangles intersect.
static void test_random_pairs(void)
{
	uint64_t rng = 7;
	int checked = 0, touching = 0, wrong = 0;
	for (int n = 0; n < 400; n++) {
		double at[3] = {0, 0, 0}, p[3][3], q[3][3];
		random_triangle(&rng, 1.0, at, p);
		for (int k = 0; k < 3; k++)
			at[k] = 0.6 * (2.0 * random_unit(&rng) - 1.0);
		random_triangle(&rng, 1.0, at, q);
		double d = tri_tri_distance((const double(*)[3])p, (const double(*)[3])q), upper, lower;
		sampled_bounds((const double(*)[3])p, (const double(*)[3])q, &upper, &lower);
		bool meet = tri_tri_intersect((const double(*)[3])p, (const double(*)[3])q);
		// The grid lies within 2 / SAMPLES of every point (edges of at most
		// 2 sqrt(3)): the upper bound is that close.
		bool within = d <= upper + 1e-12 && d >= lower - 1e-12 && upper - d <= 2.0 * 3.5 / SAMPLES;
		if (!within && wrong++ < 5)
			fprintf(stderr, "pair %d: distance %.17g, bounds [%.17g, %.17g]\n", n, d, lower, upper);
		ENSURE((d == 0.0) == meet);
		checked++;
		touching += meet;
	}
	ENSURE_EQ_INT(checked, 400);
	ENSURE_EQ_INT(wrong, 0);
	ENSURE_MSG(touching > 30 && touching < 370, "%d of 400 touching", touching);
}

// The case: a "segment" triangle (first and third corner equal)
// and a "point" triangle, 2.98 apart; and the same point placed on the
// segment, which touches it.
static void test_point_and_segment(void)
{
	const double a[3][3] = {{-66.724846, 1.179926, 10.029461}, {-57.915882, 6.628378, 1.958869},
	                        {-66.724846, 1.179926, 10.029461}};
	double p[3] = {-60.0, 3.0, 5.0}, on[3][3], off[3][3];
	// A point 3 from the segment's midpoint along a normal to it.
	double mid[3], dir[3], n[3] = {0, 0, 0};
	for (int k = 0; k < 3; k++) {
		mid[k] = 0.5 * (a[0][k] + a[1][k]);
		dir[k] = a[1][k] - a[0][k];
	}
	// n = dir x (0, 0, 1), normalised: perpendicular to the segment.
	n[0] = dir[1], n[1] = -dir[0];
	double len = sqrt(n[0] * n[0] + n[1] * n[1]);
	for (int k = 0; k < 3; k++) {
		p[k] = mid[k] + 3.0 * n[k] / len;
		for (int c = 0; c < 3; c++) {
			off[c][k] = p[k];
			on[c][k] = mid[k];
		}
	}
	ENSURE_SMALL(tri_tri_distance(a, (const double(*)[3])off) - 3.0, 1e-12);
	ENSURE_SMALL(tri_tri_distance((const double(*)[3])off, a) - 3.0, 1e-12);
	// On the segment, up to the rounding of the midpoint.
	ENSURE_SMALL(tri_tri_distance(a, (const double(*)[3])on), 1e-13);
}

// A sliver whose area underflows float but not double (corners 1e-20
// apart) is a proper triangle: a segment through its interior meets it,
// one beside it is as far as in exact arithmetic.
static void test_tiny_sliver(void)
{
	const double s[3][3] = {{0, 0, 0}, {4e-20, 0, 0}, {0, 3e-20, 0}};
	const double through[3][3] = {{1e-20, 1e-20, -1}, {1e-20, 1e-20, 1}, {1e-20, 1e-20, 1}};
	const double beside[3][3] = {{1e-20, 1e-20, 5e-20}, {1e-20, 1e-20, 9e-20}, {1e-20, 1e-20, 9e-20}};
	ENSURE(tri_tri_distance(s, through) == 0.0);
	ENSURE_SMALL(tri_tri_distance(s, beside) / 5e-20 - 1.0, 1e-12);
	// Parallel segments 2 apart along y, overlapping along x.
	const double p[3] = {0, 0, 0}, q[3] = {4, 0, 0}, u[3] = {1, 2, 0}, v[3] = {6, 2, 0};
	ENSURE_SMALL(seg_seg_dist2(p, q, u, v) - 4.0, 1e-12);
	// Collinear, 1 apart end to end.
	const double w0[3] = {5, 0, 0}, w1[3] = {9, 0, 0};
	ENSURE_SMALL(seg_seg_dist2(p, q, w0, w1) - 1.0, 1e-12);
	// Point against point.
	ENSURE_SMALL(seg_seg_dist2(p, p, u, u) - 5.0, 1e-12);
}

int main(int argc, char **argv)
{
	TEST_INIT(argc, argv);
	RUN_TEST(test_point_and_segment);
	RUN_TEST(test_tiny_sliver);
	RUN_TEST(test_random_pairs);
	return TEST_SUMMARY();
}
