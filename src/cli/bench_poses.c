// SPDX-License-Identifier: MIT
// The poses of `vkcollide bench` (bench_poses.h). Random numbers are
// splitmix64 and rotations Shoemake's, as bench/gen_poses.py draws them; what
// differs is how far B's centre may lie from A's, which is calibrated here
// to a collide fraction instead of read from a table.
#include "bench_poses.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

// Uniform in [0, 1): the top 53 bits.
static double uniform(uint64_t *state)
{
	return (double)(splitmix64(state) >> 11) * 0x1.0p-53;
}

// Shoemake, "Uniform random rotations" (Graphics Gems III): w x y z.
static void random_rotation(uint64_t *state, double q[4])
{
	const double two_pi = 6.283185307179586;
	double u1 = uniform(state), u2 = uniform(state), u3 = uniform(state);
	double a = sqrt(1 - u1), b = sqrt(u1);
	q[0] = b * cos(two_pi * u3);
	q[1] = a * sin(two_pi * u2);
	q[2] = a * cos(two_pi * u2);
	q[3] = b * sin(two_pi * u3);
}

// Uniform in the unit ball, by rejection from the cube.
static void random_in_ball(uint64_t *state, double v[3])
{
	for (;;) {
		for (int k = 0; k < 3; k++)
			v[k] = 2 * uniform(state) - 1;
		if (v[0] * v[0] + v[1] * v[1] + v[2] * v[2] <= 1)
			return;
	}
}

// Uniform on the unit sphere: a point of the ball, away from its centre,
// normalised.
static void random_direction(uint64_t *state, double v[3])
{
	for (;;) {
		random_in_ball(state, v);
		double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
		if (n > 1e-3) {
			for (int k = 0; k < 3; k++)
				v[k] /= n;
			return;
		}
	}
}

static void rotate(const double q[4], const double v[3], double out[3])
{
	double w = q[0], x = q[1], y = q[2], z = q[3];
	double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
	                  {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
	                  {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
	for (int i = 0; i < 3; i++)
		out[i] = r[i][0] * v[0] + r[i][1] * v[1] + r[i][2] * v[2];
}

void pose_frame_of(const float *positions, uint32_t vertex_count, pose_frame *out)
{
	double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (uint32_t i = 0; i < vertex_count; i++) {
		for (int k = 0; k < 3; k++) {
			double v = positions[3 * (size_t)i + k];
			lo[k] = v < lo[k] ? v : lo[k];
			hi[k] = v > hi[k] ? v : hi[k];
		}
	}
	double r2 = 0;
	for (int k = 0; k < 3; k++)
		out->centre[k] = 0.5 * (lo[k] + hi[k]);
	for (uint32_t i = 0; i < vertex_count; i++) {
		double d2 = 0;
		for (int k = 0; k < 3; k++) {
			double d = positions[3 * (size_t)i + k] - out->centre[k];
			d2 += d * d;
		}
		r2 = d2 > r2 ? d2 : r2;
	}
	out->radius = sqrt(r2);
}

// The pair with B rotated by q and its centre at A's centre + offset
// (t = cA + offset - R(q) cB), rounded to float.
static vkcol_pair place(const pose_pair *p, const double q[4], const double offset[3])
{
	double rc[3];
	rotate(q, p->fb.centre, rc);
	vkcol_pair pair = {.a = p->a, .b = p->b, .pose_a = {{1, 0, 0, 0}, {0, 0, 0}}};
	for (int k = 0; k < 4; k++)
		pair.pose_b.rotation[k] = (float)q[k];
	for (int k = 0; k < 3; k++)
		pair.pose_b.translation[k] = (float)(p->fa.centre[k] + offset[k] - rc[k]);
	return pair;
}

static bool answer(const pose_pair *p, const vkcol_pair *pairs, uint64_t n, vkcol_pair_result *results)
{
	vkcol_batch_desc bd = {.pairs = pairs, .pair_count = n, .mode = VKCOL_MODE_EXACT};
	return vkcol_batch_run(p->ctx, &bd, results) == VKCOL_SUCCESS;
}

typedef struct calibration_sample {
	double u;   // offset length in units of rA + rB
	int collide;
} calibration_sample;

static int by_length(const void *x, const void *y)
{
	double a = ((const calibration_sample *)x)->u, b = ((const calibration_sample *)y)->u;
	return (a > b) - (a < b);
}

#define CALIBRATION_POSES 4096u
// The fewest calibration poses a factor below 1 is judged on.
#define CALIBRATION_MIN 64u

// The radius factor F whose ball gives about `target` collisions: with
// offsets of length u (in rA + rB) spread evenly over [0, 1], a ball of
// radius F holds them with density u^2, so its fraction is
// sum(c u^2) / sum(u^2) over u <= F; beyond F = 1 nothing more collides (the
// bounding spheres are apart), so the fraction falls as f(1) / F^3.
static bool calibrate(const pose_pair *p, double target, uint64_t seed, pose_info *info)
{
	bool ok = false;
	vkcol_pair *pairs = malloc(CALIBRATION_POSES * sizeof(*pairs));
	vkcol_pair_result *results = malloc(CALIBRATION_POSES * sizeof(*results));
	calibration_sample *s = malloc(CALIBRATION_POSES * sizeof(*s));
	if (!pairs || !results || !s)
		goto cleanup;
	uint64_t state = seed ^ 0x5ca1ab1e0ddba11ull;
	double reach = p->fa.radius + p->fb.radius;
	for (uint32_t i = 0; i < CALIBRATION_POSES; i++) {
		double q[4], d[3], offset[3];
		random_rotation(&state, q);
		random_direction(&state, d);
		s[i].u = uniform(&state);
		for (int k = 0; k < 3; k++)
			offset[k] = s[i].u * reach * d[k];
		pairs[i] = place(p, q, offset);
	}
	if (!answer(p, pairs, CALIBRATION_POSES, results))
		goto cleanup;
	for (uint32_t i = 0; i < CALIBRATION_POSES; i++)
		s[i].collide = (int)results[i].collide;
	// results[i] no longer matches s[i] once sorted: only s is used below.
	qsort(s, CALIBRATION_POSES, sizeof(*s), by_length);
	double weighted = 0, weight = 0;
	for (uint32_t i = 0; i < CALIBRATION_POSES; i++) {
		weighted += s[i].collide * s[i].u * s[i].u;
		weight += s[i].u * s[i].u;
	}
	double whole = weight > 0 ? weighted / weight : 0; // the fraction at F = 1
	info->calibration_poses = CALIBRATION_POSES;
	if (whole >= target && whole > 0) {
		info->radius_factor = cbrt(whole / target);
		info->expected_fraction = target;
	} else {
		// Shrink the ball from F = 1, pose by pose, until its fraction
		// reaches the target; a target no ball reaches gets the smallest.
		double factor = s[CALIBRATION_MIN - 1].u, fraction = 0;
		for (uint32_t n = CALIBRATION_POSES; n >= CALIBRATION_MIN; n--) {
			const calibration_sample *last = &s[n - 1];
			fraction = weight > 0 ? weighted / weight : 0;
			if (fraction >= target) {
				factor = last->u;
				break;
			}
			weighted -= last->collide * last->u * last->u;
			weight -= last->u * last->u;
		}
		info->radius_factor = factor;
		info->expected_fraction = fraction;
	}
	ok = true;
cleanup:
	free(pairs);
	free(results);
	free(s);
	return ok;
}

bool poses_random(const pose_pair *p, double target, uint64_t seed, uint64_t count, vkcol_pair *out,
                  pose_info *info)
{
	double start = now_seconds();
	memset(info, 0, sizeof(*info));
	if (!calibrate(p, target, seed, info))
		return false;
	uint64_t state = seed;
	double radius = info->radius_factor * (p->fa.radius + p->fb.radius);
	for (uint64_t i = 0; i < count; i++) {
		double q[4], v[3];
		random_rotation(&state, q);
		random_in_ball(&state, v);
		for (int k = 0; k < 3; k++)
			v[k] *= radius;
		out[i] = place(p, q, v);
	}
	info->seconds = now_seconds() - start;
	return true;
}

// Steps from outside the bounding spheres to the centre, and bisections of
// the step where contact begins.
// Sixteen of each place a contact within 2^-16 of (rA + rB) of where
// exact mode's answer changes: far inside the band the poses are spread
// over.
#define MARCH_STEPS 16
#define BISECTIONS 16

bool poses_near_contact(const pose_pair *p, double band, uint64_t seed, uint64_t count, vkcol_pair *out,
                        pose_info *info)
{
	double start = now_seconds();
	memset(info, 0, sizeof(*info));
	info->band = band;
	bool ok = false;
	// A round of candidates; directions along which nothing collides are
	// replaced by the next round's (four rounds at most).
	uint64_t room = count + count / 4 + 16;
	double(*q)[4] = malloc(room * sizeof(*q));
	double(*d)[3] = malloc(room * sizeof(*d));
	double *lo = malloc(room * sizeof(double)), *hi = malloc(room * sizeof(double));
	uint64_t *active = malloc(room * sizeof(uint64_t));
	vkcol_pair *pairs = malloc(room * sizeof(*pairs));
	vkcol_pair_result *results = malloc(room * sizeof(*results));
	if (!q || !d || !lo || !hi || !active || !pairs || !results)
		goto cleanup;
	const double reach = p->fa.radius + p->fb.radius, far = 1.001 * reach;
	uint64_t state = seed, found = 0;
	for (int round = 0; round < 4 && found < count; round++) {
		uint64_t n = room;
		for (uint64_t i = 0; i < n; i++) {
			random_rotation(&state, q[i]);
			random_direction(&state, d[i]);
			active[i] = i;
			lo[i] = -1; // no contact yet
			hi[i] = far;
		}
		info->candidates += n;
		// March in: the first step at which a pose collides brackets its
		// contact between that step and the one before.
		uint64_t left = n;
		for (int step = 1; step <= MARCH_STEPS && left > 0; step++) {
			double s = far * (1.0 - (double)step / MARCH_STEPS);
			for (uint64_t j = 0; j < left; j++) {
				uint64_t i = active[j];
				double offset[3] = {s * d[i][0], s * d[i][1], s * d[i][2]};
				pairs[j] = place(p, q[i], offset);
			}
			if (!answer(p, pairs, left, results))
				goto cleanup;
			uint64_t still = 0;
			for (uint64_t j = 0; j < left; j++) {
				uint64_t i = active[j];
				if (results[j].collide) {
					lo[i] = s;
				} else {
					hi[i] = s;
					active[still++] = i;
				}
			}
			left = still;
		}
		// Bisect every bracketed contact.
		uint64_t hit = 0;
		for (uint64_t i = 0; i < n; i++)
			if (lo[i] >= 0)
				active[hit++] = i;
		info->dropped += n - hit;
		for (int b = 0; b < BISECTIONS && hit > 0; b++) {
			for (uint64_t j = 0; j < hit; j++) {
				uint64_t i = active[j];
				double s = 0.5 * (lo[i] + hi[i]);
				double offset[3] = {s * d[i][0], s * d[i][1], s * d[i][2]};
				pairs[j] = place(p, q[i], offset);
			}
			if (!answer(p, pairs, hit, results))
				goto cleanup;
			for (uint64_t j = 0; j < hit; j++) {
				uint64_t i = active[j];
				double s = 0.5 * (lo[i] + hi[i]);
				if (results[j].collide)
					lo[i] = s;
				else
					hi[i] = s;
			}
		}
		for (uint64_t j = 0; j < hit && found < count; j++) {
			uint64_t i = active[j];
			double s = 0.5 * (lo[i] + hi[i]) + (2 * uniform(&state) - 1) * band * reach;
			double offset[3] = {s * d[i][0], s * d[i][1], s * d[i][2]};
			out[found++] = place(p, q[i], offset);
		}
	}
	// Whatever no round reached repeats the poses found (a pair that
	// nearly never touches is an odd benchmark, but still one).
	for (uint64_t i = found; i < count && found > 0; i++)
		out[i] = out[i % found];
	ok = found > 0;
cleanup:
	free(q);
	free(d);
	free(lo);
	free(hi);
	free(active);
	free(pairs);
	free(results);
	info->seconds = now_seconds() - start;
	return ok;
}

void poses_motion(const pose_pair *p, uint64_t count, vkcol_pair *out)
{
	const double pi = 3.141592653589793;
	const double axis[3] = {0.3, 0.8, 0.5};
	double an = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
	double reach = p->fa.radius + p->fb.radius;
	for (uint64_t i = 0; i < count; i++) {
		double t = count > 1 ? (double)i / (double)(count - 1) : 0.0;
		// Across A's sphere along x, weaving in y and z.
		double offset[3] = {reach * (2.4 * t - 1.2), 0.3 * p->fa.radius * sin(5 * pi * t),
		                    0.25 * p->fa.radius * cos(3 * pi * t)};
		double angle = 6 * pi * t, s = sin(angle / 2) / an;
		double q[4] = {cos(angle / 2), axis[0] * s, axis[1] * s, axis[2] * s};
		out[i] = place(p, q, offset);
	}
}

bool poses_write(const char *path, const vkcol_pair *pairs, uint64_t count, uint64_t stride)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return false;
	fprintf(f, "# qw qx qy qz tx ty tz: B in A's frame (vkcollide bench)\n");
	for (uint64_t i = 0; i < count; i++) {
		const vkcol_pose *b = &pairs[i * stride].pose_b;
		fprintf(f, "%.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", b->rotation[0], b->rotation[1], b->rotation[2],
		        b->rotation[3], b->translation[0], b->translation[1], b->translation[2]);
	}
	return fclose(f) == 0;
}
