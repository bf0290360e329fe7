// SPDX-License-Identifier: MIT
// The poses file of `vkcollide collide`: one pose per line, 7 numbers
// (qw qx qy qz tx ty tz) separated by whitespace or commas; blank lines and
// lines starting with '#' skipped; a UTF-8 byte order mark ignored. Read
// from a file or a pipe through a fixed buffer, so memory is bounded for
// any length, and a bad line is reported with its line and column.
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vkcollide.h>

#define POSE_FIELDS 7
// Longest field kept; longer ones are reported, not parsed (no number needs
// this many characters, and the message quotes the field).
#define POSE_FIELD_CAPACITY 128
#define POSE_READ_BUFFER_BYTES (64u << 10)

typedef struct pose_reader {
	int fd;
	const char *name; // in messages: the path, or "<stdin>"
	// Nonzero asks the reader to stop (a signal handler's flag); may be NULL.
	const volatile sig_atomic_t *interrupt;
	unsigned char buf[POSE_READ_BUFFER_BYTES];
	size_t pos, len;
	bool at_end;
	bool started;     // the byte order mark has been looked for
	int read_errno;   // errno of a failed read; 0 = none
	uint64_t line;    // 1-based line of the next character
	uint64_t column;  // 1-based column (in bytes) of the next character
} pose_reader;

// Where and why a line is bad.
typedef struct pose_error {
	uint64_t line, column;
	char reason[POSE_FIELD_CAPACITY + 128];
} pose_error;

typedef enum read_status {
	READ_POSE,        // a pose was read
	READ_END,         // the input ended
	READ_STALLED,     // nothing to read for a while (only when asked to notice)
	READ_BAD_LINE,    // a bad line; pose_error says where
	READ_FAILED,      // the input cannot be read; reader.read_errno says why
	READ_INTERRUPTED, // *interrupt asked us to stop
} read_status;

// Opens path ("-" = standard input) into a new reader (*out, freed by
// pose_reader_close). On failure prints one line ("vkcollide: PATH: ...") and
// returns the exit status (EXIT_USAGE for a missing file or a directory,
// EXIT_RUNTIME when out of memory); *out is then NULL. Nothing is read yet.
int pose_reader_open(const char *path, const volatile sig_atomic_t *interrupt, pose_reader **out);

// Closes the file (not standard input) and frees the reader. NULL is accepted.
void pose_reader_close(pose_reader *r);

// Reads the next pose line into *pose (the quaternion normalised in double)
// and its line number into *line, skipping blank and comment lines. With
// notice_stall, returns READ_STALLED instead of waiting when no line has
// begun and the input is a pipe that stays silent (100 ms): the caller can
// answer the poses it holds meanwhile.
read_status pose_reader_read(pose_reader *r, bool notice_stall, vkcol_pose *pose, uint64_t *line,
                             pose_error *err);
