// SPDX-License-Identifier: MIT
// Output files that lose nothing (see outfile.h).
#define _XOPEN_SOURCE 700 // realpath
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

bool input_set_add(input_set *set, const char *path, const char *what)
{
	struct stat st;
	if (strcmp(path, "-") == 0 || stat(path, &st) != 0)
		return true;
	if (set->count == set->capacity) {
		int cap = set->capacity ? 2 * set->capacity : 16;
		input_item *items = realloc(set->items, (size_t)cap * sizeof(*items));
		if (!items)
			return false;
		set->items = items;
		set->capacity = cap;
	}
	set->items[set->count++] = (input_item){path, what, st.st_dev, st.st_ino};
	return true;
}

void input_set_free(input_set *set)
{
	free(set->items);
	memset(set, 0, sizeof(*set));
}

bool write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return false;
		}
		p += n;
		len -= (size_t)n;
	}
	return true;
}

// The folder of path ("." when none), for syncing after a rename.
static void folder_of(const char *path, char *out, size_t size)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(out, size, ".");
	else if (slash == path)
		snprintf(out, size, "/");
	else
		snprintf(out, size, "%.*s", (int)(slash - path), path);
}

// The absolute name path has or would have: its folder resolved, then its
// last component. False when the folder does not resolve.
static bool canonical(const char *path, char *out, size_t size)
{
	char dir[PATH_MAX], real[PATH_MAX];
	folder_of(path, dir, sizeof(dir));
	if (!realpath(dir, real))
		return false;
	const char *slash = strrchr(path, '/');
	snprintf(out, size, "%s/%s", strcmp(real, "/") == 0 ? "" : real, slash ? slash + 1 : path);
	return true;
}

static int check_target(const char *path, const char *what, const input_set *inputs, const out_file *other)
{
	struct stat st;
	bool exists = stat(path, &st) == 0;
	if (exists && S_ISDIR(st.st_mode)) {
		error_line("%s: %s names a folder, not a file", path, what);
		return EXIT_USAGE;
	}
	for (int i = 0; exists && inputs && i < inputs->count; i++) {
		if (inputs->items[i].dev == st.st_dev && inputs->items[i].ino == st.st_ino) {
			error_line("%s: %s names %s%s%s, an input: refusing to overwrite it", path, what, inputs->items[i].what,
			           strcmp(inputs->items[i].path, path) == 0 ? "" : " ",
			           strcmp(inputs->items[i].path, path) == 0 ? "" : inputs->items[i].path);
			return EXIT_USAGE;
		}
	}
	if (other && !other->to_stdout) {
		char a[PATH_MAX + 256], b[PATH_MAX + 256];
		struct stat ost;
		bool same = exists && stat(other->path, &ost) == 0 && ost.st_dev == st.st_dev && ost.st_ino == st.st_ino;
		if (!same && canonical(path, a, sizeof(a)) && canonical(other->path, b, sizeof(b)))
			same = strcmp(a, b) == 0;
		if (same) {
			error_line("%s: %s names the file %s writes", path, what, other->what);
			return EXIT_USAGE;
		}
	}
	return 0;
}

int out_open(out_file *f, const char *path, const char *what, const input_set *inputs, const out_file *other,
             bool partial_name, bool keep)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->path = path;
	f->what = what;
	f->partial_name = partial_name;
	if (strcmp(path, "-") == 0) {
		f->to_stdout = true;
		f->fd = STDOUT_FILENO;
		return 0;
	}
	int status = check_target(path, what, inputs, other);
	if (status)
		return status;
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		f->direct = true;
		f->fd = open(path, O_WRONLY | O_CLOEXEC);
		if (f->fd < 0) {
			error_line("%s: cannot open %s: %s", path, what, strerror(errno));
			return EXIT_USAGE;
		}
		return 0;
	}
	size_t len = strlen(path);
	f->temp = malloc(len + 16);
	if (!f->temp) {
		error_line("out of memory");
		return EXIT_RUNTIME;
	}
	if (partial_name) {
		snprintf(f->temp, len + 16, "%s.partial", path);
		status = check_target(f->temp, what, inputs, NULL);
		if (status) {
			free(f->temp);
			f->temp = NULL;
			return status;
		}
		f->fd = open(f->temp, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	} else {
		snprintf(f->temp, len + 16, "%s.tmp-XXXXXX", path);
		f->fd = mkstemp(f->temp);
	}
	if (f->fd < 0) {
		error_line("%s: cannot create %s beside it (%s): %s", path, partial_name ? "the .partial file" : "a temporary file",
		           what, strerror(errno));
		free(f->temp);
		f->temp = NULL;
		return EXIT_USAGE;
	}
	if (partial_name) {
		struct flock lock = {0};
		lock.l_type = F_WRLCK;
		lock.l_whence = SEEK_SET;
		if (fcntl(f->fd, F_SETLK, &lock) != 0) {
			error_line("%s: another vkcollide is writing %s", path, f->temp);
			close(f->fd);
			f->fd = -1;
			free(f->temp);
			f->temp = NULL;
			return EXIT_USAGE;
		}
		if (!keep && ftruncate(f->fd, 0) != 0) {
			error_line("%s: cannot empty %s: %s", path, f->temp, strerror(errno));
			out_discard(f);
			return EXIT_RUNTIME;
		}
	} else {
		// mkstemp makes the file 0600; results are as readable as any file
		// the user creates.
		mode_t mask = umask(0);
		umask(mask);
		fchmod(f->fd, 0666 & ~mask);
	}
	return 0;
}

int out_commit(out_file *f)
{
	if (f->to_stdout)
		return 0;
	if (f->direct) {
		if (f->fd >= 0)
			close(f->fd);
		f->fd = -1;
		return 0;
	}
	if (f->fd >= 0) {
		if (fsync(f->fd) != 0) {
			int e = errno;
			error_line("%s: cannot write the results (%s): %s", f->path, f->temp, strerror(e));
			close(f->fd);
			f->fd = -1;
			return EXIT_RUNTIME;
		}
		close(f->fd);
		f->fd = -1;
	}
	if (!f->temp)
		return 0;
	if (rename(f->temp, f->path) != 0) {
		error_line("%s: cannot rename %s to it: %s (the results are in %s)", f->path, f->temp, strerror(errno),
		           f->temp);
		return EXIT_RUNTIME;
	}
	char dir[PATH_MAX];
	folder_of(f->path, dir, sizeof(dir));
	int dfd = open(dir, O_RDONLY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(f->temp);
	f->temp = NULL;
	return 0;
}

void out_discard(out_file *f)
{
	if (f->direct && f->fd >= 0)
		close(f->fd);
	if (f->direct)
		f->fd = -1;
	if (f->to_stdout || !f->temp)
		return;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	unlink(f->temp);
	free(f->temp);
	f->temp = NULL;
}

void out_keep(out_file *f)
{
	if (f->to_stdout || f->direct) {
		out_discard(f);
		return;
	}
	if (f->fd >= 0) {
		fsync(f->fd);
		close(f->fd);
	}
	f->fd = -1;
	free(f->temp);
	f->temp = NULL;
}
