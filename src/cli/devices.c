// SPDX-License-Identifier: MIT
// `vkcollide devices`: the Vulkan devices, their limits, and which one the
// library would choose.
#include "devices.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int cmd_devices(const command *cmd, int argc, char **argv);

static const char *const devices_help[] = {
	"Lists every Vulkan device with its limits. '*' marks the device vkcollide\n"
	"would use: the one VKCOLLIDE_DEVICE names (an index or a name substring),\n"
	"else the first discrete > integrated > virtual > CPU device.\n"
	"\n"
	"Options:\n"
	"  --json           one JSON object instead of text\n",
	NULL,
};

const command devices_command = {
	"devices",
	"[--json]",
	"list the Vulkan devices and mark the one vkcollide uses",
	devices_help,
	cmd_devices,
};

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

const char *device_type_key(vkcol_device_type type)
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
	fprintf(out, "     %-21s %u\n", "max texel buffer", d->max_texel_buffer_elements);
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
	        ", \"max_texel_buffer_elements\": %u, \"subgroup_size\": %u, \"device_local_bytes\": %" PRIu64 ", \"chosen\": %s}",
	        d->has_compute_queue ? "true" : "false", d->max_workgroup_count[0], d->max_workgroup_count[1],
	        d->max_workgroup_count[2], d->max_storage_buffer_range, d->max_texel_buffer_elements, d->subgroup_size, d->device_local_bytes,
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
