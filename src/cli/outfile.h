// SPDX-License-Identifier: MIT
// Output files that lose nothing: every output that is (or will be) a
// regular file is written to a temporary file beside its target and
// renamed over it at the end, so a run that
// fails, is killed or crashes leaves the target as it was; no output may be
// one of the run's inputs (same file, hard links and symbolic links
// included) or another output; "-" is standard output. A target that
// exists and is not a regular file (/dev/null, a named pipe) is written in
// place.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

// The files a run reads, so that no output can be one of them. Zero it
// before use; input_set_free frees it.
typedef struct input_item {
	const char *path;
	const char *what; // "the poses file", "the mesh file", ...
	dev_t dev;
	ino_t ino;
} input_item;

typedef struct input_set {
	input_item *items;
	int count, capacity;
} input_set;

// Adds an input that exists (a failed stat is ignored: the open that follows
// reports it). False when out of memory.
bool input_set_add(input_set *set, const char *path, const char *what);
void input_set_free(input_set *set);

typedef struct out_file {
	const char *path;  // the target as given
	const char *what;  // "--out", "--triangle-pairs", "the output"
	bool to_stdout;    // "-"
	bool direct;       // not a regular file (a device, a pipe): written in place, no temporary file
	char *temp;        // the temporary file beside the target (malloc)
	int fd;            // open on temp (or 1 for standard output); -1 when closed
	bool partial_name; // temp is PATH.partial (kept for --resume), else a unique name
} out_file;

// Checks path as an output (not a folder, not any input, not `other`, which
// may be NULL) and creates its temporary file: PATH.partial when
// partial_name (truncated unless keep; locked against a second writer), else
// a unique PATH.tmp-XXXXXX. Nothing is written to the target. Prints one
// error line and returns the exit status on failure, else 0.
int out_open(out_file *f, const char *path, const char *what, const input_set *inputs, const out_file *other,
             bool partial_name, bool keep);

// Makes the temporary file durable and renames it over the target (then
// syncs the folder). Standard output: nothing to do. Prints one error line
// and returns the exit status on failure, else 0.
int out_commit(out_file *f);

// Closes the temporary file and removes it (a run that failed before writing
// results). Standard output: nothing.
void out_discard(out_file *f);

// Closes the temporary file, keeping it (an interrupted run resumable with
// --resume): synced first.
void out_keep(out_file *f);

// Writes all of buf (retrying short writes and EINTR). False with errno set.
bool write_all(int fd, const void *buf, size_t len);
