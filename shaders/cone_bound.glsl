// SPDX-License-Identifier: MIT
// Cone bounds and clearance fields of the distance cube maps
// (src/geometry/cone_bound.c, src/geometry/clearance.c, layouts in shared.h):
// the including shader defines `vec4 cluster_at(uint)`, which reads the pool
// that holds each mesh's bounds from its cone_first on.
#ifndef VKCOL_CONE_BOUND_GLSL
#define VKCOL_CONE_BOUND_GLSL

#if VKCOL_CONE_LEVELS != 5 || VKCOL_CONE_CELLS != 16
#error cone_of's sines are those of 5 levels from 16 cells
#endif

// Cell of direction d (not zero) at a level of n x n cells per face.
uint cone_cell(vec3 d, uint n)
{
	// Branch free: a SIMD driver runs every side of a divergent branch.
	vec3 a = abs(d);
	bool x = a.x >= a.y && a.x >= a.z, y = !x && a.y >= a.z;
	uint axis = x ? 0u : (y ? 1u : 2u);
	float major = x ? d.x : (y ? d.y : d.z);
	vec2 uv = (x ? d.yz : (y ? d.xz : d.xy)) / abs(major);
	uint face = 2u * axis + (major >= 0.0 ? 0u : 1u);
	float fn = float(n);
	uvec2 ij = uvec2(clamp((uv + 1.0) * (0.5 * fn), vec2(0.0), vec2(fn - 1.0)));
	return (face * n + ij.y) * n + ij.x;
}

// The cone cell (its index among a mesh's VKCOL_CONE_TEXELS) whose bounds
// hold in every direction the ball of radius rho around the point at offset
// d from the origin (|d| = len) covers, or 0xffffffff when none does (the
// ball holds the origin, or covers a cone too wide for the coarsest level).
uint cone_of(vec3 d, float len, float rho)
{
	float s = len > rho ? rho / len : 1.0; // sine of the ball's half-angle seen from the origin
	// The level: how many of the levels' half-angle sines, sin(2^l / CELLS)
	// rounded down, s exceeds. No loop over a local array: a SIMD driver such
	// as lavapipe keeps it in memory.
	uint level = uint(s > 0.0624593) + uint(s > 0.1246747) + uint(s > 0.2474039) + uint(s > 0.4794255) +
	             uint(s > 0.8414709);
	uint n = uint(VKCOL_CONE_CELLS) >> min(level, uint(VKCOL_CONE_LEVELS) - 1u);
	// Levels before this one hold 6 (C^2 + (C/2)^2 + ...) = 8 (C^2 - n^2) cells.
	uint offset = 8u * (uint(VKCOL_CONE_CELLS * VKCOL_CONE_CELLS) - n * n);
	return level == uint(VKCOL_CONE_LEVELS) ? 0xffffffffu : offset + cone_cell(d, n);
}

// Is the ball of radius rho around the point at offset d from `to`'s origin
// (|d| = len) wholly beyond `to`'s outer map distance, as linear filtering
// at level 0 samples it in any direction the ball covers? Then none of its
// points lies inside by the cube-map test. With `open` (an open `to`, whose
// sampled surfaces alone count), also true when the ball lies, in every
// direction it covers, wholly before `to`'s inner distance R, or wholly
// beyond R and before the outer distance G: then no two of its points lie
// on either side of R or of G. False when no bound applies (the ball holds
// the origin, or covers a cone too wide for the coarsest level).
bool cone_rules_out(vkcol_gpu_mesh to, vec3 d, float len, float rho, bool open)
{
	uint cell = cone_of(d, len, rho);
	if (cell == 0xffffffffu)
		return false;
	vec4 cone = cluster_at(to.cone_first + cell);
	return len - rho > cone.x || (open && (len + rho < cone.y || (len - rho > cone.z && len + rho < cone.w)));
}

// A mesh's clearance field (src/geometry/clearance.h): grid = (minimum, cell
// edge), more = (points per axis as uint bits, the filter's reach); values:
// where its values start in the cluster pool.
struct clearance_grid {
	vec4 grid, more;
	uint values;
};

clearance_grid clearance_of(vkcol_gpu_mesh to)
{
	uint first = to.cone_first + uint(VKCOL_CONE_TEXELS) + to.ball_count;
	return clearance_grid(cluster_at(first), cluster_at(first + 1u), first + uint(VKCOL_CLEARANCE_HEADER));
}

// The field's value at the grid point p of the cell that holds c (clamped
// to the grid).
float clearance_at(clearance_grid g, vec3 c, out vec3 p)
{
	uvec3 dims = floatBitsToUint(g.more.xyz);
	uvec3 i = uvec3(clamp(floor((c - g.grid.xyz) / g.grid.w), vec3(0.0), vec3(dims - 1u)));
	// precise: the same point in every pass (approx_jobs.comp).
	precise vec3 point = g.grid.xyz + (vec3(i) + 0.5) * g.grid.w;
	p = point;
	uint at = (i.z * dims.y + i.y) * dims.x + i.x;
	return cluster_at(g.values + (at >> 2))[at & 3u];
}

// Is every point of the ball of radius rho around c (in the mesh's frame)
// outside the mesh by its map, as linear filtering at level 0 samples it,
// by the clearance field? Read at the grid point of the cell that holds c.
bool clearance_beyond(clearance_grid g, vec3 c, float rho)
{
	vec3 p;
	float value = clearance_at(g, c, p);
	return value > (1.0 + g.more.w) * (length(c - p) + rho);
}

// The ball (centre, squared radius) around the grid point of the cell that
// holds c whose every point the field puts outside the map: points x with
// value > (1 + reach) |x - p|. Empty (radius 0) where the value is 0.
vec4 clearance_ball(clearance_grid g, vec3 c)
{
	vec3 p;
	precise float radius = clearance_at(g, c, p) / (1.0 + g.more.w), r2 = radius * radius;
	return vec4(p, r2);
}

#endif
