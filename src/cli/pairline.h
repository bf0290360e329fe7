// SPDX-License-Identifier: MIT
// One line of a job's pairs file (`vkcollide run`):
//     MESH_A MESH_B  qw qx qy qz tx ty tz  [qw qx qy qz tx ty tz]
// fields separated by blanks or commas. MESH_A and MESH_B are mesh names of
// the job, or their indices from 0. The first 7 numbers are the pose of B in
// A's frame; the optional 7 more are A's pose in the world (default: the
// identity). The parser works on one line held in memory (no newline), so it
// can run on many threads, and it is what tests/fuzz/fuzz_pairline.c fuzzes.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vkcollide.h>

// A line longer than this is refused (a pose needs under 400 characters; a
// file without newlines must not be read into memory whole).
#define PAIR_LINE_MAX_BYTES (1u << 20)
// Longest field parsed; longer fields are refused and quoted cut.
#define PAIR_FIELD_MAX 128

// The job's meshes as the parser sees them: names, in index order ("" for
// a mesh without a name: it is named by its index only), and optionally
// their indices sorted by name (mesh_names_sort) for a binary search; NULL
// = a linear search.
typedef struct mesh_names {
	const char *const *names;
	uint32_t count;
	const uint32_t *sorted;
} mesh_names;

// Fills sorted[0..count) with the indices of names in strcmp order.
void mesh_names_sort(const char *const *names, uint32_t *sorted, uint32_t count);

typedef struct pair_line {
	uint32_t mesh[2];
	vkcol_pose pose_a; // A in the world
	vkcol_pose pose_b; // B in the world: A's world pose times the relative pose
} pair_line;

typedef struct pair_line_error {
	uint64_t column; // 1-based, in bytes
	char reason[256];
} pair_line_error;

// True when a line is a pair line: its first character other than blanks
// (space, tab, CR, VT, FF) is neither '#' nor the end. Blank and comment
// lines are skipped without counting; every other line is a pair (and a bad
// one is an error). line has len bytes and no newline.
bool pair_line_counts(const char *line, size_t len);

// Parses a pair line. Returns true and fills *out, or false and fills *err.
bool pair_line_parse(const char *line, size_t len, const mesh_names *meshes, pair_line *out, pair_line_error *err);

// Fills pose from 7 numbers (qw qx qy qz tx ty tz): the quaternion
// normalised in double. False when the quaternion is zero or a translation
// does not fit a float (reason says which).
bool pose_from_numbers(const double v[7], vkcol_pose *pose, const char **reason);

// world = a * rel (rel applied first), composed in double.
void pose_compose(const double a[7], const double rel[7], vkcol_pose *world);
