// SPDX-License-Identifier: MIT
// `vkcollide merge --out FILE SHARD...`: joins the shard outputs of a job
// (`vkcollide run --shard K/N`) into the bytes a single run writes. Every
// shard is checked before anything is written: the same job (fingerprint,
// pair count, shard count, format), each shard once, none missing, each
// complete (its rows, in order, whole lines).
#include "merge.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "results.h"

#define COPY_BLOCK (1u << 20)

static int cmd_merge(const command *cmd, int argc, char **argv);

static const char *const merge_help[] = {
	"Joins the outputs of the shards of one job (vkcollide run --shard K/N, K\n"
	"from 0 to N-1) into one file: the exact bytes a single run of the job\n"
	"writes. Nothing is written unless every shard is there once, from the same\n"
	"job (the fingerprint in each file's header), and complete. The output is\n"
	"written to a temporary file beside FILE and renamed at the end.\n"
	"\n"
	"Options:\n"
	"  --out FILE   the merged results (- writes standard output); required\n",
	NULL,
};

const command merge_command = {
	"merge",
	"--out FILE SHARD...",
	"join the shard outputs of a job into the single run's bytes",
	merge_help,
	cmd_merge,
};

typedef struct shard_file {
	const char *path;
	int fd;
	result_header h;
	uint64_t data; // offset of the first row
	uint64_t size;
} shard_file;

static bool detect_format(const char *head, size_t n, result_format *f)
{
	if (n >= 6 && memcmp(head, "\x93NUMPY", 6) == 0)
		*f = FORMAT_NPY;
	else if (n >= 1 && head[0] == '#')
		*f = FORMAT_CSV;
	else if (n >= 1 && head[0] == '{')
		*f = FORMAT_JSONL;
	else
		return false;
	return true;
}

// The index a text row starts with; false when it does not.
static bool row_index(result_format f, const char *row, size_t n, uint64_t *index)
{
	size_t i = 0;
	if (f == FORMAT_JSONL) {
		static const char key[] = "{\"index\":";
		if (n < sizeof(key) - 1 || memcmp(row, key, sizeof(key) - 1) != 0)
			return false;
		i = sizeof(key) - 1;
	}
	uint64_t v = 0;
	size_t start = i;
	while (i < n && row[i] >= '0' && row[i] <= '9' && i - start < 20)
		v = v * 10 + (uint64_t)(row[i++] - '0');
	*index = v;
	return i > start && i < n && row[i] == ',';
}

// Checks that a shard's rows are complete and in order. Returns NULL or why not.
static const char *check_rows(result_format f, shard_file *s, char *why, size_t size)
{
	if (f == FORMAT_NPY) {
		size_t rec_bytes = npy_record_bytes(s->h.penetration);
		uint64_t want = s->data + s->h.rows * rec_bytes;
		if (s->size != want) {
			snprintf(why, size, "incomplete: %" PRIu64 " bytes, its %" PRIu64 " rows need %" PRIu64, s->size, s->h.rows,
			         want);
			return why;
		}
		unsigned char rec[NPY_RESULT_PENETRATION_BYTES];
		for (uint64_t r = 0; r < s->h.rows; r += s->h.rows - r > 1 ? s->h.rows - r - 1 : 1) {
			if (pread(s->fd, rec, rec_bytes, (off_t)(s->data + r * rec_bytes)) != (ssize_t)rec_bytes)
				return "cannot read it";
			uint64_t idx = 0;
			for (int b = 0; b < 8; b++)
				idx |= (uint64_t)rec[b] << (8 * b);
			if (idx != s->h.first + r) {
				snprintf(why, size, "row %" PRIu64 " holds pair %" PRIu64 ", not %" PRIu64, r, idx, s->h.first + r);
				return why;
			}
		}
		return NULL;
	}
	char *buf = malloc(COPY_BLOCK);
	char *line = malloc(64);
	if (!buf || !line) {
		free(buf);
		free(line);
		return "out of memory";
	}
	uint64_t off = s->data, rows = 0;
	size_t held = 0; // bytes of the current row's start kept in line
	const char *result = NULL;
	while (!result && off < s->size) {
		ssize_t r = pread(s->fd, buf, COPY_BLOCK, (off_t)off);
		if (r <= 0) {
			result = "cannot read it";
			break;
		}
		for (ssize_t i = 0; i < r && !result; i++) {
			if (held < 64)
				line[held++] = buf[i];
			if (buf[i] != '\n')
				continue;
			uint64_t idx;
			if (!row_index(f, line, held, &idx) || idx != s->h.first + rows) {
				snprintf(why, size, "row %" PRIu64 " is not pair %" PRIu64 "'s", rows + 1, s->h.first + rows);
				result = why;
			}
			rows++;
			held = 0;
		}
		off += (uint64_t)r;
	}
	free(buf);
	free(line);
	if (!result && (held || rows != s->h.rows)) {
		snprintf(why, size, "incomplete: %" PRIu64 " whole rows%s of %" PRIu64, rows, held ? " and a torn one" : "",
		         s->h.rows);
		result = why;
	}
	return result;
}

static int cmd_merge(const command *cmd, int argc, char **argv)
{
	const char *out = NULL;
	int count = 0;
	shard_file *files = calloc((size_t)argc, sizeof(*files));
	if (!files)
		return EXIT_RUNTIME;
	bool options_done = false;
	int status = 0;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const char *value = NULL;
		if (options_done || arg[0] != '-' || arg[1] == '\0') {
			files[count++].path = arg;
		} else if (strcmp(arg, "--") == 0) {
			options_done = true;
		} else if (is_help_option(arg)) {
			print_command_help(cmd, stdout);
			free(files);
			return 0;
		} else if (match_value_option(argc, argv, &i, "--out", &value)) {
			if (!value || !*value) {
				free(files);
				return usage_error(cmd, "--out wants a file name (or - for standard output)");
			}
			out = value;
		} else {
			free(files);
			return usage_error(cmd, "unknown option '%s'", arg);
		}
	}
	if (!out || count == 0) {
		free(files);
		return usage_error(cmd, !out ? "no --out FILE given" : "no shard files given");
	}
	for (int k = 0; k < count; k++)
		files[k].fd = -1;

	input_set inputs = {0};
	out_file of = {0};
	of.fd = -1;
	result_format f = FORMAT_CSV;
	shard_file **by_shard = NULL;
	char why[256];
	for (int k = 0; k < count && !status; k++) {
		shard_file *s = &files[k];
		s->fd = open(s->path, O_RDONLY | O_CLOEXEC);
		struct stat st;
		if (s->fd < 0 || fstat(s->fd, &st) != 0 || S_ISDIR(st.st_mode)) {
			error_line("%s: cannot read the shard: %s", s->path, s->fd < 0 ? strerror(errno) : "it is a folder");
			status = EXIT_USAGE;
			break;
		}
		s->size = (uint64_t)st.st_size;
		char head[1024];
		ssize_t n = pread(s->fd, head, sizeof(head), 0);
		result_format sf;
		const char *reason = "no vkcollide job header: not an output of `vkcollide run`";
		if (n <= 0 || !detect_format(head, (size_t)n, &sf) ||
		    !(s->data = result_header_read(sf, head, (size_t)n, &s->h, &reason))) {
			error_line("%s: %s", s->path, reason ? reason : "unreadable header");
			status = EXIT_USAGE;
			break;
		}
		if (k == 0)
			f = sf;
		const shard_file *a = &files[0];
		if (sf != f || s->h.fingerprint != a->h.fingerprint || s->h.pairs != a->h.pairs || s->h.shards != a->h.shards ||
		    s->h.penetration != a->h.penetration) {
			error_line("%s: from another job: %s job %016" PRIx64 ", %" PRIu64 " pairs in %u shards; %s: %s job %016" PRIx64
			           ", %" PRIu64 " pairs in %u shards",
			           s->path, format_name(sf), s->h.fingerprint, s->h.pairs, s->h.shards, a->path, format_name(f),
			           a->h.fingerprint, a->h.pairs, a->h.shards);
			status = EXIT_USAGE;
			break;
		}
		uint64_t first = s->h.pairs * s->h.shard / s->h.shards;
		uint64_t end = s->h.pairs * (s->h.shard + 1) / s->h.shards;
		if (s->h.shard >= s->h.shards || s->h.first != first || s->h.rows != end - first) {
			error_line("%s: its header's slice (first %" PRIu64 ", %" PRIu64 " rows) is not shard %u/%u's", s->path,
			           s->h.first, s->h.rows, s->h.shard, s->h.shards);
			status = EXIT_USAGE;
			break;
		}
		input_set_add(&inputs, s->path, "a shard file");
	}
	if (!status) {
		uint32_t n = files[0].h.shards;
		by_shard = calloc(n, sizeof(*by_shard));
		if (!by_shard)
			status = EXIT_RUNTIME;
		for (int k = 0; k < count && !status; k++) {
			shard_file **slot = &by_shard[files[k].h.shard];
			if (*slot) {
				error_line("%s: shard %u/%u given twice (also %s)", files[k].path, files[k].h.shard, n, (*slot)->path);
				status = EXIT_USAGE;
			}
			*slot = &files[k];
		}
		for (uint32_t k = 0; k < n && !status; k++) {
			if (!by_shard[k]) {
				error_line("shard %u/%u of job %016" PRIx64 " is missing (%d of %u shards given)", k, n,
				           files[0].h.fingerprint, count, n);
				status = EXIT_USAGE;
			}
		}
		for (uint32_t k = 0; k < n && !status; k++) {
			const char *bad = check_rows(f, by_shard[k], why, sizeof(why));
			if (bad) {
				error_line("%s: shard %u/%u: %s", by_shard[k]->path, k, n, bad);
				status = EXIT_USAGE;
			}
		}
	}
	if (!status)
		status = out_open(&of, out, "--out", &inputs, NULL, false, false);
	if (!status) {
		result_header h = files[0].h;
		h.shard = 0;
		h.shards = 1;
		h.first = 0;
		h.rows = h.pairs;
		char hdr[1024];
		size_t hl = result_header_write(f, &h, hdr, sizeof(hdr));
		char *buf = malloc(COPY_BLOCK);
		bool ok = buf && write_all(of.fd, hdr, hl);
		for (uint32_t k = 0; ok && k < files[0].h.shards; k++) {
			shard_file *s = by_shard[k];
			for (uint64_t off = s->data; ok && off < s->size;) {
				ssize_t r = pread(s->fd, buf, COPY_BLOCK, (off_t)off);
				ok = r > 0 && write_all(of.fd, buf, (size_t)r);
				off += r > 0 ? (uint64_t)r : 0;
			}
		}
		free(buf);
		if (!ok) {
			error_line("%s: cannot write the merged results: %s", out, strerror(errno));
			out_discard(&of);
			status = EXIT_RUNTIME;
		} else {
			status = out_commit(&of);
		}
	}
	for (int k = 0; k < count; k++) {
		if (files[k].fd >= 0)
			close(files[k].fd);
	}
	free(by_shard);
	free(files);
	input_set_free(&inputs);
	return status;
}
