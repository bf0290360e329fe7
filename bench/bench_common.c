// SPDX-License-Identifier: MIT
// What the vkcollide benchmark drivers share (bench_common.h).
#include "bench_common.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

// The smallest cube map the library accepts: the reference ignores the map,
// so its private meshes (one set per thread) should cost as little as can be.
#define REFERENCE_RESOLUTION 4u
// Poses claimed at a time by a reference thread: large enough to make the
// atomic counter free, small enough to balance uneven per-pose costs.
#define REFERENCE_BLOCK 64u
// M_PI is not in C17 <math.h>; this literal rounds to Python's math.pi.
#define PI 3.14159265358979323846

const char *bench_program = "bench";

// ---------------------------------------------------------------------------
// Small helpers

double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double bench_median(const double *values, int count)
{
	double sorted[64];
	if (count <= 0)
		return 0.0;
	if (count > 64)
		count = 64;
	memcpy(sorted, values, (size_t)count * sizeof *sorted);
	qsort(sorted, (size_t)count, sizeof *sorted, compare_double);
	return count % 2 ? sorted[count / 2] : 0.5 * (sorted[count / 2 - 1] + sorted[count / 2]);
}

_Noreturn void bench_die(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", bench_program);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(1);
}

void *bench_calloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size);
	if (!p)
		bench_die("out of memory%s", "");
	return p;
}

int bench_parse_list(const char *text, uint64_t *out, int capacity)
{
	int n = 0;
	const char *p = text;
	while (*p) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(p, &end, 10);
		if (end == p || errno || n == capacity || (*end && *end != ','))
			return -1;
		out[n++] = v;
		p = *end ? end + 1 : end;
	}
	return n;
}

long bench_peak_rss_kib(void)
{
	struct rusage usage;
	return getrusage(RUSAGE_SELF, &usage) == 0 ? usage.ru_maxrss : -1;
}

bool bench_reset_peak_rss(void)
{
	// "5" resets the peak RSS to the current RSS (Linux >= 4.0, proc(5)).
	FILE *f = fopen("/proc/self/clear_refs", "w");
	if (!f)
		return false;
	bool ok = fputs("5", f) >= 0;
	return fclose(f) == 0 && ok;
}

void bench_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

void bench_json_doubles(FILE *f, const double *v, int n)
{
	fputc('[', f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%.6g", i ? ", " : "", v[i]);
	fputc(']', f);
}

// ---------------------------------------------------------------------------
// Options

void bench_options_init(bench_options *o, const char *program)
{
	bench_program = program;
	*o = (bench_options){
		.radius_factor = 1.0,
		.seed = 1,
		.batch_sizes = {1000, 10000, 100000, 1000000},
		.batch_size_count = 4,
		.repeat = 5,
		.max_seconds = 120.0,
		.threads = (int)sysconf(_SC_NPROCESSORS_ONLN),
	};
}

// Consumes argv[*i] (and its value, advancing *i) when it is a common
// option or one of the two mesh paths. Returns 1 when consumed, 0 for an
// option it does not know (the caller's own), -1 when malformed.
static int parse_option(bench_options *o, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];
	// Options without a value.
	if (!strcmp(arg, "--validation"))
		return o->validation = true, 1;
	if (!strcmp(arg, "--quick"))
		return o->quick = true, 1;
	if (!strcmp(arg, "--describe"))
		return o->describe = true, 1;
	if (arg[0] != '-') {
		if (!o->path_a)
			o->path_a = arg;
		else if (!o->path_b)
			o->path_b = arg;
		else
			return -1;
		return 1;
	}
	static const char *const with_value[] = {"--name",  "--poses",       "--out",     "--radius-factor", "--seed",
	                                          "--batch-sizes", "--repeat", "--max-seconds", "--threads",
	                                          "--dump-poses"};
	int known = -1;
	for (int k = 0; k < (int)(sizeof with_value / sizeof *with_value); k++)
		if (!strcmp(arg, with_value[k]))
			known = k;
	if (known < 0)
		return 0;
	if (*i + 1 >= argc)
		return -1;
	const char *value = argv[++*i];
	switch (known) {
	case 0: o->name = value; break;
	case 1: o->poses_path = value; break;
	case 2: o->out_path = value; break;
	case 3: o->radius_factor = atof(value); break;
	case 4: o->seed = strtoull(value, NULL, 10); break;
	case 5:
		o->batches_given = true;
		o->batch_size_count = bench_parse_list(value, o->batch_sizes, BENCH_MAX_LIST);
		return o->batch_size_count < 0 ? -1 : 1;
	case 6: o->repeat = atoi(value), o->repeat_given = true; break;
	case 7: o->max_seconds = atof(value); break;
	case 8: o->threads = atoi(value); break;
	default: o->dump_poses = strtoull(value, NULL, 10); break;
	}
	return 1;
}

_Noreturn void bench_usage(const char *own_usage)
{
	fprintf(stderr, "usage: %s A B [options]\n%s%s", bench_program, BENCH_USAGE_COMMON, own_usage);
	exit(2);
}

void bench_parse_args(bench_options *o, int argc, char **argv, bench_option_fn own, void *user,
                      const char *own_usage)
{
	for (int i = 1; i < argc; i++) {
		int used = parse_option(o, argc, argv, &i);
		if (used == 0)
			used = own(user, argv[i], i + 1 < argc ? argv[i + 1] : NULL);
		if (used <= 0)
			bench_usage(own_usage);
		i += used - 1;
	}
}

uint64_t bench_largest_batch(const bench_options *o)
{
	uint64_t largest = 0;
	for (int k = 0; k < o->batch_size_count; k++)
		largest = o->batch_sizes[k] > largest ? o->batch_sizes[k] : largest;
	return largest;
}

bool bench_options_finish(bench_options *o)
{
	if (!o->path_b || o->repeat < 1 || o->repeat > 64 || o->radius_factor < 0)
		return false;
	if (o->threads < 1)
		o->threads = 1;
	// --quick shrinks only what was not set explicitly.
	if (o->quick) {
		if (!o->batches_given)
			o->batch_sizes[0] = 1000, o->batch_sizes[1] = 10000, o->batch_size_count = 2;
		if (!o->repeat_given)
			o->repeat = 2;
	}
	return true;
}

// ---------------------------------------------------------------------------
// Pose sampling: keep every operation in step with gen_poses.py so that the
// same seed gives the same doubles, hence the same float poses.

static uint64_t splitmix64_next(uint64_t *state)
{
	*state += 0x9E3779B97F4A7C15ull;
	uint64_t z = *state;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static double uniform01(uint64_t *state)
{
	return (double)(splitmix64_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

static bench_bounds mesh_bounds(const import_mesh *m)
{
	double lo[3], hi[3];
	for (int k = 0; k < 3; k++)
		lo[k] = hi[k] = m->positions[k];
	for (uint32_t v = 0; v < m->vertex_count; v++)
		for (int k = 0; k < 3; k++) {
			double x = m->positions[3 * v + k];
			lo[k] = x < lo[k] ? x : lo[k];
			hi[k] = x > hi[k] ? x : hi[k];
		}
	bench_bounds b = {.radius = 0.0};
	for (int k = 0; k < 3; k++)
		b.centre[k] = 0.5 * (lo[k] + hi[k]);
	for (uint32_t v = 0; v < m->vertex_count; v++) {
		double dx = m->positions[3 * v] - b.centre[0];
		double dy = m->positions[3 * v + 1] - b.centre[1];
		double dz = m->positions[3 * v + 2] - b.centre[2];
		double r = sqrt(dx * dx + dy * dy + dz * dz);
		b.radius = r > b.radius ? r : b.radius;
	}
	return b;
}

static void sample_poses(uint64_t seed, double factor, const bench_bounds *a, const bench_bounds *b, vkcol_pose *out,
                         size_t count)
{
	uint64_t state = seed;
	double rho = factor * (a->radius + b->radius);
	const double *cb = b->centre;
	for (size_t i = 0; i < count; i++) {
		double u1 = uniform01(&state), u2 = uniform01(&state), u3 = uniform01(&state);
		double s1 = sqrt(1.0 - u1), s2 = sqrt(u1);
		double an = 2.0 * PI * u2, bn = 2.0 * PI * u3;
		double w = s2 * cos(bn), x = s1 * sin(an), y = s1 * cos(an), z = s2 * sin(bn);
		double ox, oy, oz;
		do {
			ox = 2.0 * uniform01(&state) - 1.0;
			oy = 2.0 * uniform01(&state) - 1.0;
			oz = 2.0 * uniform01(&state) - 1.0;
		} while (ox * ox + oy * oy + oz * oz > 1.0);
		double rcx = (1.0 - 2.0 * (y * y + z * z)) * cb[0] + 2.0 * (x * y - w * z) * cb[1] + 2.0 * (x * z + w * y) * cb[2];
		double rcy = 2.0 * (x * y + w * z) * cb[0] + (1.0 - 2.0 * (x * x + z * z)) * cb[1] + 2.0 * (y * z - w * x) * cb[2];
		double rcz = 2.0 * (x * z - w * y) * cb[0] + 2.0 * (y * z + w * x) * cb[1] + (1.0 - 2.0 * (x * x + y * y)) * cb[2];
		out[i] = (vkcol_pose){
			.rotation = {(float)w, (float)x, (float)y, (float)z},
			.translation = {(float)(a->centre[0] + rho * ox - rcx), (float)(a->centre[1] + rho * oy - rcy),
			                (float)(a->centre[2] + rho * oz - rcz)},
		};
	}
}

// The CLI's pose format: "qw qx qy qz tx ty tz" per line; blank lines and
// '#' comments skipped. Reads at most limit poses.
static size_t read_pose_file(const char *path, size_t limit, vkcol_pose **out)
{
	FILE *f = fopen(path, "r");
	if (!f)
		bench_die("cannot open %s", path);
	size_t count = 0, capacity = 1024;
	vkcol_pose *poses = bench_calloc(capacity, sizeof *poses);
	char line[512];
	while (count < limit && fgets(line, sizeof line, f)) {
		const char *p = line + strspn(line, " \t\r\n");
		if (*p == '\0' || *p == '#')
			continue;
		vkcol_pose pose;
		if (sscanf(p, "%f %f %f %f %f %f %f", &pose.rotation[0], &pose.rotation[1], &pose.rotation[2],
		           &pose.rotation[3], &pose.translation[0], &pose.translation[1], &pose.translation[2]) != 7)
			bench_die("%s: a line is not 'qw qx qy qz tx ty tz'", path);
		if (count == capacity) {
			capacity *= 2;
			vkcol_pose *grown = realloc(poses, capacity * sizeof *poses);
			if (!grown)
				bench_die("out of memory%s", "");
			poses = grown;
		}
		poses[count++] = pose;
	}
	fclose(f);
	*out = poses;
	return count;
}

// ---------------------------------------------------------------------------
// The pair

static void stem(const char *path, char *buf, size_t size)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	snprintf(buf, size, "%s", base);
	char *dot = strrchr(buf, '.');
	if (dot && dot != buf)
		*dot = '\0';
}

static void load_mesh(const char *path, import_mesh *out)
{
	char error[256];
	if (import_mesh_load(path, out, error, sizeof error) != 0) {
		fprintf(stderr, "%s: %s: %s\n", bench_program, path, error);
		exit(1);
	}
}

void bench_pair_load(bench_options *o, uint64_t also, bench_pair *p)
{
	uint64_t want = bench_largest_batch(o);
	want = also > want ? also : want;
	static char pair_name[260];
	*p = (bench_pair){.same_mesh = !strcmp(o->path_a, o->path_b)};
	stem(o->path_a, p->name_a, sizeof p->name_a);
	stem(o->path_b, p->name_b, sizeof p->name_b);
	snprintf(pair_name, sizeof pair_name, "%s-%s", p->name_a, p->name_b);
	if (!o->name)
		o->name = pair_name;

	// Import first: the importer forks, better before any Vulkan threads.
	load_mesh(o->path_a, &p->mesh_a);
	load_mesh(o->path_b, &p->mesh_b);
	p->bounds_a = mesh_bounds(&p->mesh_a);
	p->bounds_b = mesh_bounds(&p->mesh_b);

	if (o->describe) {
		// gen_poses.py --describe's fields, from the meshes as imported.
		const bench_bounds *ba = &p->bounds_a, *bb = &p->bounds_b;
		printf("{\"mesh_a\": ");
		bench_json_string(stdout, o->path_a);
		printf(", \"mesh_b\": ");
		bench_json_string(stdout, o->path_b);
		printf(", \"seed\": %llu, \"radius_factor\": %.17g, \"centre_a\": [%.17g, %.17g, %.17g], "
		       "\"radius_a\": %.17g, \"centre_b\": [%.17g, %.17g, %.17g], \"radius_b\": %.17g, "
		       "\"offset_ball_radius\": %.17g}\n",
		       (unsigned long long)o->seed, o->radius_factor, ba->centre[0], ba->centre[1], ba->centre[2], ba->radius,
		       bb->centre[0], bb->centre[1], bb->centre[2], bb->radius, o->radius_factor * (ba->radius + bb->radius));
		exit(0);
	}
	// A dump samples only what it prints (the sampler is sequential: the
	// first N poses are the same whatever the count).
	if (o->dump_poses)
		want = o->dump_poses;
	if (o->poses_path) {
		p->pose_count = read_pose_file(o->poses_path, want, &p->poses);
	} else {
		p->pose_count = want;
		p->poses = bench_calloc(want, sizeof *p->poses);
		sample_poses(o->seed, o->radius_factor, &p->bounds_a, &p->bounds_b, p->poses, want);
	}

	if (o->dump_poses) {
		for (size_t i = 0; i < o->dump_poses && i < p->pose_count; i++) {
			const vkcol_pose *q = &p->poses[i];
			printf("%.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", q->rotation[0], q->rotation[1], q->rotation[2],
			       q->rotation[3], q->translation[0], q->translation[1], q->translation[2]);
		}
		exit(0);
	}
}

void bench_pair_free(bench_pair *p)
{
	free(p->poses);
	import_mesh_free(&p->mesh_a);
	import_mesh_free(&p->mesh_b);
}

void bench_fill_pairs(vkcol_pair *pairs, const vkcol_pose *poses, size_t pose_count, size_t count, vkcol_mesh a,
                      vkcol_mesh b)
{
	const vkcol_pose identity = {.rotation = {1.0f, 0.0f, 0.0f, 0.0f}};
	for (size_t i = 0; i < count; i++)
		pairs[i] = (vkcol_pair){.a = a, .b = b, .pose_a = identity, .pose_b = poses[i % pose_count]};
}

// ---------------------------------------------------------------------------
// Library objects

static vkcol_result try_context_create(bool validation, vkcol_context **ctx)
{
	vkcol_context_desc desc = {
		.validation = validation ? VKCOL_VALIDATION_ON : VKCOL_VALIDATION_OFF,
	};
	return vkcol_context_create(&desc, ctx);
}

vkcol_context *bench_context_create(bool validation)
{
	vkcol_context *ctx = NULL;
	vkcol_result r = try_context_create(validation, &ctx);
	if (r != VKCOL_SUCCESS)
		bench_die("vkcol_context_create: %s", vkcol_result_string(r));
	return ctx;
}

vkcol_result bench_mesh_create(vkcol_context *ctx, const import_mesh *m, uint32_t resolution, const char *name,
                               vkcol_mesh *out)
{
	vkcol_mesh_desc desc = {
		.positions = m->positions,
		.vertex_count = m->vertex_count,
		.indices = m->indices,
		.triangle_count = m->triangle_count,
		.cube_resolution = resolution,
		.name = name,
	};
	return vkcol_mesh_create(ctx, &desc, out);
}

void bench_mesh_warmup(vkcol_context *ctx, const bench_pair *p, uint32_t resolution)
{
	vkcol_mesh warm;
	vkcol_result r = bench_mesh_create(ctx, &p->mesh_a, resolution, p->name_a, &warm);
	if (r != VKCOL_SUCCESS)
		bench_die("vkcol_mesh_create: %s", vkcol_result_string(r));
	vkcol_mesh_destroy(ctx, warm);
}

void bench_mesh_create_timed(vkcol_context *ctx, const bench_pair *p, uint32_t resolution, int repeat,
                             vkcol_mesh *a, vkcol_mesh *b, double *median_a, double *median_b)
{
	double times_a[64], times_b[64];
	*a = *b = (vkcol_mesh){0};
	for (int rep = 0; rep < repeat && rep < 64; rep++) {
		for (int which = 0; which < (p->same_mesh ? 1 : 2); which++) {
			vkcol_mesh *slot = which ? b : a;
			vkcol_mesh_destroy(ctx, *slot);
			double t0 = bench_now();
			vkcol_result r = bench_mesh_create(ctx, which ? &p->mesh_b : &p->mesh_a, resolution,
			                                   which ? p->name_b : p->name_a, slot);
			(which ? times_b : times_a)[rep] = bench_now() - t0;
			if (r != VKCOL_SUCCESS)
				bench_die("vkcol_mesh_create: %s", vkcol_result_string(r));
		}
	}
	if (p->same_mesh)
		*b = *a, memcpy(times_b, times_a, sizeof times_a);
	*median_a = bench_median(times_a, repeat);
	*median_b = bench_median(times_b, repeat);
}

// ---------------------------------------------------------------------------
// JSON

vkcol_context *bench_begin(const char *tool, const bench_options *o, const bench_pair *p, FILE **out_file)
{
	FILE *out = stdout;
	if (o->out_path && !(out = fopen(o->out_path, "w")))
		bench_die("cannot write %s", o->out_path);
	*out_file = out;
	vkcol_context *ctx = bench_context_create(o->validation);
	vkcol_device_info device;
	vkcol_context_get_device_info(ctx, &device);
	fprintf(out, "{\n  \"tool\": ");
	bench_json_string(out, tool);
	fprintf(out, ",\n  \"vkcollide_version\": \"%d.%d.%d\",\n", VKCOL_VERSION_MAJOR, VKCOL_VERSION_MINOR,
	        VKCOL_VERSION_PATCH);
	fprintf(out, "  \"device\": {\"name\": ");
	bench_json_string(out, device.name);
	fprintf(out, ", \"driver\": ");
	bench_json_string(out, device.driver);
	fprintf(out, ", \"type\": %d, \"api_version\": \"%u.%u.%u\"},\n", (int)device.type,
	        VK_API_VERSION_MAJOR(device.api_version), VK_API_VERSION_MINOR(device.api_version),
	        VK_API_VERSION_PATCH(device.api_version));
	fprintf(out, "  \"validation\": %s,\n  \"quick\": %s,\n  \"pair\": ", o->validation ? "true" : "false",
	        o->quick ? "true" : "false");
	bench_json_string(out, o->name);
	fprintf(out, ",\n  \"poses\": {\"source\": ");
	if (o->poses_path) {
		bench_json_string(out, o->poses_path);
		fprintf(out, ", \"count\": %zu},\n", p->pose_count);
	} else {
		fprintf(out, "\"generated\", \"seed\": %llu, \"radius_factor\": %.9g, \"offset_ball_radius\": %.9g},\n",
		        (unsigned long long)o->seed, o->radius_factor,
		        o->radius_factor * (p->bounds_a.radius + p->bounds_b.radius));
	}
	return ctx;
}

void bench_end(FILE *out, vkcol_context *ctx, const bench_options *o)
{
	fprintf(out, "  \"validation_messages\": %llu\n}\n",
	        (unsigned long long)vkcol_context_validation_message_count(ctx));
	vkcol_context_destroy(ctx);
	if (out != stdout && fclose(out) != 0)
		bench_die("cannot write %s", o->out_path);
}

void bench_mesh_json(FILE *out, vkcol_context *ctx, const bench_options *o, const bench_pair *p, int which,
                     vkcol_mesh handle)
{
	const import_mesh *m = which ? &p->mesh_b : &p->mesh_a;
	const bench_bounds *b = which ? &p->bounds_b : &p->bounds_a;
	fprintf(out, "{\"name\": ");
	bench_json_string(out, which ? p->name_b : p->name_a);
	fprintf(out, ", \"path\": ");
	bench_json_string(out, which ? o->path_b : o->path_a);
	fprintf(out, ", \"vertices\": %u, \"triangles\": %u", m->vertex_count, m->triangle_count);
	vkcol_mesh_info info;
	if (handle.id && vkcol_mesh_get_info(ctx, handle, &info) == VKCOL_SUCCESS)
		fprintf(out,
		        ", \"closed\": %s, \"origin_inside\": %s, \"star_shaped\": %s, \"cube_multi_hit_fraction\": %.6g"
		        ", \"degenerate_triangles\": %u, \"tree_depth\": %u",
		        info.closed ? "true" : "false", info.origin_inside ? "true" : "false",
		        info.star_shaped ? "true" : "false", info.cube_multi_hit_fraction, info.degenerate_count,
		        info.tree_depth);
	fprintf(out, ", \"bounds_centre\": [%.9g, %.9g, %.9g], \"bounds_radius\": %.9g}", b->centre[0], b->centre[1],
	        b->centre[2], b->radius);
}

void bench_peer_json(FILE *out, const char *name, const char *path, const unsigned char *answers, size_t count,
                     bool prefix)
{
	FILE *f = fopen(path, "r");
	size_t fp = 0, fn = 0, n = 0, hits = 0;
	int c;
	while (f && n < count && (c = fgetc(f)) != EOF) {
		if (c != '0' && c != '1')
			continue;
		int peer = c == '1';
		hits += (size_t)peer;
		fp += (size_t)(peer && !answers[n]);
		fn += (size_t)(!peer && answers[n]);
		n++;
	}
	if (f)
		fclose(f);
	fprintf(out, "{\"name\": ");
	bench_json_string(out, name);
	fprintf(out, ", \"answers_file\": ");
	bench_json_string(out, path);
	if (prefix && n > 0 && n < count)
		fprintf(out, ", \"poses\": %zu", n);
	if (n == count || (prefix && n > 0))
		fprintf(out, ", \"collide_count\": %zu, \"false_positives\": %zu, \"false_negatives\": %zu}", hits, fp, fn);
	else
		fprintf(out, ", \"error\": \"fewer answers than poses\"}");
}

// ---------------------------------------------------------------------------
// The reference, on several threads

typedef struct reference_job {
	const bench_pair *pair;
	const vkcol_pose *poses;
	size_t count;
	bool validation;
	unsigned char *answers;
	atomic_size_t cursor;
	atomic_int failed;
	char error[256];
	pthread_mutex_t error_lock;
} reference_job;

static void reference_fail(reference_job *job, const char *what, vkcol_result r)
{
	pthread_mutex_lock(&job->error_lock);
	if (!atomic_exchange(&job->failed, 1))
		snprintf(job->error, sizeof job->error, "%s: %s", what, vkcol_result_string(r));
	pthread_mutex_unlock(&job->error_lock);
}

static void *reference_worker(void *user)
{
	reference_job *job = user;
	vkcol_context *ctx = NULL;
	vkcol_mesh ma = {0}, mb = {0};
	vkcol_result r = try_context_create(job->validation, &ctx);
	if (r != VKCOL_SUCCESS) {
		reference_fail(job, "vkcol_context_create", r);
		return NULL;
	}
	r = bench_mesh_create(ctx, &job->pair->mesh_a, REFERENCE_RESOLUTION, "reference A", &ma);
	if (r == VKCOL_SUCCESS)
		r = bench_mesh_create(ctx, &job->pair->mesh_b, REFERENCE_RESOLUTION, "reference B", &mb);
	if (r != VKCOL_SUCCESS) {
		reference_fail(job, "vkcol_mesh_create", r);
		goto cleanup;
	}
	const vkcol_pose identity = {.rotation = {1.0f, 0.0f, 0.0f, 0.0f}};
	while (!atomic_load(&job->failed)) {
		size_t begin = atomic_fetch_add(&job->cursor, REFERENCE_BLOCK);
		if (begin >= job->count)
			break;
		size_t end = begin + REFERENCE_BLOCK < job->count ? begin + REFERENCE_BLOCK : job->count;
		for (size_t i = begin; i < end; i++) {
			vkcol_pair pair = {.a = ma, .b = mb, .pose_a = identity, .pose_b = job->poses[i]};
			bool collide = false;
			r = vkcol_reference_collide(ctx, &pair, &collide);
			if (r != VKCOL_SUCCESS) {
				reference_fail(job, "vkcol_reference_collide", r);
				break;
			}
			job->answers[i] = collide ? 1 : 0;
		}
	}
cleanup:
	vkcol_context_destroy(ctx); // frees its meshes too
	return NULL;
}

const char *bench_reference_answers(const bench_pair *p, const vkcol_pose *poses, size_t count, int threads,
                                    bool validation, unsigned char *answers)
{
	static reference_job job;
	pthread_t ids[64];
	if (threads > 64)
		threads = 64;
	job = (reference_job){.pair = p, .poses = poses, .count = count, .validation = validation, .answers = answers};
	atomic_init(&job.cursor, 0);
	atomic_init(&job.failed, 0);
	pthread_mutex_init(&job.error_lock, NULL);
	int started = 0;
	for (; started < threads; started++)
		if (pthread_create(&ids[started], NULL, reference_worker, &job) != 0)
			break;
	if (started == 0)
		reference_worker(&job);
	for (int t = 0; t < started; t++)
		pthread_join(ids[t], NULL);
	pthread_mutex_destroy(&job.error_lock);
	return atomic_load(&job.failed) ? job.error : NULL;
}

// ---------------------------------------------------------------------------
// Speed

static bool before_deadline(void *user, uint64_t done, uint64_t total)
{
	(void)done, (void)total;
	return bench_now() < *(const double *)user;
}

static void json_error(FILE *out, vkcol_result r)
{
	fprintf(out, ", \"error\": ");
	bench_json_string(out, vkcol_result_string(r));
	fprintf(out, "}");
}

// One batch size: up to o->repeat passes, until max_seconds are spent.
// Returns the result of the last call.
static vkcol_result time_batch(FILE *out, const bench_options *o, vkcol_context *ctx, const bench_speed *s,
                               uint64_t n)
{
	double seconds[64], spent = 0.0, deadline = 0.0;
	uint64_t answered[64], answered_total = 0;
	int done = 0;
	bool interrupted = false, reset = s->capped_passes && bench_reset_peak_rss();
	vkcol_batch_desc desc = s->desc;
	desc.pairs = s->pairs;
	desc.pair_count = n;
	if (s->capped_passes)
		desc.progress = before_deadline, desc.progress_user = &deadline;
	vkcol_result r = VKCOL_SUCCESS;
	while (done < o->repeat && !interrupted) {
		double t0 = bench_now();
		deadline = t0 + o->max_seconds - spent;
		r = vkcol_batch_run(ctx, &desc, s->results);
		seconds[done] = bench_now() - t0;
		answered[done] = n;
		if (r == VKCOL_ERROR_INTERRUPTED && s->capped_passes) {
			// The pairs answered are the first ones, in order.
			uint64_t k = 0;
			while (k < n && s->results[k].stage != VKCOL_STAGE_NONE)
				k++;
			answered[done] = k, interrupted = true, r = VKCOL_SUCCESS;
		}
		if (r != VKCOL_SUCCESS)
			return r;
		answered_total += answered[done];
		spent += seconds[done++];
		if (spent > o->max_seconds)
			break;
	}
	uint64_t last = answered[done - 1];
	size_t hits = 0;
	for (uint64_t i = 0; i < last; i++)
		hits += s->results[i].collide != 0;
	double med = bench_median(seconds, done);
	// Every pass complete: n over the median time. A pass cut short: the
	// pairs answered over the time spent, all passes together.
	double rate = interrupted ? (double)answered_total / spent : (double)n / med;
	fprintf(out,
	        ", \"repeat\": %d, \"median_seconds\": %.6g, \"median_pairs_per_second\": %.6g"
	        ", \"collide_fraction\": %.6f, \"repeat_seconds\": ",
	        done, med, rate, last ? (double)hits / (double)last : 0.0);
	bench_json_doubles(out, seconds, done);
	if (s->capped_passes) {
		fprintf(out, ", \"interrupted\": %s, \"pairs_answered\": %llu", interrupted ? "true" : "false",
		        (unsigned long long)answered_total);
		fprintf(out, ", \"peak_rss_kib\": %ld, \"peak_rss_reset\": %s", bench_peak_rss_kib(), reset ? "true" : "false");
	}
	fprintf(out, "}");
	return VKCOL_SUCCESS;
}

int bench_speed_json(FILE *out, const bench_options *o, vkcol_context *ctx, const bench_speed *s)
{
	uint64_t warm_pairs = s->available < BENCH_WARMUP_PAIRS ? s->available : BENCH_WARMUP_PAIRS;
	vkcol_batch_desc desc = s->desc;
	desc.pairs = s->pairs;
	desc.pair_count = warm_pairs;
	double t0 = bench_now();
	vkcol_result r = vkcol_batch_run(ctx, &desc, s->results);
	fprintf(out, ", \"warmup_pairs\": %llu, \"warmup_seconds\": %.6g", (unsigned long long)warm_pairs,
	        bench_now() - t0);
	if (r != VKCOL_SUCCESS) {
		json_error(out, r);
		fprintf(stderr, "%s: vkcol_batch_run: %s\n", bench_program, vkcol_result_string(r));
		return 1;
	}
	int status = 0;
	fprintf(out, ", \"batches\": [");
	for (int k = 0; k < o->batch_size_count; k++) {
		uint64_t n = o->batch_sizes[k];
		fprintf(out, "%s\n      {\"pairs\": %llu", k ? "," : "", (unsigned long long)n);
		if (n > s->available) {
			fprintf(out, ", \"skipped\": \"the pose file holds fewer poses\"}");
			continue;
		}
		fprintf(stderr, "%s: speed, %s, %llu pairs\n", o->name, s->label, (unsigned long long)n);
		r = time_batch(out, o, ctx, s, n);
		if (r != VKCOL_SUCCESS) {
			json_error(out, r);
			status = 1;
		}
		fflush(out);
	}
	fprintf(out, "\n    ]}");
	return status;
}
