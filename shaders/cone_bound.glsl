// SPDX-License-Identifier: MIT
// Cone bounds of the distance cube maps (src/cone_bound.c, layout in
// shared.h): the including shader declares `clusters[]` (vec4), the pool that
// holds each mesh's bounds from its cone_first on.
#ifndef VKCOL_CONE_BOUND_GLSL
#define VKCOL_CONE_BOUND_GLSL

// Cell of direction d (not zero) at a level of n x n cells per face.
uint cone_cell(vec3 d, uint n)
{
	vec3 a = abs(d);
	uint face;
	vec2 uv;
	if (a.x >= a.y && a.x >= a.z) {
		face = d.x >= 0.0 ? 0u : 1u;
		uv = d.yz / a.x;
	} else if (a.y >= a.z) {
		face = d.y >= 0.0 ? 2u : 3u;
		uv = d.xz / a.y;
	} else {
		face = d.z >= 0.0 ? 4u : 5u;
		uv = d.xy / a.z;
	}
	float fn = float(n);
	uvec2 ij = uvec2(clamp((uv + 1.0) * (0.5 * fn), vec2(0.0), vec2(fn - 1.0)));
	return (face * n + ij.y) * n + ij.x;
}

// Is the ball of radius rho around the point at offset d from `to`'s origin
// (|d| = len) wholly beyond `to`'s outer map distance, as linear filtering
// at level 0 samples it in any direction the ball covers? Then none of its
// points lies inside by the cube-map test. False when no bound applies (the
// ball holds the origin, or covers a cone too wide for the coarsest level).
bool cone_beyond(vkcol_gpu_mesh to, vec3 d, float len, float rho)
{
	if (len <= rho)
		return false;
	// sin(VKCOL_CONE_ANGLE(l)), rounded down.
	const float sines[VKCOL_CONE_LEVELS] = float[](0.0624593, 0.1246747, 0.2474039, 0.4794255, 0.8414709);
	float s = rho / len; // sine of the ball's half-angle seen from the origin
	uint level = 0u, offset = 0u, n = uint(VKCOL_CONE_CELLS);
	while (level < uint(VKCOL_CONE_LEVELS) && s > sines[level]) {
		offset += 6u * n * n;
		n >>= 1;
		level++;
	}
	if (level == uint(VKCOL_CONE_LEVELS))
		return false;
	uint at = offset + cone_cell(d, n);
	return len - rho > clusters[to.cone_first + (at >> 2)][at & 3u];
}

#endif
