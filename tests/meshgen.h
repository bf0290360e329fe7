// SPDX-License-Identifier: MIT
// Procedural meshes for the tests and benchmarks, at caller-chosen sizes.
// Every generator writes malloc'ed arrays into a meshgen_mesh (free with
// meshgen_free) and returns false, with *out zeroed, when memory runs out or
// a size is out of range. Triangles are counter-clockwise seen from outside
// (outward normals) for the closed shapes.
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "vkcollide.h"

typedef struct meshgen_mesh {
	float *positions; // 3 floats per vertex
	uint32_t vertex_count;
	uint32_t *indices; // 3 per triangle
	uint32_t triangle_count;
} meshgen_mesh;

// Axis-aligned box from lo to hi, each face divided into divisions x
// divisions quads (0 counts as 1): 12 d^2 triangles. Closed. With
// split_faces every face has its own vertices, as importers produce at normal
// seams (6 (d + 1)^2 vertices: open by index, closed once equal positions
// are joined); otherwise vertices are shared (6 d^2 + 2 vertices).
bool meshgen_box(meshgen_mesh *out, const float lo[3], const float hi[3], uint32_t divisions, bool split_faces);

// The same box without its +z face: open, with 4 d boundary edges.
bool meshgen_box_open(meshgen_mesh *out, const float lo[3], const float hi[3], uint32_t divisions);

// UV sphere: stacks >= 2 bands from pole to pole, slices >= 3 around; one
// vertex per pole (welded), the seam shared: closed, 2 slices (stacks - 1)
// triangles, slices (stacks - 1) + 2 vertices.
bool meshgen_sphere(meshgen_mesh *out, const float centre[3], float radius, uint32_t stacks, uint32_t slices);

// Torus around the z axis through the origin: tube centre circle of radius
// major, tube radius minor (< major); major_segments >= 3 around z,
// minor_segments >= 3 around the tube. Closed, 2 major minor triangles.
bool meshgen_torus(meshgen_mesh *out, float major, float minor, uint32_t major_segments, uint32_t minor_segments);

// Independent random triangles ("soup"): centres uniform in [-extent,
// extent]^3, corners within size of the centre on each axis. Deterministic
// for a seed. Open, no shared vertices.
bool meshgen_soup(meshgen_mesh *out, uint32_t triangle_count, float extent, float size, uint64_t seed);

// A body with thin legs, like the spider of assimp-testmodels: a UV
// sphere of body_radius at the origin (224 triangles) and `legs` boxes of
// leg_width x leg_width x leg_length (768 triangles each), from half the
// body radius outward, spread evenly around z and tilted 20 degrees below
// the xy plane. Each part is closed;
// the legs pass through the body's surface (a union of overlapping
// solids, not star-shaped from the origin's view of the leg tips).
bool meshgen_spider(meshgen_mesh *out, uint32_t legs, float body_radius, float leg_length, float leg_width);

// Flat open grid in the z = 0 plane over [0, sx] x [0, sy], nx x ny quads.
bool meshgen_grid(meshgen_mesh *out, uint32_t nx, uint32_t ny, float sx, float sy);

// One mesh holding a's triangles and then b's (b's indices shifted past a's
// vertices): two separate pieces. Returns false, *out zeroed, without memory.
bool meshgen_merge(meshgen_mesh *out, const meshgen_mesh *a, const meshgen_mesh *b);

// Scales then translates every vertex: v -> v * scale + offset.
void meshgen_transform(meshgen_mesh *mesh, float scale, const float offset[3]);

// Accepts a zeroed mesh.
void meshgen_free(meshgen_mesh *mesh);

// A description of the mesh (tightly packed, every option at its default);
// the mesh must outlive its use.
vkcol_mesh_desc meshgen_desc(const meshgen_mesh *mesh, const char *name);

// splitmix64: deterministic random numbers for tests.
uint64_t meshgen_random(uint64_t *state);
// Uniform in [0, 1).
double meshgen_random_unit(uint64_t *state);
// A uniform random rotation (Shoemake's subgroup algorithm, three draws),
// zero translation.
vkcol_pose meshgen_random_rotation(uint64_t *state);
// A point uniform in the unit ball (rejection from the cube).
void meshgen_random_in_ball(uint64_t *state, double out[3]);
// meshgen_random_rotation, then a translation uniform in the ball of the
// given radius.
vkcol_pose meshgen_random_pose(uint64_t *state, float radius);
