// SPDX-License-Identifier: MIT
// Vertices with equal coordinates are one vertex (DESIGN.md's semantics):
// the key a position is welded by, its coordinates' bit patterns with -0
// made +0, and its hash for the open-addressing tables of the mesh analysis
// (mesh_cpu.c) and the CLI's importer (cli/import.c). Header only, so that
// the CLI, which links only the public library, shares it.
#pragma once

#include <stdint.h>
#include <string.h>

// The bit patterns of p's coordinates, -0 as +0 (the same position).
static inline void weld_key(const float p[3], uint32_t key[3])
{
	for (int i = 0; i < 3; i++) {
		float v = p[i] == 0.0f ? 0.0f : p[i];
		memcpy(&key[i], &v, sizeof(v));
	}
}

// A hash of a weld key (multiply-xorshift mixing of the three words).
static inline uint32_t weld_hash(const uint32_t key[3])
{
	uint32_t h = key[0] * 0x9E3779B1u;
	h ^= (h >> 15) ^ (key[1] * 0x85EBCA77u);
	h = (h ^ (h >> 13)) * 0xC2B2AE3Du;
	h ^= key[2] * 0x27D4EB2Fu;
	h ^= h >> 16;
	h *= 0x7FEB352Du;
	h ^= h >> 15;
	return h;
}
