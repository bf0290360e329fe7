// SPDX-License-Identifier: MIT
// `vkcollide mesh-info`: imports a mesh and prints what the library found.
#include "mesh_info.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "import.h"

static int cmd_mesh_info(const command *cmd, int argc, char **argv);

static const char *const mesh_info_help[] = {
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
	NULL,
};

const command mesh_info_command = {
	"mesh-info",
	"FILE [--json] [--leaf-size N] [--max-depth N] [--cube-resolution N]",
	"import a mesh and describe it: topology, bounds, volume, AABB tree",
	mesh_info_help,
	cmd_mesh_info,
};

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

typedef struct mesh_report {
	const char *file;
	uint32_t submesh_count;
	const vkcol_mesh_info *info;
	const char *device_name;
} mesh_report;

// Star-shapedness is a property of a solid seen from a point inside it: a
// mesh of no area, an open surface (rays through its boundary meet
// nothing) or a closed surface enclosing no volume has none. NULL when it
// applies, else why not.
static const char *star_shaped_undefined(const vkcol_mesh_info *in)
{
	if (in->degenerate_count == in->triangle_count)
		return "every triangle has zero area";
	if (!in->closed)
		return "an open surface bounds no solid";
	if (!(in->volume > 0.0) || !in->origin_inside)
		return "the closed surface encloses no volume around its origin";
	return NULL;
}

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
	if (in->origin_inside)
		fprintf(out, "%-*s radius %.6g around the origin, and %u more\n", w, "inner balls", in->inner_radius,
		        in->inner_ball_count);
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
	const char *why_not = star_shaped_undefined(in);
	if (why_not)
		fprintf(out, "%-*s does not apply: %s\n", w, "star-shaped", why_not);
	else if (in->star_shaped)
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
	fprintf(out, ", \"origin_inside\": %s, \"inner_radius\": ", in->origin_inside ? "true" : "false");
	json_float(out, in->inner_radius, 9);
	fprintf(out, ", \"inner_ball_count\": %u, \"volume\": ", in->inner_ball_count);
	if (in->closed)
		json_float(out, in->volume, 17);
	else
		fputs("null", out);
	fprintf(out,
	        ", \"tree\": {\"depth\": %u, \"node_count\": %u, \"leaf_count\": %u, \"leaf_size_min\": %u"
	        ", \"leaf_size_mean\": ",
	        in->tree_depth, in->tree_node_count, in->tree_leaf_count, in->tree_leaf_min);
	json_float(out, in->tree_leaf_mean, 9);
	// null where star-shapedness does not apply (see star_shaped_undefined).
	fprintf(out,
	        ", \"leaf_size_max\": %u}, \"cube_resolution\": %u, \"star_shaped\": %s, \"cube_multi_hit_fraction\": %.6f, "
	        "\"device_bytes\": %" PRIu64 ", \"device\": ",
	        in->tree_leaf_max, in->cube_resolution,
	        star_shaped_undefined(in) ? "null" : in->star_shaped ? "true" : "false",
	        (double)in->cube_multi_hit_fraction, in->device_bytes);
	json_string(out, m->device_name);
	fputs("}\n", out);
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
