// SPDX-License-Identifier: MIT
// The cost of a recorded query (vkcol_batch_record) per frame: the device
// time between two Vulkan timestamps around the recorded commands, for
// 10^3, 10^4 and 10^5 pairs per frame in each mode (bench/README.md,
// "Recorded queries"). The program plays the renderer (tests/vk_host.h):
// its own device, a command buffer recorded once and submitted once per
// frame with new poses written into its host-visible pairs buffer. Also
// timed, for scale: the two copies the recorded commands make (the pairs in,
// the answers out) alone, between timestamps; vkcol_batch_record's host
// time; vkcol_batch_run on the same pairs (wall time, host to host, the
// median over the frames). Every frame's answers are compared with
// vkcol_batch_run's. JSON on stdout or --out; a line per measurement on
// stderr.
#include "vk_host.h"

#include "import.h"
#include "meshgen.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

#define MESHES 4
#define MAX_SIZES 8
#define MAX_FRAMES 32

static const char *const mesh_names[MESHES] = {"sphere", "torus", "star", "box"};

static _Noreturn void die(const char *what, const char *detail)
{
	fprintf(stderr, "bench_record: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	exit(1);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// The 1-minute load average (/proc/loadavg), -1 where unknown: the
// machine is shared, and the figures move with its load.
static double load_average(void)
{
	double load = -1;
	FILE *f = fopen("/proc/loadavg", "r");
	if (f) {
		if (fscanf(f, "%lf", &load) != 1)
			load = -1;
		fclose(f);
	}
	return load;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), compare_doubles);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// A point uniform in the ball of radius r about the origin.
static void in_ball(uint64_t *s, double r, float out[3])
{
	double x[3];
	meshgen_random_in_ball(s, x);
	for (int k = 0; k < 3; k++)
		out[k] = (float)(r * x[k]);
}

// n pairs cycling through the 16 ordered pairs of the meshes: A at a random
// pose within 5 units of the origin, B's origin within factor x (rA + rB)
// of A's, at a random rotation (most pairs near contact, as a renderer's
// broad phase would pass them on).
static void make_pairs(const vkcol_mesh *meshes, const float *radius, uint32_t n, double factor, uint64_t seed,
                       vkcol_pair *out)
{
	uint64_t s = seed;
	for (uint32_t i = 0; i < n; i++) {
		int a = i % MESHES, b = (i / MESHES) % MESHES;
		vkcol_pair *p = &out[i];
		p->a = meshes[a], p->b = meshes[b];
		p->pose_a = meshgen_random_rotation(&s);
		in_ball(&s, 5.0, p->pose_a.translation);
		p->pose_b = meshgen_random_rotation(&s);
		float off[3];
		in_ball(&s, factor * (radius[a] + radius[b]), off);
		for (int k = 0; k < 3; k++)
			p->pose_b.translation[k] = p->pose_a.translation[k] + off[k];
	}
}

typedef struct measurement {
	vkcol_mode mode;
	uint32_t pairs, chunk_pairs, chunks, frames;
	uint64_t device_bytes;
	double gpu_ms[MAX_FRAMES], copy_ms[MAX_FRAMES], run_ms[MAX_FRAMES];
	double gpu_median_ms, gpu_min_ms, copy_median_ms, record_host_us, run_wall_ms;
	uint64_t collisions, undecided, mismatches;
} measurement;

static void measure(vk_host *h, vkcol_context *ctx, const vkcol_mesh *meshes, const float *radius, vkcol_mode mode,
                    uint32_t n, int frames, double factor, uint64_t seed, measurement *m)
{
	memset(m, 0, sizeof(*m));
	m->mode = mode;
	m->pairs = n;
	m->frames = (uint32_t)frames;
	vkcol_gpu_batch_desc bd = {.mode = mode, .max_pairs = n};
	vkcol_gpu_batch *batch;
	vkcol_result r = vkcol_gpu_batch_create(ctx, &bd, &batch);
	if (r != VKCOL_SUCCESS)
		die("vkcol_gpu_batch_create", vkcol_result_string(r));
	vkcol_gpu_batch_info info;
	vkcol_gpu_batch_get_info(batch, &info);
	m->chunk_pairs = info.chunk_pairs;
	m->chunks = info.chunks;
	m->device_bytes = info.device_bytes;

	vk_host_buffer pairs, results, summary, scratch_pairs, scratch_results;
	const VkBufferUsageFlags src = VK_BUFFER_USAGE_TRANSFER_SRC_BIT, dst = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
	if (!vk_host_buffer_create(h, (VkDeviceSize)n * sizeof(vkcol_pair), src, &pairs) ||
	    !vk_host_buffer_create(h, (VkDeviceSize)n * sizeof(vkcol_pair_result), dst | src, &results) ||
	    !vk_host_buffer_create(h, sizeof(vkcol_record_summary), dst, &summary) ||
	    !vk_host_buffer_create(h, (VkDeviceSize)n * sizeof(vkcol_pair), dst, &scratch_pairs) ||
	    !vk_host_buffer_create(h, (VkDeviceSize)n * sizeof(vkcol_pair_result), src, &scratch_results))
		die("buffers", NULL);
	VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
	                            .queryType = VK_QUERY_TYPE_TIMESTAMP,
	                            .queryCount = 4};
	VkQueryPool queries;
	if (vkCreateQueryPool(h->device, &qi, NULL, &queries) != VK_SUCCESS)
		die("vkCreateQueryPool", NULL);

	// The frame: timestamps around copies of the sizes the query copies (the
	// pairs in, the answers out), then, after a barrier that lets nothing
	// overlap, around the query.
	VkCommandBuffer cmd = vk_host_begin(h);
	vkCmdResetQueryPool(cmd, queries, 0, 4);
	VkBufferCopy in = {0, 0, pairs.size}, out = {0, 0, results.size};
	vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries, 2);
	vkCmdCopyBuffer(cmd, pairs.buffer, scratch_pairs.buffer, 1, &in);
	vkCmdCopyBuffer(cmd, scratch_results.buffer, results.buffer, 1, &out);
	vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 3);
	VkMemoryBarrier apart = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
	                       .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
	                       .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT};
	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &apart, 0,
	                     NULL, 0, NULL);
	vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries, 0);
	vkcol_record_desc rd = {.batch = batch,
	                        .pairs = pairs.buffer,
	                        .pair_count = n,
	                        .results = results.buffer,
	                        .summary = summary.buffer,
	                        .wait_stages = VK_PIPELINE_STAGE_2_TRANSFER_BIT,
	                        .signal_stages = VK_PIPELINE_STAGE_2_TRANSFER_BIT | VK_PIPELINE_STAGE_2_HOST_BIT};
	double t0 = now();
	r = vkcol_batch_record(ctx, cmd, &rd);
	m->record_host_us = 1e6 * (now() - t0);
	if (r != VKCOL_SUCCESS)
		die("vkcol_batch_record", vkcol_result_string(r));
	vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 1);
	if (vkEndCommandBuffer(cmd) != VK_SUCCESS)
		die("vkEndCommandBuffer", NULL);

	vkcol_pair *host_pairs = malloc((size_t)n * sizeof(vkcol_pair));
	vkcol_pair_result *want = malloc((size_t)n * sizeof(vkcol_pair_result));
	vkcol_pair_result *got = malloc((size_t)n * sizeof(vkcol_pair_result));
	double period_ms = 1e-6 * h->props.limits.timestampPeriod;
	// An untimed frame first (and vkcol_batch_run's first batch): lavapipe
	// compiles the pipelines at their first dispatch.
	for (int f = -1; f < frames; f++) {
		make_pairs(meshes, radius, n, factor, seed + (uint64_t)(f + 1), host_pairs);
		memcpy(pairs.mapped, host_pairs, (size_t)n * sizeof(vkcol_pair));
		if (!vk_host_submit(h, cmd))
			die("submit", NULL);
		uint64_t ticks[4];
		if (vkGetQueryPoolResults(h->device, queries, 0, 4, sizeof(ticks), ticks, 8,
		                          VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) != VK_SUCCESS)
			die("vkGetQueryPoolResults", NULL);
		memcpy(got, results.mapped, (size_t)n * sizeof(vkcol_pair_result));
		// The same pairs through vkcol_batch_run: the answers agree (but
		// for undecided pairs), and its wall time.
		vkcol_batch_desc run = {.pairs = host_pairs, .pair_count = n, .mode = mode};
		double r0 = now();
		if ((r = vkcol_batch_run(ctx, &run, want)) != VKCOL_SUCCESS)
			die("vkcol_batch_run", vkcol_result_string(r));
		if (f < 0)
			continue;
		m->run_ms[f] = 1e3 * (now() - r0);
		m->gpu_ms[f] = period_ms * (double)(ticks[1] - ticks[0]);
		m->copy_ms[f] = period_ms * (double)(ticks[3] - ticks[2]);
		vkcol_record_summary s;
		memcpy(&s, summary.mapped, sizeof(s));
		m->collisions += s.collisions;
		m->undecided += s.undecided;
		for (uint32_t i = 0; i < n; i++)
			m->mismatches += got[i].stage != VKCOL_STAGE_NONE && got[i].collide != want[i].collide;
	}
	double sorted[MAX_FRAMES];
	memcpy(sorted, m->gpu_ms, sizeof(double) * (size_t)frames);
	m->gpu_median_ms = median(sorted, frames);
	m->gpu_min_ms = sorted[0];
	memcpy(sorted, m->copy_ms, sizeof(double) * (size_t)frames);
	m->copy_median_ms = median(sorted, frames);
	memcpy(sorted, m->run_ms, sizeof(double) * (size_t)frames);
	m->run_wall_ms = median(sorted, frames);
	free(host_pairs);
	free(want);
	free(got);
	vkFreeCommandBuffers(h->device, h->pool, 1, &cmd);
	vkDestroyQueryPool(h->device, queries, NULL);
	vk_host_buffer *all[] = {&pairs, &results, &summary, &scratch_pairs, &scratch_results};
	for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); k++)
		vk_host_buffer_destroy(h, all[k]);
	vkcol_gpu_batch_destroy(ctx, batch);
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_record MESH_DIR [--pairs 1000,10000,100000] [--frames 5] [--mode approx|exact|both]\n"
	                "                     [--radius-factor 1.3] [--seed 1] [--validation] [--out FILE]\n"
	                "MESH_DIR holds sphere.obj, torus.obj, star.obj and box.obj (bench/meshes).\n");
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc < 2 || argv[1][0] == '-')
		usage();
	uint32_t sizes[MAX_SIZES] = {1000, 10000, 100000};
	int size_count = 3, frames = 5;
	double factor = 1.3;
	uint64_t seed = 1;
	const char *mode_name = "both", *out_path = NULL;
	bool validation = false;
	for (int i = 2; i < argc; i++) {
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(argv[i], "--pairs") == 0 && next) {
			size_count = 0;
			for (char *p = argv[++i]; *p && size_count < MAX_SIZES; p += *p == ',')
				sizes[size_count++] = (uint32_t)strtoul(p, &p, 10);
		} else if (strcmp(argv[i], "--frames") == 0 && next) {
			frames = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--mode") == 0 && next) {
			mode_name = argv[++i];
		} else if (strcmp(argv[i], "--radius-factor") == 0 && next) {
			factor = atof(argv[++i]);
		} else if (strcmp(argv[i], "--seed") == 0 && next) {
			seed = strtoull(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--out") == 0 && next) {
			out_path = argv[++i];
		} else if (strcmp(argv[i], "--validation") == 0) {
			validation = true;
		} else {
			usage();
		}
	}
	if (frames < 1 || frames > MAX_FRAMES)
		die("--frames must be 1 .. 32", NULL);
	bool approx = strcmp(mode_name, "exact") != 0, exact = strcmp(mode_name, "approx") != 0;

	vk_host h;
	vk_host_options o = {.validation = validation, .synchronization2 = true, .float64 = true};
	if (!vk_host_create(&h, &o))
		die("cannot create the Vulkan device", NULL);
	vkcol_external_device ext = vk_host_external(&h);
	vkcol_context_desc cd = {.external = &ext};
	vkcol_context *ctx;
	vkcol_result r = vkcol_context_create(&cd, &ctx);
	if (r != VKCOL_SUCCESS)
		die("vkcol_context_create", vkcol_result_string(r));
	vkcol_mesh meshes[MESHES];
	float radius[MESHES];
	uint32_t triangles[MESHES];
	for (int k = 0; k < MESHES; k++) {
		char path[1024], error[256];
		snprintf(path, sizeof(path), "%s/%s.obj", argv[1], mesh_names[k]);
		import_mesh im;
		if (import_mesh_load(path, &im, error, sizeof(error)) != 0)
			die(path, error);
		vkcol_mesh_desc md = {.positions = im.positions,
		                      .vertex_count = im.vertex_count,
		                      .indices = im.indices,
		                      .triangle_count = im.triangle_count,
		                      .name = mesh_names[k]};
		if ((r = vkcol_mesh_create(ctx, &md, &meshes[k])) != VKCOL_SUCCESS)
			die(path, vkcol_result_string(r));
		vkcol_mesh_info info;
		vkcol_mesh_get_info(ctx, meshes[k], &info);
		radius[k] = info.sphere_radius;
		triangles[k] = im.triangle_count;
		import_mesh_free(&im);
	}

	measurement results[2 * MAX_SIZES];
	int count = 0;
	double load_start = load_average();
	time_t started = time(NULL);
	for (int m = 0; m < 2; m++) {
		if ((m == 0 && !approx) || (m == 1 && !exact))
			continue;
		for (int k = 0; k < size_count; k++) {
			measurement *x = &results[count++];
			measure(&h, ctx, meshes, radius, m == 0 ? VKCOL_MODE_APPROX : VKCOL_MODE_EXACT, sizes[k], frames, factor,
			        seed, x);
			fprintf(stderr, "%-6s %7u pairs: %9.3f ms per frame (device), copies %7.3f ms, record %7.1f us, "
			                "vkcol_batch_run %9.3f ms; %llu undecided, %llu mismatches\n",
			        m == 0 ? "approx" : "exact", x->pairs, x->gpu_median_ms, x->copy_median_ms, x->record_host_us,
			        x->run_wall_ms, (unsigned long long)x->undecided, (unsigned long long)x->mismatches);
		}
	}

	FILE *f = out_path ? fopen(out_path, "w") : stdout;
	if (!f)
		die("cannot write", out_path);
	vkcol_device_info dev;
	vkcol_context_get_device_info(ctx, &dev);
	char date[32];
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&started));
	fprintf(f, "{\n \"benchmark\": \"recorded queries (vkcol_batch_record): device time per frame\",\n");
	fprintf(f, " \"date\": \"%s\", \"load_average_start\": %.2f, \"load_average_end\": %.2f,\n", date, load_start,
	        load_average());
	fprintf(f, " \"device\": {\"name\": \"%s\", \"driver\": \"%s\", \"timestamp_period_ns\": %g},\n", dev.name,
	        dev.driver, (double)h.props.limits.timestampPeriod);
	fprintf(f, " \"synchronization2\": %s, \"shader_float64\": %s, \"validation\": %s,\n",
	        h.synchronization2 ? "true" : "false", h.float64 ? "true" : "false", validation ? "true" : "false");
	fprintf(f, " \"meshes\": [");
	for (int k = 0; k < MESHES; k++)
		fprintf(f, "%s{\"name\": \"%s\", \"triangles\": %u}", k ? ", " : "", mesh_names[k], triangles[k]);
	fprintf(f, "],\n \"poses\": {\"radius_factor\": %g, \"seed\": %llu, \"frames\": %d},\n", factor,
	        (unsigned long long)seed, frames);
	fprintf(f, " \"measurements\": [\n");
	for (int i = 0; i < count; i++) {
		const measurement *x = &results[i];
		fprintf(f, "  {\"mode\": \"%s\", \"pairs\": %u, \"chunk_pairs\": %u, \"chunks\": %u, \"device_bytes\": %llu,\n",
		        x->mode == VKCOL_MODE_APPROX ? "approx" : "exact", x->pairs, x->chunk_pairs, x->chunks,
		        (unsigned long long)x->device_bytes);
		fprintf(f, "   \"device_ms_median\": %.4f, \"device_ms_min\": %.4f, \"pairs_per_second\": %.0f,\n",
		        x->gpu_median_ms, x->gpu_min_ms, x->pairs / (1e-3 * x->gpu_median_ms));
		fprintf(f, "   \"device_ms\": [");
		for (uint32_t k = 0; k < x->frames; k++)
			fprintf(f, "%s%.4f", k ? ", " : "", x->gpu_ms[k]);
		fprintf(f, "],\n   \"copies_ms_median\": %.4f, \"record_host_us\": %.1f, \"batch_run_wall_ms\": %.3f,\n",
		        x->copy_median_ms, x->record_host_us, x->run_wall_ms);
		fprintf(f, "   \"collisions\": %llu, \"undecided\": %llu, \"mismatches_with_batch_run\": %llu}%s\n",
		        (unsigned long long)x->collisions, (unsigned long long)x->undecided,
		        (unsigned long long)x->mismatches, i + 1 < count ? "," : "");
	}
	fprintf(f, " ]\n}\n");
	if (out_path)
		fclose(f);
	vkcol_context_destroy(ctx);
	uint64_t messages = h.messages;
	vk_host_destroy(&h);
	int failed = messages != 0;
	for (int i = 0; i < count; i++)
		failed |= results[i].mismatches != 0;
	return failed;
}
