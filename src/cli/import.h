// SPDX-License-Identifier: MIT
// Mesh import through Assimp's C API for the command-line tool (and tests):
// every sub-mesh of the scene merged in world space (node transforms applied),
// triangulated, identical vertices joined, points and lines dropped.
#pragma once

#include <stddef.h>
#include <stdint.h>

typedef struct import_mesh {
	float *positions;       // 3 floats per vertex (malloc)
	uint32_t vertex_count;
	uint32_t *indices;      // 3 per triangle (malloc)
	uint32_t triangle_count;
	uint32_t submesh_count; // Assimp meshes merged
} import_mesh;

// Reads path into out. Returns 0 on success; on failure returns nonzero, out
// is zeroed, and error holds one line naming the reason (not the file: the
// caller prefixes it), e.g. "Assimp cannot read it: ...", "it holds no
// triangles", "it is empty".
int import_mesh_load(const char *path, import_mesh *out, char *error, size_t error_size);

void import_mesh_free(import_mesh *mesh);
