// SPDX-License-Identifier: MIT
// Recorded queries (vkcol_gpu_batch, vkcol_batch_record), with the test as
// the renderer: its own instance and device (vk_host.h) under the
// validation layer with synchronization validation, the library on it in
// external mode. Checked: a device without a feature the library needs is
// refused with a message naming it; recorded answers equal vkcol_batch_run's
// in both modes (over several chunks, with a count the device reads) and
// exact mode's agree with the double-precision reference (and read the
// meshes' fine trees where vkcol_batch_run does); a resubmitted
// command buffer answers new poses; two recordings in one command buffer
// keep to their own scratch; overflowed and invalid pairs come back
// undecided, counted, and vkcol_batch_run answers them; a batch made before
// a mesh changed refuses to record; recording allocates nothing; a
// secondary command buffer; both barrier paths (synchronization2 and
// Vulkan 1.1); and the threads option reaches the clearance fields. Any
// validation message fails.
#include "batch/pool.h"
#include "batch/record.h"
#include "context.h"
#include "gpu_util.h"
#include "vk_host.h"

static vk_host host_;
static bool host_ok_;

// Library messages the tests expect: counted, and the last one kept.
static int parallel_calls_;
static void count_parallel(void *user, uint32_t count, void (*task)(void *, uint32_t), void *task_user)
{
	(void)user;
	parallel_calls_++;
	for (uint32_t i = 0; i < count; i++)
		task(task_user, i);
}

// A context on the host's device; the caller's job system builds the
// clearance fields (counted in parallel_calls_).
static vkcol_context *host_context(vk_host *h, const vkcol_allocator *allocator)
{
	vkcol_external_device ext = vk_host_external(h);
	vkcol_context_desc desc = {.external = &ext, .log = gpu_test_log, .parallel = count_parallel};
	if (allocator)
		desc.allocator = *allocator;
	vkcol_context *ctx = NULL;
	vkcol_result r = vkcol_context_create(&desc, &ctx);
	ENSURE_MSG(r == VKCOL_SUCCESS, "vkcol_context_create: %s", vkcol_result_string(r));
	return ctx;
}

// Three meshes: a sphere (star-shaped), a torus (not), a box.
typedef struct scene {
	vkcol_context *ctx;
	vkcol_mesh meshes[3];
	vkcol_mesh_info info[3];
} scene;

static bool scene_create(scene *sc, vk_host *h, const vkcol_allocator *allocator)
{
	memset(sc, 0, sizeof(*sc));
	sc->ctx = host_context(h, allocator);
	if (!sc->ctx)
		return false;
	meshgen_mesh m[3];
	const float centre[3] = {0, 0, 0}, lo[3] = {-0.6f, -0.4f, -0.5f}, hi[3] = {0.6f, 0.4f, 0.5f};
	ENSURE(meshgen_sphere(&m[0], centre, 0.8f, 12, 16));
	ENSURE(meshgen_torus(&m[1], 0.8f, 0.3f, 24, 12));
	ENSURE(meshgen_box(&m[2], lo, hi, 2, false));
	const char *names[3] = {"sphere", "torus", "box"};
	for (int k = 0; k < 3; k++) {
		sc->meshes[k] = gpu_mesh(sc->ctx, &m[k], 32, names[k]);
		ENSURE(vkcol_mesh_get_info(sc->ctx, sc->meshes[k], &sc->info[k]) == VKCOL_SUCCESS);
		meshgen_free(&m[k]);
	}
	return true;
}

// n pairs of the scene's meshes in turn, both at random poses, B's centre
// within 1.2 x (rA + rB) of A's: both answers, and many near contact.
static void random_pairs(const scene *sc, vkcol_pair *pairs, uint32_t n, uint64_t seed)
{
	uint64_t state = seed;
	for (uint32_t i = 0; i < n; i++) {
		int a = i % 3, b = (i / 3) % 3;
		vkcol_pose pa = meshgen_random_pose(&state, 2.0f), pb = meshgen_random_rotation(&state);
		double x[3];
		meshgen_random_in_ball(&state, x);
		float reach = 1.2f * (sc->info[a].sphere_radius + sc->info[b].sphere_radius);
		for (int k = 0; k < 3; k++)
			pb.translation[k] = pa.translation[k] + (float)x[k] * reach;
		pairs[i] = (vkcol_pair){sc->meshes[a], sc->meshes[b], pa, pb};
	}
}

// The host's buffers for one query: pairs, results, summary, count.
typedef struct query_buffers {
	vk_host_buffer pairs, results, summary, count;
} query_buffers;

static bool query_buffers_create(vk_host *h, uint32_t n, query_buffers *q)
{
	const VkBufferUsageFlags src = VK_BUFFER_USAGE_TRANSFER_SRC_BIT, dst = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
	return vk_host_buffer_create(h, (VkDeviceSize)n * sizeof(vkcol_pair) + 64, src, &q->pairs) &&
	       vk_host_buffer_create(h, (VkDeviceSize)n * sizeof(vkcol_pair_result) + 32, dst, &q->results) &&
	       vk_host_buffer_create(h, sizeof(vkcol_record_summary) + 16, dst, &q->summary) &&
	       vk_host_buffer_create(h, 16, src, &q->count);
}

static void query_buffers_destroy(vk_host *h, query_buffers *q)
{
	vk_host_buffer_destroy(h, &q->pairs);
	vk_host_buffer_destroy(h, &q->results);
	vk_host_buffer_destroy(h, &q->summary);
	vk_host_buffer_destroy(h, &q->count);
}

// The record description of q: pairs at byte 64, results at byte 32 and the
// summary at byte 16 (offsets other than 0 on purpose), the count at 4 when
// `counted`.
static vkcol_record_desc query_desc(vkcol_gpu_batch *batch, const query_buffers *q, uint32_t n, bool counted)
{
	vkcol_record_desc d = {
	    .batch = batch,
	    .pairs = q->pairs.buffer,
	    .pairs_offset = 64,
	    .pair_count = n,
	    .count_buffer = counted ? q->count.buffer : VK_NULL_HANDLE,
	    .count_offset = 4,
	    .results = q->results.buffer,
	    .results_offset = 32,
	    .summary = q->summary.buffer,
	    .summary_offset = 16,
	};
	return d;
}

static vkcol_pair *query_pairs(const query_buffers *q)
{
	return (vkcol_pair *)((char *)q->pairs.mapped + 64);
}

static const vkcol_pair_result *query_results(const query_buffers *q)
{
	return (const vkcol_pair_result *)((const char *)q->results.mapped + 32);
}

static vkcol_record_summary query_summary(const query_buffers *q)
{
	vkcol_record_summary s;
	memcpy(&s, (const char *)q->summary.mapped + 16, sizeof(s));
	return s;
}

// Records one query of `batch` over q's pairs, submits it and waits.
static void record_and_run(scene *sc, vkcol_gpu_batch *batch, query_buffers *q, uint32_t n, bool counted)
{
	VkCommandBuffer cmd = vk_host_begin(&host_);
	vkcol_record_desc d = query_desc(batch, q, n, counted);
	ENSURE(vkcol_batch_record(sc->ctx, cmd, &d) == VKCOL_SUCCESS);
	ENSURE(vkEndCommandBuffer(cmd) == VK_SUCCESS);
	ENSURE(vk_host_submit(&host_, cmd));
	vkFreeCommandBuffers(host_.device, host_.pool, 1, &cmd);
}

// The recorded answers against vkcol_batch_run's on the same pairs: equal
// (exact mode's triangle-pair counts both positive or equal), but for pairs
// left undecided (only exact mode may leave any, only for a
// reason it names). Returns the undecided pairs; checks the summary.
static uint32_t compare_with_run(scene *sc, vkcol_mode mode, const query_buffers *q, uint32_t n, uint32_t counted)
{
	const vkcol_pair *pairs = query_pairs(q);
	const vkcol_pair_result *got = query_results(q);
	vkcol_pair_result *want = calloc(n, sizeof(*want));
	vkcol_batch_desc bd = {.pairs = pairs, .pair_count = counted, .mode = mode};
	ENSURE(vkcol_batch_run(sc->ctx, &bd, want) == VKCOL_SUCCESS);
	uint32_t differ = 0, undecided = 0, collisions = 0;
	for (uint32_t i = 0; i < counted; i++) {
		if (got[i].stage == VKCOL_STAGE_NONE) {
			undecided++;
			ENSURE_MSG(mode == VKCOL_MODE_EXACT && got[i].collide == 0 &&
			               (got[i].triangle_pairs == VKCOL_UNDECIDED_SCRATCH ||
			                got[i].triangle_pairs == VKCOL_UNDECIDED_FLOAT),
			           "pair %u: undecided (%u)", i, got[i].triangle_pairs);
			continue;
		}
		collisions += got[i].collide;
		// The same answer to the bit, penetration and triangle count too
		// (docs/semantics.md), whatever the chunks and the order of the
		// device's work.
		bool same = memcmp(&got[i], &want[i], sizeof(got[i])) == 0;
		differ += !same;
		if (differ == 1 && !same)
			fprintf(stderr, "%s pair %u: recorded (%u, %u, %.9g, %u), run (%u, %u, %.9g, %u)\n", mode == VKCOL_MODE_EXACT ? "exact" : "approx", i, got[i].collide,
			        got[i].stage, got[i].penetration, got[i].triangle_pairs, want[i].collide, want[i].stage,
			        want[i].penetration, want[i].triangle_pairs);
	}
	ENSURE_MSG(differ == 0, "%u of %u recorded answers differ from vkcol_batch_run's", differ, counted);
	// Past the count: zeros.
	uint32_t past = 0;
	for (uint32_t i = counted; i < n; i++)
		past += got[i].collide != 0 || got[i].stage != 0 || got[i].penetration != 0 || got[i].triangle_pairs != 0;
	ENSURE_EQ_INT(past, 0);
	vkcol_record_summary s = query_summary(q);
	ENSURE_EQ_INT(s.pairs, counted);
	ENSURE_EQ_INT(s.collisions, collisions);
	ENSURE_EQ_INT(s.undecided, undecided);
	ENSURE_EQ_INT(s.invalid, 0);
	free(want);
	return undecided;
}

// Exact mode's recorded answers against the double-precision reference: a
// pair the reference calls colliding is never answered "no"; one it calls
// apart is answered "collide" only within the touching distance.
static void compare_with_reference(scene *sc, const query_buffers *q, uint32_t n)
{
	const vkcol_pair *pairs = query_pairs(q);
	const vkcol_pair_result *got = query_results(q);
	uint32_t wrong = 0, collide = 0;
	for (uint32_t i = 0; i < n; i++) {
		bool ref = false;
		ENSURE(vkcol_reference_collide(sc->ctx, &pairs[i], &ref) == VKCOL_SUCCESS);
		collide += ref;
		if (got[i].stage == VKCOL_STAGE_NONE || (bool)got[i].collide == ref)
			continue;
		double distance = 0, touch = 0;
		ENSURE(vkcol_reference_distance(sc->ctx, &pairs[i], &distance) == VKCOL_SUCCESS);
		ENSURE(vkcol_pair_touch_distance(sc->ctx, &pairs[i], &touch) == VKCOL_SUCCESS);
		wrong += ref || distance > touch;
	}
	ENSURE_MSG(wrong == 0, "%u of %u recorded exact answers disagree with the reference", wrong, n);
	ENSURE_MSG(collide > n / 5 && collide < n - n / 5, "%u of %u pairs collide: both answers wanted", collide, n);
}

// Both modes, over several chunks (chunk_pairs 256, 700 pairs), then with
// a count the device reads that stops within the second chunk.
static void test_record_matches_run(void)
{
	scene sc;
	if (!host_ok_ || !scene_create(&sc, &host_, NULL))
		return;
	const uint32_t n = 700;
	query_buffers q;
	ENSURE(query_buffers_create(&host_, n, &q));
	random_pairs(&sc, query_pairs(&q), n, 26);
	const vkcol_mode modes[2] = {VKCOL_MODE_APPROX, VKCOL_MODE_EXACT};
	for (int m = 0; m < 2; m++) {
		int calls = parallel_calls_;
		vkcol_gpu_batch_desc bd = {.mode = modes[m], .max_pairs = n, .chunk_pairs = 256};
		vkcol_gpu_batch *batch = NULL;
		ENSURE(vkcol_gpu_batch_create(sc.ctx, &bd, &batch) == VKCOL_SUCCESS);
		if (!batch)
			continue;
		// The approx batch built the three clearance fields through the
		// caller's job system.
		ENSURE_EQ_INT(parallel_calls_ - calls, m == 0 ? 3 : 0);
		vkcol_gpu_batch_info info;
		ENSURE(vkcol_gpu_batch_get_info(batch, &info) == VKCOL_SUCCESS);
		ENSURE_EQ_INT(info.chunk_pairs, 256);
		ENSURE_EQ_INT(info.chunks, 3);
		ENSURE(info.device_bytes > 0);
		record_and_run(&sc, batch, &q, n, false);
		uint32_t undecided = compare_with_run(&sc, modes[m], &q, n, n);
		if (modes[m] == VKCOL_MODE_EXACT) {
			ENSURE_MSG(undecided <= n / 100, "%u undecided", undecided);
			compare_with_reference(&sc, &q, n);
		}
		// The device reads the count: 300 of the 700 recorded.
		((uint32_t *)q.count.mapped)[1] = 300;
		memset(q.results.mapped, 0xff, q.results.size);
		record_and_run(&sc, batch, &q, n, true);
		compare_with_run(&sc, modes[m], &q, n, 300);
		vkcol_gpu_batch_destroy(sc.ctx, batch);
	}
	query_buffers_destroy(&host_, &q);
	vkcol_context_destroy(sc.ctx);
	ENSURE_EQ_INT(host_.messages, 0);
}

// A context holding only meshes of thin diagonal parts (a legged body):
// its recorded exact batches test the nodes' oriented boxes (the _obb
// pipelines, aabb_tree.h's obb_worth), as vkcol_batch_run does for batches
// of such meshes, and answer the same bytes, which agree with the
// reference.
static void test_record_oriented_boxes(void)
{
	scene sc;
	if (!host_ok_ || !scene_create(&sc, &host_, NULL))
		return;
	meshgen_mesh legs;
	ENSURE(meshgen_spider(&legs, 8, 0.5f, 2.0f, 0.08f));
	vkcol_mesh spider = gpu_mesh(sc.ctx, &legs, 32, "spider");
	meshgen_free(&legs);
	// The scene's sphere, torus and box would turn the oriented boxes off.
	for (int k = 0; k < 3; k++)
		vkcol_mesh_destroy(sc.ctx, sc.meshes[k]);
	vkcol_mesh_info si;
	ENSURE(vkcol_mesh_get_info(sc.ctx, spider, &si) == VKCOL_SUCCESS);
	const uint32_t n = 600;
	query_buffers q;
	ENSURE(query_buffers_create(&host_, n, &q));
	vkcol_pair *pairs = query_pairs(&q);
	uint64_t state = 41;
	for (uint32_t i = 0; i < n; i++) {
		vkcol_pose pa = meshgen_random_pose(&state, 2.0f), pb = meshgen_random_rotation(&state);
		double x[3];
		meshgen_random_in_ball(&state, x);
		float reach = 0.7f * 2.0f * si.sphere_radius;
		for (int k = 0; k < 3; k++)
			pb.translation[k] = pa.translation[k] + (float)x[k] * reach;
		pairs[i] = (vkcol_pair){spider, spider, pa, pb};
	}
	vkcol_gpu_batch_desc bd = {.mode = VKCOL_MODE_EXACT, .max_pairs = n, .chunk_pairs = 256};
	vkcol_gpu_batch *batch = NULL;
	ENSURE(vkcol_gpu_batch_create(sc.ctx, &bd, &batch) == VKCOL_SUCCESS);
	if (batch) {
		record_and_run(&sc, batch, &q, n, false);
		uint32_t undecided = compare_with_run(&sc, VKCOL_MODE_EXACT, &q, n, n);
		ENSURE_MSG(undecided <= n / 100, "%u undecided", undecided);
		compare_with_reference(&sc, &q, n);
		vkcol_gpu_batch_destroy(sc.ctx, batch);
	}
	query_buffers_destroy(&host_, &q);
	vkcol_context_destroy(sc.ctx);
	ENSURE_EQ_INT(host_.messages, 0);
}

// A coarse torus against a small sphere (test_exact's test_fine_tree): a
// recorded exact batch reads the torus's fine tree where vkcol_batch_run
// does (record.comp's VKCOL_RECORD_FINE picks as pool_exact_pair): the
// run's answers and the reference's; and in a frontier too small for some
// pairs, fewer of them overflow than against the same torus without a fine
// tree (its leaf size set: the same first tree), without the accepts.
// A coarse torus against a small sphere (test_exact's test_fine_tree): a
// recorded exact batch reads the torus's fine tree where vkcol_batch_run
// does: record.comp (VKCOL_RECORD_FINE) writes the records pool_exact_pair
// picks, pair for pair, for the torus on either side and for the torus
// whose leaf size was set (no fine tree), and the answers are the run's
// and the reference's.
static void test_record_fine_tree(void)
{
	scene sc;
	if (!host_ok_ || !scene_create(&sc, &host_, NULL))
		return;
	meshgen_mesh ring, small;
	const float c[3] = {0, 0, 0};
	ENSURE(meshgen_torus(&ring, 1.0f, 0.4f, 24, 10));
	ENSURE(meshgen_sphere(&small, c, 0.15f, 24, 48));
	const vkcol_mesh coarse = gpu_mesh(sc.ctx, &ring, 32, "coarse torus");
	const vkcol_mesh fine = gpu_mesh(sc.ctx, &small, 32, "small sphere");
	vkcol_mesh_desc d = meshgen_desc(&ring, "coarse torus, leaves of 4");
	d.cube_resolution = 32;
	d.leaf_size = 4;
	vkcol_mesh given = {0};
	ENSURE(vkcol_mesh_create(sc.ctx, &d, &given) == VKCOL_SUCCESS);
	meshgen_free(&ring);
	meshgen_free(&small);
	vkcol_mesh_info ti;
	ENSURE(vkcol_mesh_get_info(sc.ctx, coarse, &ti) == VKCOL_SUCCESS);
	const uint32_t n = 600;
	query_buffers q;
	vk_host_buffer back;
	ENSURE(query_buffers_create(&host_, n, &q));
	ENSURE(vk_host_buffer_create(&host_, (VkDeviceSize)n * sizeof(vkcol_gpu_pair), VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                             &back));
	vkcol_pair *pairs = query_pairs(&q);
	uint64_t state = 43;
	const vkcol_mesh sides[3][2] = {{coarse, fine}, {fine, coarse}, {given, fine}};
	for (uint32_t i = 0; i < n; i++) {
		vkcol_pose pa = meshgen_random_pose(&state, 2.0f), pb = meshgen_random_rotation(&state);
		double x[3];
		meshgen_random_in_ball(&state, x);
		for (int k = 0; k < 3; k++)
			pb.translation[k] = pa.translation[k] + (float)x[k] * ti.sphere_radius;
		pairs[i] = (vkcol_pair){sides[i % 3][0], sides[i % 3][1], pa, pb};
	}
	vkcol_gpu_batch_desc bd = {.mode = VKCOL_MODE_EXACT, .max_pairs = n};
	vkcol_gpu_batch *batch = NULL;
	ENSURE(vkcol_gpu_batch_create(sc.ctx, &bd, &batch) == VKCOL_SUCCESS);
	if (batch) {
		vkcol_gpu_batch_info info;
		ENSURE(vkcol_gpu_batch_get_info(batch, &info) == VKCOL_SUCCESS);
		ENSURE_EQ_INT(info.chunks, 1);
		record_and_run(&sc, batch, &q, n, false);
		ENSURE_EQ_INT(compare_with_run(&sc, VKCOL_MODE_EXACT, &q, n, n), 0);
		compare_with_reference(&sc, &q, n);
		// The pairs as the passes read them.
		VkCommandBuffer cmd = vk_host_begin(&host_);
		VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		                      .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
		                      .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT};
		vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
		                     VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
		VkBufferCopy region = {0, 0, back.size};
		vkCmdCopyBuffer(cmd, record_exact_pairs(batch), back.buffer, 1, &region);
		ENSURE(vkEndCommandBuffer(cmd) == VK_SUCCESS);
		ENSURE(vk_host_submit(&host_, cmd));
		vkFreeCommandBuffers(host_.device, host_.pool, 1, &cmd);
		batch_scope s;
		ENSURE(batch_scope_of(sc.ctx, &s));
		const vkcol_gpu_pair *got = back.mapped;
		uint32_t differ = 0, fine_reads = 0;
		for (uint32_t i = 0; i < n; i++) {
			vkcol_gpu_pair want = {.mesh_a = pairs[i].a.id, .mesh_b = pairs[i].b.id};
			pool_exact_pair(&s, &want);
			differ += got[i].mesh_a != want.mesh_a || got[i].mesh_b != want.mesh_b;
			fine_reads += want.mesh_a != (pairs[i].a.id & MESH_MAX_COUNT) || want.mesh_b != (pairs[i].b.id & MESH_MAX_COUNT);
		}
		printf("     %u of %u pairs read a fine tree; %u recorded pairs read other records\n", fine_reads, n, differ);
		ENSURE_EQ_INT(differ, 0);
		// The coarse torus's, on either side; not the torus without one.
		ENSURE_EQ_INT(fine_reads, 2 * n / 3);
		vkcol_gpu_batch_destroy(sc.ctx, batch);
	}
	vk_host_buffer_destroy(&host_, &back);
	query_buffers_destroy(&host_, &q);
	vkcol_context_destroy(sc.ctx);
	ENSURE_EQ_INT(host_.messages, 0);
}

// One command buffer, recorded once, submitted twice: the second time with
// new poses in the pairs buffer, which give new answers. In the same
// command buffer, a second batch and a second recording of the first batch
// on other buffers: each query keeps to its own scratch.
static void test_resubmit_and_share(void)
{
	scene sc;
	if (!host_ok_ || !scene_create(&sc, &host_, NULL))
		return;
	const uint32_t n = 300;
	query_buffers q[3];
	for (int k = 0; k < 3; k++) {
		ENSURE(query_buffers_create(&host_, n, &q[k]));
		random_pairs(&sc, query_pairs(&q[k]), n, 100 + (uint64_t)k);
	}
	vkcol_gpu_batch *exact = NULL, *approx = NULL;
	vkcol_gpu_batch_desc ed = {.mode = VKCOL_MODE_EXACT, .max_pairs = n}, ad = {.mode = VKCOL_MODE_APPROX, .max_pairs = n};
	ENSURE(vkcol_gpu_batch_create(sc.ctx, &ed, &exact) == VKCOL_SUCCESS);
	ENSURE(vkcol_gpu_batch_create(sc.ctx, &ad, &approx) == VKCOL_SUCCESS);
	if (!exact || !approx)
		return;
	VkCommandBuffer cmd = vk_host_begin(&host_);
	vkcol_record_desc d[3] = {query_desc(exact, &q[0], n, false), query_desc(approx, &q[1], n, false),
	                          query_desc(exact, &q[2], n, false)};
	for (int k = 0; k < 3; k++)
		ENSURE(vkcol_batch_record(sc.ctx, cmd, &d[k]) == VKCOL_SUCCESS);
	ENSURE(vkEndCommandBuffer(cmd) == VK_SUCCESS);
	const vkcol_mode modes[3] = {VKCOL_MODE_EXACT, VKCOL_MODE_APPROX, VKCOL_MODE_EXACT};
	vkcol_pair_result *first = calloc(n, sizeof(*first));
	for (int frame = 0; frame < 2; frame++) {
		ENSURE(vk_host_submit(&host_, cmd));
		for (int k = 0; k < 3; k++)
			compare_with_run(&sc, modes[k], &q[k], n, n);
		if (frame == 0) {
			memcpy(first, query_results(&q[0]), n * sizeof(*first));
			random_pairs(&sc, query_pairs(&q[0]), n, 999);
		}
	}
	uint32_t changed = 0;
	for (uint32_t i = 0; i < n; i++)
		changed += first[i].collide != query_results(&q[0])[i].collide;
	ENSURE_MSG(changed > n / 10, "only %u of %u answers changed with the new poses", changed, n);
	free(first);
	vkFreeCommandBuffers(host_.device, host_.pool, 1, &cmd);
	for (int k = 0; k < 3; k++)
		query_buffers_destroy(&host_, &q[k]);
	vkcol_context_destroy(sc.ctx); // frees both batches
	ENSURE_EQ_INT(host_.messages, 0);
}

// A traversal frontier far too small (a test knob) leaves pairs undecided,
// flagged VKCOL_UNDECIDED_SCRATCH and counted; vkcol_batch_run answers them
// as the reference does. Invalid pairs (a stale or zero mesh id, a NaN, a
// zero quaternion) come back VKCOL_UNDECIDED_INVALID, and the other pairs
// of the query are answered as usual. Without shaderFloat64, pairs float
// cannot decide come back VKCOL_UNDECIDED_FLOAT.
// Pairs first..n-1 of a recorded query's answers, the undecided ones
// (frontier overflow: VKCOL_UNDECIDED_SCRATCH) answered by vkcol_batch_run:
// all agree with the reference (or touch within the band). Returns how
// many were undecided.
static uint32_t check_overflowed(scene *sc, const vkcol_pair *pairs, const vkcol_pair_result *got, uint32_t first,
                                 uint32_t n)
{
	uint32_t answered = 0, wrong = 0;
	for (uint32_t i = first; i < n; i++) {
		bool ref = false;
		ENSURE(vkcol_reference_collide(sc->ctx, &pairs[i], &ref) == VKCOL_SUCCESS);
		vkcol_pair_result r = got[i];
		if (r.stage == VKCOL_STAGE_NONE) {
			ENSURE_EQ_INT(r.triangle_pairs, VKCOL_UNDECIDED_SCRATCH);
			vkcol_batch_desc run = {.pairs = &pairs[i], .pair_count = 1};
			ENSURE(vkcol_batch_run(sc->ctx, &run, &r) == VKCOL_SUCCESS);
			answered++;
		}
		double distance = 0, touch = 0;
		if ((bool)r.collide != ref) {
			ENSURE(vkcol_reference_distance(sc->ctx, &pairs[i], &distance) == VKCOL_SUCCESS);
			ENSURE(vkcol_pair_touch_distance(sc->ctx, &pairs[i], &touch) == VKCOL_SUCCESS);
			wrong += ref || distance > touch;
		}
	}
	ENSURE_EQ_INT(wrong, 0);
	return answered;
}

// An exact batch for n random pairs (seed) of the scene in q, made with a
// frontier of `capacity` items and `budget` depth-first steps (0: the
// default), the early accepts off: for the overflow tests.
static vkcol_gpu_batch *overflow_batch(scene *sc, query_buffers *q, uint32_t n, uint64_t seed, uint32_t capacity,
                                       uint32_t budget)
{
	ENSURE(query_buffers_create(&host_, n, q));
	random_pairs(sc, query_pairs(q), n, seed);
	sc->ctx->batch.knobs.frontier_capacity = capacity;
	sc->ctx->batch.knobs.traverse_budget = budget;
	vkcol_gpu_batch_desc bd = {.mode = VKCOL_MODE_EXACT, .max_pairs = n, .flags = VKCOL_BATCH_NO_EARLY_ACCEPT};
	vkcol_gpu_batch *batch = NULL;
	ENSURE(vkcol_gpu_batch_create(sc->ctx, &bd, &batch) == VKCOL_SUCCESS);
	sc->ctx->batch.knobs.frontier_capacity = 0;
	sc->ctx->batch.knobs.traverse_budget = 0;
	return batch;
}

// The same overflow depth first: solids without the early accepts seed
// their pairs in the frontier's depth-first region (exact_setup.comp), and
// with 4 depth-first steps an item (the default 16 find most hits before
// the region fills, the nearer child first) what is left stays there, so
// it is that region, 8 items of a frontier of 16 (chunks of 4 pairs), that
// overflows:
// its pairs come back VKCOL_UNDECIDED_SCRATCH, and vkcol_batch_run answers
// them as the reference does.
static void test_undecided_depth_first(void)
{
	scene sc;
	if (!host_ok_ || !scene_create(&sc, &host_, NULL))
		return;
	const uint32_t n = 200;
	query_buffers q;
	vkcol_gpu_batch *batch = overflow_batch(&sc, &q, n, 11, 16, 4);
	const vkcol_pair *pairs = query_pairs(&q);
	if (batch) {
		record_and_run(&sc, batch, &q, n, false);
		const vkcol_pair_result *got = query_results(&q);
		uint32_t undecided = 0;
		for (uint32_t i = 0; i < n; i++)
			undecided += got[i].stage == VKCOL_STAGE_NONE;
		vkcol_record_summary s = query_summary(&q);
		ENSURE_EQ_INT(s.undecided, undecided);
		printf("     %u of %u pairs undecided (the depth-first region overflowed)\n", undecided, n);
		ENSURE_MSG(undecided >= 5, "%u undecided pairs: the small depth-first region should overflow", undecided);
		ENSURE_EQ_INT(check_overflowed(&sc, pairs, got, 0, n), undecided);
		vkcol_gpu_batch_destroy(sc.ctx, batch);
	}
	query_buffers_destroy(&host_, &q);
	vkcol_context_destroy(sc.ctx);
	ENSURE_EQ_INT(host_.messages, 0);
}

static void test_undecided(void)
{
	scene sc;
	if (!host_ok_ || !scene_create(&sc, &host_, NULL))
		return;
	const uint32_t n = 200;
	query_buffers q;
	// Breadth first only: every overlapping node pair of a chunk's pairs
	// takes a frontier item, so the small frontier overflows.
	vkcol_gpu_batch *batch = overflow_batch(&sc, &q, n, 7, 32, 1);
	vkcol_pair *pairs = query_pairs(&q);
	if (!batch)
		return;
	pairs[0].a.id += 1u << MESH_INDEX_BITS; // another generation of the slot
	pairs[1].b.id = 0;
	pairs[2].pose_b.translation[1] = NAN;
	memset(pairs[3].pose_a.rotation, 0, sizeof(pairs[3].pose_a.rotation));
	record_and_run(&sc, batch, &q, n, false);
	const vkcol_pair_result *got = query_results(&q);
	uint32_t undecided = 0, invalid = 0, collisions = 0;
	for (uint32_t i = 0; i < n; i++) {
		undecided += got[i].stage == VKCOL_STAGE_NONE;
		invalid += got[i].stage == VKCOL_STAGE_NONE && got[i].triangle_pairs == VKCOL_UNDECIDED_INVALID;
		collisions += got[i].collide;
		if (i < 4)
			ENSURE_MSG(got[i].stage == VKCOL_STAGE_NONE && got[i].triangle_pairs == VKCOL_UNDECIDED_INVALID,
			           "invalid pair %u: stage %u, %u", i, got[i].stage, got[i].triangle_pairs);
	}
	vkcol_record_summary s = query_summary(&q);
	ENSURE_EQ_INT(s.pairs, n);
	ENSURE_EQ_INT(s.invalid, 4);
	ENSURE_EQ_INT(invalid, 4);
	ENSURE_EQ_INT(s.undecided, undecided);
	ENSURE_EQ_INT(s.collisions, collisions);
	ENSURE_MSG(undecided >= 4 + 5, "%u undecided pairs: the small frontier should overflow some", undecided);
	// The overflowed pairs, answered by vkcol_batch_run, agree with the
	// reference (as the decided ones do).
	ENSURE_EQ_INT(check_overflowed(&sc, pairs, got, 4, n) + 4, undecided);
	// An invalid pair run on the host is refused, with its reason logged.
	vkcol_pair_result refused;
	vkcol_batch_desc run_invalid = {.pairs = &pairs[2], .pair_count = 1};
	gpu_log_expected = 1;
	ENSURE(vkcol_batch_run(sc.ctx, &run_invalid, &refused) == VKCOL_ERROR_INVALID_ARGUMENT);
	ENSURE_MSG(strstr(gpu_last_message, "non-finite") != NULL, "logged: %s", gpu_last_message);
	// Without shaderFloat64 (a test knob), boxes face to face within float's
	// rounding: float cannot vouch for their triangle pairs, so they come
	// back VKCOL_UNDECIDED_FLOAT; vkcol_batch_run answers them.
	sc.ctx->batch.knobs.float64_off = true;
	vkcol_gpu_batch *float_batch = NULL;
	vkcol_gpu_batch_desc bd = {.mode = VKCOL_MODE_EXACT, .max_pairs = n, .flags = VKCOL_BATCH_NO_EARLY_ACCEPT};
	ENSURE(vkcol_gpu_batch_create(sc.ctx, &bd, &float_batch) == VKCOL_SUCCESS);
	sc.ctx->batch.knobs.float64_off = false;
	const uint32_t touching = 8;
	for (uint32_t i = 0; i < touching; i++)
		pairs[i] = (vkcol_pair){sc.meshes[2], sc.meshes[2], pose_identity(),
		                        pose_at(1.2f + (float)((int)i - 4) * 1e-7f, 0.1f * (float)i, 0.05f)};
	if (float_batch)
		record_and_run(&sc, float_batch, &q, touching, false);
	uint32_t float_undecided = 0;
	for (uint32_t i = 0; i < touching; i++) {
		vkcol_pair_result r = got[i];
		float_undecided += r.stage == VKCOL_STAGE_NONE && r.triangle_pairs == VKCOL_UNDECIDED_FLOAT;
		vkcol_batch_desc run = {.pairs = &pairs[i], .pair_count = 1};
		if (r.stage == VKCOL_STAGE_NONE)
			ENSURE(vkcol_batch_run(sc.ctx, &run, &r) == VKCOL_SUCCESS);
		bool ref = false;
		double distance = 0, touch = 0;
		ENSURE(vkcol_reference_collide(sc.ctx, &pairs[i], &ref) == VKCOL_SUCCESS);
		ENSURE(vkcol_reference_distance(sc.ctx, &pairs[i], &distance) == VKCOL_SUCCESS);
		ENSURE(vkcol_pair_touch_distance(sc.ctx, &pairs[i], &touch) == VKCOL_SUCCESS);
		ENSURE_MSG((bool)r.collide == ref || (!ref && distance <= touch), "touching pair %u: %u", i, r.collide);
	}
	ENSURE_MSG(float_undecided > 0, "no pair left to the CPU by float");
	ENSURE_EQ_INT(query_summary(&q).undecided, float_undecided);
	query_buffers_destroy(&host_, &q);
	vkcol_context_destroy(sc.ctx);
	ENSURE_EQ_INT(host_.messages, 0);
}

// A mesh far from its coordinate origin, which the library recentres: a
// box of half-extent 1 centred at (500, 0, 0) in its own coordinates, placed
// at x = d, against a sphere of radius 0.8 at the origin (they collide when
// d < 1.8). The float frames (approx mode, exact mode without
// shaderFloat64, a test knob here) need the pairs made relative on the
// device; exact mode in double takes them as given. Away from d = 1.8, every
// mode answers as the geometry says.
static void test_recentred_mesh(void)
{
	scene sc;
	if (!host_ok_ || !scene_create(&sc, &host_, NULL))
		return;
	meshgen_mesh box;
	const float lo[3] = {499, -1, -1}, hi[3] = {501, 1, 1};
	ENSURE(meshgen_box(&box, lo, hi, 2, false));
	vkcol_mesh far = gpu_mesh(sc.ctx, &box, 32, "far box");
	meshgen_free(&box);
	const float d[] = {0.0f, 1.0f, 1.5f, 2.2f, 3.0f, 10.0f};
	const uint32_t n = sizeof(d) / sizeof(d[0]);
	query_buffers q;
	ENSURE(query_buffers_create(&host_, n, &q));
	for (uint32_t i = 0; i < n; i++) {
		vkcol_pose at = pose_rot(0.3f, 0, 0, 1, d[i] - 500.0f * cosf(0.3f), -500.0f * sinf(0.3f), 0);
		query_pairs(&q)[i] = (vkcol_pair){sc.meshes[0], far, pose_identity(), at};
	}
	for (int k = 0; k < 3; k++) {
		vkcol_mode mode = k == 0 ? VKCOL_MODE_APPROX : VKCOL_MODE_EXACT;
		sc.ctx->batch.knobs.float64_off = k == 2;
		vkcol_gpu_batch_desc bd = {.mode = mode, .max_pairs = n};
		vkcol_gpu_batch *batch = NULL;
		ENSURE(vkcol_gpu_batch_create(sc.ctx, &bd, &batch) == VKCOL_SUCCESS);
		if (!batch)
			continue;
		vkcol_gpu_batch_info info;
		ENSURE(vkcol_gpu_batch_get_info(batch, &info) == VKCOL_SUCCESS);
		ENSURE_EQ_INT(info.poses_in_double, k == 1 && host_.float64);
		record_and_run(&sc, batch, &q, n, false);
		for (uint32_t i = 0; i < n; i++) {
			bool colliding = d[i] < 1.8f;
			bool ref = false;
			ENSURE(vkcol_reference_collide(sc.ctx, &query_pairs(&q)[i], &ref) == VKCOL_SUCCESS);
			ENSURE_MSG(ref == colliding, "d = %g: the reference says %d", d[i], ref);
			ENSURE_MSG(query_results(&q)[i].collide == colliding && query_results(&q)[i].stage != VKCOL_STAGE_NONE,
			           "mode %d, d = %g: collide %u, stage %u", k, d[i], query_results(&q)[i].collide,
			           query_results(&q)[i].stage);
		}
		vkcol_gpu_batch_destroy(sc.ctx, batch);
	}
	sc.ctx->batch.knobs.float64_off = false;
	query_buffers_destroy(&host_, &q);
	vkcol_context_destroy(sc.ctx);
	ENSURE_EQ_INT(host_.messages, 0);
}

static int allocations_;
static void *counting_alloc(void *user, size_t size)
{
	(void)user;
	allocations_++;
	return malloc(size);
}
static void counting_free(void *user, void *p)
{
	(void)user;
	free(p);
}

// Recording allocates no host memory; a mesh created after the batch makes
// recording fail with VKCOL_ERROR_OUT_OF_DATE (a new batch records again);
// bad arguments are refused with a message and record nothing.// Approx mode's vertex budget in a recorded batch: a fine sphere (about
// 8,000 vertices: levels of 2,000 and 500) among the scene's meshes. The
// recorded answers equal vkcol_batch_run's with the same budget, over two
// chunks; invalid pairs are still flagged; an exact batch refuses a budget.
static void test_record_vertex_budget(void)
{
	scene sc;
	if (!host_ok_ || !scene_create(&sc, &host_, NULL))
		return;
	meshgen_mesh fine;
	const float c[3] = {0, 0, 0};
	ENSURE(meshgen_sphere(&fine, c, 0.8f, 64, 128));
	vkcol_mesh mf = gpu_mesh(sc.ctx, &fine, 32, "fine sphere");
	meshgen_free(&fine);
	const uint32_t n = 600, budget = 600;
	query_buffers q;
	ENSURE(query_buffers_create(&host_, n, &q));
	vkcol_pair *pairs = query_pairs(&q);
	random_pairs(&sc, pairs, n, 44);
	for (uint32_t i = 0; i < n; i += 2)
		pairs[i].a = mf; // the fine sphere against the others, and itself
	for (uint32_t i = 0; i < n; i += 6)
		pairs[i].b = mf;
	pairs[7].b.id = 0; // invalid: flagged, not answered
	vkcol_gpu_batch_desc bd = {.mode = VKCOL_MODE_APPROX, .max_pairs = n, .chunk_pairs = 256, .vertex_budget = budget};
	vkcol_gpu_batch *batch = NULL;
	ENSURE(vkcol_gpu_batch_create(sc.ctx, &bd, &batch) == VKCOL_SUCCESS);
	if (batch) {
		record_and_run(&sc, batch, &q, n, false);
		const vkcol_pair_result *got = query_results(&q);
		vkcol_pair_result *want = calloc(n, sizeof(*want)), *all = calloc(n, sizeof(*all));
		ENSURE(want && all);
		pairs[7].b = pairs[6].b; // vkcol_batch_run checks every pair first
		vkcol_batch_desc rd = {.pairs = pairs, .pair_count = n, .mode = VKCOL_MODE_APPROX, .vertex_budget = budget};
		ENSURE(vkcol_batch_run(sc.ctx, &rd, want) == VKCOL_SUCCESS);
		rd.vertex_budget = 0;
		ENSURE(vkcol_batch_run(sc.ctx, &rd, all) == VKCOL_SUCCESS);
		uint32_t differ = 0, collide = 0, lost = 0;
		for (uint32_t i = 0; i < n; i++) {
			if (i == 7)
				continue;
			differ += got[i].collide != want[i].collide || got[i].stage != want[i].stage;
			collide += got[i].collide;
			lost += all[i].collide && !got[i].collide;
			ENSURE_MSG(!got[i].collide || all[i].collide, "pair %u: collide with the budget, not with every vertex",
			           i);
		}
		ENSURE_MSG(differ == 0, "%u of %u recorded answers differ from vkcol_batch_run's with the budget", differ, n);
		ENSURE(collide > n / 5 && collide < n - n / 5);
		// The budget changed some answer: a recording that ignored it would
		// differ from vkcol_batch_run's with it.
		ENSURE(lost > 0);
		ENSURE_EQ_INT(got[7].stage, VKCOL_STAGE_NONE);
		ENSURE_EQ_INT(got[7].triangle_pairs, VKCOL_UNDECIDED_INVALID);
		vkcol_record_summary sum = query_summary(&q);
		ENSURE_EQ_INT(sum.invalid, 1);
		printf("  %u of %u collide; %u lost to the budget\n", collide, n, lost);
		free(want);
		free(all);
		vkcol_gpu_batch_destroy(sc.ctx, batch);
	}
	bd.mode = VKCOL_MODE_EXACT;
	batch = NULL;
	gpu_log_expected = 1;
	ENSURE(vkcol_gpu_batch_create(sc.ctx, &bd, &batch) == VKCOL_ERROR_INVALID_ARGUMENT && batch == NULL);
	ENSURE_EQ_INT(gpu_log_expected, 0);
	gpu_log_expected = 0;
	ENSURE(strstr(gpu_last_message, "vertex budget") != NULL);
	query_buffers_destroy(&host_, &q);
	vkcol_context_destroy(sc.ctx);
	ENSURE_EQ_INT(host_.messages, 0);
}

static void test_record_errors(void)
{
	scene sc;
	vkcol_allocator counting = {counting_alloc, counting_free, NULL};
	if (!host_ok_ || !scene_create(&sc, &host_, &counting))
		return;
	const uint32_t n = 64;
	query_buffers q;
	ENSURE(query_buffers_create(&host_, n, &q));
	random_pairs(&sc, query_pairs(&q), n, 3);
	vkcol_gpu_batch_desc bd = {.mode = VKCOL_MODE_APPROX, .max_pairs = n};
	vkcol_gpu_batch *batch = NULL;
	ENSURE(vkcol_gpu_batch_create(sc.ctx, &bd, &batch) == VKCOL_SUCCESS);
	VkCommandBuffer cmd = vk_host_begin(&host_);
	vkcol_record_desc d = query_desc(batch, &q, n, false);
	int before = allocations_;
	for (int k = 0; k < 3; k++)
		ENSURE(vkcol_batch_record(sc.ctx, cmd, &d) == VKCOL_SUCCESS);
	ENSURE_EQ_INT(allocations_, before);

	const struct {
		vkcol_record_desc desc;
		const char *says;
	} bad[] = {
	    {{.batch = batch, .results = q.results.buffer, .pair_count = 1}, "required"},
	    {{.batch = batch, .pairs = q.pairs.buffer, .results = q.results.buffer, .pair_count = n + 1}, "max_pairs"},
	    {{.batch = (vkcol_gpu_batch *)&q, .pairs = q.pairs.buffer, .results = q.results.buffer}, "not a batch"},
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		gpu_log_expected = 1;
		ENSURE(vkcol_batch_record(sc.ctx, cmd, &bad[k].desc) == VKCOL_ERROR_INVALID_ARGUMENT);
		ENSURE_MSG(strstr(gpu_last_message, bad[k].says) != NULL, "logged: %s", gpu_last_message);
	}
	vkcol_gpu_batch_desc bad_batch[] = {{.mode = VKCOL_MODE_APPROX}, {.mode = (vkcol_mode)7, .max_pairs = 1},
	                                    {.max_pairs = 1, .flags = 1u << 5}};
	for (size_t k = 0; k < sizeof(bad_batch) / sizeof(bad_batch[0]); k++) {
		vkcol_gpu_batch *none = (vkcol_gpu_batch *)&q;
		gpu_log_expected = 1;
		ENSURE(vkcol_gpu_batch_create(sc.ctx, &bad_batch[k], &none) == VKCOL_ERROR_INVALID_ARGUMENT);
		ENSURE(none == NULL);
	}
	// A new mesh: the batch's pool no longer holds the context's meshes.
	vkcol_mesh extra = gpu_cube(sc.ctx, 0.5f, 16, "extra");
	gpu_log_expected = 1;
	ENSURE(vkcol_batch_record(sc.ctx, cmd, &d) == VKCOL_ERROR_OUT_OF_DATE);
	ENSURE_MSG(strstr(gpu_last_message, "created or destroyed") != NULL, "logged: %s", gpu_last_message);
	// The command buffer refers to the old batch's buffers: freed first.
	vkFreeCommandBuffers(host_.device, host_.pool, 1, &cmd);
	vkcol_gpu_batch_destroy(sc.ctx, batch);
	ENSURE(vkcol_gpu_batch_create(sc.ctx, &bd, &batch) == VKCOL_SUCCESS);
	d.batch = batch;
	cmd = vk_host_begin(&host_);
	ENSURE(vkcol_batch_record(sc.ctx, cmd, &d) == VKCOL_SUCCESS);
	ENSURE(vkEndCommandBuffer(cmd) == VK_SUCCESS);
	ENSURE(vk_host_submit(&host_, cmd));
	compare_with_run(&sc, VKCOL_MODE_APPROX, &q, n, n);
	vkFreeCommandBuffers(host_.device, host_.pool, 1, &cmd);
	vkcol_mesh_destroy(sc.ctx, extra);
	query_buffers_destroy(&host_, &q);
	vkcol_context_destroy(sc.ctx);
	ENSURE_EQ_INT(host_.messages, 0);
}

// The header allows a secondary command buffer: the query recorded into
// one, executed from a primary, answers as vkcol_batch_run does, in both
// modes, with validation silent.
static void test_secondary_command_buffer(void)
{
	scene sc;
	if (!host_ok_ || !scene_create(&sc, &host_, NULL))
		return;
	const uint32_t n = 200;
	query_buffers q;
	ENSURE(query_buffers_create(&host_, n, &q));
	random_pairs(&sc, query_pairs(&q), n, 31);
	const vkcol_mode modes[2] = {VKCOL_MODE_APPROX, VKCOL_MODE_EXACT};
	for (int m = 0; m < 2; m++) {
		vkcol_gpu_batch_desc bd = {.mode = modes[m], .max_pairs = n};
		vkcol_gpu_batch *batch = NULL;
		ENSURE(vkcol_gpu_batch_create(sc.ctx, &bd, &batch) == VKCOL_SUCCESS);
		if (!batch)
			continue;
		VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		                                  .commandPool = host_.pool,
		                                  .level = VK_COMMAND_BUFFER_LEVEL_SECONDARY,
		                                  .commandBufferCount = 1};
		VkCommandBuffer secondary = VK_NULL_HANDLE;
		ENSURE(vkAllocateCommandBuffers(host_.device, &ai, &secondary) == VK_SUCCESS);
		VkCommandBufferInheritanceInfo inherit = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO};
		VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		                               .pInheritanceInfo = &inherit};
		ENSURE(vkBeginCommandBuffer(secondary, &bi) == VK_SUCCESS);
		vkcol_record_desc d = query_desc(batch, &q, n, false);
		ENSURE(vkcol_batch_record(sc.ctx, secondary, &d) == VKCOL_SUCCESS);
		ENSURE(vkEndCommandBuffer(secondary) == VK_SUCCESS);
		memset(q.results.mapped, 0xff, q.results.size);
		VkCommandBuffer primary = vk_host_begin(&host_);
		vkCmdExecuteCommands(primary, 1, &secondary);
		ENSURE(vkEndCommandBuffer(primary) == VK_SUCCESS);
		ENSURE(vk_host_submit(&host_, primary));
		compare_with_run(&sc, modes[m], &q, n, n);
		VkCommandBuffer both[2] = {primary, secondary};
		vkFreeCommandBuffers(host_.device, host_.pool, 2, both);
		vkcol_gpu_batch_destroy(sc.ctx, batch);
	}
	query_buffers_destroy(&host_, &q);
	vkcol_context_destroy(sc.ctx);
	ENSURE_EQ_INT(host_.messages, 0);
}

// The Vulkan 1.1 barriers: a device without synchronization2 enabled, both
// modes; a synchronization2 stage bit is refused there.
static void test_vulkan_1_1_barriers(void)
{
	vk_host h;
	vk_host_options o = {.validation = true, .synchronization2 = false, .float64 = true};
	if (!host_ok_)
		return;
	vk_host_destroy(&host_); // one device at a time (volk's globals)
	host_ok_ = false;
	ENSURE(vk_host_create(&h, &o));
	scene sc;
	if (scene_create(&sc, &h, NULL)) {
		const uint32_t n = 128;
		query_buffers q;
		ENSURE(query_buffers_create(&h, n, &q));
		random_pairs(&sc, query_pairs(&q), n, 11);
		const vkcol_mode modes[2] = {VKCOL_MODE_APPROX, VKCOL_MODE_EXACT};
		for (int m = 0; m < 2; m++) {
			vkcol_gpu_batch_desc bd = {.mode = modes[m], .max_pairs = n};
			vkcol_gpu_batch *batch = NULL;
			ENSURE(vkcol_gpu_batch_create(sc.ctx, &bd, &batch) == VKCOL_SUCCESS);
			VkCommandBuffer cmd = vk_host_begin(&h);
			vkcol_record_desc d = query_desc(batch, &q, n, false);
			d.wait_stages = VK_PIPELINE_STAGE_2_COPY_BIT;
			gpu_log_expected = 1;
			ENSURE(vkcol_batch_record(sc.ctx, cmd, &d) == VKCOL_ERROR_INVALID_ARGUMENT);
			d.wait_stages = VK_PIPELINE_STAGE_2_HOST_BIT;
			d.signal_stages = VK_PIPELINE_STAGE_2_HOST_BIT;
			ENSURE(vkcol_batch_record(sc.ctx, cmd, &d) == VKCOL_SUCCESS);
			ENSURE(vkEndCommandBuffer(cmd) == VK_SUCCESS);
			ENSURE(vk_host_submit(&h, cmd));
			compare_with_run(&sc, modes[m], &q, n, n);
			vkFreeCommandBuffers(h.device, h.pool, 1, &cmd);
		}
		query_buffers_destroy(&h, &q);
		vkcol_context_destroy(sc.ctx);
	}
	ENSURE_EQ_INT(h.messages, 0);
	vk_host_destroy(&h);
}

// get_instance_proc_addr of a device without imageCubeArray, or below
// Vulkan 1.1, or without synchronization2: the test's wrapper hides them.
static int hide_;
static void VKAPI_CALL hidden_features(VkPhysicalDevice pd, VkPhysicalDeviceFeatures *f)
{
	vkGetPhysicalDeviceFeatures(pd, f);
	f->imageCubeArray = hide_ == 0 ? VK_FALSE : f->imageCubeArray;
}
static void VKAPI_CALL hidden_features2(VkPhysicalDevice pd, VkPhysicalDeviceFeatures2 *f)
{
	vkGetPhysicalDeviceFeatures2(pd, f);
	for (VkBaseOutStructure *s = (VkBaseOutStructure *)f->pNext; s; s = s->pNext)
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES && hide_ == 2)
			((VkPhysicalDeviceSynchronization2Features *)s)->synchronization2 = VK_FALSE;
}
static void VKAPI_CALL hidden_properties(VkPhysicalDevice pd, VkPhysicalDeviceProperties *p)
{
	vkGetPhysicalDeviceProperties(pd, p);
	p->apiVersion = hide_ == 1 ? VK_API_VERSION_1_0 : p->apiVersion;
}
static PFN_vkVoidFunction VKAPI_CALL hiding_proc_addr(VkInstance instance, const char *name)
{
	if (strcmp(name, "vkGetPhysicalDeviceFeatures") == 0)
		return (PFN_vkVoidFunction)hidden_features;
	if (strcmp(name, "vkGetPhysicalDeviceFeatures2") == 0)
		return (PFN_vkVoidFunction)hidden_features2;
	if (strcmp(name, "vkGetPhysicalDeviceProperties") == 0)
		return (PFN_vkVoidFunction)hidden_properties;
	return vkGetInstanceProcAddr(instance, name);
}

static void test_external_missing_feature(void)
{
	if (!host_ok_)
		return;
	const char *names[3] = {"imageCubeArray", "Vulkan 1.1", "synchronization2"};
	for (hide_ = 0; hide_ < 3; hide_++) {
		vkcol_external_device ext = vk_host_external(&host_);
		ext.get_instance_proc_addr = hiding_proc_addr;
		ext.synchronization2 = true;
		vkcol_context_desc desc = {.external = &ext, .log = gpu_test_log};
		vkcol_context *ctx = (vkcol_context *)&ext;
		gpu_log_expected = 1;
		ENSURE(vkcol_context_create(&desc, &ctx) == VKCOL_ERROR_UNSUPPORTED);
		ENSURE(ctx == NULL);
		ENSURE_MSG(strstr(gpu_last_message, names[hide_]) != NULL, "logged: %s", gpu_last_message);
	}
	// An own-device context cannot record: it has no command buffer of the
	// caller's device.
	vkcol_context *own = gpu_context();
	if (own) {
		vkcol_gpu_batch_desc bd = {.max_pairs = 1};
		vkcol_gpu_batch *batch = NULL;
		gpu_log_expected = 1;
		ENSURE(vkcol_gpu_batch_create(own, &bd, &batch) == VKCOL_ERROR_INVALID_ARGUMENT);
		vkcol_context_destroy(own);
	}
	ENSURE_EQ_INT(host_.messages, 0);
}

int main(int argc, char **argv)
{
	TEST_INIT(argc, argv);
	if (!gpu_probe())
		return 77;
	vk_host_options o = {.validation = true, .synchronization2 = true, .float64 = true};
	host_ok_ = vk_host_create(&host_, &o);
	ENSURE_MSG(host_ok_, "the test's own Vulkan device could not be created");
	if (host_ok_)
		printf("     device: %s, synchronization2 %s, shaderFloat64 %s\n", host_.props.deviceName,
		       host_.synchronization2 ? "on" : "off", host_.float64 ? "on" : "off");
	RUN_TEST(test_external_missing_feature);
	RUN_TEST(test_record_matches_run);
	RUN_TEST(test_resubmit_and_share);
	RUN_TEST(test_record_oriented_boxes);
	RUN_TEST(test_record_fine_tree);
	RUN_TEST(test_undecided);
	RUN_TEST(test_undecided_depth_first);
	RUN_TEST(test_recentred_mesh);
	RUN_TEST(test_record_vertex_budget);
	RUN_TEST(test_record_errors);
	RUN_TEST(test_secondary_command_buffer);
	RUN_TEST(test_vulkan_1_1_barriers); // last: replaces the host
	RUN_TEST(test_no_unexpected_log_messages);
	if (host_ok_)
		vk_host_destroy(&host_);
	return TEST_SUMMARY();
}
