// SPDX-License-Identifier: MIT
// The vkcollide command-line tool. It uses only the public header (plus the
// importer next to it), so it doubles as an example of the API.
//
// This file is the dispatcher: the list of commands, the top-level help and
// `vkcollide help`. Each command lives in its own file (devices.c,
// mesh_info.c, collide.c); what they share is in cli.h, which also states the
// conventions (stdout, stderr, exit statuses). To add a subcommand, define a
// `command` in a new file and add it to `commands` below.
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <vkcollide.h>

#include "bench.h"
#include "cli.h"
#include "collide.h"
#include "devices.h"
#include "merge.h"
#include "mesh_info.h"
#include "run.h"

static int cmd_help(const command *cmd, int argc, char **argv);

static const char *const help_help[] = {
	"Shows the list of commands, or the help of COMMAND.\n",
	NULL,
};

static const command help_command = {
	"help",
	"[COMMAND]",
	"show the help of a command",
	help_help,
	cmd_help,
};

static const command *const commands[] = {
	&devices_command,
	&mesh_info_command,
	&collide_command,
	&run_command,
	&merge_command,
	&bench_command,
	&help_command,
};

#define COMMAND_COUNT (sizeof(commands) / sizeof(commands[0]))

static const char *const environment_help =
	"Environment:\n"
	"  VKCOLLIDE_DEVICE=I|NAME  use device I (see 'vkcollide devices') or the first\n"
	"                           whose name contains NAME (case-insensitive)\n"
	"  VKCOLLIDE_VALIDATION=1   enable the Khronos validation layer; any message\n"
	"                           it reports makes the command fail\n";

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
		fprintf(out, "  %-12s %s\n", commands[i]->name, commands[i]->summary);
	if (full)
		fprintf(out, "\n%s\n%s", common_help, environment_help);
	else
		fputs("Try 'vkcollide --help'.\n", out);
}

static int usage_error_no_command(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// A usage error before any command is known: the reason and the command list.
static int usage_error_no_command(const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	fputs("vkcollide: ", stderr);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	va_end(args);
	print_usage(stderr, false);
	return EXIT_USAGE;
}

static const command *find_command(const char *name)
{
	for (size_t i = 0; i < COMMAND_COUNT; i++) {
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
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
		return usage_error_no_command("unknown command '%s'", argv[1]);
	print_command_help(target, stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage_error_no_command("no command given");
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
			return usage_error_no_command("unknown option '%s'", name);
		return usage_error_no_command("unknown command '%s'", name);
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
