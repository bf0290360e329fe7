// SPDX-License-Identifier: MIT
// The result files of `vkcollide run` and `vkcollide merge` (see results.h).
#include "results.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CSV_COLUMNS "index,mesh_a,mesh_b,collide,stage,line\n"
#define CSV_PENETRATION_COLUMNS "index,mesh_a,mesh_b,collide,stage,penetration,line\n"

size_t npy_record_bytes(bool penetration)
{
	return penetration ? NPY_RESULT_PENETRATION_BYTES : NPY_RESULT_BYTES;
}

const char *format_name(result_format f)
{
	return f == FORMAT_CSV ? "csv" : f == FORMAT_JSONL ? "jsonl" : "npy";
}

const char *stage_name(uint32_t stage)
{
	switch (stage) {
	case VKCOL_STAGE_BOUNDS:
		return "bounds";
	case VKCOL_STAGE_CUBE_MAP:
		return "cube_map";
	case VKCOL_STAGE_TREE:
		return "tree";
	case VKCOL_STAGE_CONTAINMENT:
		return "containment";
	default:
		return "none";
	}
}

void format_float_short(float v, char *out, size_t size)
{
	if (v == 0.0f) {
		snprintf(out, size, "0");
		return;
	}
	for (int digits = 6; digits < 9; digits++) {
		snprintf(out, size, "%.*g", digits, (double)v);
		if (strtof(out, NULL) == v)
			return;
	}
	snprintf(out, size, "%.9g", (double)v);
}

static int comment_line(const result_header *h, char *out, size_t size)
{
	return snprintf(out, size, "# vkcollide job %016" PRIx64 " pairs %" PRIu64 " shard %u/%u first %" PRIu64
	                " rows %" PRIu64,
	                h->fingerprint, h->pairs, h->shard, h->shards, h->first, h->rows);
}

size_t result_header_write(result_format f, const result_header *h, char *out, size_t size)
{
	char comment[256];
	int n = comment_line(h, comment, sizeof(comment));
	int len;
	switch (f) {
	case FORMAT_CSV:
		len = snprintf(out, size, "%s\n%s", comment, h->penetration ? CSV_PENETRATION_COLUMNS : CSV_COLUMNS);
		break;
	case FORMAT_JSONL:
		len = snprintf(out, size,
		               "{\"vkcollide_job\":\"%016" PRIx64 "\",\"pairs\":%" PRIu64 ",\"shard\":\"%u/%u\",\"first\":%" PRIu64
		               ",\"rows\":%" PRIu64 "}\n",
		               h->fingerprint, h->pairs, h->shard, h->shards, h->first, h->rows);
		break;
	default: {
		// Version 1.0: magic, version, 2-byte header length, the
		// dictionary padded with spaces so the data starts at a multiple
		// of 64, then '\n'.
		char dict[512];
		int d = snprintf(dict, sizeof(dict), "{'descr': %s, 'fortran_order': False, 'shape': (%" PRIu64 ",), } %s",
		                 h->penetration ? NPY_RESULT_PENETRATION_DESCR : NPY_RESULT_DESCR, h->rows, comment);
		if (d < 0 || (size_t)d >= sizeof(dict))
			return 0;
		size_t total = 10 + (size_t)d + 1;
		total = (total + 63) / 64 * 64;
		if (total > size || total - 10 > 65535)
			return 0;
		size_t hl = total - 10;
		memcpy(out, "\x93NUMPY\x01\x00", 8);
		out[8] = (char)(hl & 0xff);
		out[9] = (char)(hl >> 8);
		memcpy(out + 10, dict, (size_t)d);
		memset(out + 10 + d, ' ', hl - (size_t)d - 1);
		out[total - 1] = '\n';
		return total;
	}
	}
	(void)n;
	return len > 0 && (size_t)len < size ? (size_t)len : 0;
}

static bool parse_comment(const char *s, result_header *h)
{
	char hex[17];
	unsigned long long pairs, first, rows;
	unsigned shard, shards;
	int used = 0;
	if (sscanf(s, "# vkcollide job %16[0-9a-f] pairs %llu shard %u/%u first %llu rows %llu%n", hex, &pairs, &shard,
	           &shards, &first, &rows, &used) != 6 || strlen(hex) != 16)
		return false;
	h->fingerprint = strtoull(hex, NULL, 16);
	h->pairs = pairs;
	h->shard = shard;
	h->shards = shards;
	h->first = first;
	h->rows = rows;
	return true;
}

static size_t header_read_one(result_format f, const char *bytes, size_t len, result_header *h, const char **why);

size_t result_header_read(result_format f, const char *bytes, size_t len, result_header *h, const char **why)
{
	// Both column sets; the one whose header reads back as written.
	for (int pen = 0; pen < 2; pen++) {
		h->penetration = pen;
		size_t n = header_read_one(f, bytes, len, h, why);
		if (n)
			return n;
	}
	return 0;
}

static size_t header_read_one(result_format f, const char *bytes, size_t len, result_header *h, const char **why)
{
	char line[512];
	*why = "no vkcollide job header (not a file of `vkcollide run`, or of another format)";
	if (f == FORMAT_NPY) {
		if (len < 10 || memcmp(bytes, "\x93NUMPY\x01\x00", 8) != 0)
			return 0;
		size_t hl = (size_t)(unsigned char)bytes[8] | (size_t)(unsigned char)bytes[9] << 8;
		if (10 + hl > len || hl >= sizeof(line))
			return 0;
		memcpy(line, bytes + 10, hl);
		line[hl] = '\0';
		const char *c = strstr(line, "} # vkcollide job ");
		if (!c || !parse_comment(c + 2, h))
			return 0;
		char again[1024];
		if (result_header_write(f, h, again, sizeof(again)) != 10 + hl || memcmp(again, bytes, 10 + hl) != 0)
			return 0;
		*why = NULL;
		return 10 + hl;
	}
	const char *nl = memchr(bytes, '\n', len < sizeof(line) ? len : sizeof(line));
	if (!nl)
		return 0;
	memcpy(line, bytes, (size_t)(nl - bytes));
	line[nl - bytes] = '\0';
	if (f == FORMAT_CSV) {
		if (!parse_comment(line, h))
			return 0;
	} else {
		char hex[17];
		unsigned long long pairs, first, rows;
		unsigned shard, shards;
		if (sscanf(line, "{\"vkcollide_job\":\"%16[0-9a-f]\",\"pairs\":%llu,\"shard\":\"%u/%u\",\"first\":%llu,\"rows\":%llu}",
		           hex, &pairs, &shard, &shards, &first, &rows) != 6)
			return 0;
		h->fingerprint = strtoull(hex, NULL, 16);
		h->pairs = pairs;
		h->shard = shard;
		h->shards = shards;
		h->first = first;
		h->rows = rows;
	}
	// The header must read back as written: the same bytes.
	char again[1024];
	size_t n = result_header_write(f, h, again, sizeof(again));
	if (n == 0 || n > len || memcmp(again, bytes, n) != 0)
		return 0;
	*why = NULL;
	return n;
}

// Decimal digits of v, no terminator. Returns the count.
static size_t put_u64(char *out, uint64_t v)
{
	char tmp[24];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

static size_t put_str(char *out, const char *s)
{
	size_t n = strlen(s);
	memcpy(out, s, n);
	return n;
}

static void put_le(char *out, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		out[i] = (char)(v >> (8 * i));
}

size_t result_row_write(result_format f, bool penetration, const result_row *r, char *out)
{
	char pen[32] = "";
	size_t o = 0;
	if (f == FORMAT_NPY) {
		uint32_t bits;
		memcpy(&bits, &r->penetration, 4);
		put_le(out, r->index, 8);
		put_le(out + 8, r->mesh_a, 4);
		put_le(out + 12, r->mesh_b, 4);
		out[16] = (char)r->collide;
		out[17] = (char)r->stage;
		if (!penetration) {
			put_le(out + 18, r->line, 8);
			return NPY_RESULT_BYTES;
		}
		put_le(out + 18, bits, 4);
		put_le(out + 22, r->line, 8);
		return NPY_RESULT_PENETRATION_BYTES;
	}
	if (penetration && isfinite(r->penetration))
		format_float_short(r->penetration, pen, sizeof(pen));
	else if (penetration)
		snprintf(pen, sizeof(pen), f == FORMAT_JSONL ? "null" : "nan");
	if (f == FORMAT_CSV) {
		o += put_u64(out + o, r->index);
		out[o++] = ',';
		o += put_u64(out + o, r->mesh_a);
		out[o++] = ',';
		o += put_u64(out + o, r->mesh_b);
		out[o++] = ',';
		out[o++] = r->collide ? '1' : '0';
		out[o++] = ',';
		o += put_str(out + o, stage_name(r->stage));
		out[o++] = ',';
		if (penetration) {
			o += put_str(out + o, pen);
			out[o++] = ',';
		}
		o += put_u64(out + o, r->line);
		out[o++] = '\n';
		return o;
	}
	o += put_str(out + o, "{\"index\":");
	o += put_u64(out + o, r->index);
	o += put_str(out + o, ",\"mesh_a\":");
	o += put_u64(out + o, r->mesh_a);
	o += put_str(out + o, ",\"mesh_b\":");
	o += put_u64(out + o, r->mesh_b);
	o += put_str(out + o, r->collide ? ",\"collide\":true,\"stage\":\"" : ",\"collide\":false,\"stage\":\"");
	o += put_str(out + o, stage_name(r->stage));
	if (penetration) {
		o += put_str(out + o, "\",\"penetration\":");
		o += put_str(out + o, pen);
		o += put_str(out + o, ",\"line\":");
	} else {
		o += put_str(out + o, "\",\"line\":");
	}
	o += put_u64(out + o, r->line);
	o += put_str(out + o, "}\n");
	return o;
}
