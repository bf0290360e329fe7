// SPDX-License-Identifier: MIT
// The result files of `vkcollide run` and `vkcollide merge`: their header
// (the job's fingerprint and which slice of the pairs the file holds) and
// their rows, as CSV, JSON Lines or a NumPy .npy structured array.
//
//   csv    # vkcollide job 1f0c...e2 pairs 4000 shard 0/1 first 0 rows 4000
//          index,mesh_a,mesh_b,collide,stage,line
//          0,0,1,1,cube_map,3
//   jsonl  {"vkcollide_job":"1f0c...e2","pairs":4000,"shard":"0/1","first":0,"rows":4000}
//          {"index":0,"mesh_a":0,"mesh_b":1,"collide":true,"stage":"cube_map","line":3}
// With --penetration, a penetration column before line.
//   npy    a (rows,) structured array; the same header line as a comment
//          after the dictionary of the .npy header (NumPy ignores it)
//
// A shard's file has the same header as the whole job's but for shard,
// first and rows, so merging the shards of a job gives the bytes of the
// single run.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vkcollide.h>

typedef enum result_format {
	FORMAT_CSV,
	FORMAT_JSONL,
	FORMAT_NPY,
} result_format;

// One record of the .npy results: packed, little-endian; 'penetration'
// only when asked for (it is not deterministic: see docs/jobs.md).
#define NPY_RESULT_BYTES 26
#define NPY_RESULT_PENETRATION_BYTES 30
#define NPY_RESULT_DESCR                                                                                          \
	"[('index', '<u8'), ('mesh_a', '<u4'), ('mesh_b', '<u4'), ('collide', 'u1'), ('stage', 'u1'), "              \
	"('line', '<u8')]"
#define NPY_RESULT_PENETRATION_DESCR                                                                              \
	"[('index', '<u8'), ('mesh_a', '<u4'), ('mesh_b', '<u4'), ('collide', 'u1'), ('stage', 'u1'), "              \
	"('penetration', '<f4'), ('line', '<u8')]"

typedef struct result_header {
	uint64_t fingerprint;
	uint64_t pairs;       // in the whole job
	uint32_t shard, shards; // shard K of N, from 0
	uint64_t first, rows; // the pairs [first, first + rows) this file holds
	bool penetration;     // the rows have a penetration column
} result_header;

typedef struct result_row {
	uint64_t index;
	uint32_t mesh_a, mesh_b;
	uint32_t collide, stage;
	float penetration;
	uint64_t line;
} result_row;

const char *format_name(result_format f);

// The header bytes of a file (the .npy header included). Returns the length
// written (at most size), 0 if it does not fit.
size_t result_header_write(result_format f, const result_header *h, char *out, size_t size);

// Reads a header from the start of a file's bytes (up to len of them).
// Returns the header's length and fills *h, or 0 with *why set.
size_t result_header_read(result_format f, const char *bytes, size_t len, result_header *h, const char **why);

// Appends one row to out (at most RESULT_ROW_MAX bytes). Returns its length.
#define RESULT_ROW_MAX 192
size_t result_row_write(result_format f, bool penetration, const result_row *r, char *out);

// Bytes of one .npy record.
size_t npy_record_bytes(bool penetration);

// The stage as a word of the text formats.
const char *stage_name(uint32_t stage);

// The shortest of %.6g .. %.9g that reads back as the same float.
void format_float_short(float v, char *out, size_t size);
