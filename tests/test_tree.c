// SPDX-License-Identifier: MIT
// The balanced AABB tree (aabb_tree.h): layout, boxes, leaves, the split
// rule of CN 102663825, balance on well-spread inputs, degenerate inputs.
#include "geometry/aabb_tree.h"
#include "meshgen.h"
#include "test.h"
#include "tree_check.h"

#include <float.h>
#include <stdlib.h>
#include <time.h>

static core_env env_;

// Balance. The two-centre rule splits space at the midpoint of the centroid
// projections, not the triangles at their median, so depth exceeds
// ceil(log2(n)) by how unevenly the triangles are spread. Measured on the
// inputs below (up to 270,000 triangles): boxes, tori and uniform soups stay
// within DEPTH_SLACK = 6 levels (the excess grows slowly with n at leaf size
// 1, as the closest centroids get closer). A UV sphere crowds `slices`
// triangles into a tiny fan at each pole, which costs about log2(stacks)
// more halvings of space: SPHERE_DEPTH_SLACK = 10 for our spheres of up to
// 500 stacks.
#define DEPTH_SLACK 6
#define SPHERE_DEPTH_SLACK 10

static uint32_t ceil_log2(uint32_t n)
{
	uint32_t k = 0;
	while ((1ull << k) < n)
		k++;
	return k;
}

// The tree's surface area cost: over every node, its box's half surface
// area times the triangles under it (what the surface area heuristic
// minimises greedily, split by split).
static double tree_area_cost(const aabb_tree *tree)
{
	double cost = 0.0;
	// Triangles under each node, from the leaves up (children come later in
	// breadth-first order).
	uint32_t *under = calloc(tree->node_count, sizeof(uint32_t));
	for (uint32_t i = tree->node_count; i-- > 0;) {
		const vkcol_gpu_node *n = &tree->nodes[i];
		under[i] = n->count > 0 ? n->count : under[n->first] + under[n->first + 1];
		double x = (double)n->max_x - n->min_x, y = (double)n->max_y - n->min_y, z = (double)n->max_z - n->min_z;
		cost += (x * y + y * z + z * x) * under[i];
	}
	free(under);
	return cost;
}

// Builds m's tree with both splits (only the default on meshes of more than
// 60,000 triangles) and checks each: the structure
// (tree_check), the split's own rule (the two-centre rule; an axis that
// separates the children for the surface area heuristic), the depth bound;
// and that the surface area heuristic's tree costs no more than the
// balanced one by the measure it minimises (on meshes of 64 triangles or
// more).
static void check_mesh_tree(const char *what, const meshgen_mesh *m, uint32_t leaf_size, uint32_t max_depth,
                            uint32_t slack)
{
	double cost[2] = {0.0, 0.0};
	// The balanced split is no longer the default: its checks on the
	// largest meshes would double the suite's time for nothing new.
	int splits = m->triangle_count <= 60000 ? 2 : 1;
	for (int k = 0; k < splits; ++k) {
		aabb_split split = k == 0 ? AABB_SPLIT_SAH : AABB_SPLIT_TWO_CENTRES;
		aabb_tree tree;
		vkcol_result r =
		    aabb_tree_build(&env_, m->positions, m->indices, m->triangle_count, leaf_size, max_depth, split, &tree);
		ENSURE_EQ_INT(r, VKCOL_SUCCESS);
		if (r != VKCOL_SUCCESS)
			return;
		tree_check_result c = tree_check(&tree, m->positions, m->indices, m->triangle_count, leaf_size, max_depth);
		ENSURE_MSG(c.violations == 0, "%s, %u triangles, leaf %u: %u violations, first: %s", what,
		           m->triangle_count, leaf_size, c.violations, c.first);
		tree_check_result s = {0, ""};
		uint32_t bad = split == AABB_SPLIT_TWO_CENTRES ? tree_check_split_rule(&tree, m->positions, m->indices, &s)
		                                                : tree_check_separated(&tree, m->positions, m->indices, &s);
		ENSURE_MSG(bad == 0, "%s (split %d): %u nodes break the split rule, first: %s", what, k, bad, s.first);
		uint32_t bound = ceil_log2(m->triangle_count) + slack;
		ENSURE_MSG(tree.depth <= bound, "%s (split %d), %u triangles, leaf %u: depth %u > %u", what, k,
		           m->triangle_count, leaf_size, tree.depth, bound);
		cost[k] = tree_area_cost(&tree);
		aabb_tree_free(&env_, &tree);
	}
	// Greedy, split by split: on a handful of triangles (a 12-triangle box)
	// an early choice can lose; on meshes it wins.
	if (m->triangle_count >= 64 && splits == 2)
		ENSURE_MSG(cost[0] <= cost[1] * 1.0001,
		           "%s, %u triangles, leaf %u: surface area cost %g (SAH) > %g (balanced)", what, m->triangle_count,
		           leaf_size, cost[0], cost[1]);
}

static void test_tree_box(void)
{
	float lo[3] = {-1.0f, -2.0f, -0.5f}, hi[3] = {3.0f, 1.0f, 0.25f};
	uint32_t divisions[] = {1, 3, 16, 40, 150};
	uint32_t leaves[] = {1, 4, 16};
	for (size_t i = 0; i < CORE_COUNT_OF(divisions); ++i) {
		meshgen_mesh m;
		ENSURE(meshgen_box(&m, lo, hi, divisions[i], false));
		for (size_t j = 0; j < CORE_COUNT_OF(leaves); ++j)
			check_mesh_tree("box", &m, leaves[j], 40, DEPTH_SLACK);
		meshgen_free(&m);
	}
}

// The slabs are what the traversal prunes with, so they must be thin where
// the surface is flat: on a box split 40 times per edge, a leaf of up to 4
// triangles lies on one face unless it straddles an edge, so most leaves'
// slabs have (nearly) zero width, against a box at least as wide as a cell.
static void test_tree_slabs_flat(void)
{
	float lo[3] = {-1.0f, -2.0f, -0.5f}, hi[3] = {3.0f, 1.0f, 0.25f};
	meshgen_mesh m;
	ENSURE(meshgen_box(&m, lo, hi, 40, false));
	aabb_tree tree;
	ENSURE_EQ_INT(aabb_tree_build(&env_, m.positions, m.indices, m.triangle_count, 4, 40, AABB_SPLIT_SAH, &tree), VKCOL_SUCCESS);
	uint32_t leaves = 0, flat = 0;
	for (uint32_t i = 0; i < tree.node_count; ++i) {
		if (tree.nodes[i].count == 0)
			continue;
		leaves++;
		flat += tree.slabs[4 * (size_t)i + 3] <= 1e-6f;
	}
	ENSURE_MSG(flat >= leaves * 9 / 10, "%u of %u leaves have a flat slab", flat, leaves);
	aabb_tree_free(&env_, &tree);
	meshgen_free(&m);
}

// Near the end of float's range the box's centre overflows: the slab then
// holds everything (+infinity wide) rather than a NaN offset, which would
// make every test against it fail.
static void test_tree_slabs_huge(void)
{
	const float f = FLT_MAX, g = 0.9f * FLT_MAX;
	float p[9] = {g, g, g, f, g, g, g, f, g};
	uint32_t ix[3] = {0, 1, 2};
	aabb_tree tree;
	ENSURE_EQ_INT(aabb_tree_build(&env_, p, ix, 1, 4, 40, AABB_SPLIT_SAH, &tree), VKCOL_SUCCESS);
	tree_check_result c = tree_check(&tree, p, ix, 1, 4, 40);
	ENSURE_MSG(c.violations == 0, "%s", c.first);
	ENSURE(isinf(tree.slabs[3]) && tree.slabs[3] > 0.0f && tree.slabs[2] == 0.0f);
	aabb_tree_free(&env_, &tree);
}

// The oriented boxes are tested by the traversal only for trees with thin
// parts lying diagonally (aabb_tree.h, obb_worth) and for large trees: a
// body with thin legs has them worth it, a sphere, a torus and a box, whose
// boxes and slabs are tight already, do not, and keep none; a sphere of
// 4,096 nodes or more keeps them all the same.
static void test_tree_obb_worth(void)
{
	// Besides the four, spheres of about 4,000 and 16,000 triangles (trees
	// of about 2,300 and 9,700 nodes): the same shape, boxes as tight; only
	// the large one keeps its oriented boxes (tree_check verifies each of
	// them).
	meshgen_mesh spider, sphere, torus, box, ball, large_ball;
	const float c[3] = {0, 0, 0}, lo[3] = {-1, -2, -0.5f}, hi[3] = {3, 1, 0.25f};
	ENSURE(meshgen_spider(&spider, 8, 0.5f, 2.0f, 0.08f));
	ENSURE(meshgen_sphere(&sphere, c, 1.0f, 16, 32));
	ENSURE(meshgen_torus(&torus, 1.0f, 0.3f, 48, 20));
	ENSURE(meshgen_box(&box, lo, hi, 16, false));
	ENSURE(meshgen_sphere(&ball, c, 1.0f, 32, 64));
	ENSURE(meshgen_sphere(&large_ball, c, 1.0f, 64, 128));
	const meshgen_mesh *meshes[] = {&spider, &sphere, &torus, &box, &ball, &large_ball};
	float worth[6];
	bool kept[6];
	uint32_t nodes[6];
	for (int i = 0; i < 6; i++) {
		aabb_tree tree;
		ENSURE_EQ_INT(aabb_tree_build(&env_, meshes[i]->positions, meshes[i]->indices, meshes[i]->triangle_count, 4,
		                              40, AABB_SPLIT_SAH, &tree),
		              VKCOL_SUCCESS);
		tree_check_result r = tree_check(&tree, meshes[i]->positions, meshes[i]->indices, meshes[i]->triangle_count, 4, 40);
		ENSURE_MSG(r.violations == 0, "%s", r.first);
		worth[i] = tree.obb_worth;
		kept[i] = tree.obbs != NULL;
		nodes[i] = tree.node_count;
		aabb_tree_free(&env_, &tree);
	}
	printf("     obb_worth: spider %.3f, sphere %.3f, torus %.3f, box %.3f\n", worth[0], worth[1], worth[2], worth[3]);
	ENSURE(worth[0] >= AABB_TREE_OBB_WORTH);
	ENSURE(worth[1] < AABB_TREE_OBB_WORTH && worth[2] < AABB_TREE_OBB_WORTH && worth[3] < AABB_TREE_OBB_WORTH);
	printf("     sphere of %u nodes: oriented boxes %s; of %u nodes: %s\n", nodes[4], kept[4] ? "kept" : "none",
	       nodes[5], kept[5] ? "kept" : "none");
	ENSURE(worth[4] < AABB_TREE_OBB_WORTH && worth[5] < AABB_TREE_OBB_WORTH);
	ENSURE(nodes[4] < AABB_TREE_OBB_NODES && !kept[4]);
	ENSURE(nodes[5] >= AABB_TREE_OBB_NODES && kept[5]);
	for (int i = 0; i < 6; i++)
		meshgen_free((meshgen_mesh *)meshes[i]);
}

static void test_tree_sphere(void)
{
	float c[3] = {0.5f, -0.25f, 2.0f};
	uint32_t sizes[][2] = {{2, 3}, {4, 8}, {16, 32}, {64, 128}, {200, 400}, {500, 250}};
	uint32_t leaves[] = {1, 4, 64};
	for (size_t i = 0; i < CORE_COUNT_OF(sizes); ++i) {
		meshgen_mesh m;
		ENSURE(meshgen_sphere(&m, c, 1.5f, sizes[i][0], sizes[i][1]));
		for (size_t j = 0; j < CORE_COUNT_OF(leaves); ++j)
			check_mesh_tree("sphere", &m, leaves[j], 40, SPHERE_DEPTH_SLACK);
		meshgen_free(&m);
	}
}

static void test_tree_torus(void)
{
	uint32_t sizes[][2] = {{3, 3}, {24, 12}, {128, 48}};
	uint32_t leaves[] = {1, 4, 7};
	for (size_t i = 0; i < CORE_COUNT_OF(sizes); ++i) {
		meshgen_mesh m;
		ENSURE(meshgen_torus(&m, 2.0f, 0.5f, sizes[i][0], sizes[i][1]));
		for (size_t j = 0; j < CORE_COUNT_OF(leaves); ++j)
			check_mesh_tree("torus", &m, leaves[j], 40, DEPTH_SLACK);
		meshgen_free(&m);
	}
}

static void test_tree_soup(void)
{
	uint32_t sizes[] = {1, 2, 3, 17, 1000, 50000, 250000};
	uint32_t leaves[] = {1, 4, 64};
	for (size_t i = 0; i < CORE_COUNT_OF(sizes); ++i) {
		meshgen_mesh m;
		ENSURE(meshgen_soup(&m, sizes[i], 10.0f, 0.3f, 1234 + i));
		for (size_t j = 0; j < CORE_COUNT_OF(leaves); ++j)
			check_mesh_tree("soup", &m, leaves[j], 40, DEPTH_SLACK);
		meshgen_free(&m);
	}
}

// A triangle lying in the plane x = c, thin in y and z so that x is the
// longest axis of any box holding several of them: its centroid projects
// exactly to c.
static void thin_triangle(float *p, uint32_t *ix, uint32_t t, float c)
{
	float v[9] = {c, 0.0f, 0.0f, c, 0.01f, 0.0f, c, 0.0f, 0.01f};
	memcpy(p + 9 * t, v, sizeof(v));
	for (uint32_t k = 0; k < 3; ++k)
		ix[3 * t + k] = 3 * t + k;
}

// Builds a tree over thin triangles at the given x positions (leaf size 1)
// and returns which root child (0 or 1) triangle `probe` went to, or -1.
static int root_side(const float *xs, uint32_t n, uint32_t probe)
{
	float p[9 * 8];
	uint32_t ix[3 * 8];
	for (uint32_t t = 0; t < n; ++t)
		thin_triangle(p, ix, t, xs[t]);
	aabb_tree tree;
	if (aabb_tree_build(&env_, p, ix, n, 1, 40, AABB_SPLIT_TWO_CENTRES, &tree) != VKCOL_SUCCESS)
		return -1;
	tree_check_result c = tree_check(&tree, p, ix, n, 1, 40);
	ENSURE_MSG(c.violations == 0, "%s", c.first);
	int side = -1;
	// The subtree of each root child, collected through its leaves.
	for (int s = 0; s < 2 && tree.nodes[0].count == 0; ++s) {
		uint32_t stack[64], top = 0;
		stack[top++] = tree.nodes[0].first + (uint32_t)s;
		while (top > 0) {
			const vkcol_gpu_node *nd = &tree.nodes[stack[--top]];
			if (nd->count == 0) {
				stack[top++] = nd->first;
				stack[top++] = nd->first + 1;
				continue;
			}
			for (uint32_t j = nd->first; j < nd->first + nd->count; ++j)
				if (tree.triangles[j] == probe)
					side = s;
		}
	}
	aabb_tree_free(&env_, &tree);
	return side;
}

static void test_tree_ties(void)
{
	// 0 and 0 are near the low centre, 1 near the high one: 0.5 is
	// equidistant and joins the smaller (high) group.
	float a[] = {0.0f, 0.5f, 0.0f, 1.0f};
	ENSURE_EQ_INT(root_side(a, 4, 1), 1);
	// Mirrored: the low group is the smaller one.
	float b[] = {1.0f, 0.5f, 0.0f, 1.0f};
	ENSURE_EQ_INT(root_side(b, 4, 1), 0);
	// Equal groups: our documented choice is the first (low) group.
	float c[] = {0.0f, 0.5f, 1.0f};
	ENSURE_EQ_INT(root_side(c, 3, 1), 0);
	// Not a tie: 0.49 is nearer the low centre even though the low group is
	// larger.
	float d[] = {0.0f, 0.0f, 0.49f, 1.0f};
	ENSURE_EQ_INT(root_side(d, 4, 2), 0);
	// Two ties between groups of 1 and 3: both go to the smaller group,
	// evening it out.
	float e[] = {0.0f, 0.5f, 0.5f, 1.0f, 1.0f, 1.0f};
	ENSURE_EQ_INT(root_side(e, 6, 1), 0);
	ENSURE_EQ_INT(root_side(e, 6, 2), 0);
}

static void test_tree_identical_centroids(void)
{
	// Every triangle the same: all projections tie, and the split must still
	// make progress (by count) down to single-triangle leaves.
	enum { N = 1000 };
	float *p = malloc(9 * sizeof(float));
	uint32_t *ix = malloc(3 * N * sizeof(uint32_t));
	float v[9] = {1, 2, 3, 4, 2, 3, 1, 5, 3};
	memcpy(p, v, sizeof(v));
	for (uint32_t t = 0; t < N; ++t) {
		ix[3 * t] = 0;
		ix[3 * t + 1] = 1;
		ix[3 * t + 2] = 2;
	}
	aabb_tree tree;
	ENSURE_EQ_INT(aabb_tree_build(&env_, p, ix, N, 1, 40, AABB_SPLIT_SAH, &tree), VKCOL_SUCCESS);
	tree_check_result c = tree_check(&tree, p, ix, N, 1, 40);
	ENSURE_MSG(c.violations == 0, "%s", c.first);
	ENSURE_EQ_INT(tree.leaf_count, N);
	ENSURE_EQ_INT(tree.leaf_max, 1);
	// Ties shared out evenly halve every node: a perfectly balanced tree.
	ENSURE_EQ_INT(tree.depth, ceil_log2(N));
	aabb_tree_free(&env_, &tree);

	// Also when the depth bound stops it first: leaves at max_depth hold more.
	ENSURE_EQ_INT(aabb_tree_build(&env_, p, ix, N, 1, 3, AABB_SPLIT_SAH, &tree), VKCOL_SUCCESS);
	c = tree_check(&tree, p, ix, N, 1, 3);
	ENSURE_MSG(c.violations == 0, "%s", c.first);
	ENSURE_EQ_INT(tree.depth, 3);
	ENSURE_EQ_INT(tree.leaf_count, 8);
	ENSURE_EQ_INT(tree.leaf_min, N / 8);
	aabb_tree_free(&env_, &tree);
	free(p);
	free(ix);
}

static void test_tree_max_depth(void)
{
	meshgen_mesh m;
	ENSURE(meshgen_soup(&m, 5000, 1.0f, 0.01f, 7));
	uint32_t depths[] = {0, 1, 2, 5};
	for (size_t i = 0; i < CORE_COUNT_OF(depths); ++i) {
		aabb_tree tree;
		ENSURE_EQ_INT(aabb_tree_build(&env_, m.positions, m.indices, m.triangle_count, 4, depths[i], AABB_SPLIT_SAH, &tree),
		              VKCOL_SUCCESS);
		ENSURE_EQ_INT(tree.depth, depths[i]);
		ENSURE_EQ_INT(tree.level_count, depths[i] + 1);
		tree_check_result c = tree_check(&tree, m.positions, m.indices, m.triangle_count, 4, depths[i]);
		ENSURE_MSG(c.violations == 0, "max_depth %u: %s", depths[i], c.first);
		aabb_tree_free(&env_, &tree);
	}
	meshgen_free(&m);
}

static void test_tree_invalid(void)
{
	float p[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
	uint32_t ix[3] = {0, 1, 2};
	aabb_tree tree;
	ENSURE_EQ_INT(aabb_tree_build(&env_, p, ix, 0, 4, 40, AABB_SPLIT_SAH, &tree), VKCOL_ERROR_INVALID_ARGUMENT);
	ENSURE(tree.nodes == NULL && tree.node_count == 0);
	ENSURE_EQ_INT(aabb_tree_build(&env_, p, ix, 1, 0, 40, AABB_SPLIT_SAH, &tree), VKCOL_ERROR_INVALID_ARGUMENT);
	ENSURE_EQ_INT(aabb_tree_build(&env_, NULL, ix, 1, 4, 40, AABB_SPLIT_SAH, &tree), VKCOL_ERROR_INVALID_ARGUMENT);
	ENSURE_EQ_INT(aabb_tree_build(&env_, p, ix, 1, 4, 40, AABB_SPLIT_SAH, &tree), VKCOL_SUCCESS);
	ENSURE_EQ_INT(tree.node_count, 1);
	ENSURE_EQ_INT(tree.depth, 0);
	ENSURE_EQ_INT(tree.leaf_count, 1);
	aabb_tree_free(&env_, &tree);
	aabb_tree_free(&env_, &tree); // zeroed: accepted
}

static void test_tree_large(void)
{
	// 250,000+ triangles: a torus of 500 x 256 quads (256,000 triangles).
	meshgen_mesh m;
	ENSURE(meshgen_torus(&m, 3.0f, 1.0f, 500, 256));
	clock_t t0 = clock();
	aabb_tree tree;
	ENSURE_EQ_INT(aabb_tree_build(&env_, m.positions, m.indices, m.triangle_count, 4, 40, AABB_SPLIT_SAH, &tree), VKCOL_SUCCESS);
	double seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
	printf("     %u triangles: tree of %u nodes, depth %u, built in %.3f s\n", m.triangle_count, tree.node_count,
	       tree.depth, seconds);
	tree_check_result c = tree_check(&tree, m.positions, m.indices, m.triangle_count, 4, 40);
	ENSURE_MSG(c.violations == 0, "%s", c.first);
	ENSURE(tree.depth <= ceil_log2(m.triangle_count) + DEPTH_SLACK);
	aabb_tree_free(&env_, &tree);
	meshgen_free(&m);
}

int main(int argc, char **argv)
{
	TEST_INIT(argc, argv);
	core_env_init(&env_, NULL, NULL, NULL, VKCOL_LOG_DEFAULT);
	RUN_TEST(test_tree_box);
	RUN_TEST(test_tree_slabs_flat);
	RUN_TEST(test_tree_slabs_huge);
	RUN_TEST(test_tree_obb_worth);
	RUN_TEST(test_tree_sphere);
	RUN_TEST(test_tree_torus);
	RUN_TEST(test_tree_soup);
	RUN_TEST(test_tree_ties);
	RUN_TEST(test_tree_identical_centroids);
	RUN_TEST(test_tree_max_depth);
	RUN_TEST(test_tree_invalid);
	RUN_TEST(test_tree_large);
	return TEST_SUMMARY();
}
