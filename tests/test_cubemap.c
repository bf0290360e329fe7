// SPDX-License-Identifier: MIT
// Distance cube maps: the GPU map read back from the image equals the
// double-precision CPU reference at every level within the stated tolerance,
// and both match analytic distances for a sphere and a box; star-shapedness
// is reported. Validation layer on; zero messages.
#include "context.h"
#include "mesh/cubemap.h"
#include "gpu_util.h"

// Stated tolerance: |GPU - CPU| <= 2e-5 x the bounding radius for every texel
// of a star-shaped mesh. The GPU ray cast is float32 (about 6e-8 relative per
// operation over a few dozen operations); the reference is double.
#define MAP_TOLERANCE 2e-5
// For meshes that are not star-shaped, rays that graze a silhouette can hit or
// miss in float versus double: at most this fraction of texels may differ.
#define GRAZING_FRACTION 0.002

static const mesh_slot *slot_of(vkcol_context *ctx, vkcol_mesh m)
{
	return mesh_table_get(&ctx->meshes, m);
}

// Compares the GPU map of mesh m with the reference; returns the fraction of
// texels (over all levels) outside the tolerance.
static double compare_with_reference(vkcol_context *ctx, vkcol_mesh m, uint32_t resolution)
{
	const mesh_slot *s = slot_of(ctx, m);
	ENSURE(s != NULL);
	if (!s)
		return 1.0;
	ENSURE_EQ_INT(s->cube.resolution, resolution);
	uint64_t total = cubemap_texel_count(resolution);
	float *gpu = malloc(total * 8), *cpu = malloc(total * 8);
	ENSURE(gpu && cpu);
	ENSURE(cubemap_read(&ctx->gpu, &s->cube, gpu) == VKCOL_SUCCESS);
	cubemap_reference(&s->cpu, resolution, cpu);
	double tol = MAP_TOLERANCE * s->cpu.sphere_radius;
	uint64_t bad = 0;
	for (uint64_t t = 0; t < total; t++)
		bad += fabs(gpu[2 * t] - cpu[2 * t]) > tol || fabs(gpu[2 * t + 1] - cpu[2 * t + 1]) > tol;
	free(gpu);
	free(cpu);
	return (double)bad / (double)total;
}

static void test_sphere_map(void)
{
	vkcol_context *ctx = gpu_context();
	ENSURE(ctx != NULL);
	if (!ctx)
		return;
	meshgen_mesh sphere;
	const float c[3] = {0.25f, -0.5f, 0.125f};
	ENSURE(meshgen_sphere(&sphere, c, 1.0f, 24, 48));
	const uint32_t resolutions[] = {4, 16, 64};
	for (size_t r = 0; r < CORE_COUNT_OF(resolutions); r++) {
		vkcol_mesh m = gpu_mesh(ctx, &sphere, resolutions[r], "sphere");
		double bad = compare_with_reference(ctx, m, resolutions[r]);
		ENSURE_MSG(bad == 0.0, "resolution %u: %.4f%% texels beyond tolerance", resolutions[r], 100 * bad);
		// Analytic: from an origin near the centre every distance is about
		// the radius; the facets lie inside the sphere by at most the chord
		// sagitta 1 - cos(pi / 24) ~ 0.0086, plus the origin's offset.
		const mesh_slot *s = slot_of(ctx, m);
		uint64_t total = cubemap_texel_count(resolutions[r]);
		float *texels = malloc(total * 8);
		ENSURE(cubemap_read(&ctx->gpu, &s->cube, texels) == VKCOL_SUCCESS);
		double off = sqrt(pow(s->cpu.origin[0] - c[0], 2) + pow(s->cpu.origin[1] - c[1], 2) +
		                  pow(s->cpu.origin[2] - c[2], 2));
		for (uint64_t t = 0; t < total; t++) {
			ENSURE(texels[2 * t] >= 1.0 - 0.0087 - off && texels[2 * t + 1] <= 1.0 + off);
			ENSURE(texels[2 * t] <= texels[2 * t + 1]);
		}
		free(texels);
		vkcol_mesh_info info;
		ENSURE(vkcol_mesh_get_info(ctx, m, &info) == VKCOL_SUCCESS);
		ENSURE(info.star_shaped);
		ENSURE(info.cube_multi_hit_fraction == 0.0f);
		ENSURE(info.device_bytes > total * 8);
		vkcol_mesh_destroy(ctx, m);
	}
	meshgen_free(&sphere);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// A box centred on the origin: along a unit direction d the surface is at
// 1 / max(|d_i|) for half-extent 1, exactly, at every texel centre of level 0.
static void test_box_map_analytic(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh box;
	const float lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1};
	ENSURE(meshgen_box(&box, lo, hi, 3, false));
	uint32_t n = 32;
	vkcol_mesh m = gpu_mesh(ctx, &box, n, "box");
	const mesh_slot *s = slot_of(ctx, m);
	ENSURE(s != NULL);
	if (!s)
		return;
	ENSURE_SMALL(s->cpu.origin[0], 1e-6);
	ENSURE_SMALL(s->cpu.origin[1], 1e-6);
	ENSURE_SMALL(s->cpu.origin[2], 1e-6);
	float *texels = malloc(cubemap_texel_count(n) * 8);
	ENSURE(cubemap_read(&ctx->gpu, &s->cube, texels) == VKCOL_SUCCESS);
	double worst = 0;
	for (uint32_t f = 0; f < 6; f++)
		for (uint32_t j = 0; j < n; j++)
			for (uint32_t i = 0; i < n; i++) {
				double d[3];
				cubemap_texel_direction(f, i, j, n, d);
				double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
				double m_abs = fmax(fabs(d[0]), fmax(fabs(d[1]), fabs(d[2]))) / len;
				double expect = 1.0 / m_abs;
				const float *t = &texels[2 * ((f * n + j) * n + i)];
				worst = fmax(worst, fmax(fabs(t[0] - expect), fabs(t[1] - expect)));
			}
	ENSURE_MSG(worst < 1e-5, "worst error %g", worst);
	ENSURE(compare_with_reference(ctx, m, n) == 0.0);
	// Level 1 texel = min / max of its four children (checked on one texel
	// against the level-0 values read back).
	uint64_t o1 = cubemap_level_offset(n, 1);
	const float *c00 = &texels[0], *c01 = &texels[2], *c10 = &texels[2 * n], *c11 = &texels[2 * n + 2];
	ENSURE(texels[2 * o1] == fminf(fminf(c00[0], c01[0]), fminf(c10[0], c11[0])));
	ENSURE(texels[2 * o1 + 1] == fmaxf(fmaxf(c00[1], c01[1]), fmaxf(c10[1], c11[1])));
	free(texels);
	meshgen_free(&box);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// A torus seen from a point in its tube is not star-shaped: many rays cross
// the surface several times; R < G there.
static void test_torus_not_star_shaped(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh torus;
	ENSURE(meshgen_torus(&torus, 1.0f, 0.35f, 48, 24));
	vkcol_mesh m = gpu_mesh(ctx, &torus, 32, "torus");
	vkcol_mesh_info info;
	ENSURE(vkcol_mesh_get_info(ctx, m, &info) == VKCOL_SUCCESS);
	ENSURE(info.origin_inside);
	ENSURE(!info.star_shaped);
	ENSURE(info.cube_multi_hit_fraction > 0.01f && info.cube_multi_hit_fraction < 0.5f);
	double bad = compare_with_reference(ctx, m, 32);
	ENSURE_MSG(bad <= GRAZING_FRACTION, "%.4f%% texels beyond tolerance", 100 * bad);
	printf("     torus: multi-hit %.3f, texels off the reference %.5f%%\n", info.cube_multi_hit_fraction, 100 * bad);
	meshgen_free(&torus);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// The cell of direction d at n cells per face edge: a C twin of
// shaders/cone_bound.glsl's cone_cell.
static uint32_t cone_cell(const double d[3], uint32_t n)
{
	double a[3] = {fabs(d[0]), fabs(d[1]), fabs(d[2])}, u, v;
	uint32_t face;
	if (a[0] >= a[1] && a[0] >= a[2])
		face = d[0] >= 0 ? 0 : 1, u = d[1] / a[0], v = d[2] / a[0];
	else if (a[1] >= a[2])
		face = d[1] >= 0 ? 2 : 3, u = d[0] / a[1], v = d[2] / a[1];
	else
		face = d[2] >= 0 ? 4 : 5, u = d[0] / a[2], v = d[1] / a[2];
	double i = fmin(fmax((u + 1) * 0.5 * n, 0), n - 1), j = fmin(fmax((v + 1) * 0.5 * n, 0), n - 1);
	return (face * n + (uint32_t)j) * n + (uint32_t)i;
}

// The cone bounds (src/geometry/cone_bound.c) bound the GPU map: for every level-0
// texel and every level, a direction d within the level's angle of the
// texel's direction (the texel itself and random ones at the full angle)
// falls in a cell whose bound is at least the texel's outer distance; for
// the open mesh, whose inner distance bounds the cell as well, the cell's
// least and greatest inner distance hold the texel's, and its least outer
// distance is at most the texel's. That is what lets approx mode skip a
// ball of vertices seen within that angle of d. A closed mesh's cells hold
// no bounds of the inner distance.
static void test_cone_bounds(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh torus, box, open;
	const float lo[3] = {-0.7f, -0.5f, -0.3f}, hi[3] = {0.7f, 0.5f, 0.3f};
	ENSURE(meshgen_torus(&torus, 1.0f, 0.35f, 48, 24));
	ENSURE(meshgen_box(&box, lo, hi, 4, true));
	ENSURE(meshgen_box_open(&open, lo, hi, 4));
	const meshgen_mesh *meshes[] = {&torus, &box, &open};
	const uint32_t resolutions[] = {64, 16, 32};
	uint64_t state = 9;
	for (size_t k = 0; k < CORE_COUNT_OF(meshes); k++) {
		uint32_t n = resolutions[k];
		vkcol_mesh m = gpu_mesh(ctx, meshes[k], n, "cone bounds");
		const mesh_slot *s = slot_of(ctx, m);
		ENSURE(s != NULL && s->cone_bounds != NULL);
		if (!s || !s->cone_bounds)
			continue;
		float *texels = malloc(cubemap_texel_count(n) * 8);
		ENSURE(texels && cubemap_read(&ctx->gpu, &s->cube, texels) == VKCOL_SUCCESS);
		uint64_t checked = 0, violations = 0, positive = 0, open_violations = 0;
		bool open_mesh = meshes[k] == &open;
		for (uint32_t f = 0; f < 6; f++)
			for (uint32_t j = 0; j < n; j++)
				for (uint32_t i = 0; i < n; i++) {
					double r = texels[2 * (((size_t)f * n + j) * n + i)], t[3];
					double g = texels[2 * (((size_t)f * n + j) * n + i) + 1];
					positive += g > 0;
					cubemap_texel_unit(f, i, j, n, t);
					uint32_t offset = 0;
					for (uint32_t l = 0; l < VKCOL_CONE_LEVELS; l++) {
						uint32_t cells = VKCOL_CONE_CELLS >> l;
						for (int sample = 0; sample < 3; sample++) {
							// d at angle 0 (sample 0) or the level's full angle
							// from t, in a random perpendicular direction.
							double angle = sample == 0 ? 0 : VKCOL_CONE_ANGLE(l), p[3], d[3];
							do {
								for (int c = 0; c < 3; c++)
									p[c] = 2 * meshgen_random_unit(&state) - 1;
								double along = p[0] * t[0] + p[1] * t[1] + p[2] * t[2];
								for (int c = 0; c < 3; c++)
									p[c] -= along * t[c];
							} while (p[0] * p[0] + p[1] * p[1] + p[2] * p[2] < 1e-6);
							double pl = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
							for (int c = 0; c < 3; c++)
								d[c] = cos(angle) * t[c] + sin(angle) * p[c] / pl;
							const float *cone = &s->cone_bounds[4 * (offset + cone_cell(d, cells))];
							checked++;
							violations += g > cone[0];
							// (A miss, VKCOL_MAP_MISS, is below any lower
							// bound: a sample that blends it in reads as no
							// surface, which the bounds need not hold.)
							open_violations += open_mesh ? r >= 0 && (r < cone[1] || r > cone[2] || g < cone[3])
							                             : cone[1] != 0 || cone[2] != 0 || cone[3] != 0;
						}
						offset += 6 * cells * cells;
					}
				}
		ENSURE_MSG(violations == 0, "mesh %zu: %llu of %llu texel checks exceed the cone bound", k,
		           (unsigned long long)violations, (unsigned long long)checked);
		ENSURE_MSG(open_violations == 0, "mesh %zu: %llu of %llu texel checks break the inner distance's bounds", k,
		           (unsigned long long)open_violations, (unsigned long long)checked);
		ENSURE(positive > 0);
		// Not vacuous: the finest level's bounds are below the mesh's
		// farthest vertex somewhere (away from the boxes' corners, the torus's
		// rim); the open box's inner distance is bounded below by more than
		// 0 where its walls surround the rays, not where its open side lets
		// them miss (the bounds count a miss as 0).
		float top = 0, least = INFINITY;
		uint32_t floored = 0, missed = 0;
		for (uint32_t c = 0; c < 6 * VKCOL_CONE_CELLS * VKCOL_CONE_CELLS; c++) {
			top = fmaxf(top, s->cone_bounds[4 * c]);
			least = fminf(least, s->cone_bounds[4 * c]);
			floored += s->cone_bounds[4 * c + 1] > 0 && s->cone_bounds[4 * c + 3] > 0;
			missed += s->cone_bounds[4 * c + 1] == 0;
		}
		ENSURE_MSG(least < 0.9f * top, "mesh %zu: bounds %g .. %g", k, least, top);
		if (open_mesh)
			ENSURE_MSG(floored > 0 && missed > 0, "open box: %u cells bounded below, %u not", floored, missed);
		free(texels);
	}
	meshgen_free(&torus);
	meshgen_free(&box);
	meshgen_free(&open);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// The clearance field's value at grid point (i, j, k) and where the point
// lies, as shaders/cone_bound.glsl's clearance_beyond reads them.
static float field_value(const clearance_field *f, uint32_t i, uint32_t j, uint32_t k, double p[3])
{
	const uint32_t at[3] = {i, j, k};
	for (int c = 0; c < 3; c++)
		p[c] = (double)f->min[c] + (at[c] + 0.5) * (double)f->cell;
	return f->values[((size_t)k * f->dims[1] + j) * f->dims[0] + i];
}

// Does the field call the point x outside the map, read at grid point
// (i, j, k)?
static bool field_rejects(const clearance_field *f, const double x[3], uint32_t i, uint32_t j, uint32_t k)
{
	double p[3];
	float value = field_value(f, i, j, k, p);
	double d = sqrt((x[0] - p[0]) * (x[0] - p[0]) + (x[1] - p[1]) * (x[1] - p[1]) + (x[2] - p[2]) * (x[2] - p[2]));
	return value > (1.0 + f->reach) * d;
}

// Runs one pair of m against itself, side by side, in the given mode.
static void run_one_pair(vkcol_context *ctx, vkcol_mesh m, vkcol_mode mode)
{
	vkcol_pair pair = {m, m, pose_identity(), pose_at(1000.0f, 0.0f, 0.0f)};
	vkcol_batch_desc desc = {.pairs = &pair, .pair_count = 1, .mode = mode};
	vkcol_pair_result result;
	vkcol_result r = vkcol_batch_run(ctx, &desc, &result);
	ENSURE_MSG(r == VKCOL_SUCCESS && !result.collide, "one far pair, mode %d: %s, collide %u", (int)mode,
	           vkcol_result_string(r), (unsigned)result.collide);
}

// The clearance field (src/geometry/clearance.c) is a lower bound of the distance
// to the union U of the tetrahedra (origin, triangle), less the filter's
// reach: at grid points it equals a brute-force minimum over every triangle
// within rounding (so the pruned walk of the tree misses none); no point on
// a level-0 texel's ray up to the GPU map's outer distance there (what
// linear filtering returns at the texel's centre) is called outside, read
// at its own cell's grid point or at a random one; and on a body with thin
// legs the field calls points outside where the finest cone bounds cannot.
static void test_clearance_field(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh torus, open, spider;
	const float lo[3] = {-0.7f, -0.5f, -0.3f}, hi[3] = {0.7f, 0.5f, 0.3f};
	ENSURE(meshgen_torus(&torus, 1.0f, 0.35f, 48, 24));
	ENSURE(meshgen_box_open(&open, lo, hi, 4));
	ENSURE(meshgen_spider(&spider, 8, 0.5f, 2.0f, 0.08f));
	const meshgen_mesh *meshes[] = {&torus, &open, &spider};
	const uint32_t resolutions[] = {64, 32, 64};
	uint64_t state = 21;
	for (size_t k = 0; k < CORE_COUNT_OF(meshes); k++) {
		uint32_t n = resolutions[k];
		vkcol_mesh m = gpu_mesh(ctx, meshes[k], n, "clearance");
		const mesh_slot *s = slot_of(ctx, m);
		// Built by the first approx batch, not at creation nor by an
		// exact batch (which does not read it).
		ENSURE(s != NULL && s->clearance.values == NULL);
		run_one_pair(ctx, m, VKCOL_MODE_EXACT);
		ENSURE(s != NULL && s->clearance.values == NULL);
		run_one_pair(ctx, m, VKCOL_MODE_APPROX);
		ENSURE(s != NULL && s->clearance.values != NULL);
		if (!s || !s->clearance.values)
			continue;
		const clearance_field *f = &s->clearance;
		const mesh_cpu *c = &s->cpu;
		const double o[3] = {c->origin[0], c->origin[1], c->origin[2]};
		const double delta = cone_filter_reach(n);
		uint64_t points = (uint64_t)f->dims[0] * f->dims[1] * f->dims[2];
		ENSURE(points >= 1 && points <= CLEARANCE_MAX_POINTS && f->reach >= delta);
		// Brute force at every 11th grid point.
		uint64_t checked = 0, below = 0, loose = 0, outside = 0;
		for (uint64_t g = 0; g < points; g += 11) {
			uint32_t gi = (uint32_t)(g % f->dims[0]), gj = (uint32_t)(g / f->dims[0] % f->dims[1]),
			         gk = (uint32_t)(g / f->dims[0] / f->dims[1]);
			double p[3];
			float value = field_value(f, gi, gj, gk, p);
			double e = INFINITY;
			for (uint32_t t = 0; t < c->triangle_count; t++) {
				double v[3][3];
				for (int a = 0; a < 3; a++)
					for (int b = 0; b < 3; b++)
						v[a][b] = c->positions[3 * (size_t)c->indices[3 * (size_t)t + a] + b];
				e = fmin(e, clearance_tet_distance(p, o, v[0], v[1], v[2]));
			}
			double l = sqrt((p[0] - o[0]) * (p[0] - o[0]) + (p[1] - o[1]) * (p[1] - o[1]) + (p[2] - o[2]) * (p[2] - o[2]));
			double expected = e - delta * l;
			checked++;
			below += value > 0 && value > expected;
			loose += value < expected - 1e-4 * c->sphere_radius;
			outside += value > 0;
		}
		ENSURE_MSG(below == 0 && loose == 0, "mesh %zu: of %llu grid points, %llu above the union's distance, %llu "
		           "further below it than rounding", k, (unsigned long long)checked, (unsigned long long)below,
		           (unsigned long long)loose);
		// Not vacuous: the field calls some grid points outside.
		ENSURE_MSG(outside > 0, "mesh %zu: no grid point has clearance", k);
		// Points on the texels' rays.
		float *texels = malloc(cubemap_texel_count(n) * 8);
		ENSURE(texels && cubemap_read(&ctx->gpu, &s->cube, texels) == VKCOL_SUCCESS);
		uint64_t ray_points = 0, rejected = 0;
		for (uint32_t face = 0; face < 6 && texels; face++)
			for (uint32_t j = 0; j < n; j++)
				for (uint32_t i = 0; i < n; i++) {
					double g = texels[2 * (((size_t)face * n + j) * n + i) + 1], t[3];
					if (!(g > 0))
						continue;
					cubemap_texel_direction(face, i, j, n, t);
					double tl = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
					for (int sample = 0; sample < 2; sample++) {
						double along = sample == 0 ? g : g * meshgen_random_unit(&state), x[3];
						uint32_t cell[3];
						for (int a = 0; a < 3; a++) {
							x[a] = o[a] + along * t[a] / tl;
							double q = floor((x[a] - f->min[a]) / f->cell);
							cell[a] = q < 0 ? 0 : q > f->dims[a] - 1 ? f->dims[a] - 1 : (uint32_t)q;
						}
						ray_points += 2;
						rejected += field_rejects(f, x, cell[0], cell[1], cell[2]);
						rejected += field_rejects(f, x, (uint32_t)(meshgen_random(&state) % f->dims[0]),
						                          (uint32_t)(meshgen_random(&state) % f->dims[1]),
						                          (uint32_t)(meshgen_random(&state) % f->dims[2]));
					}
				}
		free(texels);
		ENSURE_MSG(rejected == 0, "mesh %zu: %llu of %llu reads call a point inside the map outside", k,
		           (unsigned long long)rejected, (unsigned long long)ray_points);
		if (meshes[k] == &spider) {
			// Grid points the field calls outside although the finest cone
			// cell of their direction bounds the map beyond them.
			uint64_t tighter = 0;
			for (uint32_t gk = 0; gk < f->dims[2]; gk++)
				for (uint32_t gj = 0; gj < f->dims[1]; gj++)
					for (uint32_t gi = 0; gi < f->dims[0]; gi++) {
						double p[3], d[3];
						float value = field_value(f, gi, gj, gk, p);
						for (int a = 0; a < 3; a++)
							d[a] = p[a] - o[a];
						double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
						tighter += value > 0 && l > 0 && s->cone_bounds[4 * cone_cell(d, VKCOL_CONE_CELLS)] >= l;
					}
			printf("     spider: %llu of %llu grid points outside by the field only\n", (unsigned long long)tighter,
			       (unsigned long long)points);
			ENSURE_MSG(tighter > points / 10, "spider: %llu of %llu grid points outside by the field only",
			           (unsigned long long)tighter, (unsigned long long)points);
		}
	}
	meshgen_free(&torus);
	meshgen_free(&open);
	meshgen_free(&spider);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

static void test_resolution_limits(void)
{
	vkcol_context *ctx = gpu_context();
	if (!ctx)
		return;
	meshgen_mesh box;
	const float lo[3] = {0, 0, 0}, hi[3] = {1, 2, 3};
	ENSURE(meshgen_box(&box, lo, hi, 1, false));
	vkcol_mesh_desc d = meshgen_desc(&box, "box");
	vkcol_mesh m;
	const uint32_t bad[] = {2, 3, 48, 2048};
	for (size_t i = 0; i < CORE_COUNT_OF(bad); i++) {
		d.cube_resolution = bad[i];
		gpu_log_expected = 1;
		ENSURE(vkcol_mesh_create(ctx, &d, &m) == VKCOL_ERROR_INVALID_ARGUMENT);
		ENSURE(m.id == 0);
		ENSURE_EQ_INT(gpu_log_expected, 0);
		gpu_log_expected = 0;
	}
	d.cube_resolution = 4;
	ENSURE(vkcol_mesh_create(ctx, &d, &m) == VKCOL_SUCCESS);
	meshgen_free(&box);
	vkcol_context_destroy(ctx);
}

int main(int argc, char **argv)
{
	TEST_INIT(argc, argv);
	if (!gpu_probe()) {
		printf("no Vulkan device: skipped\n");
		return 77;
	}
	RUN_TEST(test_sphere_map);
	RUN_TEST(test_box_map_analytic);
	RUN_TEST(test_torus_not_star_shaped);
	RUN_TEST(test_cone_bounds);
	RUN_TEST(test_clearance_field);
	RUN_TEST(test_resolution_limits);
	RUN_TEST(test_no_unexpected_log_messages);
	return TEST_SUMMARY();
}
