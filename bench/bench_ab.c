// SPDX-License-Identifier: MIT
// Paired A/B of two builds of the library in one process, for changes worth
// a few per cent on this shared, noisy machine: both builds are dlopened
// (RTLD_DEEPBIND: each calls its own code), each with its own context and
// meshes; batches of the same poses alternate between them (A B, B A, ...),
// and the median of the per-batch ratios of CPU time B / A is printed with
// its quartiles (an A/A run gives 1.00 +- 0.02 here). Usage:
//
//   bench_ab LIB_A LIB_B A B [common options] [--rounds R] [--subset S] [--mode M]
//            [--flags F] [--budget N]
//
// LIB_A, LIB_B: paths of two libvkcollide.so builds (distinct files); the
// first of --batch-sizes is the batch (default 20,000 poses here); --subset
// all|colliding|noncolliding keeps the poses build A answers that way
// (noncolliding: also past stage 0); --mode approx|exact (default approx).
#define _GNU_SOURCE
#include "bench_common.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

typedef struct build {
	void *handle;
	vkcol_result (*context_create)(const vkcol_context_desc *, vkcol_context **);
	vkcol_result (*mesh_create)(vkcol_context *, const vkcol_mesh_desc *, vkcol_mesh *);
	vkcol_result (*batch_run)(vkcol_context *, const vkcol_batch_desc *, vkcol_pair_result *);
	vkcol_context *ctx;
	vkcol_pair *pairs;
} build;

typedef struct ab_options {
	int rounds;
	int subset; // 0 all, 1 colliding, 2 non-colliding, 3 by stage (subset_stage)
	vkcol_stage subset_stage;
	vkcol_mode mode;
	uint32_t flags;  // vkcol_batch_flags of every batch
	uint32_t budget; // vkcol_batch_desc.vertex_budget of every batch
	bool stats;      // print each build's counters and pass times of one batch
} ab_options;

static int own_option(void *user, const char *arg, const char *value)
{
	ab_options *ab = user;
	if (!strcmp(arg, "--stats")) {
		ab->stats = true;
		return 1;
	}
	if (!value)
		return 0;
	if (!strcmp(arg, "--rounds")) {
		ab->rounds = atoi(value);
		return ab->rounds >= 3 && ab->rounds <= 1000 ? 2 : 0;
	}
	if (!strcmp(arg, "--subset")) {
		static const struct {
			const char *name;
			vkcol_stage stage;
		} stages[] = {{"bounds", VKCOL_STAGE_BOUNDS},
		              {"cube_map", VKCOL_STAGE_CUBE_MAP},
		              {"tree", VKCOL_STAGE_TREE},
		              {"containment", VKCOL_STAGE_CONTAINMENT}};
		ab->subset = !strcmp(value, "all") ? 0 : !strcmp(value, "colliding") ? 1 : !strcmp(value, "noncolliding") ? 2 : -1;
		for (size_t k = 0; k < sizeof stages / sizeof stages[0]; k++)
			if (!strcmp(value, stages[k].name)) {
				ab->subset = 3;
				ab->subset_stage = stages[k].stage;
			}
		return ab->subset >= 0 ? 2 : 0;
	}
	if (!strcmp(arg, "--flags")) {
		ab->flags = (uint32_t)strtoul(value, NULL, 0);
		return 2;
	}
	if (!strcmp(arg, "--budget")) {
		ab->budget = (uint32_t)strtoul(value, NULL, 0);
		return 2;
	}
	if (!strcmp(arg, "--mode")) {
		ab->mode = !strcmp(value, "approx") ? VKCOL_MODE_APPROX : !strcmp(value, "exact") ? VKCOL_MODE_EXACT : -1;
		return (int)ab->mode >= 0 ? 2 : 0;
	}
	return 0;
}

static const char own_usage[] = "  --rounds R               batches per build (default 40)\n"
                                "  --subset S               all, colliding, noncolliding, or the poses one stage\n"
                                "                           decided (bounds, cube_map, tree, containment), by build A\n"
                                "  --mode M                 approx (default) or exact\n"
                                "  --flags F                vkcol_batch_flags of every batch (1: no early accept)\n"
                                "  --budget N               approx mode's vertex budget (default 0: every vertex)\n"
                                "  --stats                  also print each build's counters and pass times (one batch),\n"
                                "                           and what decided build A's answers\n";

static double cpu_seconds(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return u.ru_utime.tv_sec + 1e-6 * u.ru_utime.tv_usec + u.ru_stime.tv_sec + 1e-6 * u.ru_stime.tv_usec;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void load_build(build *b, const char *path, const bench_pair *p, size_t count)
{
	b->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
	if (!b->handle)
		bench_die("%s", dlerror());
	*(void **)&b->context_create = dlsym(b->handle, "vkcol_context_create");
	*(void **)&b->mesh_create = dlsym(b->handle, "vkcol_mesh_create");
	*(void **)&b->batch_run = dlsym(b->handle, "vkcol_batch_run");
	if (!b->context_create || !b->mesh_create || !b->batch_run)
		bench_die("%s: not a libvkcollide build", path);
	vkcol_context_desc cd = {0};
	if (b->context_create(&cd, &b->ctx) != VKCOL_SUCCESS)
		bench_die("%s: vkcol_context_create failed", path);
	const import_mesh *m[2] = {&p->mesh_a, &p->mesh_b};
	vkcol_mesh h[2];
	for (int k = 0; k < 2; k++) {
		if (k == 1 && p->same_mesh) {
			h[1] = h[0];
			break;
		}
		vkcol_mesh_desc d = {.positions = m[k]->positions, .vertex_count = m[k]->vertex_count,
		                     .indices = m[k]->indices, .triangle_count = m[k]->triangle_count};
		if (b->mesh_create(b->ctx, &d, &h[k]) != VKCOL_SUCCESS)
			bench_die("%s: vkcol_mesh_create failed", path);
	}
	b->pairs = bench_calloc(count, sizeof *b->pairs);
	bench_fill_pairs(b->pairs, p->poses, p->pose_count, count, h[0], h[1]);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench_ab LIB_A LIB_B A B [options]\n%s", own_usage);
		return 2;
	}
	const char *paths[2] = {argv[1], argv[2]};
	argv[2] = argv[0];
	bench_options o;
	bench_options_init(&o, "bench_ab");
	o.batch_sizes[0] = 20000;
	o.batch_size_count = 1;
	ab_options ab = {.rounds = 40, .subset = 0, .mode = VKCOL_MODE_APPROX};
	bench_parse_args(&o, argc - 2, argv + 2, own_option, &ab, own_usage);
	if (!bench_options_finish(&o))
		bench_usage(own_usage);
	bench_pair p;
	bench_pair_load(&o, 0, &p);
	size_t n = o.batch_sizes[0] < p.pose_count ? o.batch_sizes[0] : p.pose_count;
	build b[2];
	for (int k = 0; k < 2; k++)
		load_build(&b[k], paths[k], &p, n);
	vkcol_pair_result *r = bench_calloc(n, sizeof *r);
	// The subset, by build A's answers; the same poses for both builds.
	vkcol_batch_desc d = {.pairs = b[0].pairs, .pair_count = n, .mode = ab.mode, .flags = ab.flags, .vertex_budget = ab.budget};
	if (b[0].batch_run(b[0].ctx, &d, r) != VKCOL_SUCCESS)
		bench_die("%s", "vkcol_batch_run failed");
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		bool keep = ab.subset == 0 || (ab.subset == 1 && r[i].collide) ||
		            (ab.subset == 2 && !r[i].collide && r[i].stage != VKCOL_STAGE_BOUNDS) ||
		            (ab.subset == 3 && r[i].stage == ab.subset_stage);
		if (keep) {
			b[0].pairs[m] = b[0].pairs[i];
			b[1].pairs[m] = b[1].pairs[i];
			m++;
		}
	}
	if (m == 0)
		bench_die("%s", "no pose in the subset");
	if (ab.stats) {
		// What decided build A's answers (over all the poses, before the
		// subset): where the time can go.
		static const char *stages[] = {"none", "bounds", "cube_map", "tree", "containment"};
		size_t by_stage[5][2] = {{0}};
		for (size_t i = 0; i < n; i++)
			if (r[i].stage <= VKCOL_STAGE_CONTAINMENT)
				by_stage[r[i].stage][r[i].collide ? 1 : 0]++;
		printf("A's answers by stage (apart / colliding):");
		for (int k = 0; k < 5; k++)
			if (by_stage[k][0] + by_stage[k][1])
				printf(" %s %zu / %zu", stages[k], by_stage[k][0], by_stage[k][1]);
		printf("\n");
	}
	double *cpu[2], *wall[2], *ratio = bench_calloc((size_t)ab.rounds, sizeof(double));
	// The builds' answers on the subset, compared: a speed change should
	// not change them (approx mode's depths included).
	vkcol_pair_result *answers[2];
	for (int k = 0; k < 2; k++) {
		cpu[k] = bench_calloc((size_t)ab.rounds, sizeof(double));
		wall[k] = bench_calloc((size_t)ab.rounds, sizeof(double));
		vkcol_batch_desc warm = {.pairs = b[k].pairs, .pair_count = m, .mode = ab.mode, .flags = ab.flags, .vertex_budget = ab.budget};
		answers[k] = bench_calloc(m, sizeof(vkcol_pair_result));
		if (b[k].batch_run(b[k].ctx, &warm, answers[k]) != VKCOL_SUCCESS) // compiles, pools, scratch buffers
			bench_die("%s", "vkcol_batch_run failed");
		if (ab.stats) {
			vkcol_batch_stats st;
			warm.stats = &st;
			warm.flags |= VKCOL_BATCH_TIMESTAMPS;
			if (b[k].batch_run(b[k].ctx, &warm, r) != VKCOL_SUCCESS)
				bench_die("%s", "vkcol_batch_run failed");
			printf("%c: per pair %.1f vertex tests, %.1f cube samples, %.3f colliding; device us per pair:", 'A' + k,
			       (double)st.vertex_tests / m, (double)st.cube_samples / m, (double)st.collisions / m);
			for (int s = 0; s < VKCOL_TIMED_STAGE_COUNT; s++)
				printf(" %.3f", 1e6 * st.stage_seconds[s] / m);
			uint64_t items = 0;
			for (uint32_t l = 0; l < st.levels && l < 128; l++)
				items += st.level_items[l];
			printf("\n   per pair %.1f traversal items; accepted early: %.3f witness, %.3f inner balls; %llu pairs "
			       "answered on the CPU\n",
			       (double)items / m, (double)st.witness_accepted / m, (double)st.inner_ball_accepted / m,
			       (unsigned long long)st.cpu_fallbacks);
			printf("   %u levels, items per pair by level:", st.levels);
			for (uint32_t l = 0; l < st.levels && l < 128; l++)
				printf(" %.2f", (double)st.level_items[l] / m);
			printf("\n");
		}
	}
	size_t differ = 0, deeper = 0;
	for (size_t i = 0; i < m; i++) {
		differ += answers[0][i].collide != answers[1][i].collide;
		deeper += answers[0][i].collide && answers[1][i].collide &&
		          answers[0][i].penetration != answers[1][i].penetration;
	}
	printf("answers: %zu of %zu differ between the builds (%zu more with another depth)\n", differ, m, deeper);
	for (int i = 0; i < ab.rounds; i++)
		for (int j = 0; j < 2; j++) {
			int k = (i & 1) ? 1 - j : j;
			vkcol_batch_desc run = {.pairs = b[k].pairs, .pair_count = m, .mode = ab.mode, .flags = ab.flags, .vertex_budget = ab.budget};
			double c0 = cpu_seconds(), w0 = bench_now();
			if (b[k].batch_run(b[k].ctx, &run, r) != VKCOL_SUCCESS)
				bench_die("%s", "vkcol_batch_run failed");
			cpu[k][i] = cpu_seconds() - c0;
			wall[k][i] = bench_now() - w0;
		}
	for (int i = 0; i < ab.rounds; i++)
		ratio[i] = cpu[1][i] / cpu[0][i];
	qsort(ratio, (size_t)ab.rounds, sizeof(double), compare_doubles);
	// Cores busy: a batch's CPU time over its wall time, the median of the
	// rounds (the wall time is what a rate over peers on all cores sees).
	double *busy[2];
	for (int k = 0; k < 2; k++) {
		busy[k] = bench_calloc((size_t)ab.rounds, sizeof(double));
		for (int i = 0; i < ab.rounds; i++)
			busy[k][i] = cpu[k][i] / wall[k][i];
		qsort(busy[k], (size_t)ab.rounds, sizeof(double), compare_doubles);
		qsort(cpu[k], (size_t)ab.rounds, sizeof(double), compare_doubles);
		qsort(wall[k], (size_t)ab.rounds, sizeof(double), compare_doubles);
	}
	printf("%zu poses, %d rounds: wall us per pair, median A %.3f B %.3f; cores busy A %.2f B %.2f\n", m, ab.rounds,
	       1e6 * wall[0][ab.rounds / 2] / m, 1e6 * wall[1][ab.rounds / 2] / m, busy[0][ab.rounds / 2], busy[1][ab.rounds / 2]);
	printf("%zu poses, %d rounds: CPU us per pair, median A %.3f B %.3f; B / A paired: median %.3f, quartiles %.3f "
	       "%.3f\n",
	       m, ab.rounds, 1e6 * cpu[0][ab.rounds / 2] / m, 1e6 * cpu[1][ab.rounds / 2] / m, ratio[ab.rounds / 2],
	       ratio[ab.rounds / 4], ratio[3 * ab.rounds / 4]);
	return 0;
}
