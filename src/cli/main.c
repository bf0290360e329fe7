// SPDX-License-Identifier: MIT
// The vkcollide command-line tool. It uses only the public header (plus the
// importer next to it), so it doubles as an example of the API.
//
// Conventions: results on stdout; every diagnostic is one line on stderr
// starting "vkcollide: ". Exit status 0 = success, 1 = runtime failure (no
// device, device error), 2 = bad usage or bad input (unreadable or invalid
// mesh, a bad line in a poses file), 128 + signal = interrupted. To add a subcommand, write a cmd_* function and add a row to
// `commands` below.
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <vkcollide.h>

#include "import.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

// The collide mode used without --mode; the help text follows it.
#define DEFAULT_MODE_NAME "exact"

typedef struct command {
	const char *name;
	const char *synopsis; // after "vkcollide NAME"
	const char *summary;  // one line for the command list
	const char *help;     // description and options for `vkcollide help NAME`
	int (*run)(const struct command *cmd, int argc, char **argv); // argv[0] is the name
} command;

static int cmd_devices(const command *cmd, int argc, char **argv);
static int cmd_mesh_info(const command *cmd, int argc, char **argv);
static int cmd_collide(const command *cmd, int argc, char **argv);
static int cmd_help(const command *cmd, int argc, char **argv);

static const command commands[] = {
	{
		"devices",
		"[--json]",
		"list the Vulkan devices and mark the one vkcollide uses",
		"Lists every Vulkan device with its limits. '*' marks the device vkcollide\n"
		"would use: the one VKCOLLIDE_DEVICE names (an index or a name substring),\n"
		"else the first discrete > integrated > virtual > CPU device.\n"
		"\n"
		"Options:\n"
		"  --json           one JSON object instead of text\n",
		cmd_devices,
	},
	{
		"mesh-info",
		"FILE [--json] [--leaf-size N] [--max-depth N] [--cube-resolution N]",
		"import a mesh and describe it: topology, bounds, volume, AABB tree",
		"Imports FILE (any format Assimp reads: OBJ, STL, PLY, OFF, glTF, ...),\n"
		"merges its sub-meshes in world space, uploads it to the device and prints\n"
		"what the library found: vertex and triangle counts, closed or open, bounds,\n"
		"interior origin, volume, AABB tree shape and device memory.\n"
		"\n"
		"Options:\n"
		"  --json               one JSON object instead of text\n"
		"  --leaf-size N        most triangles per tree leaf, 1..64 (default 4)\n"
		"  --max-depth N        deepest tree level, 1..48 (default 40)\n"
		"  --cube-resolution N  distance cube map edge in texels, a power of two\n"
		"                       in 4..1024 (default 64)\n",
		cmd_mesh_info,
	},
	{
		"collide",
		"A B --poses FILE [--mode approx|exact] [--resolution N] [--mip N]\n"
		"                         [--format csv|jsonl] [--out FILE] [--chunk N] [--verify] [--quiet]",
		"test mesh B, at every pose of a file, against mesh A",
		"Imports the meshes A and B (as mesh-info does) and answers, for every pose\n"
		"in the poses file, whether B placed at that pose intersects A. Closed meshes\n"
		"are solids (one inside the other collides); open meshes are surfaces.\n"
		"Poses are read, answered and written in blocks: memory stays bounded for\n"
		"any file length, and results appear, in input order, as they are computed.\n"
		"\n"
		"Poses file (FILE, or - for standard input): one pose of B in A's frame per\n"
		"line, 7 numbers separated by whitespace or commas:\n"
		"    qw qx qy qz tx ty tz\n"
		"(qw qx qy qz) is a Hamilton quaternion, w first, normalised before use; a\n"
		"point x of B, in B's file coordinates, is placed at R(q) x + t in A's file\n"
		"coordinates (A stays where its file puts it). Blank lines and lines whose\n"
		"first non-blank character is '#' are skipped; a '#' after a pose is not a\n"
		"comment. Example, B turned 90 degrees about z and moved 0.5 along x:\n"
		"    0.70710678 0 0 0.70710678  0.5 0 0\n"
		"A bad line (not 7 numbers, a field that is not a finite number, a zero\n"
		"quaternion, anything after the 7 numbers) ends the run with\n"
		"    vkcollide: FILE:LINE:COLUMN: reason\n"
		"and exit status 2, after every pose before it has been answered and\n"
		"written: fix the line, and rerun from it.\n"
		"\n"
		"Output (standard output, or --out FILE), one row per pose:\n"
		"  csv    index,collide,stage,penetration,triangle_pairs,line\n"
		"         0,1,cube_map,0.12,3\n"
		"  jsonl  {\"index\":0,\"collide\":true,\"stage\":\"cube_map\",\"penetration\":0.12,\"triangle_pairs\":0,\"line\":3}\n"
		"index     counts the poses from 0 (blank and comment lines are not counted)\n"
		"collide   1 or 0 (csv), true or false (jsonl)\n"
		"stage     what decided: bounds (bounding spheres or boxes apart), cube_map (the\n"
		"          distance cube-map vertex test), tree or containment (exact mode)\n"
		"penetration  a lower bound of how deep the meshes overlap, in mesh units:\n"
		"          the overlap of the origins' inner balls, or the depth of the\n"
		"          first vertex found inside the other mesh; 0 if apart\n"
		"triangle_pairs  exact mode: intersecting triangle pairs found (the search\n"
		"          stops early, so a lower bound); 0 in approx mode\n"
		"line      the pose's line number in the poses file, from 1\n"
		"A poses file with no poses gives the csv header alone (jsonl: nothing) and\n"
		"exit status 0.\n"
		"\n"
		"Options:\n"
		"  --poses FILE      the poses (required); - reads standard input\n"
		"  --mode MODE       approx: the cube-map test alone; fast, may disagree with\n"
		"                    exact near contact (measure it with --verify).\n"
		"                    exact: agrees with the exact CPU reference away from the\n"
		"                    float tolerance; reports intersecting triangle pairs.\n"
		"                    Default: " DEFAULT_MODE_NAME "\n"
		"  --resolution N    distance cube map edge of both meshes in texels, a power\n"
		"                    of two in 4..1024 (default 64)\n"
		"  --mip N           cube-map mip level the vertex test samples: resolution\n"
		"                    / 2^N, clamped to the smallest level (default 0)\n"
		"  --format FORMAT   csv (default) or jsonl\n"
		"  --out FILE        write the results to FILE (default standard output)\n"
		"  --chunk N         poses per block read, answered and written, 1..4194304\n"
		"                    (default 262144; about 88 bytes of memory per pose)\n"
		"  --verify          also answer every pose with the exact CPU reference\n"
		"                    (slow) and print on stderr: poses, agreement, false\n"
		"                    positives (collide where the reference says not) and\n"
		"                    false negatives; the exit status is unchanged\n"
		"  -q, --quiet       no progress line (it is shown on stderr only when stderr\n"
		"                    is a terminal)\n"
		"\n"
		"Interrupting (Ctrl-C, SIGTERM) stops after the work under way; the poses\n"
		"answered are written, a line names the last one, and the exit status is\n"
		"128 + the signal. A second Ctrl-C exits at once.\n",
		cmd_collide,
	},
	{
		"help",
		"[COMMAND]",
		"show the help of a command",
		"Shows the list of commands, or the help of COMMAND.\n",
		cmd_help,
	},
};

#define COMMAND_COUNT (sizeof(commands) / sizeof(commands[0]))

static const char *const common_help =
	"Common options:\n"
	"  -v, --verbose    also print the library's informational messages\n"
	"  -h, --help       show this help\n";

static const char *const environment_help =
	"Environment:\n"
	"  VKCOLLIDE_DEVICE=I|NAME  use device I (see 'vkcollide devices') or the first\n"
	"                           whose name contains NAME (case-insensitive)\n"
	"  VKCOLLIDE_VALIDATION=1   enable the Khronos validation layer; any message\n"
	"                           it reports makes the command fail\n";

// ---------------------------------------------------------------------------
// Diagnostics

static void error_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void error_line(const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	fputs("vkcollide: ", stderr);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	va_end(args);
}

// full: also the common options and the environment (for --help; a usage
// error shows the short form).
static void print_usage(FILE *out, bool full)
{
	fputs("usage: vkcollide COMMAND [OPTIONS] [ARGS]\n"
	      "       vkcollide --help | --version | help COMMAND\n"
	      "\n"
	      "Batched collision detection between rigid triangle meshes with Vulkan compute.\n"
	      "\n"
	      "Commands:\n",
	      out);
	for (size_t i = 0; i < COMMAND_COUNT; i++)
		fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
	if (full)
		fprintf(out, "\n%s\n%s", common_help, environment_help);
	else
		fputs("Try 'vkcollide --help'.\n", out);
}

static void print_command_help(const command *cmd, FILE *out)
{
	fprintf(out, "usage: vkcollide %s %s\n\n%s\n%s", cmd->name, cmd->synopsis, cmd->help, common_help);
}

static int usage_error(const command *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Reports a usage error: the reason, the synopsis and where to read more.
static int usage_error(const command *cmd, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	fputs("vkcollide: ", stderr);
	if (cmd)
		fprintf(stderr, "%s: ", cmd->name);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	va_end(args);
	if (cmd) {
		fprintf(stderr, "usage: vkcollide %s %s\nTry 'vkcollide help %s'.\n", cmd->name, cmd->synopsis,
		        cmd->name);
	} else {
		print_usage(stderr, false);
	}
	return EXIT_USAGE;
}

// The progress line on stderr (a terminal), and how to wipe it before any
// other message is printed.
typedef struct progress_line {
	bool enabled;
	double start, last_shown; // seconds
	int width;                // characters on screen; 0 = none shown
} progress_line;

static void progress_clear(progress_line *p)
{
	if (p && p->width) {
		fprintf(stderr, "\r%*s\r", p->width, "");
		p->width = 0;
	}
}

// Library messages. Errors are held back one step: when the call that logged
// them fails, the failure line carries the message, so it appears once, with
// the file it concerns; anything else is printed as it comes.
typedef struct cli_log {
	bool verbose;
	bool has_pending;
	char pending[1024];
	progress_line *progress; // wiped before a message; may be NULL
} cli_log;

static void log_callback(void *user, vkcol_log_level level, const char *message)
{
	cli_log *log = user;
	if (level != VKCOL_LOG_ERROR)
		progress_clear(log->progress);
	if (level == VKCOL_LOG_ERROR) {
		if (log->has_pending)
			error_line("%s", log->pending);
		snprintf(log->pending, sizeof(log->pending), "%s", message);
		log->has_pending = true;
		return;
	}
	if (level == VKCOL_LOG_WARNING)
		error_line("warning: %s", message);
	else if (level == VKCOL_LOG_INFO)
		error_line("%s", message);
	else
		error_line("debug: %s", message);
}

static void discard_log(void *user, vkcol_log_level level, const char *message)
{
	(void)user;
	(void)level;
	(void)message;
}

static void log_flush(cli_log *log)
{
	if (log->has_pending)
		error_line("%s", log->pending);
	log->has_pending = false;
}

static vkcol_context_desc context_desc(cli_log *log)
{
	vkcol_context_desc desc = {0};
	desc.log = log_callback;
	desc.log_user = log;
	desc.log_level = log->verbose ? VKCOL_LOG_INFO : VKCOL_LOG_WARNING;
	return desc;
}

static bool is_bad_input(vkcol_result r)
{
	switch (r) {
	case VKCOL_ERROR_INVALID_ARGUMENT:
	case VKCOL_ERROR_EMPTY_MESH:
	case VKCOL_ERROR_INDEX_OUT_OF_RANGE:
	case VKCOL_ERROR_NON_FINITE_POSITION:
	case VKCOL_ERROR_TOO_LARGE:
		return true;
	default:
		return false;
	}
}

// One line for a failed library call: "vkcollide: SUBJECT: result: detail",
// detail being the error the library logged for it, if any. Returns the exit
// status to use.
static int report_failure(cli_log *log, const char *subject, vkcol_result r)
{
	if (log->has_pending) {
		error_line("%s: %s: %s", subject, vkcol_result_string(r), log->pending);
		log->has_pending = false;
	} else {
		error_line("%s: %s", subject, vkcol_result_string(r));
	}
	return is_bad_input(r) ? EXIT_USAGE : EXIT_RUNTIME;
}

// ---------------------------------------------------------------------------
// Argument helpers

static bool is_help_option(const char *arg)
{
	return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

static bool is_verbose_option(const char *arg)
{
	return strcmp(arg, "-v") == 0 || strcmp(arg, "--verbose") == 0;
}

// Matches "--name VALUE" and "--name=VALUE". Returns false when argv[*i] is
// another option; else sets *value (NULL when VALUE is missing) and advances
// *i past a separate VALUE.
static bool match_value_option(int argc, char **argv, int *i, const char *name, const char **value)
{
	const char *arg = argv[*i];
	size_t n = strlen(name);
	if (strncmp(arg, name, n) != 0)
		return false;
	if (arg[n] == '=') {
		*value = arg + n + 1;
		return true;
	}
	if (arg[n] != '\0')
		return false;
	*value = *i + 1 < argc ? argv[++*i] : NULL;
	return true;
}

static bool parse_u32(const char *text, uint32_t min, uint32_t max, uint32_t *out)
{
	if (!text || !*text || *text == '-' || *text == '+')
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = (uint32_t)v;
	return true;
}

// ---------------------------------------------------------------------------
// Formatting

static void format_bytes(uint64_t bytes, char *out, size_t size)
{
	static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
	double v = (double)bytes;
	int u = 0;
	while (v >= 1024.0 && u < 4) {
		v /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(out, size, "%" PRIu64 " bytes", bytes);
	else
		snprintf(out, size, "%.1f %s", v, units[u]);
}

static const char *device_type_name(vkcol_device_type type)
{
	switch (type) {
	case VKCOL_DEVICE_DISCRETE_GPU:
		return "discrete GPU";
	case VKCOL_DEVICE_INTEGRATED_GPU:
		return "integrated GPU";
	case VKCOL_DEVICE_VIRTUAL_GPU:
		return "virtual GPU";
	case VKCOL_DEVICE_CPU:
		return "CPU";
	default:
		return "other";
	}
}

static const char *device_type_key(vkcol_device_type type)
{
	switch (type) {
	case VKCOL_DEVICE_DISCRETE_GPU:
		return "discrete_gpu";
	case VKCOL_DEVICE_INTEGRATED_GPU:
		return "integrated_gpu";
	case VKCOL_DEVICE_VIRTUAL_GPU:
		return "virtual_gpu";
	case VKCOL_DEVICE_CPU:
		return "cpu";
	default:
		return "other";
	}
}

static void format_api_version(uint32_t v, char *out, size_t size)
{
	snprintf(out, size, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
}

static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

// JSON has no NaN or infinity.
static void json_float(FILE *out, double v, int digits)
{
	if (isfinite(v))
		fprintf(out, "%.*g", digits, v);
	else
		fputs("null", out);
}

static void json_vec3(FILE *out, const float v[3])
{
	fputc('[', out);
	for (int i = 0; i < 3; i++) {
		if (i)
			fputs(", ", out);
		json_float(out, v[i], 9);
	}
	fputc(']', out);
}

static void text_vec3(FILE *out, const float v[3])
{
	fprintf(out, "(%.6g, %.6g, %.6g)", v[0], v[1], v[2]);
}

// ---------------------------------------------------------------------------
// devices

static void print_device_text(FILE *out, const vkcol_device_info *d, bool chosen)
{
	char api[32], heap[32], range[32];
	format_api_version(d->api_version, api, sizeof(api));
	format_bytes(d->device_local_bytes, heap, sizeof(heap));
	format_bytes(d->max_storage_buffer_range, range, sizeof(range));
	fprintf(out, "%c %u: %s\n", chosen ? '*' : ' ', d->index, d->name);
	fprintf(out, "     %-21s %s\n", "type", device_type_name(d->type));
	fprintf(out, "     %-21s %s\n", "API version", api);
	fprintf(out, "     %-21s %s\n", "driver", d->driver[0] ? d->driver : "(unknown)");
	fprintf(out, "     %-21s %s\n", "compute queue", d->has_compute_queue ? "yes" : "no");
	fprintf(out, "     %-21s %u x %u x %u\n", "max workgroup count", d->max_workgroup_count[0],
	        d->max_workgroup_count[1], d->max_workgroup_count[2]);
	fprintf(out, "     %-21s %s (%u bytes)\n", "max storage buffer", range, d->max_storage_buffer_range);
	if (d->subgroup_size)
		fprintf(out, "     %-21s %u\n", "subgroup size", d->subgroup_size);
	else
		fprintf(out, "     %-21s unknown\n", "subgroup size");
	fprintf(out, "     %-21s %s\n", "device-local memory", heap);
}

static void print_device_json(FILE *out, const vkcol_device_info *d, bool chosen)
{
	char api[32];
	format_api_version(d->api_version, api, sizeof(api));
	fprintf(out, "{\"index\": %u, \"name\": ", d->index);
	json_string(out, d->name);
	fprintf(out, ", \"type\": \"%s\", \"vendor_id\": %u, \"device_id\": %u, \"api_version\": \"%s\", \"driver\": ",
	        device_type_key(d->type), d->vendor_id, d->device_id, api);
	json_string(out, d->driver);
	fprintf(out,
	        ", \"compute_queue\": %s, \"max_workgroup_count\": [%u, %u, %u], \"max_storage_buffer_range\": %u"
	        ", \"subgroup_size\": %u, \"device_local_bytes\": %" PRIu64 ", \"chosen\": %s}",
	        d->has_compute_queue ? "true" : "false", d->max_workgroup_count[0], d->max_workgroup_count[1],
	        d->max_workgroup_count[2], d->max_storage_buffer_range, d->subgroup_size, d->device_local_bytes,
	        chosen ? "true" : "false");
}

static int cmd_devices(const command *cmd, int argc, char **argv)
{
	bool json = false;
	cli_log log = {0};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (is_help_option(a)) {
			print_command_help(cmd, stdout);
			return 0;
		} else if (is_verbose_option(a)) {
			log.verbose = true;
		} else if (strcmp(a, "--json") == 0) {
			json = true;
		} else if (a[0] == '-') {
			return usage_error(cmd, "unknown option '%s'", a);
		} else {
			return usage_error(cmd, "unexpected argument '%s'", a);
		}
	}

	// The counting call would log what the listing call logs again: silence it.
	vkcol_context_desc desc = context_desc(&log);
	vkcol_context_desc quiet = desc;
	quiet.log = discard_log;
	quiet.log_level = VKCOL_LOG_ERROR;
	uint32_t count = 0, chosen = UINT32_MAX;
	vkcol_result r = vkcol_enumerate_devices(&quiet, NULL, 0, &count, &chosen);
	if (r != VKCOL_SUCCESS)
		return report_failure(&log, "cannot list Vulkan devices", r);
	vkcol_device_info *infos = count ? calloc(count, sizeof(*infos)) : NULL;
	if (count && !infos) {
		error_line("out of memory listing %u devices", count);
		return EXIT_RUNTIME;
	}
	uint32_t capacity = count;
	r = vkcol_enumerate_devices(&desc, infos, capacity, &count, &chosen);
	if (r != VKCOL_SUCCESS) {
		free(infos);
		return report_failure(&log, "cannot list Vulkan devices", r);
	}
	// A device may appear between the two calls; show those we have room for.
	if (count > capacity)
		count = capacity;

	const char *forced = getenv("VKCOLLIDE_DEVICE");
	if (forced && !*forced)
		forced = NULL;
	if (json) {
		printf("{\"devices\": [");
		for (uint32_t i = 0; i < count; i++) {
			fputs(i ? ",\n  " : "\n  ", stdout);
			print_device_json(stdout, &infos[i], infos[i].index == chosen);
		}
		printf("%s], \"chosen\": ", count ? "\n" : "");
		if (chosen == UINT32_MAX)
			printf("null");
		else
			printf("%u", chosen);
		printf(", \"VKCOLLIDE_DEVICE\": ");
		if (forced)
			json_string(stdout, forced);
		else
			printf("null");
		printf("}\n");
	} else {
		for (uint32_t i = 0; i < count; i++) {
			if (i)
				putchar('\n');
			print_device_text(stdout, &infos[i], infos[i].index == chosen);
		}
		if (count == 0)
			printf("no Vulkan devices\n");
		else if (chosen != UINT32_MAX && forced)
			printf("\n* = the device vkcollide uses (VKCOLLIDE_DEVICE=%s)\n", forced);
		else if (chosen != UINT32_MAX)
			printf("\n* = the device vkcollide uses (first discrete > integrated > virtual > CPU;"
			       " set VKCOLLIDE_DEVICE to choose)\n");
	}
	free(infos);

	// Listing worked, but every other command would fail: say why (the
	// library's message when it logged one), and fail.
	if (chosen == UINT32_MAX) {
		if (log.has_pending)
			log_flush(&log);
		else if (forced)
			error_line("VKCOLLIDE_DEVICE=%s matches no device with a compute queue", forced);
		else
			error_line("no Vulkan device with a compute queue");
		return EXIT_RUNTIME;
	}
	log_flush(&log);
	return 0;
}

// ---------------------------------------------------------------------------
// mesh-info

typedef struct mesh_report {
	const char *file;
	uint32_t submesh_count;
	const vkcol_mesh_info *info;
	const char *device_name;
} mesh_report;

static void print_mesh_text(FILE *out, const mesh_report *m)
{
	const vkcol_mesh_info *in = m->info;
	char bytes[32];
	const int w = 18;
	fprintf(out, "%-*s %s\n", w, "file", m->file);
	fprintf(out, "%-*s %u\n", w, "sub-meshes", m->submesh_count);
	fprintf(out, "%-*s %u imported, %u unique\n", w, "vertices", in->vertex_count, in->unique_vertex_count);
	fprintf(out, "%-*s %u (%u degenerate)\n", w, "triangles", in->triangle_count, in->degenerate_count);
	fprintf(out, "%-*s %s (%u boundary edges, %u non-manifold edges)\n", w, "surface",
	        in->closed ? "closed, a solid" : "open, a surface", in->boundary_edge_count,
	        in->nonmanifold_edge_count);
	fprintf(out, "%-*s ", w, "aabb min");
	text_vec3(out, in->aabb_min);
	fprintf(out, "\n%-*s ", w, "aabb max");
	text_vec3(out, in->aabb_max);
	float size[3] = {in->aabb_max[0] - in->aabb_min[0], in->aabb_max[1] - in->aabb_min[1],
	                 in->aabb_max[2] - in->aabb_min[2]};
	fprintf(out, "\n%-*s ", w, "aabb size");
	text_vec3(out, size);
	fprintf(out, "\n%-*s centre ", w, "bounding sphere");
	text_vec3(out, in->sphere_center);
	fprintf(out, ", radius %.6g\n", in->sphere_radius);
	fprintf(out, "%-*s ", w, "origin");
	text_vec3(out, in->origin);
	fprintf(out, "%s\n", in->origin_inside ? ", inside" : in->closed ? ", not strictly inside" : " (open mesh: no inside)");
	if (in->closed)
		fprintf(out, "%-*s %.9g\n", w, "volume", in->volume);
	else
		fprintf(out, "%-*s none (open mesh)\n", w, "volume");
	fprintf(out, "%-*s depth %u, %u nodes, %u leaves\n", w, "aabb tree", in->tree_depth, in->tree_node_count,
	        in->tree_leaf_count);
	fprintf(out, "%-*s min %u, mean %.2f, max %u triangles\n", w, "leaf size", in->tree_leaf_min,
	        in->tree_leaf_mean, in->tree_leaf_max);
	fprintf(out, "%-*s %u x %u texels per face\n", w, "cube map", in->cube_resolution, in->cube_resolution);
	// R != G: the ray from the origin meets the surface at two distances, so
	// the origin does not see the whole surface and approx mode overestimates.
	if (in->star_shaped)
		fprintf(out, "%-*s yes: every ray from the origin meets the surface once\n", w, "star-shaped");
	else
		fprintf(out, "%-*s no: %.2f%% of level-0 texels see the surface at several distances\n", w, "star-shaped",
		        100.0 * in->cube_multi_hit_fraction);
	format_bytes(in->device_bytes, bytes, sizeof(bytes));
	fprintf(out, "%-*s %s (%" PRIu64 " bytes) on %s\n", w, "device memory", bytes, in->device_bytes,
	        m->device_name);
}

static void print_mesh_json(FILE *out, const mesh_report *m)
{
	const vkcol_mesh_info *in = m->info;
	fputs("{\"file\": ", out);
	json_string(out, m->file);
	fprintf(out, ", \"submesh_count\": %u, \"vertex_count\": %u, \"unique_vertex_count\": %u", m->submesh_count,
	        in->vertex_count, in->unique_vertex_count);
	fprintf(out, ", \"triangle_count\": %u, \"degenerate_count\": %u", in->triangle_count, in->degenerate_count);
	fprintf(out, ", \"closed\": %s, \"boundary_edge_count\": %u, \"nonmanifold_edge_count\": %u",
	        in->closed ? "true" : "false", in->boundary_edge_count, in->nonmanifold_edge_count);
	fputs(", \"aabb_min\": ", out);
	json_vec3(out, in->aabb_min);
	fputs(", \"aabb_max\": ", out);
	json_vec3(out, in->aabb_max);
	fputs(", \"sphere_center\": ", out);
	json_vec3(out, in->sphere_center);
	fputs(", \"sphere_radius\": ", out);
	json_float(out, in->sphere_radius, 9);
	fputs(", \"origin\": ", out);
	json_vec3(out, in->origin);
	fprintf(out, ", \"origin_inside\": %s, \"volume\": ", in->origin_inside ? "true" : "false");
	if (in->closed)
		json_float(out, in->volume, 17);
	else
		fputs("null", out);
	fprintf(out,
	        ", \"tree\": {\"depth\": %u, \"node_count\": %u, \"leaf_count\": %u, \"leaf_size_min\": %u"
	        ", \"leaf_size_mean\": ",
	        in->tree_depth, in->tree_node_count, in->tree_leaf_count, in->tree_leaf_min);
	json_float(out, in->tree_leaf_mean, 9);
	fprintf(out,
	        ", \"leaf_size_max\": %u}, \"cube_resolution\": %u, \"star_shaped\": %s, \"cube_multi_hit_fraction\": %.6f, "
	        "\"device_bytes\": %" PRIu64 ", \"device\": ",
	        in->tree_leaf_max, in->cube_resolution, in->star_shaped ? "true" : "false", (double)in->cube_multi_hit_fraction,
	        in->device_bytes);
	json_string(out, m->device_name);
	fputs("}\n", out);
}

// Fails the command when the validation layer spoke: a clean run is part of
// the contract the tests check.
static int check_validation(const vkcol_context *ctx)
{
	uint64_t n = vkcol_context_validation_message_count(ctx);
	if (n == 0)
		return 0;
	error_line("the Vulkan validation layer reported %" PRIu64 " message%s", n, n == 1 ? "" : "s");
	return EXIT_RUNTIME;
}

static int cmd_mesh_info(const command *cmd, int argc, char **argv)
{
	const char *file = NULL;
	bool json = false, options_done = false;
	uint32_t leaf_size = 0, max_depth = 0, cube_resolution = 0;
	cli_log log = {0};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *value = NULL;
		if (options_done || a[0] != '-' || a[1] == '\0') {
			if (file)
				return usage_error(cmd, "more than one FILE ('%s' and '%s')", file, a);
			file = a;
		} else if (strcmp(a, "--") == 0) {
			options_done = true;
		} else if (is_help_option(a)) {
			print_command_help(cmd, stdout);
			return 0;
		} else if (is_verbose_option(a)) {
			log.verbose = true;
		} else if (strcmp(a, "--json") == 0) {
			json = true;
		} else if (match_value_option(argc, argv, &i, "--leaf-size", &value)) {
			if (!parse_u32(value, 1, 64, &leaf_size))
				return usage_error(cmd, "--leaf-size wants an integer in 1..64, not '%s'", value ? value : "");
		} else if (match_value_option(argc, argv, &i, "--max-depth", &value)) {
			if (!parse_u32(value, 1, 48, &max_depth))
				return usage_error(cmd, "--max-depth wants an integer in 1..48, not '%s'", value ? value : "");
		} else if (match_value_option(argc, argv, &i, "--cube-resolution", &value)) {
			if (!parse_u32(value, 4, 1024, &cube_resolution) || (cube_resolution & (cube_resolution - 1)))
				return usage_error(cmd, "--cube-resolution wants a power of two in 4..1024, not '%s'",
				                   value ? value : "");
		} else {
			return usage_error(cmd, "unknown option '%s'", a);
		}
	}
	if (!file)
		return usage_error(cmd, "no FILE given");

	import_mesh mesh;
	char reason[256];
	if (import_mesh_load(file, &mesh, reason, sizeof(reason)) != 0) {
		error_line("%s: %s", file, reason);
		return EXIT_USAGE;
	}

	vkcol_mesh_desc md = {0};
	md.positions = mesh.positions;
	md.vertex_count = mesh.vertex_count;
	md.indices = mesh.indices;
	md.triangle_count = mesh.triangle_count;
	md.cube_resolution = cube_resolution;
	md.leaf_size = leaf_size;
	md.max_depth = max_depth;
	md.name = file;

	// Checked before any device work: the problem's message names the
	// triangle or vertex, and bad input should not cost a device start-up.
	vkcol_mesh_problem problem;
	vkcol_result r = vkcol_mesh_check(&md, &problem);
	if (r != VKCOL_SUCCESS) {
		error_line("%s: %s", file, problem.message[0] ? problem.message : vkcol_result_string(r));
		import_mesh_free(&mesh);
		return is_bad_input(r) ? EXIT_USAGE : EXIT_RUNTIME;
	}

	int status = 0;
	vkcol_context *ctx = NULL;
	vkcol_mesh handle = {0};
	vkcol_context_desc cd = context_desc(&log);
	r = vkcol_context_create(&cd, &ctx);
	if (r != VKCOL_SUCCESS) {
		status = report_failure(&log, "cannot create a Vulkan context", r);
		goto cleanup;
	}
	r = vkcol_mesh_create(ctx, &md, &handle);
	if (r != VKCOL_SUCCESS) {
		status = report_failure(&log, file, r);
		goto cleanup;
	}
	vkcol_mesh_info info;
	vkcol_device_info device;
	r = vkcol_mesh_get_info(ctx, handle, &info);
	if (r == VKCOL_SUCCESS)
		r = vkcol_context_get_device_info(ctx, &device);
	if (r != VKCOL_SUCCESS) {
		status = report_failure(&log, file, r);
		goto cleanup;
	}
	log_flush(&log);

	mesh_report report = {file, mesh.submesh_count, &info, device.name};
	if (json)
		print_mesh_json(stdout, &report);
	else
		print_mesh_text(stdout, &report);
	status = check_validation(ctx);

cleanup:
	vkcol_mesh_destroy(ctx, handle);
	vkcol_context_destroy(ctx);
	log_flush(&log);
	import_mesh_free(&mesh);
	return status;
}

// ---------------------------------------------------------------------------
// collide
//
// The poses are streamed: a block of poses is read, answered with one
// vkcol_batch_run call, written and flushed, then the next block is read, so
// host memory is bounded by the block size whatever the file length, and a
// failure (a bad line, an interrupt) loses nothing already answered.

#define DEFAULT_RESOLUTION 64
#define DEFAULT_BLOCK_POSES (1u << 18)
// Host memory per pose of a block: the pair, its result and its line number
// (the library's staging buffers come on top, bounded by its own chunk).
#define BLOCK_BYTES_PER_POSE (sizeof(vkcol_pair) + sizeof(vkcol_pair_result) + sizeof(uint64_t))
#define MAX_BLOCK_POSES (1u << 22)
// Deepest useful mip level: the largest map (1024) halved ten times.
#define MAX_MIP 10

#define POSE_FIELDS 7
// Longest field kept; longer ones are reported, not parsed (no number needs
// this many characters, and the message quotes the field).
#define FIELD_CAPACITY 128
#define READ_BUFFER_BYTES (64u << 10)
// A pipe that stays empty this long with poses in hand gets those answered
// and written: a slow producer still sees its results promptly.
#define STALL_MS 100
#define PROGRESS_INTERVAL_S 0.25
#define CALIBRATION_POSES 4096u

static const struct {
	const char *name;
	vkcol_mode mode;
} mode_names[] = {
	{"approx", VKCOL_MODE_APPROX},
	{"exact", VKCOL_MODE_EXACT},
};

static const char *stage_word(uint32_t stage)
{
	switch (stage) {
	case VKCOL_STAGE_BOUNDS:
		return "bounds";
	case VKCOL_STAGE_CUBE_MAP:
		return "cube_map";
	case VKCOL_STAGE_TREE:
		return "tree";
	case VKCOL_STAGE_CONTAINMENT:
		return "containment";
	default:
		return "none";
	}
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// 1234567 -> "1,234,567": progress counts are read at a glance.
static void format_count(uint64_t n, char *out, size_t size)
{
	char digits[32];
	int len = snprintf(digits, sizeof(digits), "%" PRIu64, n);
	size_t o = 0;
	for (int i = 0; i < len && o + 2 < size; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
}

// The shortest of %.6g .. %.9g that reads back as the same float: 0.12, not
// 0.119999997, yet every value survives a round trip.
static void format_float(float v, char *out, size_t size)
{
	for (int digits = 6; digits < 9; digits++) {
		snprintf(out, size, "%.*g", digits, (double)v);
		if (strtof(out, NULL) == v)
			return;
	}
	snprintf(out, size, "%.9g", (double)v);
}

// --- interrupts ---------------------------------------------------------------

// Set by SIGINT / SIGTERM: the block under way stops after the library's
// current chunk, the poses answered are written, and the tool exits 128+signal.
// The handler resets itself, so a second Ctrl-C kills at once (a read from a
// silent pipe would otherwise hold the first one back).
static volatile sig_atomic_t interrupt_signal;

static void on_interrupt(int sig)
{
	interrupt_signal = sig;
}

static void catch_interrupts(bool on)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on ? on_interrupt : SIG_DFL;
	sa.sa_flags = on ? SA_RESETHAND | SA_RESTART : 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

// --- progress line ------------------------------------------------------------

static void progress_show(progress_line *p, uint64_t done, uint64_t collide)
{
	if (!p->enabled)
		return;
	double now = now_seconds();
	if (now - p->last_shown < PROGRESS_INTERVAL_S)
		return;
	p->last_shown = now;
	char count[32], rate[32];
	format_count(done, count, sizeof(count));
	double elapsed = now - p->start;
	format_count(elapsed > 0.0 ? (uint64_t)((double)done / elapsed) : 0, rate, sizeof(rate));
	char text[160];
	int n = snprintf(text, sizeof(text), "  %s poses  (%.1f%% collide)  %s poses/s", count,
	                 done ? 100.0 * (double)collide / (double)done : 0.0, rate);
	if (n < 0)
		return;
	// Pad over the tail of a longer previous line.
	fprintf(stderr, "\r%s%*s", text, p->width > n ? p->width - n : 0, "");
	if (n > p->width)
		p->width = n;
	fflush(stderr);
}

// --- pose reader --------------------------------------------------------------

typedef struct pose_reader {
	int fd;
	const char *name; // in messages: the path, or "<stdin>"
	unsigned char buf[READ_BUFFER_BYTES];
	size_t pos, len;
	bool at_end;
	int read_errno;   // errno of a failed read; 0 = none
	uint64_t line;    // 1-based line of the next character
	uint64_t column;  // 1-based column (in bytes) of the next character
} pose_reader;

// Where and why a line is bad.
typedef struct pose_error {
	uint64_t line, column;
	char reason[FIELD_CAPACITY + 128];
} pose_error;

typedef enum read_status {
	READ_POSE,        // a pose was read
	READ_END,         // the input ended
	READ_STALLED,     // nothing to read for STALL_MS (only when asked to notice)
	READ_BAD_LINE,    // a bad line; pose_error says where
	READ_FAILED,      // the input cannot be read; reader.read_errno says why
	READ_INTERRUPTED, // a signal asked us to stop
} read_status;

// Refills the buffer. False at the end of the input, after a read error, or
// on an interrupt (then without marking the end).
static bool reader_fill(pose_reader *r)
{
	for (;;) {
		if (interrupt_signal)
			return false;
		// poll, unlike read under SA_RESTART, returns on a signal: an
		// interrupt is noticed while a pipe is silent.
		struct pollfd pfd = {r->fd, POLLIN, 0};
		if (poll(&pfd, 1, -1) < 0 && errno == EINTR)
			continue;
		ssize_t n = read(r->fd, r->buf, sizeof(r->buf));
		if (n > 0) {
			r->pos = 0;
			r->len = (size_t)n;
			return true;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r->read_errno = errno;
		r->at_end = true;
		return false;
	}
}

// The next byte, or EOF at the end of the input (or after a read error).
static inline int reader_peek(pose_reader *r)
{
	if (r->pos == r->len && (r->at_end || !reader_fill(r)))
		return EOF;
	return r->buf[r->pos];
}

// Consumes the byte reader_peek returned.
static inline void reader_next(pose_reader *r)
{
	if (r->buf[r->pos++] == '\n') {
		r->line++;
		r->column = 1;
	} else {
		r->column++;
	}
}

// True when the buffer is used up and no byte arrives within STALL_MS: a pipe
// whose writer is slow. A regular file never stalls.
static bool reader_stalls(pose_reader *r)
{
	if (r->pos < r->len || r->at_end)
		return false;
	struct pollfd pfd = {r->fd, POLLIN, 0};
	int n;
	while ((n = poll(&pfd, 1, STALL_MS)) < 0 && errno == EINTR && !interrupt_signal)
		;
	return n == 0;
}

static bool is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool ends_field(int c)
{
	return c == EOF || c == '\n' || c == ',' || is_blank(c);
}

static void skip_blanks(pose_reader *r)
{
	while (is_blank(reader_peek(r)))
		reader_next(r);
}

static void bad_line(pose_error *err, uint64_t line, uint64_t column, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void bad_line(pose_error *err, uint64_t line, uint64_t column, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	err->line = line;
	err->column = column;
	vsnprintf(err->reason, sizeof(err->reason), fmt, args);
	va_end(args);
}

// A field as it may be quoted in a message: at most QUOTE_CHARS characters,
// bytes outside printable ASCII escaped, "..." when cut.
#define QUOTE_CHARS 40

static void quote_field(const char *field, bool cut, char *out, size_t size)
{
	size_t o = 0, i = 0;
	// Room is kept for one escape (4), "..." and the terminator.
	for (; field[i] && i < QUOTE_CHARS && o + 8 < size; i++) {
		unsigned char c = (unsigned char)field[i];
		if (c < 0x20 || c >= 0x7f || c == '\'' || c == '\\')
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = '\0';
	if (cut || field[i])
		memcpy(out + o, "...", 4);
}

static const char *const field_names[POSE_FIELDS] = {"qw", "qx", "qy", "qz", "tx", "ty", "tz"};

// Parses one field (already cut at its end) as number `index` of the pose.
static bool parse_field(const char *text, bool too_long, int index, double *out, uint64_t line, uint64_t column,
                        pose_error *err)
{
	char quoted[64];
	quote_field(text, too_long, quoted, sizeof(quoted));
	if (too_long) {
		bad_line(err, line, column, "'%s' is too long for a number (%s: more than %d characters)", quoted,
		         field_names[index], FIELD_CAPACITY - 1);
		return false;
	}
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || *end != '\0') {
		bad_line(err, line, column, "'%s' is not a number (%s)", quoted, field_names[index]);
		return false;
	}
	if (isnan(v) || (isinf(v) && errno != ERANGE)) {
		bad_line(err, line, column, "'%s' is not a finite number (%s)", quoted, field_names[index]);
		return false;
	}
	// A quaternion component of any finite size normalises in double; a
	// translation goes to the device as a float.
	if (isinf(v) || (index >= 4 && !isfinite((float)v))) {
		bad_line(err, line, column, "'%s' is out of range (%s)", quoted, field_names[index]);
		return false;
	}
	*out = v;
	return true;
}

// Reads the next pose line into *pose and its line number into *line,
// skipping blank and comment lines. With notice_stall, returns READ_STALLED
// instead of waiting when no line has begun and the input is a silent pipe.
static read_status read_pose(pose_reader *r, bool notice_stall, vkcol_pose *pose, uint64_t *line, pose_error *err)
{
	// Find the next pose line.
	for (;;) {
		if (interrupt_signal)
			return READ_INTERRUPTED;
		if (notice_stall && reader_stalls(r))
			return interrupt_signal ? READ_INTERRUPTED : READ_STALLED;
		skip_blanks(r);
		int c = reader_peek(r);
		if (c == EOF && interrupt_signal)
			return READ_INTERRUPTED;
		if (c == EOF)
			return r->read_errno ? READ_FAILED : READ_END;
		if (c == '#') {
			while ((c = reader_peek(r)) != EOF && c != '\n')
				reader_next(r);
		}
		if (c == '\n') {
			reader_next(r);
			continue;
		}
		if (c != EOF)
			break;
	}

	*line = r->line;
	double v[POSE_FIELDS];
	uint64_t first_column = 0;
	int count = 0;
	bool after_comma = false;
	for (;;) {
		skip_blanks(r);
		int c = reader_peek(r);
		if (c == EOF && interrupt_signal)
			return READ_INTERRUPTED;
		if (c == EOF && r->read_errno)
			return READ_FAILED;
		if (c == ',') {
			if (count == 0 || after_comma) {
				bad_line(err, r->line, r->column, "empty field before ','");
				return READ_BAD_LINE;
			}
			after_comma = true;
			reader_next(r);
			continue;
		}
		if (c == EOF || c == '\n') {
			if (after_comma) {
				bad_line(err, r->line, r->column, "empty field after ','");
				return READ_BAD_LINE;
			}
			break;
		}
		// A field: up to the next separator.
		uint64_t column = r->column;
		char text[FIELD_CAPACITY];
		size_t n = 0;
		bool too_long = false;
		while (!ends_field(c = reader_peek(r))) {
			if (n + 1 < sizeof(text))
				text[n++] = (char)c;
			else
				too_long = true;
			reader_next(r);
		}
		text[n] = '\0';
		// A field cut short by an interrupt or a read error is not the
		// file's fault.
		if (c == EOF && interrupt_signal)
			return READ_INTERRUPTED;
		if (c == EOF && r->read_errno)
			return READ_FAILED;
		after_comma = false;
		if (count == POSE_FIELDS) {
			char quoted[64];
			quote_field(text, too_long, quoted, sizeof(quoted));
			bad_line(err, *line, column, "unexpected '%s' after the 7 numbers of a pose (qw qx qy qz tx ty tz)",
			         quoted);
			return READ_BAD_LINE;
		}
		if (!parse_field(text, too_long, count, &v[count], *line, column, err))
			return READ_BAD_LINE;
		if (count == 0)
			first_column = column;
		count++;
	}
	if (count < POSE_FIELDS) {
		bad_line(err, *line, r->column, "%d number%s, expected 7 (qw qx qy qz tx ty tz): %s is missing", count,
		         count == 1 ? "" : "s", field_names[count]);
		return READ_BAD_LINE;
	}
	if (reader_peek(r) == '\n')
		reader_next(r);

	// Normalise in double, scaled first so that tiny or huge components
	// neither underflow nor overflow.
	double scale = 0.0;
	for (int k = 0; k < 4; k++)
		scale = fmax(scale, fabs(v[k]));
	if (scale == 0.0) {
		bad_line(err, *line, first_column, "zero quaternion (qw qx qy qz are all 0): not a rotation");
		return READ_BAD_LINE;
	}
	double norm = 0.0;
	for (int k = 0; k < 4; k++)
		norm += (v[k] / scale) * (v[k] / scale);
	norm = sqrt(norm);
	for (int k = 0; k < 4; k++)
		pose->rotation[k] = (float)(v[k] / scale / norm);
	for (int k = 0; k < 3; k++)
		pose->translation[k] = (float)v[4 + k];
	return READ_POSE;
}

// --- the command --------------------------------------------------------------

typedef struct collide_job {
	vkcol_context *ctx;
	cli_log *log;
	progress_line progress;
	vkcol_mesh a, b;
	vkcol_mode mode;
	uint32_t mip;
	bool jsonl, verify;
	FILE *out;
	const char *out_name;
	bool out_is_terminal; // the progress line is wiped before results are written

	// The block: capacity poses, count read.
	vkcol_pair *pairs;
	vkcol_pair_result *results;
	uint64_t *lines;
	uint32_t capacity, count;
	uint32_t offset;  // first pose of the block in the current vkcol_batch_run call
	uint32_t counted; // results of the block already added to `collide`

	uint64_t answered;   // poses answered and written before this block
	uint64_t collide;    // of those answered (this block's counted included)
	uint64_t last_line;  // line of the last pose written
	double batch_seconds; // spent in vkcol_batch_run

	// --verify
	uint64_t verified, agree, false_positive, false_negative, reference_collide;
} collide_job;

// The library's per-chunk callback: results [0, done) of the call, which
// starts at the block's pose `offset`, are final.
static bool on_chunk(void *user, uint64_t done, uint64_t total)
{
	(void)total;
	collide_job *job = user;
	for (; job->counted < job->offset + done; job->counted++)
		job->collide += job->results[job->counted].collide != 0;
	if (!job->verify)
		progress_show(&job->progress, job->answered + job->counted, job->collide);
	return !interrupt_signal;
}

// Pairs per library chunk: about half a second of work at the rate seen so
// far, so that the progress line moves and an interrupt is honoured soon on
// slow meshes, without many tiny submissions on fast ones.
static uint32_t chunk_pairs(const collide_job *job)
{
	uint64_t done = job->answered + job->counted;
	double rate = done && job->batch_seconds > 0.0 ? (double)done / job->batch_seconds : 0.0;
	uint32_t chunk = 1u << 12;
	while (chunk < (1u << 18) && (double)chunk * 2.0 <= 0.5 * rate)
		chunk *= 2;
	return chunk;
}

// Answers the poses of the block. *answered receives how many of them, from
// the first, have their results: all of them unless the result is an error
// (VKCOL_ERROR_INTERRUPTED included).
static vkcol_result answer_block(collide_job *job, uint32_t *answered)
{
	vkcol_result r = VKCOL_SUCCESS;
	job->counted = 0;
	for (job->offset = 0; job->offset < job->count;) {
		uint32_t n = job->count - job->offset;
		// The first poses of a run alone measure the rate that sizes the
		// library's chunks.
		if (job->answered + job->offset == 0 && n > CALIBRATION_POSES)
			n = CALIBRATION_POSES;
		vkcol_batch_desc bd = {0};
		bd.pairs = job->pairs + job->offset;
		bd.pair_count = n;
		bd.mode = job->mode;
		bd.mip_level = job->mip;
		bd.chunk_pairs = chunk_pairs(job);
		bd.progress = on_chunk;
		bd.progress_user = job;
		double start = now_seconds();
		r = vkcol_batch_run(job->ctx, &bd, job->results + job->offset);
		job->batch_seconds += now_seconds() - start;
		if (r != VKCOL_SUCCESS)
			break;
		// The callback has counted every result it was told of; count the
		// rest (none when the library reports the last chunk).
		job->offset += n;
		for (; job->counted < job->offset; job->counted++)
			job->collide += job->results[job->counted].collide != 0;
		if (interrupt_signal && job->offset < job->count) {
			r = VKCOL_ERROR_INTERRUPTED;
			break;
		}
	}
	*answered = r == VKCOL_SUCCESS || r == VKCOL_ERROR_INTERRUPTED ? job->counted : 0;
	return r;
}

// Writes the first n results of the block and flushes them.
static bool write_block(collide_job *job, uint32_t n)
{
	if (job->out_is_terminal)
		progress_clear(&job->progress);
	char penetration[32];
	for (uint32_t i = 0; i < n; i++) {
		const vkcol_pair_result *res = &job->results[i];
		uint64_t index = job->answered + i;
		format_float(res->penetration, penetration, sizeof(penetration));
		if (job->jsonl) {
			fprintf(job->out,
			        "{\"index\":%" PRIu64 ",\"collide\":%s,\"stage\":\"%s\",\"penetration\":%s,"
			        "\"triangle_pairs\":%u,\"line\":%" PRIu64 "}\n",
			        index, res->collide ? "true" : "false", stage_word(res->stage),
			        isfinite(res->penetration) ? penetration : "null", res->triangle_pairs, job->lines[i]);
		} else {
			fprintf(job->out, "%" PRIu64 ",%u,%s,%s,%u,%" PRIu64 "\n", index, res->collide ? 1u : 0u,
			        stage_word(res->stage), penetration, res->triangle_pairs, job->lines[i]);
		}
	}
	if (n) {
		job->answered += n;
		job->last_line = job->lines[n - 1];
	}
	return fflush(job->out) == 0 && !ferror(job->out);
}

// Answers the first n poses of the block with the reference, stopping early
// on an interrupt.
static vkcol_result verify_block(collide_job *job, uint32_t n)
{
	for (uint32_t i = 0; i < n && !interrupt_signal; i++) {
		bool exact = false;
		vkcol_result r = vkcol_reference_collide(job->ctx, &job->pairs[i], &exact);
		if (r != VKCOL_SUCCESS)
			return r;
		bool got = job->results[i].collide != 0;
		job->verified++;
		job->reference_collide += exact;
		job->agree += got == exact;
		job->false_positive += got && !exact;
		job->false_negative += !got && exact;
		progress_show(&job->progress, job->answered + i + 1, job->collide);
	}
	return VKCOL_SUCCESS;
}

static void print_verify_summary(const collide_job *job, const char *mode_name)
{
	char poses[32], agree[32], fp[32], fn[32], ref[32];
	format_count(job->verified, poses, sizeof(poses));
	format_count(job->agree, agree, sizeof(agree));
	format_count(job->false_positive, fp, sizeof(fp));
	format_count(job->false_negative, fn, sizeof(fn));
	format_count(job->reference_collide, ref, sizeof(ref));
	double n = job->verified ? (double)job->verified : 1.0;
	error_line("verify: %s poses, %s agree (%.2f%%), %s false positives, %s false negatives (%s mode vs the exact "
	           "CPU reference, which says %s collide: %.1f%%)",
	           poses, agree, 100.0 * (double)job->agree / n, fp, fn, mode_name, ref,
	           100.0 * (double)job->reference_collide / n);
}

static void print_exact_unsupported(void)
{
	error_line("exact mode is not implemented yet (use --mode approx)");
}

typedef struct collide_args {
	const char *files[2];
	const char *poses;
	const char *out;
	const char *mode_name;
	uint32_t resolution, mip, chunk;
	bool jsonl, verify, quiet;
} collide_args;

static int parse_collide_args(const command *cmd, int argc, char **argv, collide_args *a, cli_log *log,
                              bool *help)
{
	int file_count = 0;
	bool options_done = false;
	a->mode_name = DEFAULT_MODE_NAME;
	a->resolution = DEFAULT_RESOLUTION;
	a->chunk = DEFAULT_BLOCK_POSES;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const char *value = NULL;
		if (options_done || arg[0] != '-' || arg[1] == '\0') {
			if (file_count == 2)
				return usage_error(cmd, "more than two mesh files ('%s')", arg);
			a->files[file_count++] = arg;
		} else if (strcmp(arg, "--") == 0) {
			options_done = true;
		} else if (is_help_option(arg)) {
			*help = true;
			return 0;
		} else if (is_verbose_option(arg)) {
			log->verbose = true;
		} else if (match_value_option(argc, argv, &i, "--poses", &value)) {
			if (!value || !*value)
				return usage_error(cmd, "--poses wants a file name (or - for standard input)");
			a->poses = value;
		} else if (match_value_option(argc, argv, &i, "--out", &value)) {
			if (!value || !*value)
				return usage_error(cmd, "--out wants a file name");
			a->out = value;
		} else if (match_value_option(argc, argv, &i, "--mode", &value)) {
			a->mode_name = NULL;
			for (size_t k = 0; k < sizeof(mode_names) / sizeof(mode_names[0]); k++) {
				if (value && strcmp(value, mode_names[k].name) == 0)
					a->mode_name = mode_names[k].name;
			}
			if (!a->mode_name)
				return usage_error(cmd, "--mode wants approx or exact, not '%s'", value ? value : "");
		} else if (match_value_option(argc, argv, &i, "--format", &value)) {
			if (value && strcmp(value, "csv") == 0)
				a->jsonl = false;
			else if (value && strcmp(value, "jsonl") == 0)
				a->jsonl = true;
			else
				return usage_error(cmd, "--format wants csv or jsonl, not '%s'", value ? value : "");
		} else if (match_value_option(argc, argv, &i, "--resolution", &value)) {
			if (!parse_u32(value, 4, 1024, &a->resolution) || (a->resolution & (a->resolution - 1)))
				return usage_error(cmd, "--resolution wants a power of two in 4..1024, not '%s'",
				                   value ? value : "");
		} else if (match_value_option(argc, argv, &i, "--mip", &value)) {
			if (!parse_u32(value, 0, MAX_MIP, &a->mip))
				return usage_error(cmd, "--mip wants an integer in 0..%d, not '%s'", MAX_MIP, value ? value : "");
		} else if (match_value_option(argc, argv, &i, "--chunk", &value)) {
			if (!parse_u32(value, 1, MAX_BLOCK_POSES, &a->chunk))
				return usage_error(cmd, "--chunk wants an integer in 1..%u, not '%s'", MAX_BLOCK_POSES,
				                   value ? value : "");
		} else if (strcmp(arg, "--verify") == 0) {
			a->verify = true;
		} else if (strcmp(arg, "--quiet") == 0 || strcmp(arg, "-q") == 0) {
			a->quiet = true;
		} else {
			return usage_error(cmd, "unknown option '%s'", arg);
		}
	}
	if (file_count < 2)
		return usage_error(cmd, file_count ? "one mesh file given, two needed (A and B)" : "no mesh files given");
	if (!a->poses)
		return usage_error(cmd, "no --poses FILE given");
	return 0;
}

static vkcol_mode mode_of(const char *name)
{
	for (size_t k = 0; k < sizeof(mode_names) / sizeof(mode_names[0]); k++) {
		if (strcmp(name, mode_names[k].name) == 0)
			return mode_names[k].mode;
	}
	return VKCOL_MODE_DEFAULT;
}

// Imports a mesh file and checks it as mesh-info does. Returns 0 or an exit
// status.
static int load_mesh(const char *file, uint32_t resolution, import_mesh *mesh, vkcol_mesh_desc *md)
{
	char reason[256];
	if (import_mesh_load(file, mesh, reason, sizeof(reason)) != 0) {
		error_line("%s: %s", file, reason);
		return EXIT_USAGE;
	}
	memset(md, 0, sizeof(*md));
	md->positions = mesh->positions;
	md->vertex_count = mesh->vertex_count;
	md->indices = mesh->indices;
	md->triangle_count = mesh->triangle_count;
	md->cube_resolution = resolution;
	md->name = file;
	vkcol_mesh_problem problem;
	vkcol_result r = vkcol_mesh_check(md, &problem);
	if (r != VKCOL_SUCCESS) {
		error_line("%s: %s", file, problem.message[0] ? problem.message : vkcol_result_string(r));
		return is_bad_input(r) ? EXIT_USAGE : EXIT_RUNTIME;
	}
	return 0;
}

// Runs the mode on one pair before any output: exact mode reports
// VKCOL_ERROR_UNSUPPORTED until the library implements it, and the tool
// should start working the day it does, with no change here.
static int probe_mode(collide_job *job)
{
	vkcol_pair pair = {job->a, job->b, {{1, 0, 0, 0}, {0, 0, 0}}, {{1, 0, 0, 0}, {0, 0, 0}}};
	vkcol_pair_result result;
	vkcol_batch_desc bd = {0};
	bd.pairs = &pair;
	bd.pair_count = 1;
	bd.mode = job->mode;
	bd.mip_level = job->mip;
	vkcol_result r = vkcol_batch_run(job->ctx, &bd, &result);
	if (r == VKCOL_ERROR_UNSUPPORTED && job->mode == VKCOL_MODE_EXACT) {
		job->log->has_pending = false; // the library's wording names its API, ours the option
		print_exact_unsupported();
		return EXIT_USAGE;
	}
	if (r != VKCOL_SUCCESS)
		return report_failure(job->log, "cannot run a batch", r);
	return 0;
}

// Opens the poses file; fd -1 and a message on failure.
static int open_poses(const char *path, pose_reader *reader)
{
	reader->fd = -1;
	reader->line = 1;
	reader->column = 1;
	if (strcmp(path, "-") == 0) {
		reader->fd = STDIN_FILENO;
		reader->name = "<stdin>";
		return 0;
	}
	reader->name = path;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		error_line("%s: cannot open the poses file: %s", path, strerror(errno));
		return EXIT_USAGE;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		error_line("%s: cannot read the poses file: it is a directory", path);
		close(fd);
		return EXIT_USAGE;
	}
	reader->fd = fd;
	return 0;
}

// A UTF-8 byte order mark, as some editors write, is not part of line 1.
static void skip_bom(pose_reader *r)
{
	static const unsigned char bom[3] = {0xef, 0xbb, 0xbf};
	if (reader_peek(r) != bom[0])
		return;
	// The buffer holds the whole start of a regular file; a pipe that splits
	// the mark across reads just keeps it (and reports line 1 as bad).
	if (r->len - r->pos >= 3 && memcmp(r->buf + r->pos, bom, 3) == 0)
		r->pos += 3;
}

// Reads, answers and writes every block. Returns the exit status.
static int stream_poses(collide_job *job, pose_reader *reader, const char *mode_name)
{
	pose_error err = {0};
	read_status status = READ_POSE;
	int exit_status = 0;
	skip_bom(reader);
	while (status != READ_END) {
		// Read a block. An empty block waits for input; a block with poses
		// in it is answered early when the input stalls.
		job->count = 0;
		while (job->count < job->capacity) {
			vkcol_pose pose;
			uint64_t line = 0;
			status = read_pose(reader, job->count > 0, &pose, &line, &err);
			if (status != READ_POSE)
				break;
			vkcol_pair *p = &job->pairs[job->count];
			p->a = job->a;
			p->b = job->b;
			p->pose_a = (vkcol_pose){{1, 0, 0, 0}, {0, 0, 0}};
			p->pose_b = pose;
			job->lines[job->count++] = line;
		}

		// Answer it; on an interrupt, only what the library finished.
		uint32_t answered = 0;
		if (job->count > 0) {
			vkcol_result r = answer_block(job, &answered);
			if (r == VKCOL_ERROR_UNSUPPORTED && job->mode == VKCOL_MODE_EXACT) {
				progress_clear(&job->progress);
				job->log->has_pending = false;
				print_exact_unsupported();
				return EXIT_USAGE;
			} else if (r != VKCOL_SUCCESS && r != VKCOL_ERROR_INTERRUPTED) {
				progress_clear(&job->progress);
				return report_failure(job->log, "cannot answer the poses", r);
			}
			if (job->verify) {
				r = verify_block(job, answered);
				if (r != VKCOL_SUCCESS) {
					progress_clear(&job->progress);
					return report_failure(job->log, "the exact reference failed", r);
				}
			}
			if (!write_block(job, answered)) {
				int e = errno; // before the progress line's own writes
				progress_clear(&job->progress);
				error_line("%s: cannot write the results: %s", job->out_name, strerror(e));
				return EXIT_RUNTIME;
			}
			progress_show(&job->progress, job->answered, job->collide);
		}
		// An interrupt that came after the last pose was read, answered
		// (and verified) finds the work complete.
		bool unfinished = status != READ_END || answered < job->count ||
		                  (job->verify && job->verified < job->answered);
		if ((interrupt_signal && unfinished) || status == READ_INTERRUPTED) {
			status = READ_INTERRUPTED;
			break;
		}
		if (status == READ_BAD_LINE || status == READ_FAILED)
			break;
	}
	progress_clear(&job->progress);
	if (job->verify)
		print_verify_summary(job, mode_name);
	switch (status) {
	case READ_BAD_LINE:
		error_line("%s:%" PRIu64 ":%" PRIu64 ": %s", reader->name, err.line, err.column, err.reason);
		exit_status = EXIT_USAGE;
		break;
	case READ_FAILED:
		error_line("%s: cannot read the poses file (line %" PRIu64 "): %s", reader->name, reader->line,
		           strerror(reader->read_errno));
		exit_status = EXIT_USAGE;
		break;
	case READ_INTERRUPTED:
		if (job->answered)
			error_line("interrupted: %" PRIu64 " poses answered and written, the last on line %" PRIu64 " of %s",
			           job->answered, job->last_line, reader->name);
		else
			error_line("interrupted before any pose was answered");
		exit_status = 128 + (int)interrupt_signal;
		break;
	default:
		break;
	}
	return exit_status;
}

static int cmd_collide(const command *cmd, int argc, char **argv)
{
	collide_args args = {0};
	cli_log log = {0};
	bool help = false;
	int status = parse_collide_args(cmd, argc, argv, &args, &log, &help);
	if (status != 0)
		return status;
	if (help) {
		print_command_help(cmd, stdout);
		return 0;
	}

	// Inputs first, cheapest first: a typo costs no import and no device
	// start-up. Meshes are imported before the context exists (the importer
	// forks).
	import_mesh meshes[2] = {{0}};
	vkcol_mesh_desc descs[2];
	collide_job job = {0};
	vkcol_context *ctx = NULL;
	bool same = strcmp(args.files[0], args.files[1]) == 0;
	pose_reader *reader = calloc(1, sizeof(*reader)); // a 64 KiB buffer: not on the stack
	if (!reader) {
		error_line("out of memory");
		return EXIT_RUNTIME;
	}
	status = open_poses(args.poses, reader);
	if (status != 0) {
		free(reader);
		return status;
	}
	for (int k = 0; k < (same ? 1 : 2) && status == 0; k++)
		status = load_mesh(args.files[k], args.resolution, &meshes[k], &descs[k]);
	if (status != 0)
		goto cleanup;

	vkcol_context_desc cd = context_desc(&log);
	log.progress = &job.progress;
	vkcol_result r = vkcol_context_create(&cd, &ctx);
	if (r != VKCOL_SUCCESS) {
		status = report_failure(&log, "cannot create a Vulkan context", r);
		goto cleanup;
	}
	job.ctx = ctx;
	job.log = &log;
	vkcol_mesh *handles[2] = {&job.a, &job.b};
	for (int k = 0; k < (same ? 1 : 2); k++) {
		r = vkcol_mesh_create(ctx, &descs[k], handles[k]);
		if (r != VKCOL_SUCCESS) {
			status = report_failure(&log, args.files[k], r);
			goto cleanup;
		}
	}
	if (same)
		job.b = job.a;
	job.mode = mode_of(args.mode_name);
	job.mip = args.mip;
	job.jsonl = args.jsonl;
	job.verify = args.verify;
	status = probe_mode(&job);
	if (status != 0)
		goto cleanup;

	job.capacity = args.chunk;
	job.pairs = malloc((size_t)job.capacity * sizeof(*job.pairs));
	job.results = malloc((size_t)job.capacity * sizeof(*job.results));
	job.lines = malloc((size_t)job.capacity * sizeof(*job.lines));
	if (!job.pairs || !job.results || !job.lines) {
		char bytes[32];
		format_bytes((uint64_t)job.capacity * BLOCK_BYTES_PER_POSE, bytes, sizeof(bytes));
		error_line("out of memory for a block of %u poses (%s); try a smaller --chunk", job.capacity, bytes);
		status = EXIT_RUNTIME;
		goto cleanup;
	}

	// Opened last, so that bad meshes or options leave an existing file as
	// it was.
	if (args.out) {
		struct stat in_st, out_st;
		if (reader->fd != STDIN_FILENO && stat(args.out, &out_st) == 0 && fstat(reader->fd, &in_st) == 0 &&
		    in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino) {
			error_line("%s: --out names the poses file itself", args.out);
			status = EXIT_USAGE;
			goto cleanup;
		}
		job.out = fopen(args.out, "w");
		if (!job.out) {
			error_line("%s: cannot create the output file: %s", args.out, strerror(errno));
			status = EXIT_USAGE;
			goto cleanup;
		}
		job.out_name = args.out;
	} else {
		job.out = stdout;
		job.out_name = "standard output";
	}
	if (!job.jsonl)
		fputs("index,collide,stage,penetration,triangle_pairs,line\n", job.out);

	job.out_is_terminal = isatty(fileno(job.out));
	job.progress.enabled = !args.quiet && isatty(STDERR_FILENO);
	job.progress.start = now_seconds();
	catch_interrupts(true);
	status = stream_poses(&job, reader, args.mode_name);
	catch_interrupts(false);
	if (job.out != stdout && fclose(job.out) != 0 && status == 0) {
		error_line("%s: cannot write the results: %s", args.out, strerror(errno));
		status = EXIT_RUNTIME;
	}
	job.out = NULL;
	log_flush(&log);
	// Checked whatever the outcome: a bad line must not hide a validation
	// message about the poses before it.
	int validation = check_validation(ctx);
	if (status == 0)
		status = validation;

cleanup:
	if (job.out && job.out != stdout)
		fclose(job.out);
	free(job.pairs);
	free(job.results);
	free(job.lines);
	vkcol_mesh_destroy(ctx, job.a);
	if (!same)
		vkcol_mesh_destroy(ctx, job.b);
	vkcol_context_destroy(ctx);
	log.progress = NULL;
	log_flush(&log);
	for (int k = 0; k < 2; k++)
		import_mesh_free(&meshes[k]);
	if (reader->fd > STDIN_FILENO)
		close(reader->fd);
	free(reader);
	return status;
}

// ---------------------------------------------------------------------------
// help and dispatch

static const command *find_command(const char *name)
{
	for (size_t i = 0; i < COMMAND_COUNT; i++) {
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	}
	return NULL;
}

static int cmd_help(const command *cmd, int argc, char **argv)
{
	if (argc > 2)
		return usage_error(cmd, "too many arguments");
	if (argc == 1 || is_help_option(argv[1])) {
		print_usage(stdout, true);
		return 0;
	}
	const command *target = find_command(argv[1]);
	if (!target)
		return usage_error(NULL, "unknown command '%s'", argv[1]);
	print_command_help(target, stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage_error(NULL, "no command given");
	const char *name = argv[1];
	if (is_help_option(name)) {
		print_usage(stdout, true);
		return 0;
	}
	if (strcmp(name, "--version") == 0) {
		printf("vkcollide %d.%d.%d\n", VKCOL_VERSION_MAJOR, VKCOL_VERSION_MINOR, VKCOL_VERSION_PATCH);
		return 0;
	}
	const command *cmd = find_command(name);
	if (!cmd) {
		if (name[0] == '-')
			return usage_error(NULL, "unknown option '%s'", name);
		return usage_error(NULL, "unknown command '%s'", name);
	}
	int status = cmd->run(cmd, argc - 1, argv + 1);
	// A full disk or a closed pipe must not pass for success (a command that
	// failed has said why already).
	if ((fflush(stdout) != 0 || ferror(stdout)) && status == 0) {
		error_line("cannot write the output: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	return status;
}
