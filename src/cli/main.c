// SPDX-License-Identifier: MIT
// The vkcollide command-line tool. It uses only the public header (plus the
// importer next to it), so it doubles as an example of the API.
//
// Conventions: results on stdout; every diagnostic is one line on stderr
// starting "vkcollide: ". Exit status 0 = success, 1 = runtime failure (no
// device, device error), 2 = bad usage or bad input (unreadable or invalid
// mesh). To add a subcommand, write a cmd_* function and add a row to
// `commands` below.
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vkcollide.h>

#include "import.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

typedef struct command {
	const char *name;
	const char *synopsis; // after "vkcollide NAME"
	const char *summary;  // one line for the command list
	const char *help;     // description and options for `vkcollide help NAME`
	int (*run)(const struct command *cmd, int argc, char **argv); // argv[0] is the name
} command;

static int cmd_devices(const command *cmd, int argc, char **argv);
static int cmd_mesh_info(const command *cmd, int argc, char **argv);
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

// Library messages. Errors are held back one step: when the call that logged
// them fails, the failure line carries the message, so it appears once, with
// the file it concerns; anything else is printed as it comes.
typedef struct cli_log {
	bool verbose;
	bool has_pending;
	char pending[1024];
} cli_log;

static void log_callback(void *user, vkcol_log_level level, const char *message)
{
	cli_log *log = user;
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
	fprintf(out, ", \"leaf_size_max\": %u}, \"cube_resolution\": %u, \"device_bytes\": %" PRIu64 ", \"device\": ",
	        in->tree_leaf_max, in->cube_resolution, in->device_bytes);
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
	// A full disk or a closed pipe must not pass for success.
	if (fflush(stdout) != 0 || ferror(stdout)) {
		error_line("cannot write the output: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	return status;
}
