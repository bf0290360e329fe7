// SPDX-License-Identifier: MIT
// What the commands of the vkcollide tool share: the command table entry,
// exit statuses, diagnostics, the library logger, argument parsing and
// output formatting helpers.
//
// Conventions: results on stdout; every diagnostic is one line on stderr
// starting "vkcollide: ". Exit status 0 = success, 1 = runtime failure (no
// device, device error), 2 = bad usage or bad input (unreadable or invalid
// mesh, a bad line in a poses file), 128 + signal = interrupted.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <vkcollide.h>

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

typedef struct command {
	const char *name;
	const char *synopsis; // after "vkcollide NAME"
	const char *summary;  // one line for the command list
	// Description and options for `vkcollide help NAME`: paragraphs printed
	// one after the other, NULL last (ISO C caps a string literal at 4095).
	const char *const *help;
	int (*run)(const struct command *cmd, int argc, char **argv); // argv[0] is the name
} command;

// The options every command takes, shown at the end of each help.
extern const char *const common_help;

// ---------------------------------------------------------------------------
// Diagnostics

// One line on stderr: "vkcollide: " and the message.
void error_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void print_command_help(const command *cmd, FILE *out);

// Reports a usage error of cmd (not NULL): the reason, the synopsis and where
// to read more. Returns EXIT_USAGE.
int usage_error(const command *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// The progress line on stderr (a terminal), and how to wipe it before any
// other message is printed.
typedef struct progress_line {
	bool enabled;
	double start, last_shown; // seconds
	int width;                // characters on screen; 0 = none shown
} progress_line;

// Wipes the progress line if one is shown. p may be NULL.
void progress_clear(progress_line *p);

// Library messages. Errors are held back one step: when the call that logged
// them fails, the failure line carries the message, so it appears once, with
// the file it concerns; anything else is printed as it comes.
typedef struct cli_log {
	bool verbose;
	bool has_pending;
	char pending[1024];
	progress_line *progress; // wiped before a message; may be NULL
} cli_log;

// A vkcol_log_fn whose user pointer is a cli_log.
void log_callback(void *user, vkcol_log_level level, const char *message);

// A vkcol_log_fn that drops every message.
void discard_log(void *user, vkcol_log_level level, const char *message);

// Prints a held-back error, if any.
void log_flush(cli_log *log);

// A context description logging through log (verbose: info messages too).
vkcol_context_desc context_desc(cli_log *log);

// True for results caused by the input (exit status 2), not the device.
bool is_bad_input(vkcol_result r);

// One line for a failed library call: "vkcollide: SUBJECT: result: detail",
// detail being the error the library logged for it, if any. Returns the exit
// status to use.
int report_failure(cli_log *log, const char *subject, vkcol_result r);

// Fails the command when the validation layer spoke: a clean run is part of
// the contract the tests check. Returns 0 or EXIT_RUNTIME.
int check_validation(const vkcol_context *ctx);

// ---------------------------------------------------------------------------
// Argument helpers

bool is_help_option(const char *arg);
bool is_verbose_option(const char *arg);

// Matches "--name VALUE" and "--name=VALUE". Returns false when argv[*i] is
// another option; else sets *value (NULL when VALUE is missing) and advances
// *i past a separate VALUE.
bool match_value_option(int argc, char **argv, int *i, const char *name, const char **value);

// A decimal integer in min..max, no sign, nothing after it.
bool parse_u32(const char *text, uint32_t min, uint32_t max, uint32_t *out);
bool parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out);

// ---------------------------------------------------------------------------
// --verify (collide and run)

// Where a disagreement with the reference lies: *apart, the reference's
// distance between the pair's surfaces; *touch, the pair's touching
// distance, within which exact mode may answer "collide"
// (docs/semantics.md).
vkcol_result verify_place(vkcol_context *ctx, const vkcol_pair *pair, double *apart, double *touch);

// The end of --verify's summary: "; K of the false positives within the
// touching distance" in exact mode when it has false positives, else "".
void verify_band_note(vkcol_mode mode, uint64_t false_positives, uint64_t in_band, char *out, size_t size);

// ---------------------------------------------------------------------------
// Formatting

// Monotonic seconds.
double now_seconds(void);

// 1234567 -> "1,234,567": counts read at a glance.
void format_count(uint64_t n, char *out, size_t size);

// 1536 -> "1.5 KiB"; below 1024, "N bytes".
void format_bytes(uint64_t bytes, char *out, size_t size);

// s as a JSON string, quoted and escaped.
void json_string(FILE *out, const char *s);

// v with `digits` significant digits, or null when not finite (JSON has no
// NaN or infinity).
void json_float(FILE *out, double v, int digits);
