// SPDX-License-Identifier: MIT
// Mesh import through Assimp's C API.
//
// Assimp parses untrusted files with a C++ code base that has a long history
// of crashes, hangs and huge allocations on malformed input (the corpus in
// assimp-testmodels' invalid/ has a 300-byte OFF file whose header makes
// Assimp construct 21 GB of faces). So the import runs in a forked child
// process with an address-space and CPU-time limit, and only plain arrays
// come back through a pipe: whatever Assimp does, the caller gets an error
// string, never a crash, an out-of-memory kill or a hang.
//
// Post-processing flags, and why not others:
// - Triangulate: polygons to triangles; points and lines pass through and are
//   dropped below.
// - SortByPType: one primitive type per aiMesh, so a mesh of triangles is never
//   mixed with lines.
// - ValidateDataStructure: rejects scenes with dangling indices or pointers
//   before we walk them (we still check every index ourselves).
// - Not JoinIdenticalVertices: it joins on every attribute (normals and UVs
//   split positions), uses a small absolute epsilon, and sorts positions with
//   std::sort, which is undefined (in practice out-of-bounds) on NaN keys; a
//   NaN coordinate made it fold a whole triangle into one vertex. We join
//   exactly on positions instead, leaving non-finite vertices unjoined so the
//   library's check can name them.
// - Not PreTransformVertices: it merges by material and rewrites the scene; we
//   walk the node tree and apply the transforms in double precision, which
//   also gives the true number of mesh instances.
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "import.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <vkcollide.h>

// The library's welding key and hash (header only), so that the importer
// joins exactly the positions the library would weld.
#include "../geometry/weld.h"

#define IMPORT_FLAGS (aiProcess_Triangulate | aiProcess_SortByPType)

// Deeper node trees than this are treated as corrupt (also stops cycles).
#define MAX_NODE_DEPTH 256

// Address space the child may add to what it inherited: enough for Assimp's
// intermediate copies of a mesh of tens of millions of triangles, far below
// what an absurd header count asks for. Only the named file's size counts:
// a .gltf whose buffers live in a large .bin gets the minimum.
#define MIN_IMPORT_BUDGET ((uint64_t)4 << 30)
#define BYTES_BUDGET_PER_FILE_BYTE 100u

// Child CPU-time limit: a base plus a rate generous for Assimp's text parsers.
#define MIN_IMPORT_SECONDS 60u
#define FILE_BYTES_PER_SECOND (4u << 20)

#define CHILD_MAGIC 0x766b6331u // "vkc1"
#define ERROR_CAPACITY 256

typedef struct child_header {
	uint32_t magic;
	int32_t status; // 0 = success
	uint32_t vertex_count;
	uint32_t triangle_count;
	uint32_t submesh_count;
	char error[ERROR_CAPACITY];
} child_header;

typedef struct affine {
	double m[3][4]; // row-major; x' = m[r][0..2] . x + m[r][3]
} affine;

typedef struct builder {
	const struct aiScene *scene;
	char *error; // ERROR_CAPACITY bytes
	// Counting pass.
	uint64_t triangle_total;
	uint32_t submesh_count;
	uint32_t max_mesh_vertices;
	// Filling pass.
	float *positions;
	uint32_t vertex_count;
	uint32_t vertex_capacity;
	uint32_t *indices;
	uint32_t triangle_count;
	uint32_t *remap;   // per source vertex of the current instance
	uint32_t *table;   // open-addressing hash of position -> vertex, UINT32_MAX = empty
	uint32_t table_mask;
} builder;

static void set_error(char *error, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_error(char *error, size_t size, const char *fmt, ...)
{
	if (!error || size == 0)
		return;
	va_list args;
	va_start(args, fmt);
	vsnprintf(error, size, fmt, args);
	va_end(args);
}

// ---------------------------------------------------------------------------
// Assimp's messages: one readable line without the full path.

// budget: the child's memory limit in bytes, named when Assimp runs out.
static void tidy_assimp_message(const char *message, const char *path, uint64_t budget, char *out,
                                size_t size)
{
	if (!message || !message[0]) {
		set_error(out, size, "Assimp cannot read it (no reason given)");
		return;
	}
	if (strstr(message, "No suitable reader found")) {
		set_error(out, size, "Assimp cannot read it: unknown or unsupported file format");
		return;
	}
	if (strstr(message, "bad_alloc") || strstr(message, "out of memory")) {
		set_error(out, size, "Assimp ran out of memory reading it (limit %.1f GiB; corrupt counts in the file?)",
		          (double)budget / (1u << 30));
		return;
	}
	// Copy, replacing the path by its last component and control characters
	// by spaces, so the caller's "FILE: reason" stays on one line.
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t path_len = strlen(path);
	char clean[ERROR_CAPACITY];
	size_t n = 0;
	for (const char *p = message; *p && n + 1 < sizeof(clean);) {
		if (path_len && strncmp(p, path, path_len) == 0) {
			for (const char *b = base; *b && n + 1 < sizeof(clean); b++)
				clean[n++] = *b;
			p += path_len;
			continue;
		}
		unsigned char c = (unsigned char)*p++;
		clean[n++] = (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
	}
	while (n > 0 && (clean[n - 1] == ' ' || clean[n - 1] == '.'))
		n--;
	clean[n] = '\0';
	set_error(out, size, "Assimp cannot read it: %s", clean);
}

// ---------------------------------------------------------------------------
// Scene walk.

static affine affine_from_ai(const struct aiMatrix4x4 *t)
{
	affine a = {{
		{t->a1, t->a2, t->a3, t->a4},
		{t->b1, t->b2, t->b3, t->b4},
		{t->c1, t->c2, t->c3, t->c4},
	}};
	return a;
}

// parent * local: local applies first.
static affine affine_mul(const affine *parent, const affine *local)
{
	affine r;
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 4; j++) {
			double s = parent->m[i][0] * local->m[0][j] + parent->m[i][1] * local->m[1][j] +
			           parent->m[i][2] * local->m[2][j];
			r.m[i][j] = j == 3 ? s + parent->m[i][3] : s;
		}
	}
	return r;
}

static bool is_triangle(const struct aiFace *f)
{
	return f->mNumIndices == 3 && f->mIndices != NULL;
}

static bool count_mesh(builder *b, uint32_t mesh_index)
{
	const struct aiMesh *mesh = b->scene->mMeshes[mesh_index];
	if (!mesh || (mesh->mNumFaces && !mesh->mFaces) || (mesh->mNumVertices && !mesh->mVertices)) {
		set_error(b->error, ERROR_CAPACITY, "Assimp returned an incomplete mesh %u", mesh_index);
		return false;
	}
	uint32_t triangles = 0;
	for (uint32_t f = 0; f < mesh->mNumFaces; f++)
		triangles += is_triangle(&mesh->mFaces[f]);
	if (triangles == 0)
		return true;
	b->triangle_total += triangles;
	b->submesh_count++;
	if (mesh->mNumVertices > b->max_mesh_vertices)
		b->max_mesh_vertices = mesh->mNumVertices;
	if (b->triangle_total > VKCOL_MAX_TRIANGLES) {
		set_error(b->error, ERROR_CAPACITY, "it is too large: more than %u triangles", VKCOL_MAX_TRIANGLES);
		return false;
	}
	return true;
}

// Applies visit to each mesh a node (and its descendants) instantiates, with
// the node's world transform.
typedef bool (*visit_fn)(builder *b, uint32_t mesh_index, const affine *world);

static bool walk(builder *b, const struct aiNode *node, const affine *parent, unsigned depth, visit_fn visit)
{
	if (depth > MAX_NODE_DEPTH) {
		set_error(b->error, ERROR_CAPACITY, "its node hierarchy is deeper than %d levels (corrupt?)",
		          MAX_NODE_DEPTH);
		return false;
	}
	affine local = affine_from_ai(&node->mTransformation);
	affine world = affine_mul(parent, &local);
	if ((node->mNumMeshes && !node->mMeshes) || (node->mNumChildren && !node->mChildren)) {
		set_error(b->error, ERROR_CAPACITY, "Assimp returned an incomplete node");
		return false;
	}
	for (uint32_t i = 0; i < node->mNumMeshes; i++) {
		if (node->mMeshes[i] >= b->scene->mNumMeshes) {
			set_error(b->error, ERROR_CAPACITY, "a node refers to mesh %u of %u", node->mMeshes[i],
			          b->scene->mNumMeshes);
			return false;
		}
		if (!visit(b, node->mMeshes[i], &world))
			return false;
	}
	for (uint32_t i = 0; i < node->mNumChildren; i++) {
		if (!node->mChildren[i]) {
			// Seen with Assimp's RAW reader; skipping the node could drop meshes.
			set_error(b->error, ERROR_CAPACITY, "Assimp returned a broken node graph (a null child node)");
			return false;
		}
		if (!walk(b, node->mChildren[i], &world, depth + 1, visit))
			return false;
	}
	return true;
}

static bool walk_scene(builder *b, visit_fn visit)
{
	static const affine identity = {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}};
	if (b->scene->mRootNode)
		return walk(b, b->scene->mRootNode, &identity, 0, visit);
	// No node graph: every mesh once, untransformed.
	for (uint32_t i = 0; i < b->scene->mNumMeshes; i++) {
		if (!visit(b, i, &identity))
			return false;
	}
	return true;
}

static void table_insert(builder *b, uint32_t vertex)
{
	uint32_t bits[3];
	weld_key(&b->positions[3 * (size_t)vertex], bits);
	uint32_t slot = weld_hash(bits) & b->table_mask;
	while (b->table[slot] != UINT32_MAX)
		slot = (slot + 1) & b->table_mask;
	b->table[slot] = vertex;
}

static bool table_grow(builder *b)
{
	uint64_t size = b->table ? (uint64_t)b->table_mask + 1 : 0;
	uint64_t new_size = size ? size * 2 : 4096;
	if (new_size > ((uint64_t)1 << 31))
		return false;
	free(b->table);
	b->table = malloc(new_size * sizeof(uint32_t));
	if (!b->table)
		return false;
	memset(b->table, 0xff, new_size * sizeof(uint32_t));
	b->table_mask = (uint32_t)(new_size - 1);
	for (uint32_t v = 0; v < b->vertex_count; v++) {
		float *p = &b->positions[3 * (size_t)v];
		if (isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]))
			table_insert(b, v);
	}
	return true;
}

// Index of the vertex at p, appended if new. Non-finite positions are never
// joined, so the library's check sees (and names) each of them.
static bool add_vertex(builder *b, const float p[3], uint32_t *out)
{
	bool finite = isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]);
	uint32_t bits[3];
	uint32_t slot = 0;
	if (finite) {
		weld_key(p, bits);
		slot = weld_hash(bits) & b->table_mask;
		for (uint32_t v; (v = b->table[slot]) != UINT32_MAX; slot = (slot + 1) & b->table_mask) {
			uint32_t other[3];
			weld_key(&b->positions[3 * (size_t)v], other);
			if (memcmp(bits, other, sizeof(bits)) == 0) {
				*out = v;
				return true;
			}
		}
	}
	if (b->vertex_count >= VKCOL_MAX_VERTICES) {
		set_error(b->error, ERROR_CAPACITY, "it is too large: more than %u distinct vertices",
		          VKCOL_MAX_VERTICES);
		return false;
	}
	if (b->vertex_count == b->vertex_capacity) {
		uint32_t cap = b->vertex_capacity ? b->vertex_capacity * 2 : 1024;
		if (cap > VKCOL_MAX_VERTICES)
			cap = VKCOL_MAX_VERTICES;
		float *grown = realloc(b->positions, (size_t)cap * 3 * sizeof(float));
		if (!grown)
			goto out_of_memory;
		b->positions = grown;
		b->vertex_capacity = cap;
	}
	uint32_t v = b->vertex_count++;
	memcpy(&b->positions[3 * (size_t)v], p, 3 * sizeof(float));
	if (finite) {
		// Keep the load factor at most 1/2 so probes stay short.
		if ((uint64_t)b->vertex_count * 2 > (uint64_t)b->table_mask + 1) {
			if (!table_grow(b))
				goto out_of_memory;
		} else {
			b->table[slot] = v;
		}
	}
	*out = v;
	return true;

out_of_memory:
	set_error(b->error, ERROR_CAPACITY, "out of memory joining its vertices");
	return false;
}

static bool fill_mesh(builder *b, uint32_t mesh_index, const affine *world)
{
	const struct aiMesh *mesh = b->scene->mMeshes[mesh_index];
	uint32_t nv = mesh->mNumVertices;
	bool any = false;
	for (uint32_t f = 0; f < mesh->mNumFaces && !any; f++)
		any = is_triangle(&mesh->mFaces[f]);
	if (!any)
		return true;
	for (uint32_t v = 0; v < nv; v++)
		b->remap[v] = UINT32_MAX;
	for (uint32_t f = 0; f < mesh->mNumFaces; f++) {
		const struct aiFace *face = &mesh->mFaces[f];
		if (!is_triangle(face))
			continue;
		if (b->triangle_count >= b->triangle_total) {
			// The counting pass saw the same faces: only a scene changing under
			// us gets here, but an overrun must be impossible.
			set_error(b->error, ERROR_CAPACITY, "Assimp returned an inconsistent scene");
			return false;
		}
		uint32_t *tri = &b->indices[3 * (size_t)b->triangle_count];
		for (int k = 0; k < 3; k++) {
			uint32_t i = face->mIndices[k];
			if (i >= nv && i > INT32_MAX) {
				// Assimp keeps indices unsigned: a file's -5 arrives as
				// 4294967291.
				set_error(b->error, ERROR_CAPACITY,
				          "index out of range: face %u of mesh %u refers to vertex %" PRId64 " (a negative index, "
				          "%u as unsigned), the mesh has %u",
				          f, mesh_index, (int64_t)i - (INT64_C(1) << 32), i, nv);
				return false;
			}
			if (i >= nv) {
				set_error(b->error, ERROR_CAPACITY,
				          "index out of range: face %u of mesh %u refers to vertex %u, the mesh has %u", f,
				          mesh_index, i, nv);
				return false;
			}
			if (b->remap[i] == UINT32_MAX) {
				const struct aiVector3D *s = &mesh->mVertices[i];
				const double x = s->x, y = s->y, z = s->z;
				float p[3];
				for (int r = 0; r < 3; r++) {
					const double *m = world->m[r];
					p[r] = (float)(m[0] * x + m[1] * y + m[2] * z + m[3]);
				}
				if (!add_vertex(b, p, &b->remap[i]))
					return false;
			}
			tri[k] = b->remap[i];
		}
		b->triangle_count++;
	}
	return true;
}

static bool count_visit(builder *b, uint32_t mesh_index, const affine *world)
{
	(void)world;
	return count_mesh(b, mesh_index);
}

static void free_builder_scratch(builder *b)
{
	free(b->remap);
	free(b->table);
	b->remap = NULL;
	b->table = NULL;
}

// Several Assimp readers "repair" an out-of-range index (the OFF reader
// clamps it to the last vertex, others drop the face) and only log an error:
// the import succeeds with a mesh that is not the file's. A collision answer
// for a different shape is worse than none, so those logged errors fail the
// import. Matched on Assimp's wording, which is all its C API offers.
static bool is_geometry_index_error(const char *message)
{
	char lower[256];
	size_t n = 0;
	for (; message[n] && n + 1 < sizeof(lower); n++)
		lower[n] = (char)(message[n] >= 'A' && message[n] <= 'Z' ? message[n] - 'A' + 'a' : message[n]);
	lower[n] = '\0';
	static const char *const about_geometry[] = {
		"vertex index", "face index", "triangle index", "polygon index", "invalid index",
		"index out of range", "index is out of range", "coordinate idx",
	};
	static const char *const about_other[] = {
		"material", "bone", "normal", "uv", "weight", "comment", "clip", "keyframe", "color",
	};
	bool geometry = false;
	for (size_t i = 0; i < sizeof(about_geometry) / sizeof(about_geometry[0]); i++)
		geometry |= strstr(lower, about_geometry[i]) != NULL;
	for (size_t i = 0; i < sizeof(about_other) / sizeof(about_other[0]); i++)
		geometry &= strstr(lower, about_other[i]) == NULL;
	return geometry;
}

typedef struct assimp_log {
	char first_index_error[ERROR_CAPACITY];
} assimp_log;

static void assimp_log_callback(const char *message, char *user)
{
	assimp_log *log = (assimp_log *)(void *)user;
	// Assimp's format: "Error, T0: OFF: Vertex index is out of range\n".
	if (strncmp(message, "Error", 5) != 0 || log->first_index_error[0])
		return;
	const char *text = strstr(message, ": ");
	text = text ? text + 2 : message;
	if (is_geometry_index_error(text))
		snprintf(log->first_index_error, sizeof(log->first_index_error), "%s", text);
}

// Does the file start with a UTF-16 byte order mark? Assimp's text readers
// take it for 8-bit text and find nothing in it.
static bool utf16_text(const char *path)
{
	unsigned char bom[2] = {0};
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	size_t n = fread(bom, 1, 2, f);
	fclose(f);
	return n == 2 && ((bom[0] == 0xFF && bom[1] == 0xFE) || (bom[0] == 0xFE && bom[1] == 0xFF));
}

// Imports in this process. Returns 0 and fills out, or nonzero with error set.
static int import_here(const char *path, uint64_t budget, import_mesh *out, char *error)
{
	// Assimp's logger is global: only the child process attaches one.
	static assimp_log log;
	struct aiLogStream stream = {assimp_log_callback, (char *)(void *)&log};
	aiAttachLogStream(&stream);

	struct aiPropertyStore *props = aiCreatePropertyStore();
	if (!props) {
		set_error(error, ERROR_CAPACITY, "out of memory starting Assimp");
		return 1;
	}
	// Without this, formats holding only a skeleton (MD5, SMD, X) come back
	// with a mesh Assimp builds from the bones: triangles that are not there.
	aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_NO_SKELETON_MESHES, 1);
	const struct aiScene *scene = aiImportFileExWithProperties(path, IMPORT_FLAGS, NULL, props);
	aiReleasePropertyStore(props);
	if (!scene) {
		tidy_assimp_message(aiGetErrorString(), path, budget, error, ERROR_CAPACITY);
		// A file whose extension no reader claims was tried by its content,
		// and the message is the last reader's (a .wrl: "BLENDER magic
		// bytes are missing"): say so first.
		const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
		if (dot && (!slash || dot > slash) && !aiIsExtensionSupported(dot)) {
			const char *prefix = "Assimp cannot read it: ";
			char reason[ERROR_CAPACITY];
			snprintf(reason, sizeof(reason), "%s",
			         strncmp(error, prefix, strlen(prefix)) == 0 ? error + strlen(prefix) : error);
			if (strstr(reason, "unknown or unsupported file format"))
				set_error(error, ERROR_CAPACITY, "%sno reader for %s files", prefix, dot);
			else
				set_error(error, ERROR_CAPACITY, "%sno reader for %s files (read by content: %s)", prefix, dot, reason);
		} else if (utf16_text(path)) {
			char reason[ERROR_CAPACITY];
			snprintf(reason, sizeof(reason), "%s", error);
			set_error(error, ERROR_CAPACITY, "%s (the file is UTF-16 text: save it as UTF-8)", reason);
		}
		return 1;
	}

	int status = 1;
	builder b = {.scene = scene, .error = error};
	if (log.first_index_error[0]) {
		tidy_assimp_message(log.first_index_error, path, budget, error, ERROR_CAPACITY);
		goto cleanup;
	}
	if (scene->mNumMeshes && !scene->mMeshes) {
		set_error(error, ERROR_CAPACITY, "Assimp returned an incomplete scene");
		goto cleanup;
	}
	if (!walk_scene(&b, count_visit))
		goto cleanup;
	if (b.triangle_total == 0) {
		bool other = false;
		for (uint32_t i = 0; i < scene->mNumMeshes; i++)
			other |= scene->mMeshes[i] && scene->mMeshes[i]->mNumFaces > 0;
		if (utf16_text(path))
			set_error(error, ERROR_CAPACITY, "it holds no triangles as Assimp reads it: it is UTF-16 text, which "
			                                 "Assimp's text formats do not read (save it as UTF-8)");
		else
			set_error(error, ERROR_CAPACITY, other ? "it holds no triangles (only points or lines)"
			                                       : "it holds no triangles");
		goto cleanup;
	}
	b.indices = malloc((size_t)b.triangle_total * 3 * sizeof(uint32_t));
	b.remap = malloc(((size_t)b.max_mesh_vertices + 1) * sizeof(uint32_t));
	if (!b.indices || !b.remap || !table_grow(&b)) {
		set_error(error, ERROR_CAPACITY, "out of memory for %llu triangles",
		          (unsigned long long)b.triangle_total);
		goto cleanup;
	}
	if (!walk_scene(&b, fill_mesh))
		goto cleanup;
	out->positions = b.positions;
	out->vertex_count = b.vertex_count;
	out->indices = b.indices;
	out->triangle_count = b.triangle_count;
	out->submesh_count = b.submesh_count;
	b.positions = NULL;
	b.indices = NULL;
	status = 0;

cleanup:
	free(b.positions);
	free(b.indices);
	free_builder_scratch(&b);
	aiReleaseImport(scene);
	return status;
}

// ---------------------------------------------------------------------------
// Child process plumbing.

static bool write_all(int fd, const void *data, size_t size)
{
	const char *p = data;
	while (size > 0) {
		ssize_t n = write(fd, p, size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		size -= (size_t)n;
	}
	return true;
}

// Returns bytes read; short only at end of file or on error.
static size_t read_all(int fd, void *data, size_t size)
{
	char *p = data;
	size_t done = 0;
	while (done < size) {
		ssize_t n = read(fd, p + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	return done;
}

// Virtual memory this process already uses (Linux), 0 when unknown.
static uint64_t current_address_space(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	if (!f)
		return 0;
	unsigned long long pages = 0;
	int ok = fscanf(f, "%llu", &pages);
	fclose(f);
	long page = sysconf(_SC_PAGESIZE);
	return ok == 1 && page > 0 ? pages * (uint64_t)page : 0;
}

// Returns the memory budget set.
static uint64_t limit_child(uint64_t file_size)
{
	uint64_t budget = MIN_IMPORT_BUDGET;
	if (file_size > budget / BYTES_BUDGET_PER_FILE_BYTE)
		budget = file_size > UINT64_MAX / BYTES_BUDGET_PER_FILE_BYTE ? UINT64_MAX
		                                                              : file_size * BYTES_BUDGET_PER_FILE_BYTE;
	// Never more than the machine has: failing an allocation beats the OOM killer.
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	if (pages > 0 && page > 0 && budget > (uint64_t)pages * (uint64_t)page)
		budget = (uint64_t)pages * (uint64_t)page;
	uint64_t used = current_address_space();
	struct rlimit lim;
	if (used && budget <= UINT64_MAX - used && getrlimit(RLIMIT_AS, &lim) == 0) {
		uint64_t want = used + budget;
		if (lim.rlim_cur == RLIM_INFINITY || want < (uint64_t)lim.rlim_cur) {
			lim.rlim_cur = (rlim_t)want;
			setrlimit(RLIMIT_AS, &lim);
		}
	}
	uint64_t seconds = MIN_IMPORT_SECONDS + file_size / FILE_BYTES_PER_SECOND;
	if (getrlimit(RLIMIT_CPU, &lim) == 0 && (lim.rlim_cur == RLIM_INFINITY || seconds < (uint64_t)lim.rlim_cur)) {
		lim.rlim_cur = (rlim_t)seconds;
		setrlimit(RLIMIT_CPU, &lim);
	}
	return budget;
}

static _Noreturn void child_main(int fd, const char *path, uint64_t file_size)
{
	uint64_t budget = limit_child(file_size);
	// Some Assimp readers print to stdout, which carries the CLI's output
	// (JSON): send it away. stderr stays, for sanitizer reports.
	int null_fd = open("/dev/null", O_WRONLY);
	if (null_fd >= 0) {
		dup2(null_fd, STDOUT_FILENO);
		close(null_fd);
	}
	child_header h = {.magic = CHILD_MAGIC};
	import_mesh mesh = {0};
	h.status = import_here(path, budget, &mesh, h.error);
	h.vertex_count = mesh.vertex_count;
	h.triangle_count = mesh.triangle_count;
	h.submesh_count = mesh.submesh_count;
	bool ok = write_all(fd, &h, sizeof(h));
	if (ok && h.status == 0) {
		ok = write_all(fd, mesh.positions, (size_t)mesh.vertex_count * 3 * sizeof(float)) &&
		     write_all(fd, mesh.indices, (size_t)mesh.triangle_count * 3 * sizeof(uint32_t));
	}
	// _exit: the parent's atexit handlers and stdio buffers are not ours.
	_exit(ok ? 0 : 1);
}

static void describe_child_death(int wstatus, uint64_t file_size, char *error)
{
	if (WIFSIGNALED(wstatus)) {
		int sig = WTERMSIG(wstatus);
		if (sig == SIGXCPU) {
			set_error(error, ERROR_CAPACITY,
			          "Assimp took more than %llu s of CPU time reading it (stuck on a malformed file?)",
			          (unsigned long long)(MIN_IMPORT_SECONDS + file_size / FILE_BYTES_PER_SECOND));
		} else if (sig == SIGKILL) {
			set_error(error, ERROR_CAPACITY, "the importer was killed (out of memory?)");
		} else {
			set_error(error, ERROR_CAPACITY, "Assimp crashed reading it (%s)", strsignal(sig));
		}
	} else {
		// A sanitizer build's allocator reports running out of memory this way.
		set_error(error, ERROR_CAPACITY, "the importer failed reading it (exit status %d; out of memory?)",
		          WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
	}
}

static int import_in_child(const char *path, uint64_t file_size, import_mesh *out, char *error)
{
	int fds[2];
	if (pipe(fds) != 0) {
		set_error(error, ERROR_CAPACITY, "cannot start the importer: %s", strerror(errno));
		return 1;
	}
	// Unwritten stdio output would otherwise be inherited by the child; it
	// leaves through _exit, but flush anyway so ordering on a terminal holds.
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		set_error(error, ERROR_CAPACITY, "cannot start the importer: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return 1;
	}
	if (pid == 0) {
		close(fds[0]);
		child_main(fds[1], path, file_size);
	}
	close(fds[1]);

	int status = 1;
	child_header h;
	float *positions = NULL;
	uint32_t *indices = NULL;
	bool got_header = read_all(fds[0], &h, sizeof(h)) == sizeof(h) && h.magic == CHILD_MAGIC;
	if (got_header && h.status == 0) {
		// Never trust the other side either: the counts size our allocations.
		if (h.vertex_count == 0 || h.vertex_count > VKCOL_MAX_VERTICES || h.triangle_count == 0 ||
		    h.triangle_count > VKCOL_MAX_TRIANGLES) {
			got_header = false;
		} else {
			size_t pbytes = (size_t)h.vertex_count * 3 * sizeof(float);
			size_t ibytes = (size_t)h.triangle_count * 3 * sizeof(uint32_t);
			positions = malloc(pbytes);
			indices = malloc(ibytes);
			if (!positions || !indices) {
				set_error(error, ERROR_CAPACITY, "out of memory for %u vertices and %u triangles",
				          h.vertex_count, h.triangle_count);
			} else if (read_all(fds[0], positions, pbytes) == pbytes &&
			           read_all(fds[0], indices, ibytes) == ibytes) {
				status = 0;
			} else {
				got_header = false;
			}
		}
	}
	close(fds[0]);

	int wstatus = 0;
	while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	bool clean_exit = WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0;
	if (status == 0 && clean_exit) {
		out->positions = positions;
		out->indices = indices;
		out->vertex_count = h.vertex_count;
		out->triangle_count = h.triangle_count;
		out->submesh_count = h.submesh_count;
		return 0;
	}
	free(positions);
	free(indices);
	if (got_header && h.status != 0) {
		h.error[ERROR_CAPACITY - 1] = '\0';
		set_error(error, ERROR_CAPACITY, "%s", h.error);
	} else if (!clean_exit) {
		describe_child_death(wstatus, file_size, error);
	} else if (status != 0 && !error[0]) {
		set_error(error, ERROR_CAPACITY, "the importer sent an incomplete mesh");
	}
	return 1;
}

// ---------------------------------------------------------------------------

int import_mesh_load(const char *path, import_mesh *out, char *error, size_t error_size)
{
	char reason[ERROR_CAPACITY] = "";
	if (out)
		memset(out, 0, sizeof(*out));
	if (error && error_size)
		error[0] = '\0';
	if (!path || !out) {
		set_error(error, error_size, "no file given");
		return 1;
	}

	// Our own checks first: clearer than Assimp's wording, and a FIFO or a
	// device would block Assimp's reader forever.
	struct stat st;
	if (stat(path, &st) != 0) {
		set_error(error, error_size, "cannot open it: %s", strerror(errno));
		return 1;
	}
	if (S_ISDIR(st.st_mode)) {
		set_error(error, error_size, "it is a directory");
		return 1;
	}
	if (!S_ISREG(st.st_mode)) {
		set_error(error, error_size, "it is not a regular file");
		return 1;
	}
	FILE *f = fopen(path, "rb");
	if (!f) {
		set_error(error, error_size, "cannot open it: %s", strerror(errno));
		return 1;
	}
	fclose(f);
	if (st.st_size == 0) {
		set_error(error, error_size, "it is empty");
		return 1;
	}

	if (import_in_child(path, (uint64_t)st.st_size, out, reason) != 0) {
		set_error(error, error_size, "%s", reason);
		return 1;
	}
	return 0;
}

void import_mesh_free(import_mesh *mesh)
{
	if (!mesh)
		return;
	free(mesh->positions);
	free(mesh->indices);
	memset(mesh, 0, sizeof(*mesh));
}
