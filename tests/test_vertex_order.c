// SPDX-License-Identifier: MIT
// Tests for vertex_order_cells (src/geometry/vertex_order.c), the k-d order of the
// batch pool's vertices:
// - the result is a permutation of the input, for counts around the cluster
//   and group sizes, random points, points that all coincide, and points
//   with many equal coordinates;
// - it is the k-d split it promises, checked cell by cell by a walk of its
//   own: a cell of more than one cluster splits after a whole number of
//   groups (or clusters, once it holds one group or less), at half of them
//   rounded down, and no vertex on the left lies beyond one on the right
//   along the longest axis of the cell's box;
// - it is deterministic;
// - on a torus's vertices, its clusters are compact: smaller boxes in sum
//   than the generator's ring order and than a shuffled order.

#include "meshgen.h"
#include "test.h"
#include "geometry/vertex_order.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

static uint64_t next_random(uint64_t *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return *state >> 11;
}

static float random_unit(uint64_t *state)
{
	return (float)((double)next_random(state) / 9007199254740992.0);
}

// Items 0 .. count - 1 in a shuffled order (their keys garbage: scratch).
static vertex_key *shuffled_items(uint32_t count, uint64_t *state)
{
	vertex_key *items = malloc((count ? count : 1) * sizeof(*items));
	if (!items)
		return NULL;
	for (uint32_t i = 0; i < count; i++)
		items[i] = (vertex_key){-1.0f, i};
	for (uint32_t i = count; i > 1; i--) {
		uint32_t j = (uint32_t)(next_random(state) % i);
		vertex_key t = items[i - 1];
		items[i - 1] = items[j];
		items[j] = t;
	}
	return items;
}

// Is items[0 .. count) the k-d split vertex_order_cells promises? The
// number of cells that break it, counted by a walk of its own.
static uint32_t bad_cells(const float *p, const vertex_key *items, uint32_t count, uint32_t cluster, uint32_t group)
{
	if (count <= cluster)
		return 0;
	float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (uint32_t i = 0; i < count; i++)
		for (int k = 0; k < 3; k++) {
			lo[k] = fminf(lo[k], p[3 * items[i].vertex + k]);
			hi[k] = fmaxf(hi[k], p[3 * items[i].vertex + k]);
		}
	int axis = hi[1] - lo[1] > hi[0] - lo[0] ? 1 : 0;
	axis = hi[2] - lo[2] > hi[axis] - lo[axis] ? 2 : axis;
	uint32_t unit = count > group ? group : cluster;
	uint32_t left = (count + unit - 1) / unit / 2 * unit;
	float left_max = -INFINITY, right_min = INFINITY;
	for (uint32_t i = 0; i < count; i++) {
		float x = p[3 * items[i].vertex + axis];
		if (i < left)
			left_max = fmaxf(left_max, x);
		else
			right_min = fminf(right_min, x);
	}
	return (left_max > right_min) + bad_cells(p, items, left, cluster, group) +
	       bad_cells(p, items + left, count - left, cluster, group);
}

// Orders `count` points (3 floats each) from a shuffled start and checks
// the result: a permutation, the promised cells, the same twice.
static void check_order(const float *p, uint32_t count, uint32_t cluster, uint32_t group, const char *what)
{
	uint64_t state = 1234 + count;
	vertex_key *items = shuffled_items(count, &state), *again = malloc((count ? count : 1) * sizeof(*again));
	bool *seen = calloc(count ? count : 1, sizeof(*seen));
	ENSURE(items && again && seen);
	if (!items || !again || !seen)
		goto done;
	for (uint32_t i = 0; i < count; i++)
		again[i] = items[i];
	vertex_order_cells(p, items, count, cluster, group);
	vertex_order_cells(p, again, count, cluster, group);
	uint32_t missing = 0, same = 0;
	for (uint32_t i = 0; i < count; i++) {
		if (items[i].vertex < count)
			seen[items[i].vertex] = true;
		same += items[i].vertex == again[i].vertex;
	}
	for (uint32_t i = 0; i < count; i++)
		missing += !seen[i];
	ENSURE_MSG(missing == 0, "%s, %u points, cells of %u and %u: %u points missing", what, count, cluster, group,
	           missing);
	ENSURE_MSG(same == count, "%s, %u points: %u of them in the same place twice", what, count, same);
	uint32_t bad = bad_cells(p, items, count, cluster, group);
	ENSURE_MSG(bad == 0, "%s, %u points, cells of %u and %u: %u splits out of order", what, count, cluster, group,
	           bad);
done:
	free(items);
	free(again);
	free(seen);
}

static void test_permutation_and_cells(void)
{
	const uint32_t counts[] = {0, 1, 15, 16, 17, 127, 128, 129, 255, 257, 1000, 2048, 5003};
	const uint32_t max_count = 5003;
	float *random_points = malloc(3 * max_count * sizeof(float)), *same = calloc(3 * max_count, sizeof(float));
	float *lattice = malloc(3 * max_count * sizeof(float));
	ENSURE(random_points && same && lattice);
	if (!random_points || !same || !lattice)
		goto done;
	uint64_t state = 99;
	for (uint32_t i = 0; i < 3 * max_count; i++)
		random_points[i] = 4.0f * random_unit(&state) - 2.0f;
	// Few distinct coordinates: splits through runs of equal keys.
	for (uint32_t i = 0; i < max_count; i++) {
		lattice[3 * i] = (float)(i % 3);
		lattice[3 * i + 1] = (float)(i % 5 / 2);
		lattice[3 * i + 2] = 0.5f;
	}
	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		check_order(random_points, counts[c], 16, 128, "random");
		check_order(random_points, counts[c], 4, 12, "random");
		check_order(same, counts[c], 16, 128, "coincident");
		check_order(lattice, counts[c], 16, 128, "lattice");
	}
done:
	free(random_points);
	free(same);
	free(lattice);
}

// Sum over the clusters (runs of 16 from a multiple of 16) of their boxes'
// diagonals.
static double cluster_extent(const float *p, const vertex_key *items, uint32_t count)
{
	double sum = 0;
	for (uint32_t first = 0; first < count; first += 16) {
		float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
		for (uint32_t i = first; i < first + 16 && i < count; i++)
			for (int k = 0; k < 3; k++) {
				lo[k] = fminf(lo[k], p[3 * items[i].vertex + k]);
				hi[k] = fmaxf(hi[k], p[3 * items[i].vertex + k]);
			}
		double d2 = 0;
		for (int k = 0; k < 3; k++)
			d2 += ((double)hi[k] - lo[k]) * ((double)hi[k] - lo[k]);
		sum += sqrt(d2);
	}
	return sum;
}

static void test_compact_clusters(void)
{
	meshgen_mesh torus;
	ENSURE(meshgen_torus(&torus, 1.0f, 0.35f, 48, 24));
	uint32_t n = torus.vertex_count;
	uint64_t state = 5;
	vertex_key *ring = malloc(n * sizeof(*ring)), *shuffled = shuffled_items(n, &state);
	vertex_key *ordered = malloc(n * sizeof(*ordered));
	ENSURE(ring && shuffled && ordered);
	if (ring && shuffled && ordered) {
		for (uint32_t i = 0; i < n; i++) {
			ring[i] = (vertex_key){0.0f, i};
			ordered[i] = shuffled[i];
		}
		vertex_order_cells(torus.positions, ordered, n, 16, 128);
		double kd = cluster_extent(torus.positions, ordered, n), rings = cluster_extent(torus.positions, ring, n),
		       random = cluster_extent(torus.positions, shuffled, n);
		printf("  torus (%u vertices), sum of cluster diagonals: k-d %.2f, rings %.2f, shuffled %.2f\n", n, kd,
		       rings, random);
		ENSURE_MSG(kd < 0.8 * rings, "k-d clusters %.2f against rings %.2f", kd, rings);
		ENSURE_MSG(kd < 0.25 * random, "k-d clusters %.2f against shuffled %.2f", kd, random);
	}
	free(ring);
	free(shuffled);
	free(ordered);
	meshgen_free(&torus);
}

int main(int argc, char **argv)
{
	TEST_INIT(argc, argv);
	RUN_TEST(test_permutation_and_cells);
	RUN_TEST(test_compact_clusters);
	return TEST_SUMMARY();
}
