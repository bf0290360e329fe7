// SPDX-License-Identifier: MIT
#include "meshgen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MESHGEN_PI 3.14159265358979323846

static bool mesh_alloc(meshgen_mesh *out, size_t vertex_count, size_t triangle_count)
{
	memset(out, 0, sizeof(*out));
	if (vertex_count == 0 || triangle_count == 0 || vertex_count > UINT32_MAX / 4 ||
	    triangle_count > UINT32_MAX / 4)
		return false;
	out->positions = malloc(3 * vertex_count * sizeof(float));
	out->indices = malloc(3 * triangle_count * sizeof(uint32_t));
	if (out->positions == NULL || out->indices == NULL) {
		meshgen_free(out);
		return false;
	}
	out->vertex_count = (uint32_t)vertex_count;
	out->triangle_count = (uint32_t)triangle_count;
	return true;
}

void meshgen_free(meshgen_mesh *mesh)
{
	if (mesh == NULL)
		return;
	free(mesh->positions);
	free(mesh->indices);
	memset(mesh, 0, sizeof(*mesh));
}

static void set_vertex(meshgen_mesh *m, uint32_t v, double x, double y, double z)
{
	m->positions[3 * (size_t)v] = (float)x;
	m->positions[3 * (size_t)v + 1] = (float)y;
	m->positions[3 * (size_t)v + 2] = (float)z;
}

static void set_triangle(meshgen_mesh *m, uint32_t t, uint32_t a, uint32_t b, uint32_t c)
{
	m->indices[3 * (size_t)t] = a;
	m->indices[3 * (size_t)t + 1] = b;
	m->indices[3 * (size_t)t + 2] = c;
}

// Joins vertices with bitwise-equal positions (all generators produce shared
// positions with the same expression, hence the same bits) and drops the
// unused ones, keeping first-seen order.
typedef struct weld_key {
	float p[3];
	uint32_t index;
} weld_key;

static int compare_key(const void *a, const void *b)
{
	const weld_key *x = a, *y = b;
	int c = memcmp(x->p, y->p, sizeof(x->p));
	if (c != 0)
		return c;
	return (x->index > y->index) - (x->index < y->index);
}

static bool weld(meshgen_mesh *m)
{
	uint32_t n = m->vertex_count;
	weld_key *keys = malloc((size_t)n * sizeof(weld_key));
	uint32_t *remap = malloc((size_t)n * sizeof(uint32_t));
	uint32_t *order = malloc((size_t)n * sizeof(uint32_t));
	float *positions = malloc(3 * (size_t)n * sizeof(float));
	if (keys == NULL || remap == NULL || order == NULL || positions == NULL) {
		free(keys);
		free(remap);
		free(order);
		free(positions);
		return false;
	}
	for (uint32_t v = 0; v < n; ++v) {
		memcpy(keys[v].p, m->positions + 3 * (size_t)v, sizeof(keys[v].p));
		keys[v].index = v;
	}
	qsort(keys, n, sizeof(weld_key), compare_key);
	// Every vertex points at the first (lowest-index) vertex of its run.
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i;
		while (j < n && memcmp(keys[j].p, keys[i].p, sizeof(keys[i].p)) == 0) {
			order[keys[j].index] = keys[i].index;
			j++;
		}
		i = j;
	}
	uint32_t unique = 0;
	for (uint32_t v = 0; v < n; ++v) {
		if (order[v] == v) {
			remap[v] = unique;
			memcpy(positions + 3 * (size_t)unique, m->positions + 3 * (size_t)v, 3 * sizeof(float));
			unique++;
		}
	}
	for (size_t i = 0; i < 3 * (size_t)m->triangle_count; ++i)
		m->indices[i] = remap[order[m->indices[i]]];
	free(m->positions);
	m->positions = positions;
	m->vertex_count = unique;
	free(keys);
	free(remap);
	free(order);
	return true;
}

// One face of the box as a (d + 1)^2 grid: axis `n` fixed at hi (side +1)
// or lo (side -1); u, v the other two axes in right-handed order, so that
// u x v points along +n and triangles (a, b, c) below face outward.
static void box_face(meshgen_mesh *m, uint32_t *vbase, uint32_t *tbase, const float lo[3], const float hi[3],
                     uint32_t d, int n, int side)
{
	int u = (n + 1) % 3, v = (n + 2) % 3;
	uint32_t first = *vbase;
	for (uint32_t j = 0; j <= d; ++j) {
		for (uint32_t i = 0; i <= d; ++i) {
			double p[3];
			// lo + (hi - lo) * i / d with the ends exact, so faces that meet
			// produce bitwise-equal shared positions.
			p[u] = i == d ? hi[u] : lo[u] + ((double)hi[u] - lo[u]) * i / d;
			p[v] = j == d ? hi[v] : lo[v] + ((double)hi[v] - lo[v]) * j / d;
			p[n] = side > 0 ? hi[n] : lo[n];
			set_vertex(m, (*vbase)++, p[0], p[1], p[2]);
		}
	}
	for (uint32_t j = 0; j < d; ++j) {
		for (uint32_t i = 0; i < d; ++i) {
			uint32_t a = first + j * (d + 1) + i, b = a + 1, c = a + d + 1, e = c + 1;
			if (side > 0) {
				set_triangle(m, (*tbase)++, a, b, e);
				set_triangle(m, (*tbase)++, a, e, c);
			} else {
				set_triangle(m, (*tbase)++, a, e, b);
				set_triangle(m, (*tbase)++, a, c, e);
			}
		}
	}
}

static bool box_faces(meshgen_mesh *out, const float lo[3], const float hi[3], uint32_t d, bool with_top,
                      bool split_faces)
{
	d = d ? d : 1;
	uint32_t faces = with_top ? 6 : 5;
	if (d > 4096 || !mesh_alloc(out, (size_t)faces * (d + 1) * (d + 1), (size_t)faces * 2 * d * d))
		return false;
	uint32_t vb = 0, tb = 0;
	for (int n = 0; n < 3; ++n) {
		box_face(out, &vb, &tb, lo, hi, d, n, -1);
		if (n != 2 || with_top)
			box_face(out, &vb, &tb, lo, hi, d, n, +1);
	}
	if (!split_faces && !weld(out)) {
		meshgen_free(out);
		return false;
	}
	return true;
}

bool meshgen_box(meshgen_mesh *out, const float lo[3], const float hi[3], uint32_t divisions, bool split_faces)
{
	return box_faces(out, lo, hi, divisions, true, split_faces);
}

bool meshgen_box_open(meshgen_mesh *out, const float lo[3], const float hi[3], uint32_t divisions)
{
	return box_faces(out, lo, hi, divisions, false, false);
}

bool meshgen_sphere(meshgen_mesh *out, const float centre[3], float radius, uint32_t stacks, uint32_t slices)
{
	if (stacks < 2 || slices < 3 || stacks > 65536 || slices > 65536 ||
	    !mesh_alloc(out, (size_t)slices * (stacks - 1) + 2, 2 * (size_t)slices * (stacks - 1)))
		return false;
	uint32_t north = 0, south = out->vertex_count - 1;
	set_vertex(out, north, centre[0], centre[1], (double)centre[2] + radius);
	set_vertex(out, south, centre[0], centre[1], (double)centre[2] - radius);
	for (uint32_t i = 1; i < stacks; ++i) {
		double theta = MESHGEN_PI * i / stacks;
		for (uint32_t j = 0; j < slices; ++j) {
			double phi = 2.0 * MESHGEN_PI * j / slices;
			set_vertex(out, 1 + (i - 1) * slices + j, centre[0] + radius * sin(theta) * cos(phi),
			           centre[1] + radius * sin(theta) * sin(phi), centre[2] + radius * cos(theta));
		}
	}
	uint32_t t = 0;
	for (uint32_t j = 0; j < slices; ++j) {
		uint32_t j1 = (j + 1) % slices;
		set_triangle(out, t++, north, 1 + j, 1 + j1);
		uint32_t last = 1 + (stacks - 2) * slices;
		set_triangle(out, t++, south, last + j1, last + j);
	}
	for (uint32_t i = 1; i + 1 < stacks; ++i) {
		uint32_t r0 = 1 + (i - 1) * slices, r1 = r0 + slices;
		for (uint32_t j = 0; j < slices; ++j) {
			uint32_t j1 = (j + 1) % slices;
			set_triangle(out, t++, r0 + j, r1 + j, r1 + j1);
			set_triangle(out, t++, r0 + j, r1 + j1, r0 + j1);
		}
	}
	return true;
}

bool meshgen_torus(meshgen_mesh *out, float major, float minor, uint32_t major_segments, uint32_t minor_segments)
{
	uint32_t a = major_segments, b = minor_segments;
	if (a < 3 || b < 3 || a > 65536 || b > 65536 || !(minor < major) || !mesh_alloc(out, (size_t)a * b, 2 * (size_t)a * b))
		return false;
	for (uint32_t i = 0; i < a; ++i) {
		double u = 2.0 * MESHGEN_PI * i / a;
		for (uint32_t j = 0; j < b; ++j) {
			double v = 2.0 * MESHGEN_PI * j / b;
			double r = major + minor * cos(v);
			set_vertex(out, i * b + j, r * cos(u), r * sin(u), minor * sin(v));
		}
	}
	uint32_t t = 0;
	for (uint32_t i = 0; i < a; ++i) {
		uint32_t i1 = (i + 1) % a;
		for (uint32_t j = 0; j < b; ++j) {
			uint32_t j1 = (j + 1) % b;
			uint32_t p = i * b + j, q = i1 * b + j, r = i1 * b + j1, s = i * b + j1;
			set_triangle(out, t++, p, q, r);
			set_triangle(out, t++, p, r, s);
		}
	}
	return true;
}

uint64_t meshgen_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

double meshgen_random_unit(uint64_t *state)
{
	return (double)(meshgen_random(state) >> 11) * (1.0 / 9007199254740992.0);
}

vkcol_pose meshgen_random_rotation(uint64_t *state)
{
	const double two_pi = 6.283185307179586;
	double u1 = meshgen_random_unit(state), u2 = meshgen_random_unit(state), u3 = meshgen_random_unit(state);
	double a = sqrt(1 - u1), b = sqrt(u1);
	return (vkcol_pose){{(float)(b * cos(two_pi * u3)), (float)(a * sin(two_pi * u2)), (float)(a * cos(two_pi * u2)),
	                     (float)(b * sin(two_pi * u3))},
	                    {0, 0, 0}};
}

void meshgen_random_in_ball(uint64_t *state, double out[3])
{
	do {
		for (int k = 0; k < 3; k++)
			out[k] = 2 * meshgen_random_unit(state) - 1;
	} while (out[0] * out[0] + out[1] * out[1] + out[2] * out[2] > 1);
}

vkcol_pose meshgen_random_pose(uint64_t *state, float radius)
{
	vkcol_pose p = meshgen_random_rotation(state);
	double x[3];
	meshgen_random_in_ball(state, x);
	for (int k = 0; k < 3; k++)
		p.translation[k] = (float)(x[k] * radius);
	return p;
}

bool meshgen_soup(meshgen_mesh *out, uint32_t triangle_count, float extent, float size, uint64_t seed)
{
	if (triangle_count == 0 || !mesh_alloc(out, 3 * (size_t)triangle_count, triangle_count))
		return false;
	uint64_t state = seed;
	for (uint32_t t = 0; t < triangle_count; ++t) {
		double c[3];
		for (int k = 0; k < 3; ++k)
			c[k] = extent * (2.0 * meshgen_random_unit(&state) - 1.0);
		for (uint32_t v = 0; v < 3; ++v) {
			double p[3];
			for (int k = 0; k < 3; ++k)
				p[k] = c[k] + size * (2.0 * meshgen_random_unit(&state) - 1.0);
			set_vertex(out, 3 * t + v, p[0], p[1], p[2]);
		}
		set_triangle(out, t, 3 * t, 3 * t + 1, 3 * t + 2);
	}
	return true;
}

bool meshgen_grid(meshgen_mesh *out, uint32_t nx, uint32_t ny, float sx, float sy)
{
	if (nx == 0 || ny == 0 || nx > 65535 || ny > 65535 ||
	    !mesh_alloc(out, (size_t)(nx + 1) * (ny + 1), 2 * (size_t)nx * ny))
		return false;
	for (uint32_t j = 0; j <= ny; ++j)
		for (uint32_t i = 0; i <= nx; ++i)
			set_vertex(out, j * (nx + 1) + i, (double)sx * i / nx, (double)sy * j / ny, 0.0);
	uint32_t t = 0;
	for (uint32_t j = 0; j < ny; ++j) {
		for (uint32_t i = 0; i < nx; ++i) {
			uint32_t a = j * (nx + 1) + i, b = a + 1, c = a + nx + 1, d = c + 1;
			set_triangle(out, t++, a, b, d);
			set_triangle(out, t++, a, d, c);
		}
	}
	return true;
}

bool meshgen_spider(meshgen_mesh *out, uint32_t legs, float body_radius, float leg_length, float leg_width)
{
	const float centre[3] = {0, 0, 0};
	if (!meshgen_sphere(out, centre, body_radius, 8, 16))
		return false;
	const double tilt = 20 * 3.14159265358979323846 / 180;
	for (uint32_t k = 0; k < legs; k++) {
		const float lo[3] = {0.5f * body_radius, -0.5f * leg_width, -0.5f * leg_width};
		const float hi[3] = {0.5f * body_radius + leg_length, 0.5f * leg_width, 0.5f * leg_width};
		meshgen_mesh leg, merged;
		if (!meshgen_box(&leg, lo, hi, 8, false)) {
			meshgen_free(out);
			return false;
		}
		double heading = 2 * 3.14159265358979323846 * k / legs;
		for (uint32_t v = 0; v < leg.vertex_count; v++) {
			float *p = &leg.positions[3 * (size_t)v];
			double x = p[0] * cos(tilt) + p[2] * sin(tilt), z = -p[0] * sin(tilt) + p[2] * cos(tilt), y = p[1];
			p[0] = (float)(x * cos(heading) - y * sin(heading));
			p[1] = (float)(x * sin(heading) + y * cos(heading));
			p[2] = (float)z;
		}
		bool ok = meshgen_merge(&merged, out, &leg);
		meshgen_free(&leg);
		meshgen_free(out);
		if (!ok)
			return false;
		*out = merged;
	}
	return true;
}

void meshgen_transform(meshgen_mesh *mesh, float scale, const float offset[3])
{
	for (size_t i = 0; i < 3 * (size_t)mesh->vertex_count; ++i)
		mesh->positions[i] = mesh->positions[i] * scale + offset[i % 3];
}

vkcol_mesh_desc meshgen_desc(const meshgen_mesh *mesh, const char *name)
{
	vkcol_mesh_desc d = {0};
	d.positions = mesh->positions;
	d.vertex_count = mesh->vertex_count;
	d.indices = mesh->indices;
	d.triangle_count = mesh->triangle_count;
	d.name = name;
	return d;
}

bool meshgen_merge(meshgen_mesh *out, const meshgen_mesh *a, const meshgen_mesh *b)
{
	memset(out, 0, sizeof(*out));
	out->vertex_count = a->vertex_count + b->vertex_count;
	out->triangle_count = a->triangle_count + b->triangle_count;
	out->positions = malloc(3 * sizeof(float) * out->vertex_count);
	out->indices = malloc(3 * sizeof(uint32_t) * out->triangle_count);
	if (!out->positions || !out->indices) {
		meshgen_free(out);
		return false;
	}
	memcpy(out->positions, a->positions, 3 * sizeof(float) * a->vertex_count);
	memcpy(out->positions + 3 * (size_t)a->vertex_count, b->positions, 3 * sizeof(float) * b->vertex_count);
	memcpy(out->indices, a->indices, 3 * sizeof(uint32_t) * a->triangle_count);
	for (uint32_t i = 0; i < 3 * b->triangle_count; ++i)
		out->indices[3 * (size_t)a->triangle_count + i] = b->indices[i] + a->vertex_count;
	return true;
}
