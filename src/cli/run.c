// SPDX-License-Identifier: MIT
// `vkcollide run JOB`: many meshes, millions of pairs, nothing lost.
//
// Before any work every path is checked: the job, the pairs (and poses)
// file, every mesh file, and the output, whose temporary file beside it
// (OUT.partial) is created and locked. A regular pairs file is read once
// ahead to count its pairs and hash it (the job's fingerprint covers the
// settings, the mesh files and the pairs). Each mesh is imported, checked
// and built once and shared by all its pairs.
//
// Then a pipeline of blocks ("slots", 65,536 pairs at most) streams the
// pairs with bounded memory: a reader thread cuts the input into slots of
// whole lines; worker threads (one per core) parse a slot's lines in pieces;
// the main thread answers the slots in order on the device, one
// vkcol_batch_run call each; the workers format the answers; a writer thread
// appends them, in order, to OUT.partial in whole lines, syncing it to disk
// at least every second. Reading, parsing, formatting and writing of other
// slots overlap the device's work. At the end OUT.partial is renamed to OUT.
//
// An interrupt (SIGINT, SIGTERM), a bad line or a device failure keeps
// OUT.partial with every answer computed before it; `--resume` continues
// after its last whole line (a torn last line is dropped and redone).
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "cli.h"
#include "import.h"
#include "job.h"
#include "npyin.h"
#include "outfile.h"
#include "pairline.h"
#include "results.h"

#define SLOT_PAIRS 65536u // the largest block, the default
#define PIECE_PAIRS 4096u
#define SLOT_TEXT_MAX (8u << 20)
#define READ_BLOCK (1u << 20)
#define MAX_WORKERS 16
#define DEFAULT_RESOLUTION 64
#define SYNC_INTERVAL_S 1.0
#define DEFAULT_PROGRESS_S 10.0
#define FINGERPRINT_VERSION "vkcollide-job 1"
// npy rows of a slot are kept as doubles: 2 mesh indices and 14 numbers.
#define NPY_ROW_DOUBLES 16

static int cmd_run(const command *cmd, int argc, char **argv);

static const char *const run_help[] = {
	"Runs a job: answers, for every pair of its pairs file, whether mesh B at its\n"
	"pose intersects mesh A, for many meshes at once. Each mesh is imported and\n"
	"built once; pairs of any meshes share the device's batches. Memory stays\n"
	"bounded for any number of pairs. See docs/jobs.md for the whole story.\n"
	"\n"
	"Job file (JSON):\n"
	"  {\"meshes\": [{\"path\": \"box.obj\", \"name\": \"box\", \"scale\": 1, \"resolution\": 64},\n"
	"              {\"path\": \"torus.obj\", \"name\": \"torus\"}],\n"
	"   \"pairs\": \"pairs.txt\", \"mode\": \"exact\", \"resolution\": 64, \"mip\": 0,\n"
	"   \"output\": \"results.csv\", \"format\": \"csv\"}\n"
	"Only meshes and pairs are required; paths are relative to the job file.\n"
	"\n"
	"Pairs file (text): one pair per line, fields separated by blanks or commas:\n"
	"    MESH_A MESH_B  qw qx qy qz tx ty tz  [qw qx qy qz tx ty tz]\n"
	"MESH_A, MESH_B: mesh names of the job or indices from 0. Then the pose of B\n"
	"in A's frame, and optionally A's pose in the world. '#' lines and blank\n"
	"lines are skipped. Or NumPy: \"pairs\": an (N, 2) integer .npy of mesh\n"
	"indices and \"poses\": an (N, 7) or (N, 14) float64 .npy.\n"
	"\n",
	"Output (csv, jsonl or npy, from --format, the job's format, or the output's\n"
	"extension): a header line with the job's fingerprint, then one row per pair:\n"
	"    index,mesh_a,mesh_b,collide,stage,line\n"
	"in the order of the pairs file, the same bytes on every run (--penetration\n"
	"adds the library's penetration estimate). It is\n"
	"written to OUT.partial and renamed to OUT when complete; an interrupted run\n"
	"keeps OUT.partial for --resume.\n"
	"\n"
	"Options (override the job's settings):\n"
	"  --pairs FILE        the pairs file (- reads standard input)\n"
	"  --poses FILE        the poses .npy of an .npy pairs file\n"
	"  --out FILE          the results (- writes standard output)\n"
	"  --format FORMAT     csv, jsonl or npy\n"
	"  --mode MODE         exact (default) or approx\n"
	"  --resolution N      cube map of meshes that set none (default 64)\n"
	"  --mip N             cube-map mip level approx mode samples (default 0)\n"
	"  --vertex-budget N   approx mode: test at most about N vertices of each mesh\n"
	"                      (0 = all, the default; collide --help says more)\n"
	"  --shard K/N         answer only shard K (from 0) of N, to OUT with\n"
	"                      .shard-K-of-N before its extension; --shard slurm takes\n"
	"                      K and N from SLURM_ARRAY_TASK_ID (less _MIN) and\n"
	"                      SLURM_ARRAY_TASK_COUNT. `vkcollide merge` joins shards.\n"
	"  --resume            continue OUT.partial of an interrupted run of the same\n"
	"                      job after its last whole line\n"
	"  --threads N         parse and format threads (default: one per core)\n"
	"  --block N           pairs per device call, 1..65536 (default 65536)\n"
	"  --penetration       add the penetration column (a lower bound of the overlap\n"
	"                      from the device's search)\n"
	"  --verify            also answer every pair with the exact CPU reference\n"
	"                      (slow) and print the agreement on stderr\n"
	"  --progress SECONDS  a progress line every SECONDS when stderr is not a\n"
	"                      terminal (default 10; 0 = none); a terminal gets a bar\n"
	"  -q, --quiet         no progress and no summary\n"
	"\n"
	"Exit status: 0 done; 1 device or write failure; 2 bad job, pairs or mesh\n"
	"(one line FILE:LINE:COLUMN: reason; answers before a bad line are kept in\n"
	"OUT.partial); 128+signal when interrupted (resume with --resume).\n",
	NULL,
};

const command run_command = {
	"run",
	"JOB [--pairs FILE] [--poses FILE] [--out FILE] [--format csv|jsonl|npy]\n"
	"                     [--mode exact|approx] [--resolution N] [--mip N] [--vertex-budget N]\n"
	"                     [--shard K/N|slurm]\n"
	"                     [--resume] [--threads N] [--block N] [--penetration] [--verify]\n"
	"                     [--progress SECONDS] [--quiet]",
	"run a job file: many meshes, a pairs file, resumable and shardable",
	run_help,
	cmd_run,
};

// --- interrupts ---------------------------------------------------------------

static volatile sig_atomic_t interrupt_signal;

static void on_interrupt(int sig)
{
	interrupt_signal = sig;
}

static void catch_interrupts(bool on)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on ? on_interrupt : SIG_DFL;
	sa.sa_flags = on ? SA_RESETHAND | SA_RESTART : 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

// --- the job as run --------------------------------------------------------------

typedef struct run_args {
	const char *job;
	const char *pairs, *poses, *out, *format, *mode, *shard;
	uint32_t resolution, mip, threads, block, vertex_budget;
	bool has_resolution, has_mip, has_vertex_budget, resume, quiet, verify, penetration;
	double progress_s;
} run_args;

typedef struct slot {
	enum { S_FREE, S_FILLED, S_PARSED, S_COMPUTED, S_FORMATTED } state;
	uint64_t seq;
	// Input: text lines (off/len into text), or npy rows as doubles in text.
	char *text;
	size_t text_len, text_cap;
	uint32_t *off, *len;
	uint64_t *line;
	uint32_t count;
	uint64_t first_index;
	bool last; // the reader's final slot
	// Work in pieces of PIECE_PAIRS.
	uint32_t pieces, next_piece, pieces_done;
	// Parsed pairs, answers, formatted pieces.
	vkcol_pair *pairs;
	uint32_t *mesh_ab;
	vkcol_pair_result *results;
	uint32_t valid;    // pairs before the first bad one
	uint32_t answered; // pairs the device answered
	bool bad;
	char bad_message[512];
	char **out;
	size_t *out_len, *out_cap;
} slot;

typedef struct job_run {
	// Settings.
	result_format format;
	bool npy_input;
	vkcol_mode mode;
	uint32_t mip, vertex_budget;
	const char *pairs_name, *poses_name;
	int pairs_fd, poses_fd;
	npy_info pairs_npy, poses_npy;
	uint64_t total;      // pairs in the input; UINT64_MAX = unknown (standard input)
	uint64_t start, end; // the pairs this run answers: [start, end)
	result_header header;
	mesh_names names;
	vkcol_mesh *handles; // per job mesh
	uint32_t mesh_count;
	vkcol_context *ctx;
	cli_log *log;
	out_file out;
	bool header_written;

	// Pipeline.
	pthread_mutex_t mu;
	pthread_cond_t cv;
	slot *slots;
	uint32_t slot_count;
	uint32_t block; // pairs per slot
	uint32_t workers;
	bool verify;
	uint64_t verified, agree, false_positive, false_negative, reference_collide;
	uint64_t in_band; // exact mode's false positives within the pair's touching distance (allowed)
	bool shutdown;
	bool device_done;     // the device loop stopped: slots_total slots go out
	uint64_t slots_total;
	bool stop_reading;

	// Outcome.
	vkcol_result device_error;
	bool bad;
	char bad_message[512];
	bool write_failed;
	int write_errno;
	uint64_t written, collide;

	// Times.
	double t_start, device_s, parse_s, format_s, write_s;
	double last_sync, last_progress;
	bool progress_bar, quiet;
	double progress_s;
	int bar_width;
} job_run;

// --- helpers -------------------------------------------------------------------------

static void *xcalloc(size_t n, size_t size)
{
	return n ? calloc(n, size) : calloc(1, 1);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static double thread_cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// Reads the whole (small) file; NULL with errno on failure.
static char *read_small_file(const char *path, size_t max, size_t *len, bool *too_large)
{
	*too_large = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		errno = EISDIR;
		return NULL;
	}
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap + 1);
	while (buf) {
		if (n == cap) {
			if (cap >= max) {
				*too_large = true;
				break;
			}
			cap *= 2;
			char *b = realloc(buf, cap + 1);
			if (!b)
				break;
			buf = b;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (r == 0) {
			buf[n] = '\0';
			*len = n;
			close(fd);
			return buf;
		}
		n += (size_t)r;
	}
	free(buf);
	close(fd);
	if (*too_large)
		errno = EFBIG;
	else
		errno = ENOMEM;
	return NULL;
}

// Hashes a whole file (XXH3, 64 bits). False with errno on failure.
static bool hash_file(const char *path, uint64_t *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	XXH3_state_t *st = XXH3_createState();
	char *buf = malloc(READ_BLOCK);
	bool ok = st && buf && XXH3_64bits_reset(st) == XXH_OK;
	while (ok) {
		ssize_t r = read(fd, buf, READ_BLOCK);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ok = r == 0;
			break;
		}
		XXH3_64bits_update(st, buf, (size_t)r);
	}
	int e = errno;
	if (ok)
		*out = XXH3_64bits_digest(st);
	XXH3_freeState(st);
	free(buf);
	close(fd);
	errno = e;
	return ok;
}

// --- line reading (shared by the pre-pass and the reader thread) ---------------------

typedef struct line_reader {
	int fd;
	char *buf;
	size_t cap, pos, have;
	bool eof;
	int read_errno;
	uint64_t line; // of the next line, from 1
	bool bom_checked;
	XXH3_state_t *hash; // NULL = not hashed
	const volatile bool *stop;
	bool notice_stall; // return LR_STALLED when the input stays silent (200 ms)
	bool stalled;
} line_reader;

typedef enum { LR_LINE, LR_END, LR_TOO_LONG, LR_FAILED, LR_STOPPED, LR_STALLED } lr_status;

static bool lr_init(line_reader *r, int fd, XXH3_state_t *hash, const volatile bool *stop)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->cap = READ_BLOCK + PAIR_LINE_MAX_BYTES + 2;
	r->buf = malloc(r->cap);
	r->line = 1;
	r->hash = hash;
	r->stop = stop;
	return r->buf != NULL;
}

static void lr_free(line_reader *r)
{
	free(r->buf);
	r->buf = NULL;
}

// Reads more after the bytes held; false at the end, on an error or a stop.
static bool lr_fill(line_reader *r)
{
	if (r->pos > 0) {
		memmove(r->buf, r->buf + r->pos, r->have - r->pos);
		r->have -= r->pos;
		r->pos = 0;
	}
	for (;;) {
		if (interrupt_signal || (r->stop && *r->stop))
			return false;
		struct pollfd pfd = {r->fd, POLLIN, 0};
		int p = poll(&pfd, 1, 200);
		if (p == 0 && r->notice_stall) {
			r->stalled = true;
			return false;
		}
		if (p == 0 || (p < 0 && errno == EINTR))
			continue;
		size_t want = r->cap - r->have < READ_BLOCK ? r->cap - r->have : READ_BLOCK;
		ssize_t n = read(r->fd, r->buf + r->have, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r->read_errno = errno;
			r->eof = true;
			return false;
		}
		if (n == 0) {
			r->eof = true;
			return false;
		}
		if (r->hash)
			XXH3_64bits_update(r->hash, r->buf + r->have, (size_t)n);
		r->have += (size_t)n;
		return true;
	}
}

// The next line (without its newline) in *s, *n; *line_no its number.
static lr_status lr_next(line_reader *r, const char **s, size_t *n, uint64_t *line_no)
{
	for (;;) {
		char *nl = memchr(r->buf + r->pos, '\n', r->have - r->pos);
		size_t held = r->have - r->pos;
		if (nl || (r->eof && held > 0) || held > PAIR_LINE_MAX_BYTES) {
			size_t len = nl ? (size_t)(nl - (r->buf + r->pos)) : held;
			if (len > PAIR_LINE_MAX_BYTES) {
				*line_no = r->line;
				return LR_TOO_LONG;
			}
			*s = r->buf + r->pos;
			*n = len;
			*line_no = r->line++;
			r->pos += len + (nl ? 1 : 0);
			if (!r->bom_checked) {
				r->bom_checked = true;
				if (*n >= 3 && memcmp(*s, "\xef\xbb\xbf", 3) == 0) {
					*s += 3;
					*n -= 3;
				}
			}
			return LR_LINE;
		}
		if (r->eof)
			return r->read_errno ? LR_FAILED : LR_END;
		if (!lr_fill(r)) {
			if (r->eof)
				continue;
			if (r->stalled) {
				r->stalled = false;
				return LR_STALLED;
			}
			return LR_STOPPED;
		}
	}
}

// --- pre-pass: count and hash ----------------------------------------------------------

// Counts the pair lines of a regular file and hashes its bytes. Returns 0 or
// an exit status (a line over the limit is reported here, before any work).
static int prepass_text(job_run *jr, uint64_t *count, uint64_t *hash)
{
	XXH3_state_t *st = XXH3_createState();
	line_reader r;
	if (!st || XXH3_64bits_reset(st) != XXH_OK || !lr_init(&r, jr->pairs_fd, st, NULL)) {
		XXH3_freeState(st);
		error_line("out of memory");
		return EXIT_RUNTIME;
	}
	uint64_t n = 0, line = 0;
	const char *s;
	size_t len;
	lr_status status;
	while ((status = lr_next(&r, &s, &len, &line)) == LR_LINE)
		n += pair_line_counts(s, len);
	int result = 0;
	if (status == LR_TOO_LONG) {
		error_line("%s:%" PRIu64 ":%u: the line is longer than %u bytes", jr->pairs_name, line,
		           PAIR_LINE_MAX_BYTES + 1, PAIR_LINE_MAX_BYTES);
		result = EXIT_USAGE;
	} else if (status == LR_FAILED) {
		error_line("%s: cannot read the pairs file: %s", jr->pairs_name, strerror(r.read_errno));
		result = EXIT_USAGE;
	} else if (status == LR_STOPPED) {
		result = 128 + (int)interrupt_signal;
	}
	*count = n;
	*hash = XXH3_64bits_digest(st);
	XXH3_freeState(st);
	lr_free(&r);
	if (result == 0 && lseek(jr->pairs_fd, 0, SEEK_SET) != 0) {
		error_line("%s: cannot read the pairs file again: %s", jr->pairs_name, strerror(errno));
		result = EXIT_USAGE;
	}
	return result;
}

// Opens and checks an .npy input: its header, type and shape. Returns 0 or
// an exit status.
static int open_npy(const char *path, const char *what, int *fd, npy_info *info)
{
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		error_line("%s: cannot open the %s: %s", path, what, strerror(errno));
		return EXIT_USAGE;
	}
	unsigned char head[65536];
	ssize_t n = pread(*fd, head, sizeof(head), 0);
	char why[200];
	uint64_t at = 0;
	if (n < 0) {
		error_line("%s: cannot read the %s: %s", path, what, strerror(errno));
		return EXIT_USAGE;
	}
	if (!npy_parse_header(head, (size_t)n, info, why, sizeof(why), &at)) {
		error_line("%s: byte %" PRIu64 ": %s", path, at, why);
		return EXIT_USAGE;
	}
	struct stat st;
	uint64_t cols = info->ndim == 2 ? info->shape[1] : 1;
	uint64_t want = info->data_offset + info->shape[0] * cols * info->item_bytes;
	if (fstat(*fd, &st) == 0 && (uint64_t)st.st_size < want) {
		error_line("%s: the %s is cut short: %" PRIu64 " bytes, its shape needs %" PRIu64, path, what,
		           (uint64_t)st.st_size, want);
		return EXIT_USAGE;
	}
	return 0;
}

// --- the reader thread -----------------------------------------------------------------

static bool slot_reserve_text(slot *s, size_t need)
{
	if (s->text_len + need <= s->text_cap)
		return true;
	size_t cap = s->text_cap ? s->text_cap : 65536;
	while (cap < s->text_len + need)
		cap *= 2;
	char *t = realloc(s->text, cap);
	if (!t)
		return false;
	s->text = t;
	s->text_cap = cap;
	return true;
}

// Waits for slot seq to be free; NULL when the pipeline stops.
static slot *wait_free_slot(job_run *jr, uint64_t seq)
{
	slot *s = &jr->slots[seq % jr->slot_count];
	pthread_mutex_lock(&jr->mu);
	while (s->state != S_FREE && !jr->stop_reading)
		pthread_cond_wait(&jr->cv, &jr->mu);
	bool stop = jr->stop_reading;
	pthread_mutex_unlock(&jr->mu);
	if (stop)
		return NULL;
	s->seq = seq;
	s->text_len = 0;
	s->count = 0;
	s->last = false;
	s->bad = false;
	s->bad_message[0] = '\0';
	return s;
}

static void publish_slot(job_run *jr, slot *s)
{
	pthread_mutex_lock(&jr->mu);
	s->valid = s->count;
	s->pieces = (s->count + PIECE_PAIRS - 1) / PIECE_PAIRS;
	s->next_piece = s->pieces_done = 0;
	s->state = s->pieces ? S_FILLED : S_PARSED;
	pthread_cond_broadcast(&jr->cv);
	pthread_mutex_unlock(&jr->mu);
}

static void reader_text(job_run *jr)
{
	line_reader r;
	if (!lr_init(&r, jr->pairs_fd, NULL, (const volatile bool *)&jr->stop_reading)) {
		slot *s = wait_free_slot(jr, 0);
		if (s) {
			s->bad = true;
			s->last = true;
			snprintf(s->bad_message, sizeof(s->bad_message), "out of memory");
			publish_slot(jr, s);
		}
		return;
	}
	uint64_t seq = 0, index = 0;
	slot *s = wait_free_slot(jr, seq);
	while (s) {
		const char *text;
		size_t len;
		uint64_t line;
		// A silent pipe gets the pairs read so far answered meanwhile.
		r.notice_stall = s->count > 0;
		lr_status st = lr_next(&r, &text, &len, &line);
		if (st == LR_STALLED) {
			publish_slot(jr, s);
			s = wait_free_slot(jr, ++seq);
			continue;
		}
		if (st == LR_LINE) {
			if (!pair_line_counts(text, len))
				continue;
			uint64_t i = index++;
			if (i < jr->start)
				continue;
			if (i >= jr->end) {
				s->last = true;
				publish_slot(jr, s);
				break;
			}
			if (s->count == jr->block || s->text_len + len > SLOT_TEXT_MAX) {
				publish_slot(jr, s);
				s = wait_free_slot(jr, ++seq);
				if (!s)
					break;
			}
			if (s->count == 0)
				s->first_index = i;
			if (!slot_reserve_text(s, len)) {
				s->bad = true;
				s->last = true;
				snprintf(s->bad_message, sizeof(s->bad_message), "out of memory");
				publish_slot(jr, s);
				break;
			}
			memcpy(s->text + s->text_len, text, len);
			s->off[s->count] = (uint32_t)s->text_len;
			s->len[s->count] = (uint32_t)len;
			s->line[s->count] = line;
			s->text_len += len;
			s->count++;
			continue;
		}
		if (st == LR_TOO_LONG) {
			s->bad = true;
			snprintf(s->bad_message, sizeof(s->bad_message), "%s:%" PRIu64 ":%u: the line is longer than %u bytes",
			         jr->pairs_name, line, PAIR_LINE_MAX_BYTES + 1, PAIR_LINE_MAX_BYTES);
		} else if (st == LR_FAILED) {
			s->bad = true;
			snprintf(s->bad_message, sizeof(s->bad_message), "%s: cannot read the pairs file (line %" PRIu64 "): %s",
			         jr->pairs_name, r.line, strerror(r.read_errno));
		}
		// The end, an error or a stop: this slot is the last.
		s->last = true;
		publish_slot(jr, s);
		break;
	}
	lr_free(&r);
}

static bool read_full(int fd, void *buf, size_t n, uint64_t offset)
{
	char *p = buf;
	while (n) {
		ssize_t r = pread(fd, p, n, (off_t)offset);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		p += r;
		n -= (size_t)r;
		offset += (uint64_t)r;
	}
	return true;
}

static double npy_value(const unsigned char *p, const npy_info *info)
{
	uint64_t u = 0;
	for (uint32_t b = 0; b < info->item_bytes; b++)
		u |= (uint64_t)p[b] << (8 * b);
	if (info->kind == 'f') {
		if (info->item_bytes == 8) {
			double d;
			memcpy(&d, &u, 8);
			return d;
		}
		uint32_t w = (uint32_t)u;
		float f;
		memcpy(&f, &w, 4);
		return f;
	}
	if (info->kind == 'i' && info->item_bytes < 8 && (u >> (8 * info->item_bytes - 1)) & 1)
		u |= ~UINT64_C(0) << (8 * info->item_bytes);
	// Indices beyond 2^53 are out of range anyway; -1 stays negative.
	return info->kind == 'i' ? (double)(int64_t)u : (double)u;
}

static void reader_npy(job_run *jr)
{
	uint32_t pose_cols = (uint32_t)jr->poses_npy.shape[1];
	size_t pair_row = 2u * jr->pairs_npy.item_bytes, pose_row = pose_cols * jr->poses_npy.item_bytes;
	unsigned char *pb = malloc((size_t)jr->block * pair_row), *qb = malloc((size_t)jr->block * pose_row);
	uint64_t seq = 0, i = jr->start;
	for (;;) {
		slot *s = wait_free_slot(jr, seq++);
		if (!s)
			break;
		uint64_t n = jr->end - i < jr->block ? jr->end - i : jr->block;
		s->first_index = i;
		if (!pb || !qb || !slot_reserve_text(s, (size_t)jr->block * NPY_ROW_DOUBLES * sizeof(double))) {
			s->bad = s->last = true;
			snprintf(s->bad_message, sizeof(s->bad_message), "out of memory");
			publish_slot(jr, s);
			break;
		}
		if (!read_full(jr->pairs_fd, pb, (size_t)n * pair_row, jr->pairs_npy.data_offset + i * pair_row) ||
		    !read_full(jr->poses_fd, qb, (size_t)n * pose_row, jr->poses_npy.data_offset + i * pose_row)) {
			s->bad = s->last = true;
			snprintf(s->bad_message, sizeof(s->bad_message), "%s: cannot read rows %" PRIu64 "..: %s",
			         jr->pairs_name, i + 1, errno ? strerror(errno) : "the file is cut short");
			publish_slot(jr, s);
			break;
		}
		double *rows = (double *)s->text;
		for (uint64_t k = 0; k < n; k++) {
			double *row = rows + k * NPY_ROW_DOUBLES;
			for (int c = 0; c < 2; c++)
				row[c] = npy_value(pb + k * pair_row + (size_t)c * jr->pairs_npy.item_bytes, &jr->pairs_npy);
			for (uint32_t c = 0; c < 14; c++)
				row[2 + c] = c < pose_cols ? npy_value(qb + k * pose_row + c * jr->poses_npy.item_bytes, &jr->poses_npy)
				                           : 0.0;
			s->line[k] = i + k + 1;
		}
		s->count = (uint32_t)n;
		i += n;
		s->last = i >= jr->end || interrupt_signal;
		bool last = s->last;
		publish_slot(jr, s);
		if (last)
			break;
	}
	free(pb);
	free(qb);
}

static void *reader_main(void *arg)
{
	job_run *jr = arg;
	if (jr->npy_input)
		reader_npy(jr);
	else
		reader_text(jr);
	return NULL;
}

// --- workers: parse and format ---------------------------------------------------------

static void mark_bad(job_run *jr, slot *s, uint32_t at, const char *message)
{
	pthread_mutex_lock(&jr->mu);
	if (at < s->valid) {
		s->valid = at;
		s->bad = true;
		snprintf(s->bad_message, sizeof(s->bad_message), "%s", message);
	}
	pthread_mutex_unlock(&jr->mu);
}

static void parse_npy_row(job_run *jr, slot *s, uint32_t i, char *message, size_t size, bool *ok)
{
	const double *row = (const double *)s->text + (size_t)i * NPY_ROW_DOUBLES;
	uint64_t r = s->line[i];
	*ok = false;
	for (int c = 0; c < 2; c++) {
		if (!(row[c] >= 0.0 && row[c] < (double)jr->mesh_count)) {
			snprintf(message, size, "%s:%" PRIu64 ":%d: mesh index %.17g: the job has %u mesh%s", jr->pairs_name, r,
			         c + 1, row[c], jr->mesh_count, jr->mesh_count == 1 ? "" : "es");
			return;
		}
	}
	uint32_t cols = (uint32_t)jr->poses_npy.shape[1];
	for (uint32_t c = 0; c < cols; c++) {
		if (!isfinite(row[2 + c])) {
			snprintf(message, size, "%s:%" PRIu64 ":%u: %.17g is not a finite number", jr->poses_name, r, c + 1,
			         row[2 + c]);
			return;
		}
	}
	vkcol_pair *p = &s->pairs[i];
	const char *why;
	if (!pose_from_numbers(row + 2, &p->pose_b, &why)) {
		snprintf(message, size, "%s:%" PRIu64 ":1: %s", jr->poses_name, r, why);
		return;
	}
	if (cols == 14) {
		if (!pose_from_numbers(row + 9, &p->pose_a, &why)) {
			snprintf(message, size, "%s:%" PRIu64 ":8: A's pose: %s", jr->poses_name, r, why);
			return;
		}
		pose_compose(row + 9, row + 2, &p->pose_b);
	} else {
		p->pose_a = (vkcol_pose){{1, 0, 0, 0}, {0, 0, 0}};
	}
	uint32_t a = (uint32_t)row[0], b = (uint32_t)row[1];
	s->mesh_ab[2 * i] = a;
	s->mesh_ab[2 * i + 1] = b;
	p->a = jr->handles[a];
	p->b = jr->handles[b];
	*ok = true;
}

static void parse_piece(job_run *jr, slot *s, uint32_t piece)
{
	uint32_t first = piece * PIECE_PAIRS, end = first + PIECE_PAIRS < s->count ? first + PIECE_PAIRS : s->count;
	char message[512];
	for (uint32_t i = first; i < end; i++) {
		if (jr->npy_input) {
			bool ok;
			parse_npy_row(jr, s, i, message, sizeof(message), &ok);
			if (!ok) {
				mark_bad(jr, s, i, message);
				return;
			}
			continue;
		}
		pair_line pl;
		pair_line_error err;
		if (!pair_line_parse(s->text + s->off[i], s->len[i], &jr->names, &pl, &err)) {
			// The column counts from the line's start: a byte order mark
			// on line 1 is not part of the line.
			snprintf(message, sizeof(message), "%s:%" PRIu64 ":%" PRIu64 ": %s", jr->pairs_name, s->line[i],
			         err.column, err.reason);
			mark_bad(jr, s, i, message);
			return;
		}
		vkcol_pair *p = &s->pairs[i];
		p->a = jr->handles[pl.mesh[0]];
		p->b = jr->handles[pl.mesh[1]];
		p->pose_a = pl.pose_a;
		p->pose_b = pl.pose_b;
		s->mesh_ab[2 * i] = pl.mesh[0];
		s->mesh_ab[2 * i + 1] = pl.mesh[1];
	}
}

static bool format_piece(job_run *jr, slot *s, uint32_t piece)
{
	uint32_t first = piece * PIECE_PAIRS, end = first + PIECE_PAIRS < s->answered ? first + PIECE_PAIRS : s->answered;
	size_t need = (size_t)(end - first) * RESULT_ROW_MAX;
	if (s->out_cap[piece] < need) {
		char *b = realloc(s->out[piece], need);
		if (!b)
			return false;
		s->out[piece] = b;
		s->out_cap[piece] = need;
	}
	size_t o = 0;
	for (uint32_t i = first; i < end; i++) {
		const vkcol_pair_result *res = &s->results[i];
		result_row row = {s->first_index + i, s->mesh_ab[2 * i], s->mesh_ab[2 * i + 1], res->collide != 0,
		                  res->stage, res->penetration, s->line[i]};
		o += result_row_write(jr->format, jr->header.penetration, &row, s->out[piece] + o);
	}
	s->out_len[piece] = o;
	return true;
}

static void *worker_main(void *arg)
{
	job_run *jr = arg;
	double parse_s = 0.0, format_s = 0.0;
	pthread_mutex_lock(&jr->mu);
	for (;;) {
		slot *pick = NULL;
		for (uint32_t k = 0; k < jr->slot_count; k++) {
			slot *s = &jr->slots[k];
			if ((s->state == S_FILLED || s->state == S_COMPUTED) && s->next_piece < s->pieces &&
			    (!pick || s->seq < pick->seq))
				pick = s;
		}
		if (!pick) {
			if (jr->shutdown)
				break;
			pthread_cond_wait(&jr->cv, &jr->mu);
			continue;
		}
		uint32_t piece = pick->next_piece++;
		bool parsing = pick->state == S_FILLED;
		pthread_mutex_unlock(&jr->mu);
		double t0 = thread_cpu_seconds();
		bool ok = true;
		if (parsing)
			parse_piece(jr, pick, piece);
		else
			ok = format_piece(jr, pick, piece);
		double dt = thread_cpu_seconds() - t0;
		if (parsing)
			parse_s += dt;
		else
			format_s += dt;
		pthread_mutex_lock(&jr->mu);
		if (!ok) {
			jr->write_failed = true;
			jr->write_errno = ENOMEM;
		}
		if (++pick->pieces_done == pick->pieces) {
			pick->state = parsing ? S_PARSED : S_FORMATTED;
			pthread_cond_broadcast(&jr->cv);
		}
	}
	jr->parse_s += parse_s;
	jr->format_s += format_s;
	pthread_mutex_unlock(&jr->mu);
	return NULL;
}

// --- progress ----------------------------------------------------------------------------

static void format_duration(double s, char *out, size_t size)
{
	if (!isfinite(s) || s < 0)
		snprintf(out, size, "?");
	else if (s < 60)
		snprintf(out, size, "%.0fs", s);
	else if (s < 3600)
		snprintf(out, size, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
	else
		snprintf(out, size, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
}

static void progress_clear_bar(job_run *jr)
{
	if (jr->bar_width) {
		fprintf(stderr, "\r%*s\r", jr->bar_width, "");
		jr->bar_width = 0;
	}
}

// Called by the writer after each slot; final: the last call.
static void progress(job_run *jr, bool final)
{
	if (jr->quiet)
		return;
	double now = now_seconds();
	if (!final && now - jr->last_progress < (jr->progress_bar ? 0.25 : jr->progress_s))
		return;
	if (!jr->progress_bar && (jr->progress_s <= 0 || final))
		return;
	jr->last_progress = now;
	uint64_t todo = jr->end == UINT64_MAX ? 0 : jr->end - jr->start;
	uint64_t done = jr->written;
	double elapsed = now - jr->t_start;
	double rate = elapsed > 0 ? (double)done / elapsed : 0;
	char count[32], total[32], rate_s[32], eta[32];
	format_count(done, count, sizeof(count));
	format_count(todo, total, sizeof(total));
	format_count((uint64_t)rate, rate_s, sizeof(rate_s));
	format_duration(todo && rate > 0 ? (double)(todo - done) / rate : NAN, eta, sizeof(eta));
	double pct = todo ? 100.0 * (double)done / (double)todo : 0.0;
	if (jr->progress_bar) {
		char bar[32];
		int filled = todo ? (int)(pct / 100.0 * 24) : 0;
		for (int k = 0; k < 24; k++)
			bar[k] = k < filled ? '#' : '.';
		bar[24] = '\0';
		char text[200];
		int n;
		if (todo)
			n = snprintf(text, sizeof(text), "[%s] %5.1f%%  %s/%s pairs  %s pairs/s  ETA %s", bar, pct, count, total,
			             rate_s, eta);
		else
			n = snprintf(text, sizeof(text), "%s pairs  %s pairs/s", count, rate_s);
		fprintf(stderr, "\r%s%*s", text, jr->bar_width > n ? jr->bar_width - n : 0, "");
		if (n > jr->bar_width)
			jr->bar_width = n;
		if (final)
			progress_clear_bar(jr);
		fflush(stderr);
	} else if (todo) {
		error_line("progress: %s of %s pairs (%.1f%%), %s pairs/s, ETA %s", count, total, pct, rate_s, eta);
	} else {
		error_line("progress: %s pairs, %s pairs/s", count, rate_s);
	}
}

// --- the writer thread -------------------------------------------------------------------

static void *writer_main(void *arg)
{
	job_run *jr = arg;
	for (uint64_t seq = 0;; seq++) {
		slot *s = &jr->slots[seq % jr->slot_count];
		pthread_mutex_lock(&jr->mu);
		while (!(s->state == S_FORMATTED && s->seq == seq) && !(jr->device_done && seq >= jr->slots_total))
			pthread_cond_wait(&jr->cv, &jr->mu);
		bool done = jr->device_done && seq >= jr->slots_total;
		bool failed = jr->write_failed;
		pthread_mutex_unlock(&jr->mu);
		if (done)
			break;
		double t0 = now_seconds();
		for (uint32_t p = 0; p < s->pieces && !failed; p++) {
			if (!write_all(jr->out.fd, s->out[p], s->out_len[p])) {
				failed = true;
				jr->write_errno = errno;
			}
		}
		uint64_t collide = 0;
		for (uint32_t i = 0; i < s->answered; i++)
			collide += s->results[i].collide != 0;
		double now = now_seconds();
		if (!failed && !(jr->out.to_stdout || jr->out.direct) && now - jr->last_sync >= SYNC_INTERVAL_S) {
			if (fdatasync(jr->out.fd) != 0) {
				failed = true;
				jr->write_errno = errno;
			}
			jr->last_sync = now;
		}
		jr->write_s += now_seconds() - t0;
		pthread_mutex_lock(&jr->mu);
		if (failed)
			jr->write_failed = true;
		else {
			jr->written += s->answered;
			jr->collide += collide;
		}
		bool last = jr->device_done && seq + 1 >= jr->slots_total;
		s->state = S_FREE;
		pthread_cond_broadcast(&jr->cv);
		pthread_mutex_unlock(&jr->mu);
		if (!failed)
			progress(jr, false);
		if (last || failed)
			break;
	}
	// A failed write stops the device at its next slot.
	pthread_mutex_lock(&jr->mu);
	pthread_cond_broadcast(&jr->cv);
	pthread_mutex_unlock(&jr->mu);
	return NULL;
}

// --- the device (main thread) ------------------------------------------------------------

static bool on_chunk(void *user, uint64_t done, uint64_t total)
{
	(void)user;
	(void)done;
	(void)total;
	return !interrupt_signal;
}

// Answers the slots in order until the last one, a bad line, an interrupt,
// a device error or a failed write.
static void device_loop(job_run *jr)
{
	for (uint64_t seq = 0;; seq++) {
		slot *s = &jr->slots[seq % jr->slot_count];
		pthread_mutex_lock(&jr->mu);
		while (!(s->state == S_PARSED && s->seq == seq) && !jr->write_failed) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 100 * 1000 * 1000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&jr->cv, &jr->mu, &ts);
			// An interrupt while the input is silent: stop before this slot.
			if (interrupt_signal && !(s->state == S_PARSED && s->seq == seq))
				break;
		}
		bool ready = s->state == S_PARSED && s->seq == seq;
		pthread_mutex_unlock(&jr->mu);
		if (!ready) {
			pthread_mutex_lock(&jr->mu);
			jr->device_done = true;
			jr->slots_total = seq;
			jr->stop_reading = true;
			pthread_cond_broadcast(&jr->cv);
			pthread_mutex_unlock(&jr->mu);
			return;
		}
		uint32_t n = s->valid;
		vkcol_result r = VKCOL_SUCCESS;
		s->answered = 0;
		if (n > 0 && !interrupt_signal) {
			vkcol_batch_desc bd = {0};
			bd.pairs = s->pairs;
			bd.pair_count = n;
			bd.mode = jr->mode;
			bd.mip_level = jr->mip;
			bd.vertex_budget = jr->vertex_budget;
			bd.progress = on_chunk;
			double t0 = now_seconds();
			r = vkcol_batch_run(jr->ctx, &bd, s->results);
			jr->device_s += now_seconds() - t0;
			if (r == VKCOL_SUCCESS) {
				s->answered = n;
			} else if (r == VKCOL_ERROR_INTERRUPTED) {
				// Results of the chunks finished are final: the leading
				// run of answered pairs.
				uint32_t k = 0;
				while (k < n && s->results[k].stage != VKCOL_STAGE_NONE)
					k++;
				s->answered = k;
			}
		}
		// --verify: every pair written is verified, so an interrupt during
		// the reference keeps only the pairs verified.
		for (uint32_t i = 0; jr->verify && i < s->answered; i++) {
			if (interrupt_signal) {
				s->answered = i;
				break;
			}
			bool exact = false;
			vkcol_result vr = vkcol_reference_collide(jr->ctx, &s->pairs[i], &exact);
			if (vr != VKCOL_SUCCESS) {
				r = vr;
				s->answered = i;
				break;
			}
			bool got = s->results[i].collide != 0;
			jr->verified++;
			jr->reference_collide += exact;
			jr->agree += got == exact;
			jr->false_positive += got && !exact;
			jr->false_negative += !got && exact;
			if (got && !exact && jr->mode != VKCOL_MODE_APPROX) {
				double apart, touch;
				vr = verify_place(jr->ctx, &s->pairs[i], &apart, &touch);
				if (vr != VKCOL_SUCCESS) {
					r = vr;
					s->answered = i + 1;
					break;
				}
				jr->in_band += apart <= touch;
			}
		}
		bool final = s->last || s->bad || r != VKCOL_SUCCESS || interrupt_signal || s->answered < n;
		pthread_mutex_lock(&jr->mu);
		if (r != VKCOL_SUCCESS && r != VKCOL_ERROR_INTERRUPTED)
			jr->device_error = r;
		if (s->bad && s->answered == s->valid && r == VKCOL_SUCCESS) {
			jr->bad = true;
			snprintf(jr->bad_message, sizeof(jr->bad_message), "%s", s->bad_message);
		}
		s->pieces = (s->answered + PIECE_PAIRS - 1) / PIECE_PAIRS;
		s->next_piece = s->pieces_done = 0;
		s->state = s->pieces ? S_COMPUTED : S_FORMATTED;
		if (final) {
			jr->device_done = true;
			jr->slots_total = seq + 1;
			jr->stop_reading = true;
		}
		pthread_cond_broadcast(&jr->cv);
		pthread_mutex_unlock(&jr->mu);
		if (final)
			return;
	}
}

static bool alloc_slots(job_run *jr)
{
	jr->slots = xcalloc(jr->slot_count, sizeof(slot));
	if (!jr->slots)
		return false;
	uint32_t pieces = (jr->block + PIECE_PAIRS - 1) / PIECE_PAIRS;
	for (uint32_t k = 0; k < jr->slot_count; k++) {
		slot *s = &jr->slots[k];
		s->off = malloc(jr->block * sizeof(*s->off));
		s->len = malloc(jr->block * sizeof(*s->len));
		s->line = malloc(jr->block * sizeof(*s->line));
		s->pairs = malloc(jr->block * sizeof(*s->pairs));
		s->mesh_ab = malloc(2 * jr->block * sizeof(*s->mesh_ab));
		s->results = malloc(jr->block * sizeof(*s->results));
		s->out = xcalloc(pieces, sizeof(*s->out));
		s->out_len = xcalloc(pieces, sizeof(*s->out_len));
		s->out_cap = xcalloc(pieces, sizeof(*s->out_cap));
		if (!s->off || !s->len || !s->line || !s->pairs || !s->mesh_ab || !s->results || !s->out || !s->out_len ||
		    !s->out_cap)
			return false;
	}
	return true;
}

static void free_slots(job_run *jr)
{
	for (uint32_t k = 0; jr->slots && k < jr->slot_count; k++) {
		slot *s = &jr->slots[k];
		for (uint32_t p = 0; s->out && p < (jr->block + PIECE_PAIRS - 1) / PIECE_PAIRS; p++)
			free(s->out[p]);
		free(s->text);
		free(s->off);
		free(s->len);
		free(s->line);
		free(s->pairs);
		free(s->mesh_ab);
		free(s->results);
		free(s->out);
		free(s->out_len);
		free(s->out_cap);
	}
	free(jr->slots);
	jr->slots = NULL;
}

// Runs the pipeline to its end. Returns 0 when every pair was answered.
static void run_pipeline(job_run *jr)
{
	pthread_mutex_init(&jr->mu, NULL);
	pthread_cond_init(&jr->cv, NULL);
	pthread_t reader, writer, workers[MAX_WORKERS];
	pthread_create(&reader, NULL, reader_main, jr);
	pthread_create(&writer, NULL, writer_main, jr);
	for (uint32_t w = 0; w < jr->workers; w++)
		pthread_create(&workers[w], NULL, worker_main, jr);
	device_loop(jr);
	pthread_join(writer, NULL);
	pthread_mutex_lock(&jr->mu);
	jr->shutdown = true;
	jr->stop_reading = true;
	pthread_cond_broadcast(&jr->cv);
	pthread_mutex_unlock(&jr->mu);
	pthread_join(reader, NULL);
	for (uint32_t w = 0; w < jr->workers; w++)
		pthread_join(workers[w], NULL);
	pthread_cond_destroy(&jr->cv);
	pthread_mutex_destroy(&jr->mu);
}

// --- arguments -----------------------------------------------------------------------------

static int parse_run_args(const command *cmd, int argc, char **argv, run_args *a, cli_log *log, bool *help)
{
	a->progress_s = DEFAULT_PROGRESS_S;
	bool options_done = false;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const char *value = NULL;
		if (options_done || arg[0] != '-' || arg[1] == '\0') {
			if (a->job)
				return usage_error(cmd, "more than one job file ('%s' and '%s')", a->job, arg);
			a->job = arg;
		} else if (strcmp(arg, "--") == 0) {
			options_done = true;
		} else if (is_help_option(arg)) {
			*help = true;
			return 0;
		} else if (is_verbose_option(arg)) {
			log->verbose = true;
		} else if (match_value_option(argc, argv, &i, "--pairs", &value)) {
			if (!value || !*value)
				return usage_error(cmd, "--pairs wants a file name (or - for standard input)");
			a->pairs = value;
		} else if (match_value_option(argc, argv, &i, "--poses", &value)) {
			if (!value || !*value)
				return usage_error(cmd, "--poses wants a file name");
			a->poses = value;
		} else if (match_value_option(argc, argv, &i, "--out", &value)) {
			if (!value || !*value)
				return usage_error(cmd, "--out wants a file name (or - for standard output)");
			a->out = value;
		} else if (match_value_option(argc, argv, &i, "--format", &value)) {
			if (!value || (strcmp(value, "csv") && strcmp(value, "jsonl") && strcmp(value, "npy")))
				return usage_error(cmd, "--format wants csv, jsonl or npy, not '%s'", value ? value : "");
			a->format = value;
		} else if (match_value_option(argc, argv, &i, "--mode", &value)) {
			if (!value || (strcmp(value, "exact") && strcmp(value, "approx")))
				return usage_error(cmd, "--mode wants approx or exact, not '%s'", value ? value : "");
			a->mode = value;
		} else if (match_value_option(argc, argv, &i, "--resolution", &value)) {
			if (!parse_u32(value, 4, 1024, &a->resolution) || (a->resolution & (a->resolution - 1)))
				return usage_error(cmd, "--resolution wants a power of two in 4..1024, not '%s'", value ? value : "");
			a->has_resolution = true;
		} else if (match_value_option(argc, argv, &i, "--mip", &value)) {
			if (!parse_u32(value, 0, 10, &a->mip))
				return usage_error(cmd, "--mip wants an integer in 0..10, not '%s'", value ? value : "");
			a->has_mip = true;
		} else if (match_value_option(argc, argv, &i, "--vertex-budget", &value)) {
			if (!parse_u32(value, 0, UINT32_MAX, &a->vertex_budget))
				return usage_error(cmd, "--vertex-budget wants an integer in 0..%u, not '%s'", UINT32_MAX,
				                   value ? value : "");
			a->has_vertex_budget = true;
		} else if (match_value_option(argc, argv, &i, "--shard", &value)) {
			if (!value || !*value)
				return usage_error(cmd, "--shard wants K/N (K from 0) or slurm");
			a->shard = value;
		} else if (match_value_option(argc, argv, &i, "--threads", &value)) {
			if (!parse_u32(value, 1, MAX_WORKERS, &a->threads))
				return usage_error(cmd, "--threads wants an integer in 1..%d, not '%s'", MAX_WORKERS, value ? value : "");
		} else if (match_value_option(argc, argv, &i, "--progress", &value)) {
			char *end;
			double s = value ? strtod(value, &end) : -1;
			if (!value || end == value || *end || !(s >= 0 && s <= 86400))
				return usage_error(cmd, "--progress wants seconds in 0..86400, not '%s'", value ? value : "");
			a->progress_s = s;
		} else if (match_value_option(argc, argv, &i, "--block", &value)) {
			if (!parse_u32(value, 1, SLOT_PAIRS, &a->block))
				return usage_error(cmd, "--block wants an integer in 1..%u, not '%s'", SLOT_PAIRS, value ? value : "");
		} else if (strcmp(arg, "--penetration") == 0) {
			a->penetration = true;
		} else if (strcmp(arg, "--verify") == 0) {
			a->verify = true;
		} else if (strcmp(arg, "--resume") == 0) {
			a->resume = true;
		} else if (strcmp(arg, "--quiet") == 0 || strcmp(arg, "-q") == 0) {
			a->quiet = true;
		} else {
			return usage_error(cmd, "unknown option '%s'", arg);
		}
	}
	if (!a->job)
		return usage_error(cmd, "no job file given");
	return 0;
}

// K/N, or "slurm" from the array task's environment. Returns 0 or an exit
// status.
static int parse_shard(const command *cmd, const char *text, uint32_t *k, uint32_t *n)
{
	if (strcmp(text, "slurm") == 0) {
		const char *id = getenv("SLURM_ARRAY_TASK_ID"), *count = getenv("SLURM_ARRAY_TASK_COUNT");
		const char *min = getenv("SLURM_ARRAY_TASK_MIN"), *step = getenv("SLURM_ARRAY_TASK_STEP");
		uint32_t i, c, m = 0, st = 1;
		if (!id || !count)
			return usage_error(cmd, "--shard slurm: SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT are not set (run "
			                        "it in a task of sbatch --array)");
		if (!parse_u32(id, 0, UINT32_MAX, &i) || !parse_u32(count, 1, 1u << 20, &c) ||
		    (min && !parse_u32(min, 0, UINT32_MAX, &m)) || (step && !parse_u32(step, 1, UINT32_MAX, &st)))
			return usage_error(cmd, "--shard slurm: SLURM_ARRAY_TASK_ID=%s, _COUNT=%s are not task numbers", id, count);
		if (st != 1 || i < m || i - m >= c)
			return usage_error(cmd, "--shard slurm wants an array of consecutive tasks (--array=0-%u), not task %u of "
			                        "%u from %u step %u",
			                   c - 1, i, c, m, st);
		*k = i - m;
		*n = c;
		return 0;
	}
	const char *slash = strchr(text, '/');
	char kt[16];
	if (!slash || (size_t)(slash - text) >= sizeof(kt))
		return usage_error(cmd, "--shard wants K/N (K from 0 to N-1) or slurm, not '%s'", text);
	memcpy(kt, text, (size_t)(slash - text));
	kt[slash - text] = '\0';
	if (!parse_u32(slash + 1, 1, 1u << 20, n) || !parse_u32(kt, 0, *n - 1, k))
		return usage_error(cmd, "--shard wants K/N with 0 <= K < N <= 1048576, not '%s'", text);
	return 0;
}

// OUT with ".shard-K-of-N" before its extension.
static char *shard_path(const char *out, uint32_t k, uint32_t n)
{
	const char *slash = strrchr(out, '/');
	const char *dot = strrchr(out, '.');
	if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : out))
		dot = out + strlen(out);
	size_t size = strlen(out) + 48;
	char *p = malloc(size);
	if (p)
		snprintf(p, size, "%.*s.shard-%u-of-%u%s", (int)(dot - out), out, k, n, dot);
	return p;
}

// --- resume ------------------------------------------------------------------------------

// Looks at OUT.partial (open as fd): rows complete after the header, the torn
// tail truncated. Returns 0 (and *rows; *fresh when the file is empty) or an
// exit status.
static int resume_partial(job_run *jr, const char *hdr, size_t hdr_len, uint64_t *rows, bool *fresh)
{
	int fd = jr->out.fd;
	struct stat st;
	*rows = 0;
	*fresh = false;
	if (fstat(fd, &st) != 0) {
		error_line("%s: %s", jr->out.temp, strerror(errno));
		return EXIT_RUNTIME;
	}
	uint64_t size = (uint64_t)st.st_size;
	if (size == 0) {
		*fresh = true;
		return 0;
	}
	char head[1024];
	ssize_t n = pread(fd, head, sizeof(head) < size ? sizeof(head) : size, 0);
	result_header h;
	const char *why;
	if (n < (ssize_t)hdr_len || memcmp(head, hdr, hdr_len) != 0) {
		// A torn header (killed while writing it) is only a start.
		if (n >= 0 && (size_t)n < hdr_len && memcmp(head, hdr, (size_t)n) == 0) {
			*fresh = true;
			return ftruncate(fd, 0) == 0 ? 0 : EXIT_RUNTIME;
		}
		if (n > 0 && result_header_read(jr->format, head, (size_t)n, &h, &why))
			error_line("%s: --resume: it holds shard %u/%u of job %016" PRIx64 " (%" PRIu64 " pairs), not shard %u/%u "
			           "of this job %016" PRIx64 " (%" PRIu64 " pairs): the job changed; run without --resume to start "
			           "again",
			           jr->out.temp, h.shard, h.shards, h.fingerprint, h.pairs, jr->header.shard, jr->header.shards,
			           jr->header.fingerprint, jr->header.pairs);
		else
			error_line("%s: --resume: not a %s results file of vkcollide run; run without --resume to start again",
			           jr->out.temp, format_name(jr->format));
		return EXIT_USAGE;
	}
	uint64_t keep = hdr_len;
	if (jr->format == FORMAT_NPY) {
		*rows = (size - hdr_len) / npy_record_bytes(jr->header.penetration);
		keep = hdr_len + *rows * npy_record_bytes(jr->header.penetration);
	} else {
		// Count whole lines; keep up to the last newline.
		char *buf = malloc(READ_BLOCK);
		if (!buf)
			return EXIT_RUNTIME;
		uint64_t off = hdr_len;
		while (off < size) {
			ssize_t r = pread(fd, buf, READ_BLOCK, (off_t)off);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			for (ssize_t i = 0; i < r; i++) {
				if (buf[i] == '\n') {
					(*rows)++;
					keep = off + (uint64_t)i + 1;
				}
			}
			off += (uint64_t)r;
		}
		free(buf);
	}
	if (*rows > jr->header.rows) {
		error_line("%s: --resume: it holds %" PRIu64 " rows, more than the %" PRIu64 " of the job's shard", jr->out.temp,
		           *rows, jr->header.rows);
		return EXIT_USAGE;
	}
	if (keep < size && ftruncate(fd, (off_t)keep) != 0) {
		error_line("%s: cannot drop its torn last line: %s", jr->out.temp, strerror(errno));
		return EXIT_RUNTIME;
	}
	if (lseek(fd, (off_t)keep, SEEK_SET) < 0)
		return EXIT_RUNTIME;
	return 0;
}

// True when path holds this job's complete results: the same header and
// every row.
static bool complete_output(const job_run *jr, const char *path, const char *hdr, size_t hdr_len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	char head[1024];
	bool ok = fstat(fd, &st) == 0 && pread(fd, head, hdr_len, 0) == (ssize_t)hdr_len && memcmp(head, hdr, hdr_len) == 0;
	if (ok && jr->format == FORMAT_NPY) {
		ok = (uint64_t)st.st_size == hdr_len + jr->header.rows * npy_record_bytes(jr->header.penetration);
	} else if (ok) {
		uint64_t lines = 0;
		char *buf = malloc(READ_BLOCK);
		uint64_t off = hdr_len;
		bool ends_nl = true;
		while (buf) {
			ssize_t r = pread(fd, buf, READ_BLOCK, (off_t)off);
			if (r <= 0)
				break;
			for (ssize_t i = 0; i < r; i++)
				lines += buf[i] == '\n';
			ends_nl = buf[r - 1] == '\n';
			off += (uint64_t)r;
		}
		free(buf);
		ok = buf && lines == jr->header.rows && ends_nl;
	}
	close(fd);
	return ok;
}

// --- the command -------------------------------------------------------------------------

static void folder_of(const char *path, char *out, size_t size)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(out, size, "%s", "");
	else
		snprintf(out, size, "%.*s", (int)(slash == path ? 1 : slash - path), path);
}

static result_format format_from_name(const char *name)
{
	if (strcmp(name, "jsonl") == 0)
		return FORMAT_JSONL;
	if (strcmp(name, "npy") == 0)
		return FORMAT_NPY;
	return FORMAT_CSV;
}

static int cmd_run(const command *cmd, int argc, char **argv)
{
	run_args args = {0};
	cli_log log = {0};
	bool help = false;
	int status = parse_run_args(cmd, argc, argv, &args, &log, &help);
	if (status != 0)
		return status;
	if (help) {
		print_command_help(cmd, stdout);
		return 0;
	}
	double t_begin = now_seconds();

	// The job file.
	size_t job_len = 0;
	bool too_large = false;
	char *job_text = read_small_file(args.job, JOB_MAX_BYTES, &job_len, &too_large);
	if (!job_text) {
		if (too_large)
			error_line("%s: the job file is larger than %u MiB", args.job, JOB_MAX_BYTES >> 20);
		else
			error_line("%s: cannot read the job file: %s", args.job, strerror(errno));
		return EXIT_USAGE;
	}
	char base[PATH_MAX];
	folder_of(args.job, base, sizeof(base));
	job_spec job;
	job_error jerr;
	if (!job_parse(job_text, job_len, base, &job, &jerr)) {
		error_line("%s:%" PRIu64 ":%" PRIu64 ": %s", args.job, jerr.line, jerr.column, jerr.reason);
		free(job_text);
		return EXIT_USAGE;
	}

	job_run jr;
	memset(&jr, 0, sizeof(jr));
	jr.out.fd = -1;
	jr.pairs_fd = jr.poses_fd = -1;
	jr.log = &log;
	input_set inputs = {0};
	import_mesh *imported = NULL;
	uint32_t *build_of = NULL; // the job mesh whose build a mesh shares
	char *out_path = NULL;
	bool pipeline_ran = false;
	bool partial_existed = false;
	uint32_t *sorted_names = NULL;
	const char *pairs = args.pairs ? args.pairs : job.pairs;
	const char *poses = args.poses ? args.poses : job.poses;
	const char *out = args.out ? args.out : job.output ? job.output : "-";
	const char *mode = args.mode ? args.mode : job.mode ? job.mode : "exact";
	uint32_t resolution = args.has_resolution ? args.resolution : job.resolution ? job.resolution : DEFAULT_RESOLUTION;
	jr.mip = args.has_mip ? args.mip : job.mip;
	jr.mode = strcmp(mode, "approx") == 0 ? VKCOL_MODE_APPROX : VKCOL_MODE_EXACT;
	jr.vertex_budget = args.has_vertex_budget ? args.vertex_budget : job.vertex_budget;
	const char *format = args.format ? args.format : job.format;
	if (!format)
		format = has_suffix(out, ".npy") ? "npy" : (has_suffix(out, ".jsonl") || has_suffix(out, ".ndjson")) ? "jsonl" : "csv";
	jr.format = format_from_name(format);
	jr.npy_input = has_suffix(pairs, ".npy");
	jr.pairs_name = strcmp(pairs, "-") == 0 ? "<stdin>" : pairs;
	jr.poses_name = poses;
	jr.mesh_count = job.mesh_count;
	jr.quiet = args.quiet;
	jr.progress_s = args.progress_s;

	uint32_t shard = 0, shards = 1;
	if (args.shard && (status = parse_shard(cmd, args.shard, &shard, &shards)) != 0)
		goto done;
	if (jr.vertex_budget != 0 && jr.mode != VKCOL_MODE_APPROX) {
		status = usage_error(cmd, "a vertex budget (%s) needs approx mode: exact mode tests triangles, not vertices",
		                     args.has_vertex_budget ? "--vertex-budget" : "the job's \"vertex_budget\"");
		goto done;
	}
	if (jr.npy_input && !poses) {
		status = usage_error(cmd, "the pairs file %s is .npy: the poses come from an .npy too (\"poses\" in the job, "
		                          "or --poses)", pairs);
		goto done;
	}
	if (!jr.npy_input && poses) {
		status = usage_error(cmd, "--poses (or the job's \"poses\") goes with .npy pairs only; a text pairs file holds "
		                          "its poses");
		goto done;
	}
	if (strcmp(pairs, "-") == 0 && (args.resume || args.shard)) {
		status = usage_error(cmd, "%s needs the pairs in a file: standard input cannot be read again",
		                     args.resume ? "--resume" : "--shard");
		goto done;
	}
	if (strcmp(out, "-") == 0 && (args.resume || args.shard)) {
		status = usage_error(cmd, "%s needs an output file (--out or the job's \"output\"), not standard output",
		                     args.resume ? "--resume" : "--shard");
		goto done;
	}
	if (jr.format == FORMAT_NPY && strcmp(pairs, "-") == 0) {
		status = usage_error(cmd, "npy output needs the pairs in a file (its header holds their count)");
		goto done;
	}

	// Every input, before any work: the pairs (and poses), then each mesh.
	input_set_add(&inputs, args.job, "the job file");
	if (strcmp(pairs, "-") == 0) {
		jr.pairs_fd = STDIN_FILENO;
	} else if (jr.npy_input) {
		if ((status = open_npy(pairs, "pairs file", &jr.pairs_fd, &jr.pairs_npy)) != 0 ||
		    (status = open_npy(poses, "poses file", &jr.poses_fd, &jr.poses_npy)) != 0)
			goto done;
		if (jr.pairs_npy.kind == 'f' || jr.pairs_npy.ndim != 2 || jr.pairs_npy.shape[1] != 2) {
			error_line("%s: the pairs .npy is %s of shape (%" PRIu64 "%s%s): it should be integers of shape (N, 2)", pairs,
			           jr.pairs_npy.descr, jr.pairs_npy.shape[0], jr.pairs_npy.ndim == 2 ? ", " : ",",
			           jr.pairs_npy.ndim == 2 ? (jr.pairs_npy.shape[1] == 2 ? "2" : "...") : "");
			status = EXIT_USAGE;
			goto done;
		}
		if (jr.poses_npy.kind != 'f' || jr.poses_npy.ndim != 2 ||
		    (jr.poses_npy.shape[1] != 7 && jr.poses_npy.shape[1] != 14)) {
			error_line("%s: the poses .npy is %s with %u dimension%s: it should be float64 of shape (N, 7) or (N, 14)",
			           poses, jr.poses_npy.descr, jr.poses_npy.ndim, jr.poses_npy.ndim == 1 ? "" : "s");
			status = EXIT_USAGE;
			goto done;
		}
		if (jr.poses_npy.shape[0] != jr.pairs_npy.shape[0]) {
			error_line("%s: %" PRIu64 " poses for the %" PRIu64 " pairs of %s", poses, jr.poses_npy.shape[0],
			           jr.pairs_npy.shape[0], pairs);
			status = EXIT_USAGE;
			goto done;
		}
		input_set_add(&inputs, poses, "the poses file");
	} else {
		jr.pairs_fd = open(pairs, O_RDONLY | O_CLOEXEC);
		struct stat st;
		if (jr.pairs_fd < 0 || (fstat(jr.pairs_fd, &st) == 0 && S_ISDIR(st.st_mode))) {
			error_line("%s: cannot open the pairs file: %s", pairs, jr.pairs_fd < 0 ? strerror(errno) : "it is a folder");
			status = EXIT_USAGE;
			goto done;
		}
	}
	input_set_add(&inputs, pairs, "the pairs file");
	for (uint32_t m = 0; m < job.mesh_count; m++) {
		const job_mesh *jm = &job.meshes[m];
		int fd = open(jm->resolved, O_RDONLY | O_CLOEXEC);
		struct stat st;
		const char *why = fd < 0 ? strerror(errno) : (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) ? "it is a folder" : NULL;
		if (fd >= 0)
			close(fd);
		if (why) {
			uint64_t line = 0, column = 0;
			job_mesh_position(job_text, job_len, m, &line, &column);
			error_line("%s:%" PRIu64 ":%" PRIu64 ": meshes[%u]: cannot open %s: %s", args.job, line, column, m,
			           jm->resolved, why);
			status = EXIT_USAGE;
			goto done;
		}
		input_set_add(&inputs, jm->resolved, "the mesh file");
	}

	// The output: its .partial beside it, created and locked now.
	if (args.shard) {
		out_path = shard_path(out, shard, shards);
		if (!out_path) {
			status = EXIT_RUNTIME;
			goto done;
		}
		out = out_path;
	}
	// A .partial that was there before (an interrupted run's) is left as it
	// is until the pipeline starts: a check that fails now loses nothing.
	struct stat partial_st;
	char partial_name[PATH_MAX + 16];
	snprintf(partial_name, sizeof(partial_name), "%s.partial", out);
	partial_existed = strcmp(out, "-") != 0 && stat(partial_name, &partial_st) == 0;
	if ((status = out_open(&jr.out, out, "the output", &inputs, NULL, true, true)) != 0)
		goto done;
	if (jr.out.direct && (args.resume || args.shard)) {
		status = usage_error(cmd, "%s needs a regular output file, not %s", args.resume ? "--resume" : "--shard", out);
		goto done;
	}

	// Count and hash the pairs; hash the mesh files: the fingerprint.
	XXH3_state_t *fp = XXH3_createState();
	if (!fp || XXH3_64bits_reset(fp) != XXH_OK) {
		XXH3_freeState(fp);
		status = EXIT_RUNTIME;
		goto done;
	}
	char line[512];
	bool with_penetration = args.penetration || job.penetration;
	int n = snprintf(line, sizeof(line), "%s\nversion %d.%d.%d\nmode %s\nmip %u\nformat %s\npenetration %d\n",
	                 FINGERPRINT_VERSION, VKCOL_VERSION_MAJOR, VKCOL_VERSION_MINOR, VKCOL_VERSION_PATCH, mode, jr.mip,
	                 format, with_penetration);
	XXH3_64bits_update(fp, line, (size_t)n);
	if (jr.vertex_budget != 0) {
		// Only then: results written before the budget existed still resume.
		n = snprintf(line, sizeof(line), "vertex_budget %u\n", jr.vertex_budget);
		XXH3_64bits_update(fp, line, (size_t)n);
	}
	catch_interrupts(true);
	uint64_t pairs_hash = 0;
	if (jr.npy_input) {
		uint64_t poses_hash = 0;
		if (!hash_file(pairs, &pairs_hash) || !hash_file(poses, &poses_hash)) {
			error_line("%s: cannot read it: %s", pairs, strerror(errno));
			status = EXIT_USAGE;
			XXH3_freeState(fp);
			goto done;
		}
		jr.total = jr.pairs_npy.shape[0];
		n = snprintf(line, sizeof(line), "pairs npy %016" PRIx64 " poses %016" PRIx64 " count %" PRIu64 "\n",
		             pairs_hash, poses_hash, jr.total);
	} else if (jr.pairs_fd == STDIN_FILENO) {
		jr.total = UINT64_MAX;
		n = snprintf(line, sizeof(line), "pairs stdin\n");
	} else {
		status = prepass_text(&jr, &jr.total, &pairs_hash);
		if (status) {
			XXH3_freeState(fp);
			goto done;
		}
		n = snprintf(line, sizeof(line), "pairs text %016" PRIx64 " count %" PRIu64 "\n", pairs_hash, jr.total);
	}
	XXH3_64bits_update(fp, line, (size_t)n);
	for (uint32_t m = 0; m < job.mesh_count; m++) {
		const job_mesh *jm = &job.meshes[m];
		uint64_t h = 0;
		if (!hash_file(jm->resolved, &h)) {
			error_line("%s: cannot read the mesh file: %s", jm->resolved, strerror(errno));
			status = EXIT_USAGE;
			XXH3_freeState(fp);
			goto done;
		}
		n = snprintf(line, sizeof(line), "mesh %u name %s scale %.17g resolution %u file %016" PRIx64 "\n", m, jm->name,
		             jm->scale, jm->resolution ? jm->resolution : resolution, h);
		XXH3_64bits_update(fp, line, (size_t)n);
	}
	jr.header.fingerprint = XXH3_64bits_digest(fp);
	XXH3_freeState(fp);

	// The slice this run answers, and its header.
	jr.header.shard = shard;
	jr.header.shards = shards;
	jr.header.penetration = with_penetration;
	if (jr.total == UINT64_MAX) {
		jr.start = 0;
		jr.end = UINT64_MAX;
		jr.header.pairs = jr.header.rows = 0;
	} else {
		jr.start = jr.total * shard / shards;
		jr.end = jr.total * (shard + 1) / shards;
		jr.header.pairs = jr.total;
		jr.header.first = jr.start;
		jr.header.rows = jr.end - jr.start;
	}
	char hdr[1024];
	size_t hdr_len = result_header_write(jr.format, &jr.header, hdr, sizeof(hdr));
	uint64_t rows_done = 0;
	bool fresh = true;
	if (args.resume) {
		if (complete_output(&jr, out, hdr, hdr_len)) {
			if (!args.quiet)
				error_line("%s: complete already (job %016" PRIx64 ", %" PRIu64 " rows): nothing to do", out,
				           jr.header.fingerprint, jr.header.rows);
			out_discard(&jr.out);
			status = 0;
			goto done;
		}
		if ((status = resume_partial(&jr, hdr, hdr_len, &rows_done, &fresh)) != 0)
			goto done;
		jr.start += rows_done;
		if (!args.quiet && !fresh)
			error_line("resuming %s after %" PRIu64 " of %" PRIu64 " rows", jr.out.temp, rows_done, jr.header.rows);
	}

	// Import and check every mesh, then build each once on the device.
	double t_import = now_seconds();
	imported = xcalloc(job.mesh_count, sizeof(*imported));
	build_of = xcalloc(job.mesh_count, sizeof(*build_of));
	jr.handles = xcalloc(job.mesh_count, sizeof(*jr.handles));
	const char **names = xcalloc(job.mesh_count, sizeof(*names));
	if (!imported || !build_of || !jr.handles || !names) {
		free(names);
		error_line("out of memory");
		status = EXIT_RUNTIME;
		goto done;
	}
	for (uint32_t m = 0; m < job.mesh_count; m++) {
		const job_mesh *jm = &job.meshes[m];
		names[m] = jm->name[0] ? jm->name : "";
		// The same file at the same scale and resolution is built once.
		build_of[m] = m;
		struct stat sm, so;
		for (uint32_t o = 0; o < m; o++) {
			const job_mesh *jo = &job.meshes[o];
			if (build_of[o] == o && jo->scale == jm->scale &&
			    (jo->resolution ? jo->resolution : resolution) == (jm->resolution ? jm->resolution : resolution) &&
			    stat(jo->resolved, &so) == 0 && stat(jm->resolved, &sm) == 0 && so.st_dev == sm.st_dev &&
			    so.st_ino == sm.st_ino) {
				build_of[m] = o;
				break;
			}
		}
		if (build_of[m] != m)
			continue;
		char reason[256];
		if (import_mesh_load(jm->resolved, &imported[m], reason, sizeof(reason)) != 0) {
			uint64_t l = 0, c = 0;
			job_mesh_position(job_text, job_len, m, &l, &c);
			error_line("%s:%" PRIu64 ":%" PRIu64 ": meshes[%u] %s: %s", args.job, l, c, m, jm->resolved, reason);
			status = EXIT_USAGE;
			break;
		}
		for (uint64_t k = 0; jm->scale != 1.0 && k < 3ull * imported[m].vertex_count; k++)
			imported[m].positions[k] = (float)((double)imported[m].positions[k] * jm->scale);
	}
	jr.names.names = names;
	jr.names.count = job.mesh_count;
	sorted_names = xcalloc(job.mesh_count, sizeof(*sorted_names));
	if (!sorted_names) {
		error_line("out of memory");
		status = EXIT_RUNTIME;
	} else {
		mesh_names_sort(names, sorted_names, job.mesh_count);
		jr.names.sorted = sorted_names;
	}
	if (status) {
		free(names);
		goto done;
	}
	double t_build = now_seconds();
	vkcol_context_desc cd = context_desc(&log);
	vkcol_result r = vkcol_context_create(&cd, &jr.ctx);
	if (r != VKCOL_SUCCESS) {
		status = report_failure(&log, "cannot create a Vulkan context", r);
		free(names);
		goto done;
	}
	for (uint32_t m = 0; m < job.mesh_count && status == 0; m++) {
		if (build_of[m] != m) {
			jr.handles[m] = jr.handles[build_of[m]];
			continue;
		}
		vkcol_mesh_desc md = {0};
		md.positions = imported[m].positions;
		md.vertex_count = imported[m].vertex_count;
		md.indices = imported[m].indices;
		md.triangle_count = imported[m].triangle_count;
		md.cube_resolution = job.meshes[m].resolution ? job.meshes[m].resolution : resolution;
		md.name = job.meshes[m].resolved;
		vkcol_mesh_problem problem;
		r = vkcol_mesh_check(&md, &problem);
		if (r != VKCOL_SUCCESS) {
			error_line("%s: %s", job.meshes[m].resolved, problem.message[0] ? problem.message : vkcol_result_string(r));
			status = is_bad_input(r) ? EXIT_USAGE : EXIT_RUNTIME;
			break;
		}
		r = vkcol_mesh_create(jr.ctx, &md, &jr.handles[m]);
		if (r != VKCOL_SUCCESS)
			status = report_failure(&log, job.meshes[m].resolved, r);
		import_mesh_free(&imported[m]);
	}
	if (status) {
		free(names);
		goto done;
	}
	// One pair first: the library's first batch after meshes are created
	// fills its shared pools (and, in approx mode, each mesh's culling
	// field), which belongs to the build, not to the pairs' rate.
	{
		vkcol_pair warm = {jr.handles[0], jr.handles[0], {{1, 0, 0, 0}, {0, 0, 0}}, {{1, 0, 0, 0}, {0, 0, 0}}};
		vkcol_pair_result res;
		vkcol_batch_desc bd = {0};
		bd.pairs = &warm;
		bd.pair_count = 1;
		bd.mode = jr.mode;
		bd.mip_level = jr.mip;
		bd.vertex_budget = jr.vertex_budget;
		r = vkcol_batch_run(jr.ctx, &bd, &res);
		if (r != VKCOL_SUCCESS) {
			status = report_failure(&log, "cannot run a batch", r);
			free(names);
			goto done;
		}
	}
	double t_pairs = now_seconds();

	// The pipeline.
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	jr.workers = args.threads ? args.threads : cores < 1 ? 1 : cores > MAX_WORKERS ? MAX_WORKERS : (uint32_t)cores;
	jr.slot_count = jr.workers + 3;
	jr.block = args.block ? args.block : SLOT_PAIRS;
	jr.verify = args.verify;
	jr.progress_bar = isatty(STDERR_FILENO);
	jr.t_start = now_seconds();
	jr.last_sync = jr.last_progress = jr.t_start;
	if (!alloc_slots(&jr)) {
		error_line("out of memory for %u blocks of %u pairs", jr.slot_count, SLOT_PAIRS);
		status = EXIT_RUNTIME;
		free(names);
		goto done;
	}
	if (fresh && !(jr.out.to_stdout || jr.out.direct) && ftruncate(jr.out.fd, 0) != 0) {
		error_line("%s: cannot empty it: %s", jr.out.temp, strerror(errno));
		status = EXIT_RUNTIME;
		goto done;
	}
	if (fresh && !write_all(jr.out.fd, hdr, hdr_len)) {
		error_line("%s: cannot write the results: %s", out, strerror(errno));
		status = EXIT_RUNTIME;
		free(names);
		goto done;
	}
	pipeline_ran = true;
	run_pipeline(&jr);
	progress(&jr, true);
	free(names);
	jr.names.names = NULL;
	double t_end = now_seconds();

	// The outcome.
	bool complete = !jr.bad && !jr.write_failed && jr.device_error == VKCOL_SUCCESS && !interrupt_signal &&
	                (jr.end == UINT64_MAX || jr.start + jr.written == jr.end);
	if (jr.end == UINT64_MAX && interrupt_signal)
		complete = false;
	if (jr.write_failed) {
		error_line("%s: cannot write the results: %s", out, strerror(jr.write_errno));
		status = EXIT_RUNTIME;
	} else if (jr.device_error != VKCOL_SUCCESS) {
		status = report_failure(&log, "cannot answer the pairs", jr.device_error);
	} else if (jr.bad) {
		error_line("%s", jr.bad_message);
		status = EXIT_USAGE;
	} else if (!complete) {
		status = 128 + (int)(interrupt_signal ? interrupt_signal : SIGINT);
	}
	log_flush(&log);
	int validation = check_validation(jr.ctx);
	if (status == 0)
		status = validation;
	if (status == 0 && complete) {
		status = out_commit(&jr.out);
	} else if (!(jr.out.to_stdout || jr.out.direct)) {
		uint64_t kept = rows_done + jr.written;
		out_keep(&jr.out);
		if (status >= 128)
			error_line("interrupted: %" PRIu64 " of %" PRIu64 " pairs answered and kept in %s.partial; `vkcollide run %s "
			           "--resume%s%s` continues",
			           kept, jr.header.rows, out, args.job, args.shard ? " --shard " : "", args.shard ? args.shard : "");
		else
			error_line("the %" PRIu64 " pairs answered before it are kept in %s.partial", kept, out);
	}
	if (jr.verify) {
		char v[32], ag[32], fpo[32], fne[32], rc[32];
		format_count(jr.verified, v, sizeof(v));
		format_count(jr.agree, ag, sizeof(ag));
		format_count(jr.false_positive, fpo, sizeof(fpo));
		format_count(jr.false_negative, fne, sizeof(fne));
		format_count(jr.reference_collide, rc, sizeof(rc));
		double nv = jr.verified ? (double)jr.verified : 1.0;
		char band[96];
		verify_band_note(jr.mode, jr.false_positive, jr.in_band, band, sizeof(band));
		error_line("verify: %s pairs, %s agree (%.2f%%), %s false positives, %s false negatives (%s mode vs the exact "
		           "CPU reference, which says %s collide)%s",
		           v, ag, 100.0 * (double)jr.agree / nv, fpo, fne, mode, rc, band);
	}
	if (status == 0 && !args.quiet) {
		vkcol_device_info dev = {0};
		vkcol_context_get_device_info(jr.ctx, &dev);
		char count[32], col[32], rate[32];
		format_count(jr.written, count, sizeof(count));
		format_count(jr.collide, col, sizeof(col));
		double busy = t_end - jr.t_start;
		format_count(busy > 0 ? (uint64_t)((double)jr.written / busy) : 0, rate, sizeof(rate));
		error_line("done: %s pairs, %s collide (%.1f%%), %s pairs/s; shard %u/%u; time %.2f s: import %.2f, build %.2f, "
		           "pairs %.2f (device %.2f; parse %.2f and format %.2f of CPU on %u threads; write %.2f); device %s; "
		           "job %016" PRIx64 "; results in %s",
		           count, col, jr.written ? 100.0 * (double)jr.collide / (double)jr.written : 0.0, rate, shard, shards,
		           t_end - t_begin, t_build - t_import, t_pairs - t_build, t_end - t_pairs, jr.device_s, jr.parse_s,
		           jr.format_s, jr.workers, jr.write_s, dev.name, jr.header.fingerprint,
		           (jr.out.to_stdout || jr.out.direct) ? "standard output" : out);
	}

done:
	catch_interrupts(false);
	if (!pipeline_ran && partial_existed)
		out_keep(&jr.out);
	else if (!pipeline_ran)
		out_discard(&jr.out);
	free_slots(&jr);
	for (uint32_t m = 0; imported && m < job.mesh_count; m++)
		import_mesh_free(&imported[m]);
	free(imported);
	for (uint32_t m = 0; jr.ctx && build_of && m < job.mesh_count; m++) {
		if (build_of[m] == m)
			vkcol_mesh_destroy(jr.ctx, jr.handles[m]);
	}
	vkcol_context_destroy(jr.ctx);
	log_flush(&log);
	free(build_of);
	free(sorted_names);
	free(jr.handles);
	if (jr.pairs_fd > STDIN_FILENO)
		close(jr.pairs_fd);
	if (jr.poses_fd > STDIN_FILENO)
		close(jr.poses_fd);
	free(out_path);
	input_set_free(&inputs);
	job_free(&job);
	free(job_text);
	return status;
}
