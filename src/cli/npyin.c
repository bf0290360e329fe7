// SPDX-License-Identifier: MIT
// Reading the header of a NumPy .npy input array (see npyin.h). The header
// is a Python dictionary literal with three keys, 'descr', 'fortran_order'
// and 'shape', as NumPy's format documentation specifies; this accepts the
// forms NumPy writes (and spacing variants), nothing else.
#include "npyin.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct cursor {
	const char *s;
	size_t n, i, base; // base: the header text's offset in the file
	char *why;
	size_t why_size;
	uint64_t *at;
} cursor;

static bool bad(cursor *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool bad(cursor *c, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	vsnprintf(c->why, c->why_size, fmt, args);
	va_end(args);
	*c->at = c->base + c->i;
	return false;
}

static void spaces(cursor *c)
{
	while (c->i < c->n && (c->s[c->i] == ' ' || c->s[c->i] == '\t' || c->s[c->i] == '\n'))
		c->i++;
}

static bool literal(cursor *c, char ch)
{
	spaces(c);
	if (c->i < c->n && c->s[c->i] == ch) {
		c->i++;
		return true;
	}
	return false;
}

// A quoted string ('...' or "...") without escapes, into out.
static bool string(cursor *c, char *out, size_t size)
{
	spaces(c);
	if (c->i >= c->n || (c->s[c->i] != '\'' && c->s[c->i] != '"'))
		return bad(c, "expected a quoted string in the .npy header");
	char q = c->s[c->i++];
	size_t k = 0;
	while (c->i < c->n && c->s[c->i] != q) {
		if (c->s[c->i] == '\\' || k + 1 >= size)
			return bad(c, "unexpected string in the .npy header");
		out[k++] = c->s[c->i++];
	}
	if (c->i >= c->n)
		return bad(c, "unterminated string in the .npy header");
	c->i++;
	out[k] = '\0';
	return true;
}

static bool uint_value(cursor *c, uint64_t *out)
{
	spaces(c);
	size_t start = c->i;
	uint64_t v = 0;
	while (c->i < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '9') {
		uint64_t d = (uint64_t)(c->s[c->i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return bad(c, "a dimension too large in the .npy shape");
		v = v * 10 + d;
		c->i++;
	}
	if (c->i < c->n && c->s[c->i] == 'L') // Python 2's long
		c->i++;
	if (c->i == start)
		return bad(c, "expected a dimension in the .npy shape");
	*out = v;
	return true;
}

static bool parse_descr(cursor *c, npy_info *out)
{
	size_t at = c->i;
	if (!string(c, out->descr, sizeof(out->descr)))
		return false;
	const char *d = out->descr;
	char order = d[0], kind = d[1];
	int bytes = d[2] - '0';
	bool known = strlen(d) == 3 && (kind == 'i' || kind == 'u' || kind == 'f') &&
	             (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8) && !(kind == 'f' && bytes < 4) &&
	             (order == '<' || order == '|' || (order == '=' && bytes == 1));
	if (!known) {
		c->i = at;
		return bad(c, "element type '%s' is not a little-endian integer or float (save with astype('<i8') or "
		              "astype('<f8'))", d);
	}
	out->kind = kind;
	out->item_bytes = (uint32_t)bytes;
	return true;
}

static bool parse_shape(cursor *c, npy_info *out)
{
	size_t at = c->i;
	if (!literal(c, '('))
		return bad(c, "expected a tuple for the .npy shape");
	out->ndim = 0;
	for (;;) {
		if (literal(c, ')'))
			break;
		if (out->ndim == 2) {
			c->i = at;
			return bad(c, "the array has more than 2 dimensions");
		}
		if (!uint_value(c, &out->shape[out->ndim++]))
			return false;
		if (!literal(c, ',')) {
			if (!literal(c, ')'))
				return bad(c, "expected ',' or ')' in the .npy shape");
			break;
		}
	}
	if (out->ndim == 0) {
		c->i = at;
		return bad(c, "the array is a scalar (shape ())");
	}
	return true;
}

bool npy_parse_header(const unsigned char *bytes, size_t len, npy_info *out, char *why, size_t why_size,
                      uint64_t *at)
{
	memset(out, 0, sizeof(*out));
	*at = 0;
	if (len < 10 || memcmp(bytes, "\x93NUMPY", 6) != 0) {
		snprintf(why, why_size, "not a NumPy .npy file (no \\x93NUMPY magic)");
		return false;
	}
	unsigned major = bytes[6];
	size_t header_len, start;
	if (major == 1) {
		header_len = (size_t)bytes[8] | (size_t)bytes[9] << 8;
		start = 10;
	} else if (major == 2 || major == 3) {
		if (len < 12) {
			snprintf(why, why_size, "the .npy header is cut short");
			return false;
		}
		header_len = (size_t)bytes[8] | (size_t)bytes[9] << 8 | (size_t)bytes[10] << 16 | (size_t)bytes[11] << 24;
		start = 12;
	} else {
		*at = 6;
		snprintf(why, why_size, ".npy format version %u is not known (1, 2 or 3)", major);
		return false;
	}
	if (header_len > len - start) {
		*at = 8;
		snprintf(why, why_size, "the .npy header (%zu bytes) is longer than the file's first %zu bytes", header_len,
		         len - start);
		return false;
	}
	cursor c = {(const char *)bytes + start, header_len, 0, start, why, why_size, at};
	if (!literal(&c, '{'))
		return bad(&c, "the .npy header is not a dictionary");
	bool seen[3] = {false, false, false};
	for (;;) {
		if (literal(&c, '}'))
			break;
		char key[32];
		size_t key_at = c.i;
		if (!string(&c, key, sizeof(key)))
			return false;
		if (!literal(&c, ':'))
			return bad(&c, "expected ':' in the .npy header");
		int k = strcmp(key, "descr") == 0 ? 0 : strcmp(key, "fortran_order") == 0 ? 1 : strcmp(key, "shape") == 0 ? 2 : -1;
		if (k < 0 || seen[k]) {
			c.i = key_at;
			return bad(&c, "%s key '%s' in the .npy header", k < 0 ? "unknown" : "repeated", key);
		}
		seen[k] = true;
		if (k == 0 && !parse_descr(&c, out))
			return false;
		if (k == 1) {
			spaces(&c);
			if (c.n - c.i >= 5 && memcmp(c.s + c.i, "False", 5) == 0) {
				c.i += 5;
			} else if (c.n - c.i >= 4 && memcmp(c.s + c.i, "True", 4) == 0) {
				return bad(&c, "the array is in Fortran order (save np.ascontiguousarray(a))");
			} else {
				return bad(&c, "fortran_order is neither True nor False");
			}
		}
		if (k == 2 && !parse_shape(&c, out))
			return false;
		if (!literal(&c, ',')) {
			if (!literal(&c, '}'))
				return bad(&c, "expected ',' or '}' in the .npy header");
			break;
		}
	}
	if (!seen[0] || !seen[1] || !seen[2])
		return bad(&c, "the .npy header lacks '%s'", !seen[0] ? "descr" : !seen[1] ? "fortran_order" : "shape");
	out->data_offset = start + header_len;
	return true;
}
