// SPDX-License-Identifier: MIT
// What the commands of the vkcollide tool share (see cli.h).
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const common_help =
	"Common options:\n"
	"  -v, --verbose    also print the library's informational messages\n"
	"  -h, --help       show this help\n";

// ---------------------------------------------------------------------------
// Diagnostics

void error_line(const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	fputs("vkcollide: ", stderr);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	va_end(args);
}

void print_command_help(const command *cmd, FILE *out)
{
	fprintf(out, "usage: vkcollide %s %s\n\n", cmd->name, cmd->synopsis);
	for (const char *const *part = cmd->help; *part; part++)
		fputs(*part, out);
	fprintf(out, "\n%s", common_help);
}

int usage_error(const command *cmd, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	fprintf(stderr, "vkcollide: %s: ", cmd->name);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	va_end(args);
	fprintf(stderr, "usage: vkcollide %s %s\nTry 'vkcollide help %s'.\n", cmd->name, cmd->synopsis, cmd->name);
	return EXIT_USAGE;
}

void progress_clear(progress_line *p)
{
	if (p && p->width) {
		fprintf(stderr, "\r%*s\r", p->width, "");
		p->width = 0;
	}
}

void log_callback(void *user, vkcol_log_level level, const char *message)
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

void discard_log(void *user, vkcol_log_level level, const char *message)
{
	(void)user;
	(void)level;
	(void)message;
}

void log_flush(cli_log *log)
{
	if (log->has_pending)
		error_line("%s", log->pending);
	log->has_pending = false;
}

vkcol_context_desc context_desc(cli_log *log)
{
	vkcol_context_desc desc = {0};
	desc.log = log_callback;
	desc.log_user = log;
	desc.log_level = log->verbose ? VKCOL_LOG_INFO : VKCOL_LOG_WARNING;
	return desc;
}

bool is_bad_input(vkcol_result r)
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

int report_failure(cli_log *log, const char *subject, vkcol_result r)
{
	if (log->has_pending) {
		error_line("%s: %s: %s", subject, vkcol_result_string(r), log->pending);
		log->has_pending = false;
	} else {
		error_line("%s: %s", subject, vkcol_result_string(r));
	}
	return is_bad_input(r) ? EXIT_USAGE : EXIT_RUNTIME;
}

int check_validation(const vkcol_context *ctx)
{
	uint64_t n = vkcol_context_validation_message_count(ctx);
	if (n == 0)
		return 0;
	error_line("the Vulkan validation layer reported %" PRIu64 " message%s", n, n == 1 ? "" : "s");
	return EXIT_RUNTIME;
}

// ---------------------------------------------------------------------------
// Argument helpers

bool is_help_option(const char *arg)
{
	return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

bool is_verbose_option(const char *arg)
{
	return strcmp(arg, "-v") == 0 || strcmp(arg, "--verbose") == 0;
}

bool match_value_option(int argc, char **argv, int *i, const char *name, const char **value)
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

bool parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
	if (!text || !*text || *text == '-' || *text == '+')
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = (uint64_t)v;
	return true;
}

bool parse_u32(const char *text, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v;
	if (!parse_u64(text, min, max, &v))
		return false;
	*out = (uint32_t)v;
	return true;
}

// ---------------------------------------------------------------------------
// Formatting

double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

vkcol_result verify_place(vkcol_context *ctx, const vkcol_pair *pair, double *apart, double *touch)
{
	*apart = *touch = 0.0;
	vkcol_result r = vkcol_reference_distance(ctx, pair, apart);
	return r == VKCOL_SUCCESS ? vkcol_pair_touch_distance(ctx, pair, touch) : r;
}

void verify_band_note(vkcol_mode mode, uint64_t false_positives, uint64_t in_band, char *out, size_t size)
{
	if (size)
		out[0] = '\0';
	if (mode == VKCOL_MODE_APPROX || false_positives == 0)
		return;
	char count[32];
	format_count(in_band, count, sizeof(count));
	snprintf(out, size, "; %s of the false positives within the touching distance", count);
}

void format_count(uint64_t n, char *out, size_t size)
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

void format_bytes(uint64_t bytes, char *out, size_t size)
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

void json_string(FILE *out, const char *s)
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

void json_float(FILE *out, double v, int digits)
{
	if (isfinite(v))
		fprintf(out, "%.*g", digits, v);
	else
		fputs("null", out);
}
