// SPDX-License-Identifier: MIT
// The job file of `vkcollide run`: a JSON object parsed with json-c.
//
//   {
//     "meshes": [ {"path": "box.obj", "name": "box", "scale": 1.0, "resolution": 64}, ... ],
//     "pairs": "pairs.txt",        text: "A B qw qx qy qz tx ty tz [A's pose]" per line;
//                                  or an .npy array (N, 2) of mesh indices
//     "poses": "poses.npy",        with .npy pairs only: (N, 7) or (N, 14) float64
//     "mode": "exact",             or "approx"
//     "resolution": 64,            cube map of meshes that do not set their own
//     "mip": 0,
//     "vertex_budget": 0,          approx mode: vertices tested per mesh at most (0 = all)
//     "output": "results.csv",
//     "format": "csv",             csv, jsonl or npy; default from the output's extension
//     "penetration": false         add the penetration column
//   }
//
// Paths are relative to the job file's folder. Only "meshes" and "pairs" are
// required. Any other key is an error. Every error names the file, the line
// and column in it, and the reason.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JOB_MAX_BYTES (16u << 20)
#define JOB_MAX_MESHES 65536u
#define JOB_NAME_MAX 64

typedef struct job_mesh {
	char *name;  // "" when the job gives none (pairs then use the index)
	char *path;  // as written in the job
	char *resolved; // relative to the job file's folder
	double scale;   // 1 when not given
	uint32_t resolution; // 0 = the job's
} job_mesh;

typedef struct job_spec {
	job_mesh *meshes;
	uint32_t mesh_count;
	char *pairs, *poses, *output;   // resolved paths; NULL when not given
	char *mode;                      // "exact", "approx" or NULL
	char *format;                    // "csv", "jsonl", "npy" or NULL
	uint32_t resolution;             // 0 = not given
	uint32_t mip;
	bool has_mip;
	uint32_t vertex_budget;
	bool has_vertex_budget;
	bool penetration; // add the penetration column
} job_spec;

typedef struct job_error {
	uint64_t line, column; // 1-based; 0 when the error concerns no place in the text
	char reason[320];
} job_error;

// Parses len bytes of text (a job file). base_dir is the folder relative
// paths start from ("" = the current folder). Returns true and fills *out
// (free with job_free), or false and fills *err.
bool job_parse(const char *text, size_t len, const char *base_dir, job_spec *out, job_error *err);

void job_free(job_spec *job);

// True when name may name a mesh in a pairs file: 1..64 bytes, no blanks,
// commas or control bytes, not starting with '#', not all digits. Else
// false and *why says why.
bool job_mesh_name_ok(const char *name, const char **why);

// Where meshes[index].path's value is in the job text (1-based line and
// column), for messages about the mesh file. False when not found.
bool job_mesh_position(const char *text, size_t len, uint32_t index, uint64_t *line, uint64_t *column);
