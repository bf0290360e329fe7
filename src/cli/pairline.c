// SPDX-License-Identifier: MIT
// The pairs-file line parser of `vkcollide run` (see pairline.h).
#include "pairline.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

bool pair_line_counts(const char *line, size_t len)
{
	size_t i = 0;
	while (i < len && is_blank(line[i]))
		i++;
	return i < len && line[i] != '#';
}

static void fail(pair_line_error *err, size_t index, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fail(pair_line_error *err, size_t index, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	err->column = (uint64_t)index + 1;
	vsnprintf(err->reason, sizeof(err->reason), fmt, args);
	va_end(args);
}

// A field as quoted in a message: at most 40 characters, bytes outside
// printable ASCII escaped, "..." when cut.
static void quote(const char *s, size_t n, char *out, size_t size)
{
	size_t o = 0, i = 0;
	for (; i < n && i < 40 && o + 8 < size; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c >= 0x7f || c == '\'' || c == '\\')
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = '\0';
	if (i < n)
		memcpy(out + o, "...", 4);
}

static const char *const field_names[14] = {"qw", "qx", "qy", "qz", "tx", "ty", "tz",
                                            "A's qw", "A's qx", "A's qy", "A's qz", "A's tx", "A's ty", "A's tz"};

bool pose_from_numbers(const double v[7], vkcol_pose *pose, const char **reason)
{
	// Scaled first, so that tiny or huge components neither underflow nor
	// overflow.
	double scale = 0.0;
	for (int k = 0; k < 4; k++)
		scale = fmax(scale, fabs(v[k]));
	if (scale == 0.0) {
		*reason = "zero quaternion (qw qx qy qz are all 0): not a rotation";
		return false;
	}
	for (int k = 4; k < 7; k++) {
		if (!isfinite((float)v[k])) {
			*reason = "a translation beyond the float range";
			return false;
		}
	}
	double norm = 0.0;
	for (int k = 0; k < 4; k++)
		norm += (v[k] / scale) * (v[k] / scale);
	norm = sqrt(norm);
	for (int k = 0; k < 4; k++)
		pose->rotation[k] = (float)(v[k] / scale / norm);
	for (int k = 0; k < 3; k++)
		pose->translation[k] = (float)v[4 + k];
	return true;
}

static void unit_quaternion(const double v[4], double q[4])
{
	double scale = 0.0;
	for (int k = 0; k < 4; k++)
		scale = fmax(scale, fabs(v[k]));
	double norm = 0.0;
	for (int k = 0; k < 4; k++)
		norm += (v[k] / scale) * (v[k] / scale);
	norm = sqrt(norm);
	for (int k = 0; k < 4; k++)
		q[k] = v[k] / scale / norm;
}

void pose_compose(const double a[7], const double rel[7], vkcol_pose *world)
{
	double qa[4], qr[4];
	unit_quaternion(a, qa);
	unit_quaternion(rel, qr);
	// Hamilton product qa * qr (w first).
	double q[4] = {
		qa[0] * qr[0] - qa[1] * qr[1] - qa[2] * qr[2] - qa[3] * qr[3],
		qa[0] * qr[1] + qa[1] * qr[0] + qa[2] * qr[3] - qa[3] * qr[2],
		qa[0] * qr[2] - qa[1] * qr[3] + qa[2] * qr[0] + qa[3] * qr[1],
		qa[0] * qr[3] + qa[1] * qr[2] - qa[2] * qr[1] + qa[3] * qr[0],
	};
	// R(qa) t_rel + t_a.
	double w = qa[0], x = qa[1], y = qa[2], z = qa[3];
	double r[3][3] = {
		{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
		{2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
		{2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)},
	};
	for (int k = 0; k < 4; k++)
		world->rotation[k] = (float)q[k];
	for (int i = 0; i < 3; i++)
		world->translation[i] = (float)(r[i][0] * rel[4] + r[i][1] * rel[5] + r[i][2] * rel[6] + a[4 + i]);
}

// Resolves a mesh field: a name of the job, else an index.
// Compares the n bytes of s with a NUL-terminated name, as strcmp orders.
static int compare_name(const char *s, size_t n, const char *name)
{
	size_t len = strlen(name);
	int c = memcmp(s, name, n < len ? n : len);
	return c ? c : (n > len) - (n < len);
}

void mesh_names_sort(const char *const *names, uint32_t *sorted, uint32_t count)
{
	// Insertion into place by binary search: jobs have up to 65,536 meshes.
	for (uint32_t i = 0; i < count; i++) {
		uint32_t lo = 0, hi = i;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (strcmp(names[sorted[mid]], names[i]) <= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		memmove(sorted + lo + 1, sorted + lo, (i - lo) * sizeof(*sorted));
		sorted[lo] = i;
	}
}

static bool mesh_field(const char *s, size_t n, size_t at, const mesh_names *meshes, int which, uint32_t *out,
                       pair_line_error *err)
{
	if (meshes->sorted) {
		uint32_t lo = 0, hi = meshes->count;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			int c = compare_name(s, n, meshes->names[meshes->sorted[mid]]);
			if (c == 0) {
				*out = meshes->sorted[mid];
				return true;
			}
			if (c < 0)
				hi = mid;
			else
				lo = mid + 1;
		}
	} else {
		for (uint32_t m = 0; m < meshes->count; m++) {
			if (compare_name(s, n, meshes->names[m]) == 0 && meshes->names[m][0]) {
				*out = m;
				return true;
			}
		}
	}
	char quoted[64];
	quote(s, n, quoted, sizeof(quoted));
	bool digits = n > 0 && n <= 10;
	for (size_t i = 0; i < n && digits; i++)
		digits = s[i] >= '0' && s[i] <= '9';
	if (digits) {
		uint64_t v = 0;
		for (size_t i = 0; i < n; i++)
			v = v * 10 + (uint64_t)(s[i] - '0');
		if (v < meshes->count) {
			*out = (uint32_t)v;
			return true;
		}
		fail(err, at, "mesh %s '%s': the job has %u mesh%s (indices 0..%u)", which ? "B" : "A", quoted,
		     meshes->count, meshes->count == 1 ? "" : "es", meshes->count ? meshes->count - 1 : 0);
		return false;
	}
	fail(err, at, "mesh %s '%s' is neither a mesh name of the job nor an index", which ? "B" : "A", quoted);
	return false;
}

static bool number_field(const char *s, size_t n, size_t at, int index, double *out, pair_line_error *err)
{
	char quoted[64];
	if (n >= PAIR_FIELD_MAX) {
		quote(s, n, quoted, sizeof(quoted));
		fail(err, at, "'%s' is too long for a number (%s: more than %d characters)", quoted, field_names[index],
		     PAIR_FIELD_MAX - 1);
		return false;
	}
	char text[PAIR_FIELD_MAX];
	memcpy(text, s, n);
	text[n] = '\0';
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || *end != '\0' || isnan(v) || isinf(v))
		quote(s, n, quoted, sizeof(quoted));
	if (end == text || *end != '\0') {
		fail(err, at, "'%s' is not a number (%s)", quoted, field_names[index]);
		return false;
	}
	if (isnan(v) || (isinf(v) && errno != ERANGE)) {
		fail(err, at, "'%s' is not a finite number (%s)", quoted, field_names[index]);
		return false;
	}
	if (isinf(v)) {
		fail(err, at, "'%s' is out of range (%s)", quoted, field_names[index]);
		return false;
	}
	*out = v;
	return true;
}

bool pair_line_parse(const char *line, size_t len, const mesh_names *meshes, pair_line *out, pair_line_error *err)
{
	const char *nul = memchr(line, '\0', len);
	if (nul) {
		fail(err, (size_t)(nul - line), "a NUL byte (is this a text file?)");
		return false;
	}
	if (len > PAIR_LINE_MAX_BYTES) {
		fail(err, PAIR_LINE_MAX_BYTES, "the line is longer than %u bytes", PAIR_LINE_MAX_BYTES);
		return false;
	}
	double v[14];
	size_t starts[16];
	int count = 0;
	size_t i = 0;
	bool after_comma = false;
	for (;;) {
		while (i < len && is_blank(line[i]))
			i++;
		if (i < len && line[i] == ',') {
			if (count == 0 || after_comma) {
				fail(err, i, "empty field before ','");
				return false;
			}
			after_comma = true;
			i++;
			continue;
		}
		if (i == len) {
			if (after_comma) {
				fail(err, i, "empty field after ','");
				return false;
			}
			break;
		}
		size_t start = i;
		while (i < len && !is_blank(line[i]) && line[i] != ',')
			i++;
		after_comma = false;
		if (count == 16) {
			char quoted[64];
			quote(line + start, i - start, quoted, sizeof(quoted));
			fail(err, start, "unexpected '%s' after the 16 fields of a pair (A B, B's pose, A's pose)", quoted);
			return false;
		}
		if (count < 2) {
			if (!mesh_field(line + start, i - start, start, meshes, count, &out->mesh[count], err))
				return false;
		} else if (!number_field(line + start, i - start, start, count - 2, &v[count - 2], err)) {
			return false;
		}
		starts[count++] = start;
	}
	if (count < 9) {
		static const char *const what[9] = {"mesh A", "mesh B", "qw", "qx", "qy", "qz", "tx", "ty", "tz"};
		fail(err, len, "%d field%s, expected 9 (A B qw qx qy qz tx ty tz) or 16: %s is missing", count,
		     count == 1 ? "" : "s", what[count]);
		return false;
	}
	if (count != 9 && count != 16) {
		fail(err, len, "%d fields: A's pose wants 7 numbers (qw qx qy qz tx ty tz), %d given", count, count - 9);
		return false;
	}
	const char *reason;
	if (!pose_from_numbers(v, &out->pose_b, &reason)) {
		fail(err, starts[2], "%s", reason);
		return false;
	}
	if (count == 16) {
		if (!pose_from_numbers(v + 7, &out->pose_a, &reason)) {
			fail(err, starts[9], "A's pose: %s", reason);
			return false;
		}
		pose_compose(v + 7, v, &out->pose_b);
		for (int k = 0; k < 3; k++) {
			if (!isfinite(out->pose_b.translation[k])) {
				fail(err, starts[9], "B's world translation is beyond the float range");
				return false;
			}
		}
	} else {
		out->pose_a = (vkcol_pose){{1, 0, 0, 0}, {0, 0, 0}};
	}
	return true;
}
