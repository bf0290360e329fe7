// SPDX-License-Identifier: MIT
// `vkcollide bench`: the standard benchmark suite on one device, with FCL
// and Bullet on the same poses when their peer programs are installed, in a
// bounded time, written as a JSON report (schema in BENCHMARKS.md), SVG
// plots and a Markdown summary (bench_report.py, python3 with matplotlib).
// `--compare` sets two reports side by side (bench_compare.c).
//
// The suite is a list of cases, each a mesh pair and a pose set of fixed
// seed; each case runs one or both modes at one or more batch sizes and
// cube resolutions, then the peers on the same poses (written to a file
// they read). Every speed is measured `repeat` times (the figures keep the
// spread), then `timed_repeat` more times with VKCOL_BATCH_TIMESTAMPS for
// the device time of each stage, which therefore comes from runs apart from
// the throughput's.
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_case.h"
#include "devices.h"
#include "bench_version.h"

static int cmd_bench(const command *cmd, int argc, char **argv);

static const char *const bench_help[] = {
	"Runs the standard benchmark suite on one Vulkan device and writes a\n"
	"report into DIR (default ./bench-report): report.json (BENCHMARKS.md\n"
	"documents its schema), summary.md and SVG plots. The workloads have fixed\n"
	"seeds: procedural meshes and models of Debian's assimp-testmodels, from\n"
	"300 to 250,000 triangles; random poses at 10, 50 and 90 % colliding and\n"
	"poses at the edge of contact; batches of 10^3 to 10^6 pairs; cube maps of\n"
	"16 to 256 texels; a mesh moved along a path through another. Both modes;\n"
	"the device time of each stage from timestamp queries; FCL and Bullet on\n"
	"the same poses, one thread and one per core, when their peer programs are\n"
	"installed (else the suite runs without them).\n"
	"\n"
	"Time: --quick about a minute, the default under 10 minutes on a 2-core\n"
	"machine with lavapipe; far less on a GPU.\n"
	"\n"
	"Options:\n"
	"  --out DIR           the report's folder (created; files in it replaced)\n"
	"  --device I|NAME     the device (as VKCOLLIDE_DEVICE; see 'vkcollide devices')\n"
	"  --quick             the short suite: fewer cases, poses and repeats\n"
	"  --smoke             the smallest suite (seconds): checks that everything\n"
	"                      runs; its figures mean little\n"
	"  --only GROUPS       only these groups, comma-separated: device, batch_size,\n"
	"                      triangles, collide_fraction, resolution, motion\n"
	"  --threads N         the peers' threads for 'all cores' (default: every core)\n"
	"  --no-peers          leave FCL and Bullet out\n"
	"  --models DIR        assimp-testmodels' models folder\n"
	"                      (default /usr/share/assimp/models)\n"
	"  --repeat N          speed measurements per figure (default 3; --quick 2)\n"
	"  --warmup SECONDS    full batches before each measurement, so that a GPU's\n"
	"                      clocks are up: at least this long, and on until their\n"
	"                      rate settles (default 0.5 on a GPU, --quick 0.25,\n"
	"                      --smoke 0.05; 0 on a CPU device such as lavapipe)\n"
	"  --keep-work         keep DIR/work (meshes and pose files the peers read)\n"
	"  --quiet             no progress lines\n",
	"Other forms:\n"
	"  vkcollide bench --compare A.json B.json [--json]\n"
	"      every figure of two reports side by side: A, B, B/A, and whether the\n"
	"      change lies beyond the reports' own spread (their ranges over the\n"
	"      repeats do not overlap); --json prints the rows as JSON\n"
	"  vkcollide bench --summarize REPORT.json [--out DIR]\n"
	"      the plots and summary.md of a report again (default: its folder)\n"
	"  vkcollide bench --list [--quick|--smoke] [--only GROUPS]\n"
	"      the suite's cases, one a line: id, mesh A, mesh B, poses, batch sizes\n"
	"      (models:PATH is a file of --models DIR), without running anything\n"
	"\n"
	"Exit status: 0 done, 1 device failure, 2 bad usage.\n",
	NULL,
};

const command bench_command = {
	"bench",
	"[--out DIR] [--device I|NAME] [--quick] [OPTIONS] | --compare A.json B.json | --summarize REPORT.json | --list",
	"run the benchmark suite and write a report (JSON, plots, summary)",
	bench_help,
	cmd_bench,
};

// ---------------------------------------------------------------------------
// The suite

// Sized for the time the command promises on a 2-core machine with lavapipe
// shared with other work (the quick suite about a minute, the default under
// ten); on a GPU the device's part shrinks and the peers' remains. A GPU
// idle while the peers ran lowers its clocks: each measurement there first
// runs its full batch for at least gpu_warmup_seconds, until its rate
// settles (bench_case.c, warm_up; a CPU device has no such state, and a
// full batch on lavapipe costs seconds).
static const settings smoke_settings = {"smoke", 1, 1, 2.0, 200, 20, 1, 1, 0.01, 0.05};
static const settings quick_settings = {"quick", 2, 1, 4.0, 2000, 100, 2, 3, 0.05, 0.25};
static const settings default_settings = {"default", 3, 2, 6.0, 10000, 200, 3, 5, 0.05, 0.5};

typedef struct suite {
	case_spec cases[MAX_CASES];
	int count;
} suite;

static void add_case(suite *s, case_spec c)
{
	if (s->count < MAX_CASES)
		s->cases[s->count++] = c;
}

// The models of assimp-testmodels the suite reads (all in Debian's package).
#define SPIDER "models:STL/Spider_binary.stl"
#define DUCK "models:Collada/duck.dae"
#define WUSON "models:STL/Wuson.stl"
#define SUZANNE "models:BLEND/SuzanneSubdiv_252.blend"
#define ENGINE "models:glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb"
#define HUMAN "models:BLEND/HUMAN.blend"
#define SPHERE_WITH_LIGHT "models:AC/SphereWithLight.ac"
#define YXA "models:BLEND/yxa_1.blend"

// The standard suite at each size. Sources: "bench:FILE" is a file of
// bench/meshes (installed with the tool), "models:PATH" one of
// assimp-testmodels, "torus:UxV" a torus of 2 U V triangles written into
// the work folder, "mover" a torus of 1,920 triangles a tenth of mesh A's
// size.
static void build_suite(suite *s, const settings *set)
{
	const bool quick = !strcmp(set->name, "quick"), smoke = !strcmp(set->name, "smoke");
	const uint32_t both = MODE_EXACT | MODE_APPROX;
	// Throughput against batch size: two tori of 960 vertices (the size of
	// the approx-mode target), half the poses colliding.
	case_spec batch = {"batch_size", "torus-torus", "torus:48x20", "torus:48x20", "random", 0.5, 101,
	                   1000000, {1000, 10000, 100000, 1000000}, both, {0}, 1, true, {0}, false};
	if (quick) {
		batch.count = 100000;
		batch.batches[3] = 0;
	}
	if (smoke) {
		batch.count = 1000;
		batch.batches[0] = 100;
		batch.batches[1] = 1000;
		batch.batches[2] = 0;
	}
	add_case(s, batch);

	// Throughput against triangle count: tori of 300 to 250,000 triangles
	// (the quick suite stops at 10,000).
	static const char *const tori[] = {"torus:15x10", "torus:48x20", "torus:100x50", "torus:200x100",
	                                   "torus:500x250"};
	static const char *const names[] = {"torus300", "torus1920", "torus10k", "torus40k", "torus250k"};
	static const bool in_default[] = {true, true, true, false, true};
	int n_tori = smoke ? 2 : quick ? 3 : 5;
	for (int i = 0; i < n_tori; i++) {
		if (!smoke && !quick && !in_default[i])
			continue;
		case_spec t = {"triangles", names[i], tori[i], tori[i], "random", 0.5, 201 + (uint64_t)i,
		               smoke ? 1000 : quick ? 10000 : 100000, {0}, both, {0}, smoke || quick ? 1 : 2, true, {0}, false};
		add_case(s, t);
	}

	// Colliding fractions and near contact, on convex, containing, thin,
	// real and large pairs: the three fractions for some, half colliding
	// for the others.
	// Seeds: the pair's, plus 0, 1, 2 for the fractions and 9 near contact.
	static const struct {
		const char *pair, *a, *b;
		bool quick, fractions, budgets, real;
		uint64_t seed;
	} pairs[] = {
	    {"sphere-sphere", "bench:sphere.obj", "bench:sphere.obj", true, true, false, false, 310},
	    {"shell-star", "bench:shell.obj", "bench:star.obj", false, false, false, false, 320},
	    {"spider-spider", SPIDER, SPIDER, true, true, false, true, 330},
	    {"duck-duck", DUCK, DUCK, false, true, false, true, 340},
	    {"suzanne-wuson", SUZANNE, WUSON, false, false, true, true, 350},
	    // The rest of issue 29's real pairs (bench/real_pairs.txt): open
	    // against closed, a small closed body often wholly inside a large
	    // one, and large open meshes against small and large.
	    {"wuson-duck", WUSON, DUCK, false, false, false, true, 360},
	    {"human-spherewithlight", HUMAN, SPHERE_WITH_LIGHT, false, false, true, true, 370},
	    {"engine-spider", ENGINE, SPIDER, false, false, true, true, 380},
	    {"suzanne-yxa", SUZANNE, YXA, false, false, true, true, 390},
	};
	static const double targets[] = {0.1, 0.5, 0.9};
	static const uint32_t budgets[MAX_RESOLUTIONS] = {16384, 4096, 1024, 256};
	for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++) {
		if ((quick && !pairs[p].quick) || (smoke && p > 0))
			continue;
		uint64_t count = smoke ? 500 : quick ? 2000 : 20000;
		for (int t = 0; t < 3; t++) {
			if ((smoke || !pairs[p].fractions) && t != 1)
				continue;
			case_spec c = {"collide_fraction", pairs[p].pair, pairs[p].a, pairs[p].b, "random", targets[t],
			               pairs[p].seed + (uint64_t)t, count, {0}, both, {0}, 1, true, {0},
			               // (the smoke suite's sphere pair too, so that its test sees such runs)
			               smoke || pairs[p].real};
			// Approx mode's vertex budgets on the large meshes, and on
			// the closed pair whose every vertex falls behind FCL.
			if (pairs[p].budgets)
				memcpy(c.budgets, budgets, sizeof(budgets));
			add_case(s, c);
		}
		// As many poses as at random poses: a batch of 2,000 carries
		// lavapipe's fixed cost of a call (about 3.5 ms, 1.7 us a pair),
		// which the marginal rate issue 29 asks for leaves out.
		case_spec near = {"collide_fraction", pairs[p].pair, pairs[p].a, pairs[p].b, "near", 0.5,
		                  pairs[p].seed + 9, smoke ? 200 : quick ? 1000 : count, {0}, both, {0}, 1, true, {0},
		                  pairs[p].real && !smoke};
		if (pairs[p].budgets && !smoke)
			memcpy(near.budgets, budgets, sizeof(budgets));
		add_case(s, near);
	}

	// Approx mode's disagreement with exact mode by cube resolution.
	static const struct {
		const char *pair, *a;
	} res_pairs[] = {{"torus-torus", "torus:48x20"}, {"star-star", "bench:star.obj"}, {"spider-spider", SPIDER},
	                 {"duck-duck", DUCK}};
	int n_res = smoke || quick ? 1 : 4;
	for (int p = 0; p < n_res; p++) {
		case_spec r = {"resolution", res_pairs[p].pair, res_pairs[p].a, res_pairs[p].a, "random", 0.5,
		               401 + (uint64_t)p, smoke ? 500 : quick ? 4000 : 20000, {0}, both,
		               {64, 16, 32, 128, 256}, 1, false, {0}, false};
		if (smoke || quick) {
			r.resolutions[2] = 256;
			r.resolutions[3] = 0;
		}
		add_case(s, r);
	}

	// A mesh moved along a path through a static scene: the engine of
	// assimp-testmodels (121,496 triangles, open, 11,160 of them
	// degenerate); the duck (4,212) in the quick suite, a torus in the
	// smoke suite.
	case_spec motion = {"motion", smoke ? "torus-mover" : quick ? "duck-mover" : "engine-mover",
	                    smoke ? "torus:48x20" : quick ? DUCK : ENGINE, "mover", "motion", 0, 501,
	                    smoke ? 1000 : quick ? 5000 : 20000, {0}, both, {0}, 1, true, {0}, false};
	add_case(s, motion);
}

static bool group_wanted(const char *only, const char *group)
{
	if (!only)
		return true;
	size_t n = strlen(group);
	for (const char *p = only; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == n && !strncmp(p, group, n))
			return true;
		p += len + (end != NULL);
	}
	return false;
}

// The suite's cases, one a line (--list): what a run would do, and which
// files of assimp-testmodels it reads (scripts/gpu-bundle.sh copies them).
static int list_suite(const settings *set, const char *only)
{
	suite s = {0};
	build_suite(&s, set);
	for (int i = 0; i < s.count; i++) {
		const case_spec *c = &s.cases[i];
		if (!group_wanted(only, c->group))
			continue;
		char id[192];
		bench_case_id(c, id, sizeof id);
		printf("%s %s %s %" PRIu64 " %s", id, c->a, c->b, c->count, c->poses);
		for (int k = 0; k < MAX_BATCHES && c->batches[k]; k++)
			printf("%s%" PRIu64, k ? "," : " batches ", c->batches[k]);
		printf("\n");
	}
	return ferror(stdout) ? EXIT_RUNTIME : 0;
}

// ---------------------------------------------------------------------------
// Where things are


bool bench_pathf(char *out, size_t size, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	int n = vsnprintf(out, size, fmt, args);
	va_end(args);
	return n >= 0 && (size_t)n < size;
}

bool bench_is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool bench_is_executable(const char *path)
{
	return bench_is_file(path) && access(path, X_OK) == 0;
}

// The folder of this executable.
static void exe_dir(char *out, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", out, size - 1);
	out[n > 0 ? n : 0] = '\0';
	char *slash = strrchr(out, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(out, size, ".");
}

// The first of `candidates` (folders; NULL ends them) holding `name`,
// into out with the name; false when none does.
static bool find_in(const char *const *candidates, const char *name, bool executable, char *out, size_t size)
{
	for (int i = 0; candidates[i]; i++) {
		if (!*candidates[i])
			continue;
		snprintf(out, size, "%s/%s", candidates[i], name);
		if (executable ? bench_is_executable(out) : bench_is_file(out))
			return true;
	}
	out[0] = '\0';
	return false;
}

// Helpers (device_rates, fcl_peer, bullet_peer) and data (meshes/,
// bench_report.py): $VKCOLLIDE_BENCH_LIBEXEC and $VKCOLLIDE_BENCH_DATA
// first; then beside this executable as installed (../libexec/vkcollide,
// ../share/vkcollide: a copied prefix such as the GPU bundle works too);
// then the build tree (../bench) and its sources; then the install prefix.
static void locate(bench *b)
{
	char exe[PATH_MAX], libexec_rel[PATH_MAX], data_rel[PATH_MAX], build_rel[PATH_MAX];
	exe_dir(exe, sizeof exe);
	bench_pathf(libexec_rel, sizeof libexec_rel, "%s/../libexec/vkcollide", exe);
	bench_pathf(data_rel, sizeof data_rel, "%s/../share/vkcollide", exe);
	bench_pathf(build_rel, sizeof build_rel, "%s/../bench", exe);
	const char *env_libexec = getenv("VKCOLLIDE_BENCH_LIBEXEC"), *env_data = getenv("VKCOLLIDE_BENCH_DATA");
	const char *libexec[] = {env_libexec ? env_libexec : "", libexec_rel, build_rel, VKCOL_BENCH_LIBEXEC_DIR, NULL};
	const char *data[] = {env_data ? env_data : "", data_rel, VKCOL_BENCH_SOURCE_DIR, VKCOL_BENCH_DATA_DIR, NULL};
	find_in(libexec, "device_rates", true, b->rates, sizeof b->rates);
	find_in(libexec, "fcl_peer", true, b->fcl, sizeof b->fcl);
	find_in(libexec, "bullet_peer", true, b->bullet, sizeof b->bullet);
	char script[PATH_MAX];
	if (find_in(data, "bench_report.py", false, script, sizeof script)) {
		char *slash = strrchr(script, '/');
		*slash = '\0';
		snprintf(b->data_dir, sizeof b->data_dir, "%s", script);
	}
}

void bench_progress(bench *b, const char *fmt, ...)
{
	if (b->quiet)
		return;
	va_list args;
	va_start(args, fmt);
	fprintf(stderr, "vkcollide: bench [%3.0fs] ", now_seconds() - b->start);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	va_end(args);
}

int bench_run_program(char *const argv[], const char *log_path)
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		FILE *log = freopen(log_path, "a", stdout);
		if (log)
			dup2(fileno(stdout), 2);
		execv(argv[0], argv);
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// ---------------------------------------------------------------------------
// The report

static void device_rates(bench *b, json_object *report)
{
	json_object *d = json_object_new_object();
	json_object_object_add(report, "device_rates", d);
	b->raw_sampling = b->bandwidth = NAN;
	if (!*b->rates) {
		json_object_object_add(d, "skipped", json_object_new_string("device_rates not found"));
		return;
	}
	bench_progress(b, "device rates (raw cube sampling, memory bandwidth)");
	char out[PATH_MAX + 32], log[PATH_MAX + 32], repeat[16], seconds[32];
	snprintf(out, sizeof out, "%s/device_rates.json", b->work_dir);
	snprintf(log, sizeof log, "%s/device_rates.log", b->work_dir);
	snprintf(repeat, sizeof repeat, "%d", b->set.device_repeat);
	snprintf(seconds, sizeof seconds, "%g", b->set.device_min_seconds);
	char *argv[12] = {b->rates, "--repeat", repeat, "--min-seconds", seconds, "--out", out};
	int argc = 7;
	if (b->device) {
		argv[argc++] = "--device";
		argv[argc++] = (char *)b->device;
	}
	argv[argc] = NULL;
	int rc = bench_run_program(argv, log);
	json_object *r = bench_read_json(out);
	if (rc != 0 || !r) {
		json_object_object_add(d, "skipped", json_object_new_string("device_rates failed (work/device_rates.log)"));
		json_object_put(r);
		return;
	}
	// Each figure made again from device_rates' samples, so that it has
	// the same members as every other figure of the report.
	json_object *f = json_object_new_object(), *v, *samples;
	const char *figures[] = {"raw_samples_per_second", "bandwidth_bytes_per_second"};
	const char *units[] = {"samples/s", "bytes/s"};
	for (int i = 0; i < 2; i++) {
		if (!json_object_object_get_ex(r, figures[i], &v) || !json_object_object_get_ex(v, "samples", &samples) ||
		    !json_object_is_type(samples, json_type_array))
			continue;
		double values[MAX_REPEAT];
		int n = 0;
		for (size_t k = 0; k < json_object_array_length(samples) && n < MAX_REPEAT; k++)
			values[n++] = json_object_get_double(json_object_array_get_idx(samples, k));
		bench_add(f, figures[i], bench_figure(units[i], "higher", values, n));
	}
	const char *keys[] = {"sampling_resolution", "sampling_timed_by", "bandwidth_buffer_bytes", "bandwidth_timed_by"};
	for (int i = 0; i < 4; i++)
		if (json_object_object_get_ex(r, keys[i], &v))
			json_object_object_add(d, keys[i], json_object_get(v));
	json_object_object_add(d, "figures", f);
	json_object *fig;
	if (json_object_object_get_ex(f, "raw_samples_per_second", &fig))
		b->raw_sampling = bench_figure_median(fig);
	if (json_object_object_get_ex(f, "bandwidth_bytes_per_second", &fig))
		b->bandwidth = bench_figure_median(fig);
	json_object_put(r);
}

// The first line of a file that starts with `key`, after the key and
// separators; "" when none.
static void file_value(const char *path, const char *key, char *out, size_t size)
{
	out[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char line[512];
	size_t n = strlen(key);
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, key, n) != 0)
			continue;
		char *v = line + n;
		v += strspn(v, " \t:=\"");
		v[strcspn(v, "\"\n")] = '\0';
		snprintf(out, size, "%s", v);
		break;
	}
	fclose(f);
}

// The 1-minute load average (/proc/loadavg), NaN when unknown.
static double load_average(void)
{
	double v = NAN;
	FILE *f = fopen("/proc/loadavg", "r");
	if (f) {
		if (fscanf(f, "%lf", &v) != 1)
			v = NAN;
		fclose(f);
	}
	return v;
}

static json_object *machine_json(unsigned threads)
{
	json_object *m = json_object_new_object();
	char text[256];
	file_value("/proc/cpuinfo", "model name", text, sizeof text);
	json_object_object_add(m, "cpu", json_object_new_string(text));
	bench_add(m, "cores", bench_number((double)sysconf(_SC_NPROCESSORS_ONLN)));
	bench_add(m, "peer_threads", bench_number(threads));
	file_value("/proc/meminfo", "MemTotal", text, sizeof text);
	bench_add(m, "memory_bytes", bench_number(1024.0 * strtod(text, NULL)));
	file_value("/etc/os-release", "PRETTY_NAME", text, sizeof text);
	json_object_object_add(m, "os", json_object_new_string(text));
	struct utsname u;
	if (uname(&u) == 0)
		json_object_object_add(m, "kernel", json_object_new_string(u.release));
	// Other work on the machine slows every figure: the load at the start
	// (the end's is added by run_suite).
	bench_add(m, "load_average_start", bench_number(load_average()));
	return m;
}

static json_object *device_json(const vkcol_device_info *d, bool validation)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "name", json_object_new_string(d->name));
	json_object_object_add(o, "type", json_object_new_string(device_type_key(d->type)));
	json_object_object_add(o, "driver", json_object_new_string(d->driver));
	char api[32];
	snprintf(api, sizeof api, "%u.%u.%u", d->api_version >> 22, (d->api_version >> 12) & 0x3ffu,
	         d->api_version & 0xfffu);
	json_object_object_add(o, "api_version", json_object_new_string(api));
	bench_add(o, "vendor_id", bench_number(d->vendor_id));
	bench_add(o, "device_id", bench_number(d->device_id));
	bench_add(o, "subgroup_size", bench_number(d->subgroup_size));
	bench_add(o, "device_local_bytes", bench_number((double)d->device_local_bytes));
	json_object_object_add(o, "validation", json_object_new_boolean(validation));
	return o;
}

// The run of a case, by ids; NULL when absent.
static json_object *find_run(json_object *cases, const char *case_id_, const char *run_id, const char *list)
{
	for (size_t i = 0; i < json_object_array_length(cases); i++) {
		json_object *c = json_object_array_get_idx(cases, i), *v, *runs;
		if (!json_object_object_get_ex(c, "id", &v) || strcmp(json_object_get_string(v), case_id_) != 0)
			continue;
		if (!json_object_object_get_ex(c, list, &runs))
			return NULL;
		for (size_t k = 0; k < json_object_array_length(runs); k++) {
			json_object *run = json_object_array_get_idx(runs, k);
			if (json_object_object_get_ex(run, "id", &v) && !strcmp(json_object_get_string(v), run_id))
				return run;
		}
	}
	return NULL;
}

static json_object *figure_of(json_object *holder, const char *name)
{
	json_object *f, *v;
	if (holder && json_object_object_get_ex(holder, "figures", &f) && json_object_object_get_ex(f, name, &v))
		return v;
	return NULL;
}

// The targets for a machine with one H100 or H200 and 16 cores,
// stated for every device, met or not; and the headline figures.
static void headline(json_object *report, json_object *cases)
{
	json_object *h = json_object_new_object(), *targets = json_object_new_array();
	json_object_object_add(report, "headline", h);
	json_object_object_add(report, "targets", targets);
	// The largest batch of the batch-size case.
	const char *cid = NULL;
	char exact_id[64] = "", approx_id[64] = "";
	for (size_t i = 0; i < json_object_array_length(cases); i++) {
		json_object *c = json_object_array_get_idx(cases, i), *v, *runs;
		json_object_object_get_ex(c, "group", &v);
		if (strcmp(json_object_get_string(v), "batch_size") != 0 || !json_object_object_get_ex(c, "runs", &runs))
			continue;
		json_object_object_get_ex(c, "id", &v);
		cid = json_object_get_string(v);
		double most = 0;
		for (size_t k = 0; k < json_object_array_length(runs); k++) {
			json_object *run = json_object_array_get_idx(runs, k), *mode, *rid;
			double batch = bench_number_at(run, "batch");
			json_object_object_get_ex(run, "mode", &mode);
			json_object_object_get_ex(run, "id", &rid);
			if (batch >= most) {
				most = batch;
				snprintf(!strcmp(json_object_get_string(mode), "exact") ? exact_id : approx_id, 64, "%s",
				         json_object_get_string(rid));
			}
		}
	}
	json_object *exact = cid ? find_run(cases, cid, exact_id, "runs") : NULL;
	json_object *approx = cid ? find_run(cases, cid, approx_id, "runs") : NULL;
	const struct {
		const char *key;
		json_object *run;
		const char *figure;
	} heads[] = {
	    {"exact_pairs_per_second", exact, "pairs_per_second"},
	    {"exact_over_fcl_all_cores", exact, "ratio_over_fcl-all"},
	    {"exact_over_fcl_1_thread", exact, "ratio_over_fcl-1"},
	    {"exact_over_bullet_all_cores", exact, "ratio_over_bullet-all"},
	    {"approx_pairs_per_second", approx, "pairs_per_second"},
	    {"approx_over_fcl_all_cores", approx, "ratio_over_fcl-all"},
	};
	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		json_object *f = figure_of(heads[i].run, heads[i].figure);
		if (f)
			json_object_object_add(h, heads[i].key, json_object_get(f));
	}
	if (cid) {
		json_object_object_add(h, "case", json_object_new_string(cid));
		json_object_object_add(h, "exact_run", json_object_new_string(exact_id));
		json_object_object_add(h, "approx_run", json_object_new_string(approx_id));
	}
	// The lowest exact / FCL (all cores) ratio over the cases that have one.
	double lowest = INFINITY;
	const char *where = NULL;
	for (size_t i = 0; i < json_object_array_length(cases); i++) {
		json_object *c = json_object_array_get_idx(cases, i), *runs, *v;
		if (!json_object_object_get_ex(c, "runs", &runs))
			continue;
		for (size_t k = 0; k < json_object_array_length(runs); k++) {
			json_object *run = json_object_array_get_idx(runs, k), *mode;
			json_object_object_get_ex(run, "mode", &mode);
			double ratio = bench_figure_median(figure_of(run, "ratio_over_fcl-all"));
			if (!strcmp(json_object_get_string(mode), "exact") && ratio < lowest) {
				lowest = ratio;
				json_object_object_get_ex(c, "id", &v);
				where = json_object_get_string(v);
			}
		}
	}
	if (where) {
		bench_add(h, "lowest_exact_over_fcl_all_cores", bench_number(lowest));
		json_object_object_add(h, "lowest_exact_over_fcl_all_cores_case", json_object_new_string(where));
	}
	const struct {
		const char *name, *key, *unit;
		double threshold;
	} t[] = {
	    {"exact mode >= 100x FCL on all cores (torus pair, largest batch)", "exact_over_fcl_all_cores", "ratio", 100},
	    {"approx mode >= 1e8 pairs/s on meshes of about 1,000 vertices (torus pair, 960 vertices, largest batch)",
	     "approx_pairs_per_second", "pairs/s", 1e8},
	};
	for (size_t i = 0; i < 2; i++) {
		json_object *o = json_object_new_object(), *f;
		json_object_object_add(o, "name", json_object_new_string(t[i].name));
		json_object_object_add(o, "set_for", json_object_new_string("one NVIDIA H100 or H200, 16 CPU cores"));
		bench_add(o, "threshold", bench_number(t[i].threshold));
		double value = json_object_object_get_ex(h, t[i].key, &f) ? bench_figure_median(f) : NAN;
		bench_add(o, "value", bench_number(value));
		json_object_object_add(o, "met", isfinite(value) ? json_object_new_boolean(value >= t[i].threshold) : NULL);
		json_object_array_add(targets, o);
	}
}

// bench_report.py writes summary.md and the plots; python3 with matplotlib
// ($VKCOLLIDE_PYTHON, else python3 on the PATH, else /usr/bin/python3:
// Debian's python3-matplotlib is for the latter).
static int summarize(bench *b, const char *report_path, const char *out_dir)
{
	char script[PATH_MAX + 32];
	snprintf(script, sizeof script, "%s/bench_report.py", b->data_dir);
	if (!*b->data_dir || !bench_is_file(script)) {
		error_line("bench_report.py not found: no plots or summary (the report is %s)", report_path);
		return EXIT_RUNTIME;
	}
	const char *env = getenv("VKCOLLIDE_PYTHON");
	char on_path[PATH_MAX] = "";
	const char *path = getenv("PATH");
	for (const char *p = path ? path : ""; *p && !*on_path;) {
		size_t len = strcspn(p, ":");
		snprintf(on_path, sizeof on_path, "%.*s/python3", (int)len, p);
		if (!bench_is_executable(on_path))
			on_path[0] = '\0';
		p += len + (p[len] == ':');
	}
	const char *candidates[] = {env ? env : "", on_path, "/usr/bin/python3", NULL};
	// A python3 with matplotlib first; any python3 writes the summary alone.
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; candidates[i]; i++) {
			if (!*candidates[i] || !bench_is_executable(candidates[i]))
				continue;
			char *check[] = {(char *)candidates[i], "-c", "import matplotlib", NULL};
			if (pass == 0 && bench_run_program(check, "/dev/null") != 0)
				continue;
			char *argv[] = {(char *)candidates[i], script, (char *)report_path, "--out", (char *)out_dir, NULL};
			char log[PATH_MAX + 32];
			snprintf(log, sizeof log, "%s/summary.log", out_dir);
			remove(log);
			int rc = bench_run_program(argv, log);
			if (rc == 0) {
				remove(log);
				return 0;
			}
			error_line("%s failed (status %d): see %s", script, rc, log);
			return EXIT_RUNTIME;
		}
	}
	error_line("no python3 found: no plots or summary (the report is %s)", report_path);
	return EXIT_RUNTIME;
}

// Writes the report beside path and renames it there: a kill leaves the
// last whole report.
static bool write_report(json_object *report, const char *path)
{
	char tmp[PATH_MAX + 40];
	if (!bench_pathf(tmp, sizeof tmp, "%s.tmp", path))
		return false;
	return json_object_to_file_ext(tmp, report, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE) == 0 &&
	       rename(tmp, path) == 0;
}

static bool make_dir(const char *path)
{
	return mkdir(path, 0777) == 0 || errno == EEXIST;
}

static void remove_tree(const char *path)
{
	char *argv[] = {"/bin/rm", "-rf", (char *)path, NULL};
	bench_run_program(argv, "/dev/null");
}

static int run_suite(bench *b, const char *only)
{
	int status = 0;
	suite s = {0};
	build_suite(&s, &b->set);
	b->total = 0;
	for (int i = 0; i < s.count; i++)
		b->total += group_wanted(only, s.cases[i].group);

	vkcol_context_desc cd = context_desc(&b->log);
	cd.device = b->device;
	// Progress lines carry the report's story; library warnings still show.
	vkcol_result r = vkcol_context_create(&cd, &b->ctx);
	if (r != VKCOL_SUCCESS)
		return report_failure(&b->log, "bench", r);
	vkcol_device_info info;
	vkcol_context_get_device_info(b->ctx, &info);
	if (b->warmup_seconds < 0)
		b->warmup_seconds = info.type == VKCOL_DEVICE_CPU ? 0 : b->set.gpu_warmup_seconds;
	const char *validation = getenv("VKCOLLIDE_VALIDATION");
	bool validating = validation && !strcmp(validation, "1");
	const char *off = b->no_peers ? "left out (--no-peers)" : "not found";
	bench_progress(b, "device: %s (%s)%s; FCL %s, Bullet %s; %u peer threads", info.name, info.driver,
	               validating ? ", validation on: the times mean little" : "", *b->fcl ? "found" : off,
	               *b->bullet ? "found" : off, b->threads);
	// Said once here, whatever --quiet says; each case that needs a model
	// then records itself as skipped, and the suite goes on.
	struct stat st;
	bool have_models = stat(b->models, &st) == 0 && S_ISDIR(st.st_mode);
	if (!have_models)
		error_line("warning: %s: no such folder: the cases on models of assimp-testmodels are skipped (install "
		           "Debian's assimp-testmodels, or name its models folder with --models DIR)",
		           b->models);

	json_object *report = json_object_new_object();
	json_object_object_add(report, "schema", json_object_new_string(BENCH_SCHEMA));
	bench_add(report, "schema_version", bench_number(BENCH_SCHEMA_VERSION));
	char created[32];
	time_t now = time(NULL);
	strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	json_object_object_add(report, "created", json_object_new_string(created));
	json_object_object_add(report, "suite", json_object_new_string(b->set.name));
	if (only)
		json_object_object_add(report, "only", json_object_new_string(only));
	json_object *tool = json_object_new_object();
	char version[32];
	snprintf(version, sizeof version, "%d.%d.%d", VKCOL_VERSION_MAJOR, VKCOL_VERSION_MINOR, VKCOL_VERSION_PATCH);
	json_object_object_add(tool, "version", json_object_new_string(version));
	json_object_object_add(tool, "commit", json_object_new_string(VKCOL_BENCH_COMMIT));
	json_object_object_add(tool, "buildtype", json_object_new_string(VKCOL_BENCH_BUILDTYPE));
	// Where the helper programs and data were found ("" when not).
	json_object *found = json_object_new_object();
	json_object_object_add(found, "device_rates", json_object_new_string(b->rates));
	json_object_object_add(found, "fcl_peer", json_object_new_string(b->fcl));
	json_object_object_add(found, "bullet_peer", json_object_new_string(b->bullet));
	json_object_object_add(found, "data", json_object_new_string(b->data_dir));
	json_object_object_add(tool, "found", found);
	json_object_object_add(report, "tool", tool);
	json_object *set = json_object_new_object();
	bench_add(set, "repeat", bench_number(b->set.repeat));
	bench_add(set, "timed_repeat", bench_number(b->set.timed_repeat));
	bench_add(set, "max_seconds", bench_number(b->set.max_seconds));
	bench_add(set, "warmup_seconds", bench_number(b->warmup_seconds));
	bench_add(set, "peer_poses", bench_number((double)b->set.peer_poses));
	bench_add(set, "bullet_poses", bench_number((double)b->set.bullet_poses));
	bench_add(set, "peer_repeat", bench_number(b->set.peer_repeat));
	json_object_object_add(set, "models", json_object_new_string(b->models));
	json_object_object_add(set, "models_found", json_object_new_boolean(have_models));
	json_object_object_add(report, "settings", set);
	json_object_object_add(report, "machine", machine_json(b->threads));
	json_object_object_add(report, "device", device_json(&info, validating));
	json_object *peers = json_object_new_object();
	json_object_object_add(peers, "fcl", json_object_new_boolean(*b->fcl != '\0'));
	json_object_object_add(peers, "bullet", json_object_new_boolean(*b->bullet != '\0'));
	bench_add(peers, "threads", bench_number(b->threads));
	json_object_object_add(report, "peers", peers);

	b->raw_sampling = b->bandwidth = NAN;
	if (group_wanted(only, "device"))
		device_rates(b, report);
	json_object *cases = json_object_new_array();
	json_object_object_add(report, "cases", cases);
	char path[PATH_MAX + 32];
	bench_pathf(path, sizeof path, "%s/report.json", b->out_dir);
	// The report so far is written after every case, marked incomplete, so
	// that a run cut short (a time limit, a device lost) keeps its figures.
	for (int i = 0; i < s.count && status == 0; i++) {
		if (!group_wanted(only, s.cases[i].group))
			continue;
		status = bench_run_case(b, &s.cases[i], cases);
		char note[96];
		snprintf(note, sizeof note, "running: %d of %d cases done", b->done, b->total);
		json_object_object_add(report, "incomplete", json_object_new_string(note));
		write_report(report, path);
	}
	json_object_object_del(report, "incomplete");
	headline(report, cases);
	// Fill in the peers' versions from the first run of each.
	for (size_t i = 0; i < json_object_array_length(cases); i++) {
		json_object *list, *c = json_object_array_get_idx(cases, i);
		if (!json_object_object_get_ex(c, "peers", &list))
			continue;
		for (size_t k = 0; k < json_object_array_length(list); k++) {
			json_object *p = json_object_array_get_idx(list, k), *name, *ver;
			if (json_object_object_get_ex(p, "peer", &name) && json_object_object_get_ex(p, "version", &ver)) {
				char key[32];
				snprintf(key, sizeof key, "%s_version", json_object_get_string(name));
				if (!json_object_object_get_ex(peers, key, NULL))
					json_object_object_add(peers, key, json_object_get(ver));
			}
		}
	}
	bench_add(report, "validation_messages", bench_number((double)vkcol_context_validation_message_count(b->ctx)));
	bench_add(report, "seconds", bench_number(now_seconds() - b->start));
	json_object *machine;
	if (json_object_object_get_ex(report, "machine", &machine))
		bench_add(machine, "load_average_end", bench_number(load_average()));
	if (status != 0)
		json_object_object_add(report, "incomplete", json_object_new_string("stopped by a device failure"));

	if (!write_report(report, path)) {
		error_line("%s: cannot write the report: %s", path, strerror(errno));
		status = EXIT_RUNTIME;
	}
	json_object_put(report);
	if (status == 0)
		status = check_validation(b->ctx);
	vkcol_context_destroy(b->ctx);
	b->ctx = NULL;
	if (status == 0) {
		bench_progress(b, "report: %s", path);
		if (summarize(b, path, b->out_dir) == 0)
			bench_progress(b, "summary and plots: %s/summary.md", b->out_dir);
	}
	return status;
}

static int cmd_bench(const command *cmd, int argc, char **argv)
{
	bench b = {0};
	b.set = default_settings;
	b.start = now_seconds();
	b.models = "/usr/share/assimp/models";
	const char *out = NULL, *only = NULL, *compare[2] = {NULL, NULL}, *summary = NULL;
	bool peers = true, as_json = false, repeat_given = false, list = false;
	uint32_t threads = 0, repeat = 0;
	double warmup = -1; // --warmup, or -1: the suite's default for the device
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *value = NULL;
		if (is_help_option(arg)) {
			print_command_help(cmd, stdout);
			return 0;
		} else if (is_verbose_option(arg)) {
			b.log.verbose = true;
		} else if (!strcmp(arg, "--quick")) {
			b.set = quick_settings;
		} else if (!strcmp(arg, "--smoke")) {
			b.set = smoke_settings;
		} else if (!strcmp(arg, "--no-peers")) {
			peers = false;
		} else if (!strcmp(arg, "--keep-work")) {
			b.keep_work = true;
		} else if (!strcmp(arg, "--quiet")) {
			b.quiet = true;
		} else if (!strcmp(arg, "--list")) {
			list = true;
		} else if (!strcmp(arg, "--json")) {
			as_json = true;
		} else if (!strcmp(arg, "--compare")) {
			if (i + 2 >= argc)
				return usage_error(cmd, "--compare needs two reports");
			compare[0] = argv[++i];
			compare[1] = argv[++i];
		} else if (match_value_option(argc, argv, &i, "--summarize", &value)) {
			if (!value)
				return usage_error(cmd, "--summarize needs a report");
			summary = value;
		} else if (match_value_option(argc, argv, &i, "--out", &value)) {
			if (!value || !*value)
				return usage_error(cmd, "--out needs a folder");
			out = value;
		} else if (match_value_option(argc, argv, &i, "--device", &value)) {
			if (!value || !*value)
				return usage_error(cmd, "--device needs an index or a name");
			b.device = value;
		} else if (match_value_option(argc, argv, &i, "--only", &value)) {
			if (!value || !*value)
				return usage_error(cmd, "--only needs groups");
			only = value;
		} else if (match_value_option(argc, argv, &i, "--models", &value)) {
			if (!value || !*value)
				return usage_error(cmd, "--models needs a folder");
			b.models = value;
		} else if (match_value_option(argc, argv, &i, "--threads", &value)) {
			if (!value || !parse_u32(value, 1, 1024, &threads))
				return usage_error(cmd, "--threads needs a number from 1 to 1024");
		} else if (match_value_option(argc, argv, &i, "--repeat", &value)) {
			if (!value || !parse_u32(value, 1, MAX_REPEAT, &repeat))
				return usage_error(cmd, "--repeat needs a number from 1 to %d", MAX_REPEAT);
			repeat_given = true;
		} else if (match_value_option(argc, argv, &i, "--warmup", &value)) {
			char *end;
			warmup = value ? strtod(value, &end) : -1;
			if (!value || end == value || *end || !(warmup >= 0 && warmup <= 60))
				return usage_error(cmd, "--warmup needs seconds from 0 to 60, not '%s'", value ? value : "");
		} else {
			return usage_error(cmd, "unknown argument '%s'", arg);
		}
	}
	if (only) {
		static const char *const groups[] = {"device", "batch_size", "triangles", "collide_fraction", "resolution",
		                                     "motion"};
		for (const char *p = only; *p;) {
			size_t len = strcspn(p, ",");
			bool known = false;
			for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
				known |= strlen(groups[g]) == len && !strncmp(p, groups[g], len);
			if (!known)
				return usage_error(cmd, "--only: unknown group '%.*s'", (int)len, p);
			p += len + (p[len] == ',');
		}
	}
	if (compare[0])
		return bench_compare(compare[0], compare[1], as_json);
	if (list)
		return list_suite(&b.set, only);
	locate(&b);
	if (summary) {
		char dir[PATH_MAX];
		snprintf(dir, sizeof dir, "%s", summary);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		else
			snprintf(dir, sizeof dir, ".");
		if (out && !make_dir(out)) {
			error_line("%s: cannot create it: %s", out, strerror(errno));
			return EXIT_RUNTIME;
		}
		return summarize(&b, summary, out ? out : dir);
	}
	b.warmup_seconds = warmup;
	if (repeat_given) {
		b.set.repeat = (int)repeat;
		b.set.peer_repeat = (int)repeat;
	}
	b.threads = threads ? threads : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	if (!peers) {
		b.fcl[0] = b.bullet[0] = '\0';
		b.no_peers = true;
	}
	snprintf(b.out_dir, sizeof b.out_dir, "%s", out ? out : "bench-report");
	bench_pathf(b.work_dir, sizeof b.work_dir, "%s/work", b.out_dir);
	if (!make_dir(b.out_dir) || !make_dir(b.work_dir)) {
		error_line("%s: cannot create it: %s", b.out_dir, strerror(errno));
		return EXIT_RUNTIME;
	}
	int status = run_suite(&b, only);
	if (!b.keep_work && status == 0)
		remove_tree(b.work_dir);
	return status;
}
