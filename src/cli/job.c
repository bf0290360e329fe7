// SPDX-License-Identifier: MIT
// The job file of `vkcollide run` (see job.h). json-c parses the text; the
// positions of errors found after parsing (a bad value, an unknown key) come
// from a walk of the text along the value's path (json-c keeps no
// positions).
#include "job.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#define MAX_PATH_STEPS 4

typedef struct step {
	const char *key; // NULL: an array index
	size_t index;
} step;

// --- positions ------------------------------------------------------------------

static size_t skip_ws(const char *t, size_t n, size_t i)
{
	while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
		i++;
	return i;
}

// Past the string starting at t[i] == '"'.
static size_t skip_string(const char *t, size_t n, size_t i)
{
	for (i++; i < n && t[i] != '"'; i++) {
		if (t[i] == '\\')
			i++;
	}
	return i < n ? i + 1 : n;
}

// Past the value at t[i] (the text is valid JSON: json-c parsed it).
static size_t skip_value(const char *t, size_t n, size_t i)
{
	if (i >= n)
		return n;
	if (t[i] == '"')
		return skip_string(t, n, i);
	if (t[i] == '{' || t[i] == '[') {
		int depth = 0;
		while (i < n) {
			if (t[i] == '"') {
				i = skip_string(t, n, i);
				continue;
			}
			if (t[i] == '{' || t[i] == '[')
				depth++;
			else if ((t[i] == '}' || t[i] == ']') && --depth == 0)
				return i + 1;
			i++;
		}
		return n;
	}
	while (i < n && t[i] != ',' && t[i] != '}' && t[i] != ']' && t[i] != ' ' && t[i] != '\t' && t[i] != '\n' &&
	       t[i] != '\r')
		i++;
	return i;
}

// Whether the JSON string at t[i] (quotes included) spells key; escapes are
// compared as written (job keys and names need none).
static bool string_is(const char *t, size_t n, size_t i, const char *key)
{
	size_t end = skip_string(t, n, i);
	size_t len = strlen(key);
	return end - i == len + 2 && memcmp(t + i + 1, key, len) == 0;
}

// The offset of the value at path (or of its key, with want_key); the last
// occurrence of a repeated key, as json-c keeps. n when not found.
static size_t locate(const char *t, size_t n, const step *path, int steps, bool want_key)
{
	size_t i = skip_ws(t, n, 0);
	if (i < n && (unsigned char)t[i] == 0xef) // a byte order mark
		i = skip_ws(t, n, i + 3);
	size_t key_at = i;
	for (int s = 0; s < steps; s++) {
		if (i >= n)
			return n;
		if (path[s].key) {
			if (t[i] != '{')
				return n;
			size_t found = n, found_key = n;
			i = skip_ws(t, n, i + 1);
			while (i < n && t[i] == '"') {
				size_t k = i;
				bool match = string_is(t, n, i, path[s].key);
				i = skip_ws(t, n, skip_string(t, n, i));
				i = skip_ws(t, n, i + 1); // ':'
				if (match) {
					found = i;
					found_key = k;
				}
				i = skip_ws(t, n, skip_value(t, n, i));
				if (i < n && t[i] == ',')
					i = skip_ws(t, n, i + 1);
			}
			if (found == n)
				return n;
			i = found;
			key_at = found_key;
		} else {
			if (t[i] != '[')
				return n;
			i = skip_ws(t, n, i + 1);
			for (size_t k = 0; k < path[s].index && i < n && t[i] != ']'; k++) {
				i = skip_ws(t, n, skip_value(t, n, i));
				if (i < n && t[i] == ',')
					i = skip_ws(t, n, i + 1);
			}
			if (i >= n || t[i] == ']')
				return n;
			key_at = i;
		}
	}
	return want_key ? key_at : i;
}

// Keys compared per object: the job's objects know at most a dozen, so an
// object with more holds an unknown key, which the parse reports anyway.
#define MAX_CHECKED_KEYS 64

// Objects and arrays repeated_key looks into, nested (json-c's own limit is
// 32 by default).
#define MAX_CHECKED_DEPTH 64

// The offset of the first key that repeats an earlier key of the same
// object (json-c keeps the last value and drops the others without a word),
// in the value at t[i] or any value inside it, at most MAX_CHECKED_DEPTH
// deep; n when none. Keys compare as written. *end: past the value. Text it
// does not read as JSON (what json-c accepts beyond it) ends the walk
// there: *end = n.
static size_t repeated_key(const char *t, size_t n, size_t i, int depth, size_t *end)
{
	size_t found = n;
	i = skip_ws(t, n, i);
	if (i < n && (t[i] == '{' || t[i] == '[')) {
		if (depth >= MAX_CHECKED_DEPTH) {
			*end = n;
			return n;
		}
		bool object = t[i] == '{';
		size_t keys[MAX_CHECKED_KEYS], count = 0;
		i = skip_ws(t, n, i + 1);
		while (i < n && t[i] != '}' && t[i] != ']') {
			if (object) {
				if (t[i] != '"') {
					*end = n;
					return found;
				}
				size_t k = i, k_end = skip_string(t, n, i);
				for (size_t j = 0; j < count && found == n; j++) {
					size_t j_end = skip_string(t, n, keys[j]);
					if (j_end - keys[j] == k_end - k && memcmp(t + keys[j], t + k, k_end - k) == 0)
						found = k;
				}
				if (count < MAX_CHECKED_KEYS)
					keys[count++] = k;
				i = skip_ws(t, n, k_end);
				i = skip_ws(t, n, i + 1); // ':'
			}
			size_t before = i, inner = repeated_key(t, n, i, depth + 1, &i);
			if (found == n)
				found = inner;
			i = skip_ws(t, n, i);
			if (i < n && t[i] == ',')
				i = skip_ws(t, n, i + 1);
			else if (i < n && t[i] != '}' && t[i] != ']')
				i = n; // not read as JSON here: the walk ends
			if (i <= before)
				i = n;
		}
		*end = i < n ? i + 1 : n;
		return found;
	}
	*end = skip_value(t, n, i);
	return found;
}

static void position(const char *t, size_t n, size_t offset, job_error *err)
{
	if (offset > n)
		offset = n;
	uint64_t line = 1, column = 1;
	for (size_t i = 0; i < offset; i++) {
		if (t[i] == '\n') {
			line++;
			column = 1;
		} else {
			column++;
		}
	}
	err->line = line;
	err->column = column;
}

typedef struct parser {
	const char *text;
	size_t len;
	job_error *err;
	step path[MAX_PATH_STEPS];
	int steps;
} parser;

static bool fail_at(parser *p, bool at_key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

// Records an error at the current path's value (or key); returns false.
static bool fail_at(parser *p, bool at_key, const char *fmt, ...)
{
	size_t offset = locate(p->text, p->len, p->path, p->steps, at_key);
	position(p->text, p->len, offset, p->err);
	va_list args;
	va_start(args, fmt);
	vsnprintf(p->err->reason, sizeof(p->err->reason), fmt, args);
	va_end(args);
	return false;
}

// The current path as written in messages: meshes[2].scale.
static const char *path_name(const parser *p, char *buf, size_t size)
{
	size_t o = 0;
	buf[0] = '\0';
	for (int s = 0; s < p->steps && o < size; s++) {
		if (p->path[s].key)
			o += (size_t)snprintf(buf + o, size - o, "%s%s", s ? "." : "", p->path[s].key);
		else
			o += (size_t)snprintf(buf + o, size - o, "[%zu]", p->path[s].index);
	}
	return buf;
}

static void push_key(parser *p, const char *key)
{
	p->path[p->steps++] = (step){key, 0};
}

static void push_index(parser *p, size_t index)
{
	p->path[p->steps++] = (step){NULL, index};
}

static void pop(parser *p)
{
	p->steps--;
}

static const char *type_word(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null:
		return "null";
	case json_type_boolean:
		return "a boolean";
	case json_type_double:
		return "a fractional number";
	case json_type_int:
		return "an integer";
	case json_type_object:
		return "an object";
	case json_type_array:
		return "an array";
	case json_type_string:
		return "a string";
	}
	return "a value";
}

static char *join_path(const char *dir, const char *path)
{
	size_t dl = strlen(dir), pl = strlen(path);
	bool absolute = path[0] == '/' || dl == 0;
	char *out = malloc((absolute ? 0 : dl + 1) + pl + 1);
	if (!out)
		return NULL;
	if (absolute) {
		memcpy(out, path, pl + 1);
	} else {
		memcpy(out, dir, dl);
		out[dl] = '/';
		memcpy(out + dl + 1, path, pl + 1);
	}
	return out;
}

static bool get_string(parser *p, json_object *v, char **out, bool allow_empty)
{
	char where[96];
	if (!json_object_is_type(v, json_type_string))
		return fail_at(p, false, "%s wants a string, not %s", path_name(p, where, sizeof(where)), type_word(v));
	const char *s = json_object_get_string(v);
	size_t len = (size_t)json_object_get_string_len(v);
	if (strlen(s) != len)
		return fail_at(p, false, "%s holds a NUL character", path_name(p, where, sizeof(where)));
	if (!allow_empty && len == 0)
		return fail_at(p, false, "%s is empty", path_name(p, where, sizeof(where)));
	*out = strdup(s);
	if (!*out)
		return fail_at(p, false, "out of memory");
	return true;
}

static bool get_path(parser *p, json_object *v, const char *base_dir, char **out)
{
	char *raw = NULL;
	if (!get_string(p, v, &raw, false))
		return false;
	*out = join_path(base_dir, raw);
	free(raw);
	if (!*out)
		return fail_at(p, false, "out of memory");
	return true;
}

static bool get_uint(parser *p, json_object *v, uint32_t min, uint32_t max, bool power_of_two, uint32_t *out)
{
	char where[96];
	path_name(p, where, sizeof(where));
	if (!json_object_is_type(v, json_type_int))
		return fail_at(p, false, "%s wants an integer, not %s", where, type_word(v));
	int64_t x = json_object_get_int64(v);
	if (x < (int64_t)min || x > (int64_t)max || (power_of_two && (x & (x - 1))))
		return fail_at(p, false, "%s wants %s in %u..%u, not %s", where, power_of_two ? "a power of two" : "an integer",
		               min, max, json_object_get_string(v));
	*out = (uint32_t)x;
	return true;
}

static bool get_choice(parser *p, json_object *v, const char *const *choices, char **out)
{
	char where[96];
	path_name(p, where, sizeof(where));
	if (!get_string(p, v, out, true))
		return false;
	for (const char *const *c = choices; *c; c++) {
		if (strcmp(*out, *c) == 0)
			return true;
	}
	char list[96] = "";
	for (const char *const *c = choices; *c; c++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", c == choices ? "" : ", ", *c);
	char quoted[48];
	snprintf(quoted, sizeof(quoted), "%.40s", *out);
	free(*out);
	*out = NULL;
	return fail_at(p, false, "%s wants one of %s, not '%s'", where, list, quoted);
}

bool job_mesh_name_ok(const char *name, const char **why)
{
	size_t n = strlen(name);
	if (n == 0 || n > JOB_NAME_MAX) {
		*why = "a mesh name has 1 to 64 bytes";
		return false;
	}
	if (name[0] == '#') {
		*why = "a mesh name may not start with '#' (a pairs line starting so is a comment)";
		return false;
	}
	bool digits = true;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];
		if (c <= ' ' || c == ',' || c == 0x7f) {
			*why = "a mesh name may not hold blanks, commas or control characters (it is a field of a pairs line)";
			return false;
		}
		digits = digits && c >= '0' && c <= '9';
	}
	if (digits) {
		*why = "a mesh name may not be all digits (a number in a pairs line is a mesh index)";
		return false;
	}
	return true;
}

static bool parse_mesh(parser *p, json_object *m, const char *base_dir, job_mesh *out)
{
	char where[96];
	path_name(p, where, sizeof(where));
	out->scale = 1.0;
	if (!json_object_is_type(m, json_type_object))
		return fail_at(p, false, "%s wants an object {\"path\": ...}, not %s", where, type_word(m));
	struct json_object_iterator it = json_object_iter_begin(m), end = json_object_iter_end(m);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		const char *key = json_object_iter_peek_name(&it);
		json_object *v = json_object_iter_peek_value(&it);
		push_key(p, key);
		bool ok = true;
		if (strcmp(key, "path") == 0) {
			ok = get_string(p, v, &out->path, false) && get_path(p, v, base_dir, &out->resolved);
		} else if (strcmp(key, "name") == 0) {
			const char *why;
			ok = get_string(p, v, &out->name, true);
			if (ok && !job_mesh_name_ok(out->name, &why))
				ok = fail_at(p, false, "%s: %s", path_name(p, where, sizeof(where)), why);
		} else if (strcmp(key, "scale") == 0) {
			json_type t = json_object_get_type(v);
			double s = json_object_get_double(v);
			if (t != json_type_int && t != json_type_double)
				ok = fail_at(p, false, "%s wants a number, not %s", path_name(p, where, sizeof(where)), type_word(v));
			else if (!(s > 0.0) || s > 1e30)
				ok = fail_at(p, false, "%s wants a number > 0 and <= 1e30, not %s", path_name(p, where, sizeof(where)),
				             json_object_get_string(v));
			else
				out->scale = s;
		} else if (strcmp(key, "resolution") == 0) {
			ok = get_uint(p, v, 4, 1024, true, &out->resolution);
		} else {
			char quoted[48];
			snprintf(quoted, sizeof(quoted), "%.40s", key);
			ok = fail_at(p, true, "unknown key '%s' in %s (known: path, name, scale, resolution)", quoted, where);
		}
		pop(p);
		if (!ok)
			return false;
	}
	if (!out->path)
		return fail_at(p, false, "%s has no \"path\"", where);
	if (!out->name && !(out->name = strdup("")))
		return fail_at(p, false, "out of memory");
	return true;
}

static bool parse_meshes(parser *p, json_object *v, const char *base_dir, job_spec *job)
{
	if (!json_object_is_type(v, json_type_array))
		return fail_at(p, false, "meshes wants an array of mesh objects, not %s", type_word(v));
	size_t n = json_object_array_length(v);
	if (n == 0)
		return fail_at(p, false, "meshes is empty: a job needs at least one mesh");
	if (n > JOB_MAX_MESHES)
		return fail_at(p, false, "meshes has %zu entries, more than %u", n, JOB_MAX_MESHES);
	job->meshes = calloc(n, sizeof(*job->meshes));
	if (!job->meshes)
		return fail_at(p, false, "out of memory");
	job->mesh_count = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		push_index(p, i);
		bool ok = parse_mesh(p, json_object_array_get_idx(v, i), base_dir, &job->meshes[i]);
		if (ok && job->meshes[i].name[0]) {
			for (size_t k = 0; k < i; k++) {
				if (strcmp(job->meshes[k].name, job->meshes[i].name) == 0) {
					push_key(p, "name");
					ok = fail_at(p, false, "meshes[%zu] and meshes[%zu] are both named '%s'", k, i,
					             job->meshes[i].name);
					pop(p);
					break;
				}
			}
		}
		pop(p);
		if (!ok)
			return false;
	}
	return true;
}

bool job_parse(const char *text, size_t len, const char *base_dir, job_spec *out, job_error *err)
{
	memset(out, 0, sizeof(*out));
	memset(err, 0, sizeof(*err));
	parser p = {text, len, err, {{0}}, 0};
	const char *nul = memchr(text, '\0', len);
	if (nul) {
		position(text, len, (size_t)(nul - text), err);
		snprintf(err->reason, sizeof(err->reason), "a NUL byte (is this a text file?)");
		return false;
	}
	size_t start = 0;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		start = 3;
	json_tokener *tok = json_tokener_new();
	if (!tok) {
		snprintf(err->reason, sizeof(err->reason), "out of memory");
		return false;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	json_object *root = NULL;
	if (len - start > 0)
		root = json_tokener_parse_ex(tok, text + start, (int)(len - start));
	enum json_tokener_error jerr = json_tokener_get_error(tok);
	size_t end = start + json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!root || jerr != json_tokener_success) {
		json_object_put(root);
		if (jerr == json_tokener_continue || len - start == 0) {
			position(text, len, len, err);
			snprintf(err->reason, sizeof(err->reason), "the JSON text ends early (%s)",
			         len - start == 0 ? "the file is empty" : "an unclosed object, array or string");
		} else {
			position(text, len, end > start ? end - 1 : start, err);
			snprintf(err->reason, sizeof(err->reason), "not valid JSON: %s", json_tokener_error_desc(jerr));
		}
		return false;
	}
	size_t rest = skip_ws(text, len, end);
	if (rest < len) {
		json_object_put(root);
		position(text, len, rest, err);
		snprintf(err->reason, sizeof(err->reason), "text after the job's JSON object");
		return false;
	}
	size_t ignored, repeated = repeated_key(text, len, start, 0, &ignored);
	if (repeated < len) {
		json_object_put(root);
		position(text, len, repeated, err);
		size_t key_end = skip_string(text, len, repeated);
		snprintf(err->reason, sizeof(err->reason), "the key %.*s appears twice in one object",
		         (int)(key_end - repeated > 42 ? 42 : key_end - repeated), text + repeated);
		return false;
	}
	bool ok = true;
	if (!json_object_is_type(root, json_type_object)) {
		ok = fail_at(&p, false, "a job is a JSON object {\"meshes\": [...], \"pairs\": ...}, not %s", type_word(root));
	} else {
		struct json_object_iterator it = json_object_iter_begin(root), iend = json_object_iter_end(root);
		for (; ok && !json_object_iter_equal(&it, &iend); json_object_iter_next(&it)) {
			const char *key = json_object_iter_peek_name(&it);
			json_object *v = json_object_iter_peek_value(&it);
			static const char *const modes[] = {"exact", "approx", NULL};
			static const char *const formats[] = {"csv", "jsonl", "npy", NULL};
			push_key(&p, key);
			if (strcmp(key, "meshes") == 0) {
				ok = parse_meshes(&p, v, base_dir, out);
			} else if (strcmp(key, "pairs") == 0) {
				ok = get_path(&p, v, base_dir, &out->pairs);
			} else if (strcmp(key, "poses") == 0) {
				ok = get_path(&p, v, base_dir, &out->poses);
			} else if (strcmp(key, "output") == 0) {
				ok = get_path(&p, v, base_dir, &out->output);
			} else if (strcmp(key, "mode") == 0) {
				ok = get_choice(&p, v, modes, &out->mode);
			} else if (strcmp(key, "format") == 0) {
				ok = get_choice(&p, v, formats, &out->format);
			} else if (strcmp(key, "resolution") == 0) {
				ok = get_uint(&p, v, 4, 1024, true, &out->resolution);
			} else if (strcmp(key, "penetration") == 0) {
				if (!json_object_is_type(v, json_type_boolean))
					ok = fail_at(&p, false, "penetration wants true or false, not %s", type_word(v));
				else
					out->penetration = json_object_get_boolean(v);
			} else if (strcmp(key, "mip") == 0) {
				ok = get_uint(&p, v, 0, 10, false, &out->mip);
				out->has_mip = true;
			} else if (strcmp(key, "vertex_budget") == 0) {
				ok = get_uint(&p, v, 0, UINT32_MAX, false, &out->vertex_budget);
				out->has_vertex_budget = true;
			} else {
				char quoted[48];
				snprintf(quoted, sizeof(quoted), "%.40s", key);
				ok = fail_at(&p, true,
				             "unknown key '%s' (known: meshes, pairs, poses, mode, resolution, mip, vertex_budget, "
				             "output, format, penetration)",
				             quoted);
			}
			pop(&p);
		}
		if (ok && !out->meshes)
			ok = fail_at(&p, false, "the job has no \"meshes\"");
		else if (ok && !out->pairs)
			ok = fail_at(&p, false, "the job has no \"pairs\" file");
	}
	json_object_put(root);
	if (!ok)
		job_free(out);
	return ok;
}

void job_free(job_spec *job)
{
	for (uint32_t i = 0; job->meshes && i < job->mesh_count; i++) {
		free(job->meshes[i].name);
		free(job->meshes[i].path);
		free(job->meshes[i].resolved);
	}
	free(job->meshes);
	free(job->pairs);
	free(job->poses);
	free(job->output);
	free(job->mode);
	free(job->format);
	memset(job, 0, sizeof(*job));
}

bool job_mesh_position(const char *text, size_t len, uint32_t index, uint64_t *line, uint64_t *column)
{
	step path[3] = {{"meshes", 0}, {NULL, index}, {"path", 0}};
	size_t offset = locate(text, len, path, 3, false);
	if (offset >= len)
		return false;
	job_error e;
	position(text, len, offset, &e);
	*line = e.line;
	*column = e.column;
	return true;
}
