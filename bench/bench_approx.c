// SPDX-License-Identifier: MIT
// Approx-mode benchmark driver for one mesh pair: measures
//  (a) accuracy: vkcol_batch_run in approx mode against the exact
//      double-precision reference (vkcol_reference_collide), per cube-map
//      resolution, as false-positive and false-negative counts and rates;
//  (b) speed: median pairs per second of vkcol_batch_run per batch size, and
//      the median time of vkcol_mesh_create (tree + cube map) per resolution;
// and prints one JSON object (fields in bench/README.md).
//
// Poses place B in A's frame (A stays at the identity). By default they are
// generated in memory with bench/gen_poses.py's sampler, bit for bit: the
// same seed and radius factor give the same poses as the file the FCL peer
// reads (--dump-poses prints them to check). --poses reads a file instead.
//
// Only the public API is used, plus the CLI's Assimp importer.
#include "import.h"

#include <vkcollide.h>

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_LIST 16
// The smallest cube map the library accepts: the reference ignores the map,
// so its private meshes (one set per thread) should cost as little as can be.
#define REFERENCE_RESOLUTION 4u
// Poses claimed at a time by a reference thread: large enough to make the
// atomic counter free, small enough to balance uneven per-pose costs.
#define REFERENCE_BLOCK 64u
#define WARMUP_PAIRS 1000u
// M_PI is not in C17 <math.h>; this literal rounds to Python's math.pi.
#define PI 3.14159265358979323846

typedef struct options {
	const char *path_a, *path_b, *name;
	const char *poses_path;   // NULL = generated in memory
	const char *out_path;     // NULL = stdout
	const char *peer_answers; // another tool's 0/1 answers to score against the reference
	const char *peer_name;
	double radius_factor;
	uint64_t seed;
	uint64_t accuracy_poses;
	uint32_t resolutions[MAX_LIST];
	int resolution_count;
	uint32_t speed_resolutions[MAX_LIST];
	int speed_resolution_count;
	uint64_t batch_sizes[MAX_LIST];
	int batch_size_count;
	int repeat;
	double max_seconds;       // per batch size: stop repeating once spent
	int threads;
	uint64_t dump_poses;
	int validation;
	int quick;
} options;

// ---------------------------------------------------------------------------
// Small helpers

static double now_seconds(void)
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

static double median(const double *values, int count)
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

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "bench_approx: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(1);
}

static void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size);
	if (!p)
		die("out of memory%s", "");
	return p;
}

// "8,16,32" -> values; returns the count, or -1 on a malformed list.
static int parse_list(const char *text, uint64_t *out, int capacity)
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

static const char *stem(const char *path, char *buf, size_t size)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	snprintf(buf, size, "%s", base);
	char *dot = strrchr(buf, '.');
	if (dot && dot != buf)
		*dot = '\0';
	return buf;
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

typedef struct bounds {
	double centre[3]; // of the axis-aligned bounding box
	double radius;    // largest distance from centre to a vertex
} bounds;

static bounds mesh_bounds(const import_mesh *m)
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
	bounds b = {.radius = 0.0};
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

static void sample_poses(uint64_t seed, double factor, const bounds *a, const bounds *b, vkcol_pose *out, size_t count)
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
		die("cannot open %s", path);
	size_t count = 0, capacity = 1024;
	vkcol_pose *poses = xcalloc(capacity, sizeof *poses);
	char line[512];
	while (count < limit && fgets(line, sizeof line, f)) {
		const char *p = line + strspn(line, " \t\r\n");
		if (*p == '\0' || *p == '#')
			continue;
		vkcol_pose pose;
		if (sscanf(p, "%f %f %f %f %f %f %f", &pose.rotation[0], &pose.rotation[1], &pose.rotation[2],
		           &pose.rotation[3], &pose.translation[0], &pose.translation[1], &pose.translation[2]) != 7)
			die("%s: a line is not 'qw qx qy qz tx ty tz'", path);
		if (count == capacity) {
			capacity *= 2;
			vkcol_pose *grown = realloc(poses, capacity * sizeof *poses);
			if (!grown)
				die("out of memory%s", "");
			poses = grown;
		}
		poses[count++] = pose;
	}
	fclose(f);
	*out = poses;
	return count;
}

// ---------------------------------------------------------------------------
// JSON output

static void json_string(FILE *f, const char *s)
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

static void json_doubles(FILE *f, const double *v, int n)
{
	fputc('[', f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%.6g", i ? ", " : "", v[i]);
	fputc(']', f);
}

// ---------------------------------------------------------------------------
// Library calls

static vkcol_result create_context(const options *opt, vkcol_context **ctx)
{
	vkcol_context_desc desc = {
		.validation = opt->validation ? VKCOL_VALIDATION_ON : VKCOL_VALIDATION_OFF,
	};
	return vkcol_context_create(&desc, ctx);
}

static vkcol_result create_mesh(vkcol_context *ctx, const import_mesh *m, uint32_t resolution, const char *name,
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

static void fill_pairs(vkcol_pair *pairs, const vkcol_pose *poses, size_t count, vkcol_mesh a, vkcol_mesh b)
{
	const vkcol_pose identity = {.rotation = {1.0f, 0.0f, 0.0f, 0.0f}};
	for (size_t i = 0; i < count; i++)
		pairs[i] = (vkcol_pair){.a = a, .b = b, .pose_a = identity, .pose_b = poses[i]};
}

static vkcol_result run_approx(vkcol_context *ctx, const vkcol_pair *pairs, uint64_t count, vkcol_pair_result *results)
{
	vkcol_batch_desc desc = {.pairs = pairs, .pair_count = count, .mode = VKCOL_MODE_APPROX};
	return vkcol_batch_run(ctx, &desc, results);
}

// ---------------------------------------------------------------------------
// The reference, on several threads. A context is externally synchronised,
// so each thread creates its own context and its own copies of the meshes.

typedef struct reference_job {
	const options *opt;
	const import_mesh *a, *b;
	const vkcol_pose *poses;
	size_t count;
	unsigned char *answers; // 0/1 per pose
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
	vkcol_result r = create_context(job->opt, &ctx);
	if (r != VKCOL_SUCCESS) {
		reference_fail(job, "vkcol_context_create", r);
		return NULL;
	}
	r = create_mesh(ctx, job->a, REFERENCE_RESOLUTION, "reference A", &ma);
	if (r == VKCOL_SUCCESS)
		r = create_mesh(ctx, job->b, REFERENCE_RESOLUTION, "reference B", &mb);
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

// Returns NULL on success, else a message (static storage in job).
static const char *reference_answers(reference_job *job, int threads)
{
	pthread_t ids[64];
	if (threads > 64)
		threads = 64;
	atomic_init(&job->cursor, 0);
	atomic_init(&job->failed, 0);
	pthread_mutex_init(&job->error_lock, NULL);
	int started = 0;
	for (; started < threads; started++)
		if (pthread_create(&ids[started], NULL, reference_worker, job) != 0)
			break;
	if (started == 0)
		reference_worker(job);
	for (int t = 0; t < started; t++)
		pthread_join(ids[t], NULL);
	pthread_mutex_destroy(&job->error_lock);
	return atomic_load(&job->failed) ? job->error : NULL;
}

// ---------------------------------------------------------------------------

static void usage(void)
{
	fprintf(stderr,
	        "usage: bench_approx A B [options]\n"
	        "  --name NAME              label of the pair (default A-B from the file names)\n"
	        "  --poses FILE             read poses (CLI format) instead of generating them\n"
	        "  --radius-factor K        generated poses: offset ball radius / (rA + rB) (default 1)\n"
	        "  --seed S                 generated poses: splitmix64 seed (default 1)\n"
	        "  --accuracy N             poses checked against the reference (default 20000; 0 = skip)\n"
	        "  --resolutions LIST       cube-map resolutions for accuracy and build times\n"
	        "                           (default 8,16,32,64,128,256)\n"
	        "  --speed-resolutions LIST resolutions timed for speed (default 64; empty = skip)\n"
	        "  --batch-sizes LIST       pairs per vkcol_batch_run (default 1000,10000,100000,1000000)\n"
	        "  --repeat R               timed runs per measurement (default 5); the median is reported\n"
	        "  --max-seconds S          stop repeating a batch size after S seconds (default 120)\n"
	        "  --threads T              reference threads (default: online CPUs)\n"
	        "  --peer-answers FILE      score another tool's 0/1 answers against the reference\n"
	        "  --peer-name NAME         its label (default fcl)\n"
	        "  --validation             Vulkan validation layer on (slower; off by default)\n"
	        "  --dump-poses N           print the first N poses as gen_poses.py would, and exit\n"
	        "  --quick                  smoke run: 2000 accuracy poses, resolutions 8,64,\n"
	        "                           batch sizes 1000,10000, 2 repeats\n"
	        "  --out FILE               write the JSON there instead of stdout\n");
	exit(2);
}

static void parse_options(int argc, char **argv, options *opt)
{
	*opt = (options){
		.radius_factor = 1.0,
		.seed = 1,
		.accuracy_poses = 20000,
		.resolutions = {8, 16, 32, 64, 128, 256},
		.resolution_count = 6,
		.speed_resolutions = {64},
		.speed_resolution_count = 1,
		.batch_sizes = {1000, 10000, 100000, 1000000},
		.batch_size_count = 4,
		.repeat = 5,
		.max_seconds = 120.0,
		.threads = (int)sysconf(_SC_NPROCESSORS_ONLN),
		.peer_name = "fcl",
	};
	int positional = 0;
	bool set_accuracy = false, set_resolutions = false, set_batches = false, set_repeat = false;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const char *value = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t list[MAX_LIST];
		int n;
#define TAKE() (value ? (i++, value) : (usage(), ""))
		if (!strcmp(arg, "--name"))
			opt->name = TAKE();
		else if (!strcmp(arg, "--poses"))
			opt->poses_path = TAKE();
		else if (!strcmp(arg, "--out"))
			opt->out_path = TAKE();
		else if (!strcmp(arg, "--radius-factor"))
			opt->radius_factor = atof(TAKE());
		else if (!strcmp(arg, "--seed"))
			opt->seed = strtoull(TAKE(), NULL, 10);
		else if (!strcmp(arg, "--accuracy"))
			opt->accuracy_poses = strtoull(TAKE(), NULL, 10), set_accuracy = true;
		else if (!strcmp(arg, "--resolutions") || !strcmp(arg, "--speed-resolutions")) {
			bool speed = arg[2] == 's';
			const char *text = TAKE();
			n = *text ? parse_list(text, list, MAX_LIST) : 0;
			if (n < 0 || (!speed && n == 0))
				usage();
			for (int k = 0; k < n; k++) {
				if (list[k] < 4 || list[k] > 1024 || (list[k] & (list[k] - 1)))
					die("resolution %s: must be a power of two in 4..1024", text);
				if (speed)
					opt->speed_resolutions[k] = (uint32_t)list[k];
				else
					opt->resolutions[k] = (uint32_t)list[k];
			}
			if (speed)
				opt->speed_resolution_count = n;
			else
				opt->resolution_count = n, set_resolutions = true;
		} else if (!strcmp(arg, "--batch-sizes")) {
			n = parse_list(TAKE(), opt->batch_sizes, MAX_LIST);
			if (n < 0)
				usage();
			opt->batch_size_count = n;
			set_batches = true;
		} else if (!strcmp(arg, "--repeat"))
			opt->repeat = atoi(TAKE()), set_repeat = true;
		else if (!strcmp(arg, "--max-seconds"))
			opt->max_seconds = atof(TAKE());
		else if (!strcmp(arg, "--threads"))
			opt->threads = atoi(TAKE());
		else if (!strcmp(arg, "--peer-answers"))
			opt->peer_answers = TAKE();
		else if (!strcmp(arg, "--peer-name"))
			opt->peer_name = TAKE();
		else if (!strcmp(arg, "--dump-poses"))
			opt->dump_poses = strtoull(TAKE(), NULL, 10);
		else if (!strcmp(arg, "--validation"))
			opt->validation = 1;
		else if (!strcmp(arg, "--quick"))
			opt->quick = 1;
		else if (arg[0] == '-')
			usage();
		else if (positional == 0)
			opt->path_a = arg, positional++;
		else if (positional == 1)
			opt->path_b = arg, positional++;
		else
			usage();
#undef TAKE
	}
	if (positional != 2 || opt->repeat < 1 || opt->repeat > 64 || opt->radius_factor < 0)
		usage();
	if (opt->threads < 1)
		opt->threads = 1;
	// --quick shrinks only what was not set explicitly.
	if (opt->quick) {
		if (!set_accuracy)
			opt->accuracy_poses = 2000;
		if (!set_resolutions)
			opt->resolutions[0] = 8, opt->resolutions[1] = 64, opt->resolution_count = 2;
		if (!set_batches)
			opt->batch_sizes[0] = 1000, opt->batch_sizes[1] = 10000, opt->batch_size_count = 2;
		if (!set_repeat)
			opt->repeat = 2;
	}
}

static void load(const char *path, import_mesh *out)
{
	char error[256];
	if (import_mesh_load(path, out, error, sizeof error) != 0) {
		fprintf(stderr, "bench_approx: %s: %s\n", path, error);
		exit(1);
	}
}

static void mesh_json(FILE *f, vkcol_context *ctx, const char *name, const char *path, const import_mesh *m,
                      const bounds *b, vkcol_mesh handle)
{
	fprintf(f, "{\"name\": ");
	json_string(f, name);
	fprintf(f, ", \"path\": ");
	json_string(f, path);
	fprintf(f, ", \"vertices\": %u, \"triangles\": %u", m->vertex_count, m->triangle_count);
	vkcol_mesh_info info;
	if (handle.id && vkcol_mesh_get_info(ctx, handle, &info) == VKCOL_SUCCESS)
		fprintf(f,
		        ", \"closed\": %s, \"origin_inside\": %s, \"star_shaped\": %s, \"cube_multi_hit_fraction\": %.6g"
		        ", \"degenerate_triangles\": %u, \"tree_depth\": %u",
		        info.closed ? "true" : "false", info.origin_inside ? "true" : "false",
		        info.star_shaped ? "true" : "false", info.cube_multi_hit_fraction, info.degenerate_count,
		        info.tree_depth);
	fprintf(f, ", \"bounds_centre\": [%.9g, %.9g, %.9g], \"bounds_radius\": %.9g}", b->centre[0], b->centre[1],
	        b->centre[2], b->radius);
}

int main(int argc, char **argv)
{
	options opt;
	parse_options(argc, argv, &opt);
	bool same_mesh = !strcmp(opt.path_a, opt.path_b);
	char name_a[128], name_b[128], pair_name[260];
	stem(opt.path_a, name_a, sizeof name_a);
	stem(opt.path_b, name_b, sizeof name_b);
	snprintf(pair_name, sizeof pair_name, "%s-%s", name_a, name_b);
	if (!opt.name)
		opt.name = pair_name;

	// Import first: the importer forks, better before any Vulkan threads.
	import_mesh mesh_a, mesh_b;
	load(opt.path_a, &mesh_a);
	load(opt.path_b, &mesh_b);
	bounds bounds_a = mesh_bounds(&mesh_a), bounds_b = mesh_bounds(&mesh_b);

	// One pose array serves every measurement: accuracy uses its first
	// accuracy_poses, a speed batch of n pairs its first n.
	uint64_t want = opt.accuracy_poses > opt.dump_poses ? opt.accuracy_poses : opt.dump_poses;
	for (int k = 0; k < opt.batch_size_count; k++)
		want = opt.batch_sizes[k] > want ? opt.batch_sizes[k] : want;
	vkcol_pose *poses;
	size_t pose_count;
	if (opt.poses_path) {
		pose_count = read_pose_file(opt.poses_path, want, &poses);
	} else {
		pose_count = want;
		poses = xcalloc(pose_count, sizeof *poses);
		sample_poses(opt.seed, opt.radius_factor, &bounds_a, &bounds_b, poses, pose_count);
	}

	if (opt.dump_poses) {
		for (size_t i = 0; i < opt.dump_poses && i < pose_count; i++) {
			const vkcol_pose *p = &poses[i];
			printf("%.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", p->rotation[0], p->rotation[1], p->rotation[2],
			       p->rotation[3], p->translation[0], p->translation[1], p->translation[2]);
		}
		return 0;
	}

	FILE *out = stdout;
	if (opt.out_path && !(out = fopen(opt.out_path, "w")))
		die("cannot write %s", opt.out_path);
	int status = 0;

	vkcol_context *ctx = NULL;
	vkcol_result r = create_context(&opt, &ctx);
	if (r != VKCOL_SUCCESS)
		die("vkcol_context_create: %s", vkcol_result_string(r));
	vkcol_device_info device;
	vkcol_context_get_device_info(ctx, &device);

	fprintf(out, "{\n  \"tool\": \"bench_approx\",\n  \"vkcollide_version\": \"%d.%d.%d\",\n", VKCOL_VERSION_MAJOR,
	        VKCOL_VERSION_MINOR, VKCOL_VERSION_PATCH);
	fprintf(out, "  \"device\": {\"name\": ");
	json_string(out, device.name);
	fprintf(out, ", \"driver\": ");
	json_string(out, device.driver);
	fprintf(out, ", \"type\": %d, \"api_version\": \"%u.%u.%u\"},\n", (int)device.type,
	        VK_API_VERSION_MAJOR(device.api_version), VK_API_VERSION_MINOR(device.api_version),
	        VK_API_VERSION_PATCH(device.api_version));
	fprintf(out, "  \"validation\": %s,\n  \"quick\": %s,\n  \"pair\": ", opt.validation ? "true" : "false",
	        opt.quick ? "true" : "false");
	json_string(out, opt.name);
	fprintf(out, ",\n  \"poses\": {\"source\": ");
	if (opt.poses_path) {
		json_string(out, opt.poses_path);
		fprintf(out, ", \"count\": %zu},\n", pose_count);
	} else {
		fprintf(out, "\"generated\", \"seed\": %llu, \"radius_factor\": %.9g, \"offset_ball_radius\": %.9g},\n",
		        (unsigned long long)opt.seed, opt.radius_factor,
		        opt.radius_factor * (bounds_a.radius + bounds_b.radius));
	}

	// -- Mesh creation per resolution. The first create also compiles the
	// cube-map pipelines, so one untimed create comes first.
	fprintf(stderr, "%s: building meshes\n", opt.name);
	vkcol_mesh handles_a[MAX_LIST] = {{0}}, handles_b[MAX_LIST] = {{0}};
	{
		vkcol_mesh warm;
		r = create_mesh(ctx, &mesh_a, opt.resolutions[0], name_a, &warm);
		if (r != VKCOL_SUCCESS)
			die("vkcol_mesh_create: %s", vkcol_result_string(r));
		vkcol_mesh_destroy(ctx, warm);
	}
	fprintf(out, "  \"mesh_create\": [");
	for (int k = 0; k < opt.resolution_count; k++) {
		double times_a[64], times_b[64];
		for (int rep = 0; rep < opt.repeat; rep++) {
			for (int which = 0; which < (same_mesh ? 1 : 2); which++) {
				vkcol_mesh *slot = which ? &handles_b[k] : &handles_a[k];
				vkcol_mesh_destroy(ctx, *slot);
				double t0 = now_seconds();
				r = create_mesh(ctx, which ? &mesh_b : &mesh_a, opt.resolutions[k], which ? name_b : name_a, slot);
				(which ? times_b : times_a)[rep] = now_seconds() - t0;
				if (r != VKCOL_SUCCESS)
					die("vkcol_mesh_create: %s", vkcol_result_string(r));
			}
		}
		if (same_mesh)
			handles_b[k] = handles_a[k], memcpy(times_b, times_a, sizeof times_a);
		fprintf(out, "%s\n    {\"resolution\": %u, \"median_seconds_a\": %.6g, \"median_seconds_b\": %.6g}",
		        k ? "," : "", opt.resolutions[k], median(times_a, opt.repeat), median(times_b, opt.repeat));
	}
	fprintf(out, "\n  ],\n  \"mesh_a\": ");
	mesh_json(out, ctx, name_a, opt.path_a, &mesh_a, &bounds_a, handles_a[0]);
	fprintf(out, ",\n  \"mesh_b\": ");
	mesh_json(out, ctx, name_b, opt.path_b, &mesh_b, &bounds_b, handles_b[0]);
	fprintf(out, ",\n");
	fflush(out);

	// -- Accuracy against the reference.
	size_t acc = opt.accuracy_poses < pose_count ? (size_t)opt.accuracy_poses : pose_count;
	if (acc > 0) {
		fprintf(stderr, "%s: reference on %zu poses, %d threads\n", opt.name, acc, opt.threads);
		reference_job job = {.opt = &opt, .a = &mesh_a, .b = &mesh_b, .poses = poses, .count = acc};
		job.answers = xcalloc(acc, 1);
		double t0 = now_seconds();
		const char *error = reference_answers(&job, opt.threads);
		double reference_seconds = now_seconds() - t0;
		fprintf(out, "  \"accuracy\": {\"poses\": %zu, \"reference_threads\": %d, \"reference_seconds\": %.6g", acc,
		        opt.threads, reference_seconds);
		if (error) {
			fprintf(out, ", \"error\": ");
			json_string(out, error);
			fprintf(out, "},\n");
			fprintf(stderr, "bench_approx: %s\n", error);
			status = 1;
		} else {
			size_t positives = 0;
			for (size_t i = 0; i < acc; i++)
				positives += job.answers[i];
			size_t negatives = acc - positives;
			fprintf(out, ", \"reference_collide_count\": %zu, \"reference_collide_fraction\": %.6f,\n", positives,
			        (double)positives / (double)acc);

			if (opt.peer_answers) {
				FILE *f = fopen(opt.peer_answers, "r");
				size_t fp = 0, fn = 0, n = 0, hits = 0;
				int c;
				while (f && n < acc && (c = fgetc(f)) != EOF) {
					if (c != '0' && c != '1')
						continue;
					int peer = c == '1';
					hits += (size_t)peer;
					fp += (size_t)(peer && !job.answers[n]);
					fn += (size_t)(!peer && job.answers[n]);
					n++;
				}
				if (f)
					fclose(f);
				fprintf(out, "    \"peer\": {\"name\": ");
				json_string(out, opt.peer_name);
				fprintf(out, ", \"answers_file\": ");
				json_string(out, opt.peer_answers);
				if (n == acc)
					fprintf(out,
					        ", \"collide_count\": %zu, \"false_positives\": %zu, \"false_negatives\": %zu},\n",
					        hits, fp, fn);
				else
					fprintf(out, ", \"error\": \"fewer answers than poses\"},\n");
			}

			vkcol_pair *pairs = xcalloc(acc, sizeof *pairs);
			vkcol_pair_result *results = xcalloc(acc, sizeof *results);
			fprintf(out, "    \"resolutions\": [");
			for (int k = 0; k < opt.resolution_count; k++) {
				fprintf(stderr, "%s: approx at resolution %u\n", opt.name, opt.resolutions[k]);
				fill_pairs(pairs, poses, acc, handles_a[k], handles_b[k]);
				t0 = now_seconds();
				r = run_approx(ctx, pairs, acc, results);
				double seconds = now_seconds() - t0;
				fprintf(out, "%s\n      {\"resolution\": %u", k ? "," : "", opt.resolutions[k]);
				if (r != VKCOL_SUCCESS) {
					fprintf(out, ", \"error\": ");
					json_string(out, vkcol_result_string(r));
					fprintf(out, "}");
					fprintf(stderr, "bench_approx: vkcol_batch_run: %s\n", vkcol_result_string(r));
					status = 1;
					continue;
				}
				size_t approx = 0, fp = 0, fn = 0, by_bounds = 0;
				for (size_t i = 0; i < acc; i++) {
					int a = results[i].collide != 0;
					approx += (size_t)a;
					fp += (size_t)(a && !job.answers[i]);
					fn += (size_t)(!a && job.answers[i]);
					by_bounds += (size_t)(results[i].stage == VKCOL_STAGE_BOUNDS);
				}
				fprintf(out,
				        ", \"approx_collide_count\": %zu, \"false_positives\": %zu, \"false_negatives\": %zu"
				        ", \"false_positive_rate\": %.6f, \"false_negative_rate\": %.6f"
				        ", \"false_positive_rate_of_negatives\": %.6f, \"false_negative_rate_of_positives\": %.6f"
				        ", \"decided_by_bounds\": %zu, \"seconds\": %.6g}",
				        approx, fp, fn, (double)fp / (double)acc, (double)fn / (double)acc,
				        negatives ? (double)fp / (double)negatives : 0.0,
				        positives ? (double)fn / (double)positives : 0.0, by_bounds, seconds);
				fflush(out);
			}
			fprintf(out, "\n    ]},\n");
			free(pairs);
			free(results);
		}
		free(job.answers);
	}

	// The speed runs get meshes of their own; the library pools the live
	// meshes' data for its batches, so the accuracy meshes would only make
	// that pool larger than the pair needs.
	for (int k = 0; k < opt.resolution_count; k++) {
		vkcol_mesh_destroy(ctx, handles_a[k]);
		if (!same_mesh)
			vkcol_mesh_destroy(ctx, handles_b[k]);
	}

	// -- Speed. A warm-up batch first per resolution: lavapipe compiles the
	// pipeline on the first dispatch, and the library rebuilds its mesh pool
	// on the first batch after meshes were created or destroyed.
	fprintf(out, "  \"speed\": [");
	uint64_t largest = 0;
	for (int k = 0; k < opt.batch_size_count; k++)
		largest = opt.batch_sizes[k] > largest ? opt.batch_sizes[k] : largest;
	largest = largest < pose_count ? largest : pose_count;
	vkcol_pair *pairs = xcalloc((size_t)largest, sizeof *pairs);
	vkcol_pair_result *results = xcalloc((size_t)largest, sizeof *results);
	for (int s = 0; s < opt.speed_resolution_count; s++) {
		uint32_t res = opt.speed_resolutions[s];
		vkcol_mesh sa = {0}, sb = {0};
		r = create_mesh(ctx, &mesh_a, res, name_a, &sa);
		if (r == VKCOL_SUCCESS)
			r = same_mesh ? (sb = sa, VKCOL_SUCCESS) : create_mesh(ctx, &mesh_b, res, name_b, &sb);
		if (r != VKCOL_SUCCESS)
			die("vkcol_mesh_create: %s", vkcol_result_string(r));
		fill_pairs(pairs, poses, (size_t)largest, sa, sb);
		uint64_t warm_pairs = largest < WARMUP_PAIRS ? largest : WARMUP_PAIRS;
		double t0 = now_seconds();
		r = run_approx(ctx, pairs, warm_pairs, results);
		fprintf(out, "%s\n    {\"resolution\": %u, \"warmup_pairs\": %llu, \"warmup_seconds\": %.6g", s ? "," : "",
		        res, (unsigned long long)warm_pairs, now_seconds() - t0);
		if (r != VKCOL_SUCCESS) {
			fprintf(out, ", \"error\": ");
			json_string(out, vkcol_result_string(r));
			fprintf(out, "}");
			fprintf(stderr, "bench_approx: vkcol_batch_run: %s\n", vkcol_result_string(r));
			status = 1;
		} else {
			fprintf(out, ", \"batches\": [");
			for (int k = 0; k < opt.batch_size_count; k++) {
				uint64_t n = opt.batch_sizes[k];
				fprintf(out, "%s\n      {\"pairs\": %llu", k ? "," : "", (unsigned long long)n);
				if (n > pose_count) {
					fprintf(out, ", \"skipped\": \"the pose file holds fewer poses\"}");
					continue;
				}
				fprintf(stderr, "%s: speed, resolution %u, %llu pairs\n", opt.name, res, (unsigned long long)n);
				double seconds[64], spent = 0.0;
				int done = 0;
				while (done < opt.repeat && r == VKCOL_SUCCESS) {
					t0 = now_seconds();
					r = run_approx(ctx, pairs, n, results);
					seconds[done] = now_seconds() - t0;
					spent += seconds[done++];
					if (spent > opt.max_seconds)
						break;
				}
				if (r != VKCOL_SUCCESS) {
					fprintf(out, ", \"error\": ");
					json_string(out, vkcol_result_string(r));
					fprintf(out, "}");
					status = 1;
					r = VKCOL_SUCCESS;
					continue;
				}
				size_t hits = 0;
				for (uint64_t i = 0; i < n; i++)
					hits += results[i].collide != 0;
				double med = median(seconds, done);
				fprintf(out,
				        ", \"repeat\": %d, \"median_seconds\": %.6g, \"median_pairs_per_second\": %.6g"
				        ", \"collide_fraction\": %.6f, \"repeat_seconds\": ",
				        done, med, (double)n / med, (double)hits / (double)n);
				json_doubles(out, seconds, done);
				fprintf(out, "}");
				fflush(out);
			}
			fprintf(out, "\n    ]}");
		}
		vkcol_mesh_destroy(ctx, sa);
		if (!same_mesh)
			vkcol_mesh_destroy(ctx, sb);
	}
	fprintf(out, "\n  ],\n  \"validation_messages\": %llu\n}\n",
	        (unsigned long long)vkcol_context_validation_message_count(ctx));
	free(pairs);
	free(results);
	free(poses);
	vkcol_context_destroy(ctx);
	import_mesh_free(&mesh_a);
	import_mesh_free(&mesh_b);
	if (out != stdout && fclose(out) != 0)
		die("cannot write %s", opt.out_path);
	return status;
}
