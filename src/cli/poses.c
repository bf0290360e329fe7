// SPDX-License-Identifier: MIT
// The poses file reader of `vkcollide collide` (see poses.h).
#include "poses.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

// A pipe that stays empty this long with poses in hand gets those answered
// and written: a slow producer still sees its results promptly.
#define STALL_MS 100

static bool interrupted(const pose_reader *r)
{
	return r->interrupt && *r->interrupt;
}

int pose_reader_open(const char *path, const volatile sig_atomic_t *interrupt, pose_reader **out)
{
	*out = NULL;
	pose_reader *reader = calloc(1, sizeof(*reader)); // a 64 KiB buffer: not on the stack
	if (!reader) {
		error_line("out of memory");
		return EXIT_RUNTIME;
	}
	reader->fd = -1;
	reader->interrupt = interrupt;
	reader->line = 1;
	reader->column = 1;
	if (strcmp(path, "-") == 0) {
		reader->fd = STDIN_FILENO;
		reader->name = "<stdin>";
		*out = reader;
		return 0;
	}
	reader->name = path;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		error_line("%s: cannot open the poses file: %s", path, strerror(errno));
		free(reader);
		return EXIT_USAGE;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		error_line("%s: cannot read the poses file: it is a directory", path);
		close(fd);
		free(reader);
		return EXIT_USAGE;
	}
	reader->fd = fd;
	*out = reader;
	return 0;
}

void pose_reader_close(pose_reader *r)
{
	if (!r)
		return;
	if (r->fd > STDIN_FILENO)
		close(r->fd);
	free(r);
}

// Refills the buffer. False at the end of the input, after a read error, or
// on an interrupt (then without marking the end).
static bool reader_fill(pose_reader *r)
{
	for (;;) {
		if (interrupted(r))
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
	while ((n = poll(&pfd, 1, STALL_MS)) < 0 && errno == EINTR && !interrupted(r))
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
		         field_names[index], POSE_FIELD_CAPACITY - 1);
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

read_status pose_reader_read(pose_reader *r, bool notice_stall, vkcol_pose *pose, uint64_t *line,
                             pose_error *err)
{
	if (!r->started) {
		r->started = true;
		skip_bom(r);
	}
	// Find the next pose line.
	for (;;) {
		if (interrupted(r))
			return READ_INTERRUPTED;
		if (notice_stall && reader_stalls(r))
			return interrupted(r) ? READ_INTERRUPTED : READ_STALLED;
		skip_blanks(r);
		int c = reader_peek(r);
		if (c == EOF && interrupted(r))
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
		if (c == EOF && interrupted(r))
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
		char text[POSE_FIELD_CAPACITY];
		size_t n = 0;
		bool too_long = false;
		while (!ends_field(c = reader_peek(r))) {
			if (c == '\0') {
				bad_line(err, r->line, r->column, "a NUL byte (is this a text file?)");
				return READ_BAD_LINE;
			}
			if (n + 1 < sizeof(text))
				text[n++] = (char)c;
			else
				too_long = true;
			reader_next(r);
		}
		text[n] = '\0';
		// A field cut short by an interrupt or a read error is not the
		// file's fault.
		if (c == EOF && interrupted(r))
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
