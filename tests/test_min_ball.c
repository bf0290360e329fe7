// SPDX-License-Identifier: MIT
// Tests for min_ball (src/geometry/min_ball.c), the smallest enclosing ball of the
// batch pool's vertex clusters and groups:
// - analytic cases: one point, two, coincident points, points on a line
//   (with repeats), a square grid in a tilted plane, a regular polygon with
//   points inside, a cube's corners, a regular tetrahedron;
// - random sets of 2 to 256 points (uniform in a box, in a flat slab, on a
//   sphere): the ball holds every point, is no larger than the AABB
//   centre's ball, and no larger than the ball of 20,000 iterations of
//   Badoiu and Clarkson's method (an enclosing ball found independently,
//   within 1 % of the smallest), and no more than 1 % smaller than it;
//   points on a sphere get that sphere's radius.

#include "geometry/min_ball.h"
#include "test.h"

#include <stdint.h>

static const double pi = 3.14159265358979323846;

static uint64_t next_random(uint64_t *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return *state >> 11;
}

static double random_unit(uint64_t *state)
{
	return (double)next_random(state) / 9007199254740992.0;
}

static float pts[MIN_BALL_MAX_POINTS][3];

// min_ball of pts[0 .. n), checked against an expected centre and radius.
static void expect_ball(uint32_t n, const double centre[3], double radius, double tolerance, const char *what)
{
	double c[3], r;
	min_ball(&pts[0][0], 3, n, c, &r);
	double off = sqrt((c[0] - centre[0]) * (c[0] - centre[0]) + (c[1] - centre[1]) * (c[1] - centre[1]) +
	                  (c[2] - centre[2]) * (c[2] - centre[2]));
	ENSURE_MSG(fabs(r - radius) <= tolerance && off <= tolerance,
	           "%s: centre (%g, %g, %g) radius %.9g, expected (%g, %g, %g) radius %.9g", what, c[0], c[1], c[2], r,
	           centre[0], centre[1], centre[2], radius);
}

static void set(uint32_t i, double x, double y, double z)
{
	pts[i][0] = (float)x, pts[i][1] = (float)y, pts[i][2] = (float)z;
}

static void test_analytic(void)
{
	const double origin[3] = {0, 0, 0};
	set(0, 1.5, -2, 3);
	expect_ball(1, (double[3]){1.5, -2, 3}, 0, 0, "one point");
	set(1, 3.5, -2, 3);
	expect_ball(2, (double[3]){2.5, -2, 3}, 1, 1e-12, "two points");
	for (uint32_t i = 0; i < 16; i++)
		set(i, 0.25, 0.5, -1);
	expect_ball(16, (double[3]){0.25, 0.5, -1}, 0, 0, "16 coincident points");
	// A line through (1, 1, 1) along (1, 2, 2) / 3, t in [-3, 6], repeats.
	for (uint32_t i = 0; i < 40; i++) {
		double t = -3.0 + (double)((i * 7) % 10);
		set(i, 1 + t / 3, 1 + 2 * t / 3, 1 + 2 * t / 3);
	}
	expect_ball(40, (double[3]){1.5, 2, 2}, 4.5, 1e-6, "collinear points");
	// A 4 x 4 grid of spacing 1 in the plane z = x: corners (0,0,0) .. (3,3,3).
	uint32_t n = 0;
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			set(n++, i, j, i);
	expect_ball(n, (double[3]){1.5, 1.5, 1.5}, sqrt(4.5 + 2.25), 1e-6, "square grid in a tilted plane");
	// A regular 12-gon of radius 2 about (1, 0, 0) in the plane x = 1, and
	// points inside it.
	n = 0;
	for (int k = 0; k < 12; k++)
		set(n++, 1, 2 * cos(k * pi / 6), 2 * sin(k * pi / 6));
	for (int k = 0; k < 20; k++)
		set(n++, 1, 1.5 * cos(k * 0.7), 1.2 * sin(k * 1.3));
	expect_ball(n, (double[3]){1, 0, 0}, 2, 1e-6, "regular polygon");
	n = 0;
	for (int i = 0; i < 8; i++)
		set(n++, i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : -1);
	set(n++, 0.5, -0.5, 0.25);
	expect_ball(n, origin, sqrt(3.0), 1e-6, "cube corners");
	// Regular tetrahedron: alternate corners of the cube.
	set(0, 1, 1, 1), set(1, 1, -1, -1), set(2, -1, 1, -1), set(3, -1, -1, 1), set(4, 0.1, 0.2, -0.3);
	expect_ball(5, origin, sqrt(3.0), 1e-6, "regular tetrahedron");
}

// Radius of the ball of Badoiu and Clarkson's iterations (centre moved
// 1 / (i + 1) of the way to the farthest point), and the largest distance
// from the AABB centre.
static void reference_radii(uint32_t n, double *iterated, double *aabb)
{
	double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (uint32_t i = 0; i < n; i++)
		for (int k = 0; k < 3; k++) {
			lo[k] = fmin(lo[k], pts[i][k]);
			hi[k] = fmax(hi[k], pts[i][k]);
		}
	double c[3] = {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])};
	for (int pass = 0; pass < 2; pass++) {
		double far2 = 0;
		for (int it = 1; it <= (pass == 0 ? 1 : 20000); it++) {
			uint32_t far = 0;
			far2 = -1;
			for (uint32_t i = 0; i < n; i++) {
				double d2 = 0;
				for (int k = 0; k < 3; k++)
					d2 += (pts[i][k] - c[k]) * (pts[i][k] - c[k]);
				if (d2 > far2)
					far2 = d2, far = i;
			}
			if (pass == 1)
				for (int k = 0; k < 3; k++)
					c[k] += (pts[far][k] - c[k]) / (it + 1);
		}
		if (pass == 0)
			*aabb = sqrt(far2);
	}
	double far2 = 0;
	for (uint32_t i = 0; i < n; i++) {
		double d2 = 0;
		for (int k = 0; k < 3; k++)
			d2 += (pts[i][k] - c[k]) * (pts[i][k] - c[k]);
		far2 = fmax(far2, d2);
	}
	*iterated = sqrt(far2);
}

static void test_random_sets(void)
{
	uint64_t state = 2024;
	const uint32_t sizes[] = {2, 3, 4, 5, 8, 16, 17, 64, 128, 256};
	uint32_t bad_hold = 0, bad_aabb = 0, bad_small = 0, bad_large = 0, cases = 0;
	for (int shape = 0; shape < 3; shape++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			for (int rep = 0; rep < 10; rep++, cases++) {
				uint32_t n = sizes[s];
				for (uint32_t i = 0; i < n; i++) {
					double x = 2 * random_unit(&state) - 1, y = 2 * random_unit(&state) - 1,
					       z = 2 * random_unit(&state) - 1;
					if (shape == 1)
						z *= 1e-3; // a flat slab
					if (shape == 2) {  // on a sphere of radius 3 about (5, -1, 2)
						double l = sqrt(x * x + y * y + z * z);
						x /= l, y /= l, z /= l;
						x = 5 + 3 * x, y = -1 + 3 * y, z = 2 + 3 * z;
					}
					set(i, x, y, z);
				}
				double c[3], r, iterated = 0, aabb = 0;
				min_ball(&pts[0][0], 3, n, c, &r);
				reference_radii(n, &iterated, &aabb);
				for (uint32_t i = 0; i < n; i++) {
					double d2 = 0;
					for (int k = 0; k < 3; k++)
						d2 += (pts[i][k] - c[k]) * (pts[i][k] - c[k]);
					bad_hold += sqrt(d2) > r;
				}
				bad_aabb += r > aabb * (1 + 1e-12);
				bad_large += r > iterated * (1 + 1e-9);
				bad_small += r < iterated * 0.99;
				if (shape == 2 && n >= 64)
					bad_large += r > 3 * (1 + 1e-6);
			}
	ENSURE_MSG(bad_hold == 0, "%u points outside their ball", bad_hold);
	ENSURE_MSG(bad_aabb == 0, "%u of %u balls larger than the AABB centre's", bad_aabb, cases);
	ENSURE_MSG(bad_large == 0, "%u of %u balls larger than an enclosing ball found by iteration", bad_large, cases);
	ENSURE_MSG(bad_small == 0, "%u of %u balls more than 1 %% smaller than the iterated one", bad_small, cases);
}

int main(int argc, char **argv)
{
	TEST_INIT(argc, argv);
	RUN_TEST(test_analytic);
	RUN_TEST(test_random_sets);
	return TEST_SUMMARY();
}
