// SPDX-License-Identifier: MIT
// The README's library example: two unit cubes, three poses, one batch.
// Built and run by the test suite, so the snippet in README.md compiles.
#include <stdio.h>
#include <vkcollide.h>

int main(void)
{
	// A cube from -1 to 1: 8 corners, 12 triangles.
	const float p[] = {-1, -1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1, -1, -1, 1, 1, -1, 1, 1, 1, 1, -1, 1, 1};
	const uint32_t ix[] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
	                       1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};

	vkcol_context_desc cd = {0}; // zero = defaults; VKCOLLIDE_DEVICE picks a device
	vkcol_context *ctx;
	vkcol_result r = vkcol_context_create(&cd, &ctx);
	if (r != VKCOL_SUCCESS) {
		fprintf(stderr, "no context: %s\n", vkcol_result_string(r));
		return 1;
	}
	vkcol_mesh_desc md = {.positions = p, .vertex_count = 8, .indices = ix, .triangle_count = 12,
	                      .cube_resolution = 64, .name = "cube"};
	vkcol_mesh cube;
	if ((r = vkcol_mesh_create(ctx, &md, &cube)) != VKCOL_SUCCESS) {
		fprintf(stderr, "mesh: %s\n", vkcol_result_string(r));
		vkcol_context_destroy(ctx);
		return 1;
	}
	// Poses: unit quaternion (w, x, y, z) and translation.
	vkcol_pair pairs[3] = {
	    {cube, cube, {{1, 0, 0, 0}, {0, 0, 0}}, {{1, 0, 0, 0}, {1.0f, 0.5f, 0.25f}}},     // overlapping
	    {cube, cube, {{1, 0, 0, 0}, {0, 0, 0}}, {{0.924f, 0, 0, 0.383f}, {3.5f, 0, 0}}}, // 45 deg about z, apart
	    {cube, cube, {{1, 0, 0, 0}, {0, 0, 0}}, {{1, 0, 0, 0}, {10, 0, 0}}},             // far apart
	};
	vkcol_pair_result results[3];
	vkcol_batch_desc bd = {.pairs = pairs, .pair_count = 3, .mode = VKCOL_MODE_APPROX};
	r = vkcol_batch_run(ctx, &bd, results);
	for (int i = 0; r == VKCOL_SUCCESS && i < 3; i++)
		printf("pair %d: %s (stage %u)\n", i, results[i].collide ? "collide" : "apart", results[i].stage);
	vkcol_context_destroy(ctx); // frees the meshes too
	// The expected answers make this example a test.
	return r == VKCOL_SUCCESS && results[0].collide && !results[1].collide && !results[2].collide ? 0 : 1;
}
