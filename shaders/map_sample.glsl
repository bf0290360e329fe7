// SPDX-License-Identifier: MIT
// Sampling the distance cube maps: the including shader declares
// `uniform samplerCubeArray maps[VKCOL_MAP_ARRAYS]` (one cube array per
// power-of-two resolution) before including this file.
#ifndef VKCOL_MAP_SAMPLE_GLSL
#define VKCOL_MAP_SAMPLE_GLSL

// The cube array every map of the batch lies in, when they share one (the
// host specializes the pipeline per batch), else VKCOL_MAP_ARRAYS. A
// specialization constant is a constant integral expression, so it may
// index the sampler array on any Vulkan 1.1 device (a per-invocation index
// needs Vulkan 1.2's shaderSampledImageArrayNonUniformIndexing, which
// lavapipe 22.3 lacks).
layout(constant_id = VKCOL_SPEC_MAP_ARRAY) const uint MAP_ARRAY = VKCOL_MAP_ARRAYS;

// (R, G) = (nearest, farthest surface distance) of map `layer` of cube array
// `array_index` in direction d, linearly filtered at level lod. Without a
// shared array, a switch over constant indices: lavapipe runs every case of
// it, masked, so each sample costs several plain ones
// (docs/performance-notes.md).
vec2 map_sample(uint array_index, vec3 d, float layer, float lod)
{
	vec4 c = vec4(d, layer);
	if (MAP_ARRAY < VKCOL_MAP_ARRAYS)
		return textureLod(maps[MAP_ARRAY], c, lod).rg;
	switch (array_index) {
	case 0u: return textureLod(maps[0], c, lod).rg;
	case 1u: return textureLod(maps[1], c, lod).rg;
	case 2u: return textureLod(maps[2], c, lod).rg;
	case 3u: return textureLod(maps[3], c, lod).rg;
	case 4u: return textureLod(maps[4], c, lod).rg;
	case 5u: return textureLod(maps[5], c, lod).rg;
	case 6u: return textureLod(maps[6], c, lod).rg;
	case 7u: return textureLod(maps[7], c, lod).rg;
	default: return textureLod(maps[8], c, lod).rg;
	}
}

#endif
