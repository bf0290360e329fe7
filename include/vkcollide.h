// SPDX-License-Identifier: MIT
/// vkcollide: batched collision detection between rigid triangle meshes with
/// Vulkan compute shaders.
///
/// Conventions used throughout this header:
/// - Every function that can fail returns a vkcol_result; outputs go through
///   pointers. Nothing in the library exits, aborts or prints unless a logger
///   is left at its default (stderr, warnings and errors only).
/// - `*_desc` structs: a zeroed field means "default"; each default is written
///   beside the field. Initialise with `= {0}` and set what you need.
/// - A vkcol_context is externally synchronised: use one context from one
///   thread at a time. Distinct contexts are independent and may be used from
///   distinct threads concurrently.
/// - Lengths are in the units of the positions the caller supplies (the
///   library is unit-agnostic). Rotations are Hamilton unit quaternions stored
///   w first.
///
/// This header includes <vulkan/vulkan_core.h> for the handle types of the
/// external-device mode. If you use volk, include volk.h before this header.
#ifndef VKCOLLIDE_H
#define VKCOLLIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vulkan/vulkan_core.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(VKCOL_BUILDING_LIBRARY) && defined(__GNUC__)
#define VKCOL_API __attribute__((visibility("default")))
#else
#define VKCOL_API
#endif

#define VKCOL_VERSION_MAJOR 0
#define VKCOL_VERSION_MINOR 1
#define VKCOL_VERSION_PATCH 0

/// Result of every fallible call. Negative values are errors.
typedef enum vkcol_result {
	VKCOL_SUCCESS = 0,
	/// A NULL pointer, a zero count where one is needed, an option out of range.
	VKCOL_ERROR_INVALID_ARGUMENT = -1,
	/// The allocator returned NULL.
	VKCOL_ERROR_OUT_OF_HOST_MEMORY = -2,
	/// The device could not allocate memory (VK_ERROR_OUT_OF_DEVICE_MEMORY or a
	/// request beyond the device's heap).
	VKCOL_ERROR_OUT_OF_DEVICE_MEMORY = -3,
	/// The Vulkan loader (libvulkan) could not be loaded, or no instance could be
	/// created.
	VKCOL_ERROR_VULKAN_UNAVAILABLE = -4,
	/// No Vulkan device with a compute queue, or VKCOLLIDE_DEVICE / desc.device
	/// matched none.
	VKCOL_ERROR_NO_DEVICE = -5,
	/// VK_ERROR_DEVICE_LOST. The context must be destroyed.
	VKCOL_ERROR_DEVICE_LOST = -6,
	/// Any other Vulkan failure; the log names the call, file and line.
	VKCOL_ERROR_VULKAN = -7,
	/// The device lacks a feature or limit the library needs.
	VKCOL_ERROR_UNSUPPORTED = -8,
	/// A mesh with no vertices or no triangles.
	VKCOL_ERROR_EMPTY_MESH = -9,
	/// A triangle refers to a vertex index >= vertex_count.
	VKCOL_ERROR_INDEX_OUT_OF_RANGE = -10,
	/// A vertex coordinate is NaN or infinite.
	VKCOL_ERROR_NON_FINITE_POSITION = -11,
	/// A count beyond the library's limits (see VKCOL_MAX_VERTICES etc.).
	VKCOL_ERROR_TOO_LARGE = -12,
	/// A vkcol_mesh that is zero, destroyed or from another context.
	VKCOL_ERROR_INVALID_HANDLE = -13,
	/// A progress callback asked to stop; results already answered are kept.
	VKCOL_ERROR_INTERRUPTED = -14,
} vkcol_result;

/// Short English description of a result, e.g. "index out of range". Never
/// NULL; unknown values give "unknown result".
VKCOL_API const char *vkcol_result_string(vkcol_result result);

/// Largest mesh accepted by vkcol_mesh_create: 2^26 vertices and triangles.
#define VKCOL_MAX_VERTICES (1u << 26)
#define VKCOL_MAX_TRIANGLES (1u << 26)

// ---------------------------------------------------------------------------
// Context

typedef enum vkcol_log_level {
	VKCOL_LOG_DEFAULT = 0, ///< in desc fields: VKCOL_LOG_WARNING
	VKCOL_LOG_ERROR = 1,
	VKCOL_LOG_WARNING = 2,
	VKCOL_LOG_INFO = 3,
	VKCOL_LOG_DEBUG = 4,
} vkcol_log_level;

/// Receives one complete message (no trailing newline). Called on the thread
/// that called into the library.
typedef void (*vkcol_log_fn)(void *user, vkcol_log_level level, const char *message);

/// Host allocation hooks. alloc must return memory aligned for any type (as
/// malloc does) or NULL; free accepts NULL. Both NULL = libc malloc/free.
typedef struct vkcol_allocator {
	void *(*alloc)(void *user, size_t size);
	void (*free)(void *user, void *ptr);
	void *user;
} vkcol_allocator;

typedef enum vkcol_validation {
	VKCOL_VALIDATION_DEFAULT = 0, ///< on when the environment has VKCOLLIDE_VALIDATION=1
	VKCOL_VALIDATION_ON = 1,      ///< Khronos validation layer (synchronization validation too) + debug messenger
	VKCOL_VALIDATION_OFF = 2,
} vkcol_validation;

/// The caller's Vulkan objects, for embedding in a renderer. The library owns
/// none of them and destroys none of them. The device must have been created
/// with API version >= 1.1, the imageCubeArray feature enabled (batches sample
/// cube-array images), and a queue of queue_family_index supporting compute.
/// Vulkan requires a queue's submissions to be externally synchronized: the
/// caller must not submit to queue (queue_family_index, queue_index) while a
/// library call that submits runs (vkcol_mesh_create, vkcol_batch_run). Each
/// such call waits for its own work before it returns, never for the
/// caller's, and vkcol_context_destroy does not wait for the device to idle.
typedef struct vkcol_external_device {
	VkInstance instance;
	VkPhysicalDevice physical_device;
	VkDevice device;
	uint32_t queue_family_index;
	uint32_t queue_index;
	/// The loader entry point the caller uses (e.g. from volk or SDL). Required.
	PFN_vkGetInstanceProcAddr get_instance_proc_addr;
	/// The device was created with the shaderFloat64 feature enabled: exact
	/// mode then runs its last triangle test in double on the device. false:
	/// in float, and the pairs float cannot decide (near contact) are
	/// answered by the CPU reference: the same answers, slower. Setting it
	/// for a physical device without the feature is VKCOL_ERROR_UNSUPPORTED.
	bool shader_float64;
} vkcol_external_device;

typedef struct vkcol_context_desc {
	vkcol_allocator allocator;  ///< zero = libc
	vkcol_log_fn log;           ///< NULL = print to stderr
	void *log_user;             ///< passed to log
	vkcol_log_level log_level;  ///< most verbose level delivered; 0 = warnings and errors
	/// Device choice when the library creates its own: a decimal index into the
	/// list printed by `vkcollide devices`, or a case-insensitive substring of
	/// the device name. NULL = the VKCOLLIDE_DEVICE environment variable, else
	/// the first discrete > integrated > virtual > CPU device.
	const char *device;
	vkcol_validation validation; ///< 0 = from VKCOLLIDE_VALIDATION
	/// NULL = the library creates its own instance and device.
	const vkcol_external_device *external;
} vkcol_context_desc;

typedef struct vkcol_context vkcol_context;

typedef enum vkcol_device_type {
	VKCOL_DEVICE_OTHER = 0,
	VKCOL_DEVICE_INTEGRATED_GPU = 1,
	VKCOL_DEVICE_DISCRETE_GPU = 2,
	VKCOL_DEVICE_VIRTUAL_GPU = 3,
	VKCOL_DEVICE_CPU = 4,
} vkcol_device_type;

typedef struct vkcol_device_info {
	uint32_t index;               ///< position in enumeration order
	char name[256];
	vkcol_device_type type;
	uint32_t vendor_id, device_id;
	uint32_t api_version;         ///< VK_MAKE_API_VERSION encoded
	char driver[256];             ///< driver name and info, may be empty
	bool has_compute_queue;
	uint32_t max_workgroup_count[3];
	uint32_t max_storage_buffer_range; ///< bytes
	uint32_t subgroup_size;       ///< 0 when unknown
	uint64_t device_local_bytes;  ///< largest device-local heap
} vkcol_device_info;

/// Creates a context: its own instance and device, or wraps desc->external.
/// desc may be NULL (all defaults). *out is NULL on failure.
VKCOL_API vkcol_result vkcol_context_create(const vkcol_context_desc *desc, vkcol_context **out);

/// Frees everything the context owns: meshes, buffers, pipelines and, unless
/// external, the device and instance. With a device of its own it first waits
/// for that device to be idle. With an external device it waits for nothing:
/// every library call has already waited for its own submissions, and the
/// caller's work on the device is the caller's to finish (the library's
/// objects are destroyed, the caller's are left alone). NULL is accepted.
VKCOL_API void vkcol_context_destroy(vkcol_context *ctx);

/// Describes the device the context runs on.
VKCOL_API vkcol_result vkcol_context_get_device_info(const vkcol_context *ctx, vkcol_device_info *out);

/// Number of validation-layer messages of warning or error severity seen since
/// the context was created. Always 0 when validation is off.
VKCOL_API uint64_t vkcol_context_validation_message_count(const vkcol_context *ctx);

/// Lists the Vulkan devices without creating a context. Writes at most
/// capacity entries to infos (may be NULL when capacity is 0), the total in
/// *count, and in *chosen the index the default choice (desc->device or
/// VKCOLLIDE_DEVICE honoured) would pick, or UINT32_MAX if none. desc may be
/// NULL; only its allocator, logger and device fields are used.
VKCOL_API vkcol_result vkcol_enumerate_devices(const vkcol_context_desc *desc, vkcol_device_info *infos,
                                               uint32_t capacity, uint32_t *count, uint32_t *chosen);

// ---------------------------------------------------------------------------
// Meshes

/// A mesh owned by a context. Zero is never a valid handle.
typedef struct vkcol_mesh {
	uint32_t id;
} vkcol_mesh;

/// How a mesh's AABB tree splits a node's triangles between its children.
typedef enum vkcol_tree_split {
	VKCOL_TREE_SPLIT_DEFAULT = 0, ///< VKCOL_TREE_SPLIT_SAH
	/// The surface area heuristic: the split (along any axis, between 16
	/// bins of the triangle centroids) that minimises the children's
	/// surface areas weighted by their triangle counts. Fewer node pairs to
	/// traverse than the balanced split, most of all on thin, uneven shapes.
	VKCOL_TREE_SPLIT_SAH = 1,
	/// The balanced split of CN 102663825: the longest axis, each centroid
	/// to the nearer of the two extreme ones.
	VKCOL_TREE_SPLIT_TWO_CENTRES = 2,
} vkcol_tree_split;

typedef struct vkcol_mesh_desc {
	/// Vertex positions, x y z floats at positions_stride bytes apart. Copied;
	/// the caller may free them after vkcol_mesh_create returns.
	const float *positions;
	uint32_t vertex_count;      ///< 1 .. VKCOL_MAX_VERTICES
	size_t positions_stride;    ///< bytes between vertices; 0 = 12 (tightly packed)
	/// Three vertex indices per triangle, counter-clockwise or not (orientation
	/// is not used). Copied.
	const uint32_t *indices;
	uint32_t triangle_count;    ///< 1 .. VKCOL_MAX_TRIANGLES
	/// Edge length of the distance cube map in texels, a power of two in
	/// 4 .. 1024. 0 = 64. A batch whose meshes all share one resolution runs
	/// pipelines specialized for it; a batch that mixes resolutions is
	/// answered the same but each cube-map sample costs more (it selects
	/// among the resolutions' cube arrays at run time).
	uint32_t cube_resolution;
	uint32_t leaf_size;         ///< most triangles in a tree leaf, 1 .. 64; 0 = 4
	uint32_t max_depth;         ///< deepest tree level (root = 0), 1 .. 48; 0 = 40
	const char *name;           ///< used in log messages; NULL = "mesh"
	vkcol_tree_split tree_split; ///< 0 = VKCOL_TREE_SPLIT_SAH
} vkcol_mesh_desc;

/// What vkcol_mesh_check found wrong with a description (or nothing).
typedef struct vkcol_mesh_problem {
	vkcol_result result;   ///< VKCOL_SUCCESS when the description is valid
	uint32_t triangle;     ///< offending triangle for INDEX_OUT_OF_RANGE, else UINT32_MAX
	uint32_t corner;       ///< 0..2 within that triangle
	uint32_t vertex;       ///< offending vertex index (NON_FINITE_POSITION, INDEX_OUT_OF_RANGE)
	uint32_t coordinate;   ///< 0..2 = x, y, z for NON_FINITE_POSITION
	char message[192];     ///< one line naming the problem, "" on success
} vkcol_mesh_problem;

/// Validates a description without a context: counts, strides, indices in range
/// and finite coordinates. Returns the first problem found (also in
/// problem->result when problem is not NULL). Degenerate triangles are valid.
VKCOL_API vkcol_result vkcol_mesh_check(const vkcol_mesh_desc *desc, vkcol_mesh_problem *problem);

/// Validates, analyses (closed or open, degenerate triangles, bounding sphere,
/// interior origin, inner balls), builds the AABB tree and uploads it
/// to the device, then builds the distance cube map there (one ray per texel
/// of level 0: 6 x cube_resolution^2 rays through the tree) and its cone
/// bounds on the CPU. Waits for its device work before returning. Errors are
/// those of vkcol_mesh_check plus memory and device errors; the log names the
/// offending triangle or vertex.
VKCOL_API vkcol_result vkcol_mesh_create(vkcol_context *ctx, const vkcol_mesh_desc *desc, vkcol_mesh *out);

/// Frees the mesh's host and device memory. Zero or stale handles are ignored.
VKCOL_API void vkcol_mesh_destroy(vkcol_context *ctx, vkcol_mesh mesh);

typedef struct vkcol_mesh_info {
	uint32_t vertex_count;          ///< as given
	uint32_t unique_vertex_count;   ///< after joining vertices with equal positions
	uint32_t triangle_count;
	uint32_t degenerate_count;      ///< triangles of zero area (or repeated vertices)
	/// Every edge (between joined vertices) of a non-collapsed triangle is shared
	/// by exactly two triangles: the mesh bounds a solid.
	bool closed;
	uint32_t boundary_edge_count;   ///< edges used once
	uint32_t nonmanifold_edge_count; ///< edges used three or more times
	float aabb_min[3], aabb_max[3];
	float sphere_center[3];         ///< bounding sphere (contains every vertex)
	float sphere_radius;
	float origin[3];                ///< interior point the cube map is centred on
	bool origin_inside;             ///< origin is strictly inside the solid (closed meshes)
	/// When origin_inside: distance from the origin to the nearest triangle
	/// (the ball of this radius lies inside the solid), else 0.
	double inner_radius;
	/// More balls inside the solid, spread over it, that exact mode's early
	/// accept tests for overlap (0 for open meshes and thin solids).
	uint32_t inner_ball_count;
	double volume;                  ///< enclosed volume for closed meshes, else 0
	// AABB tree
	uint32_t tree_depth;            ///< deepest level, root = 0
	uint32_t tree_node_count;
	uint32_t tree_leaf_count;
	uint32_t tree_leaf_min, tree_leaf_max; ///< triangles per leaf
	float tree_leaf_mean;
	uint32_t cube_resolution;
	/// Fraction of the level-0 cube-map texels whose ray from the origin meets
	/// the surface at two or more distinct distances. 0 = star-shaped from the
	/// origin: the map describes the solid exactly (up to sampling).
	float cube_multi_hit_fraction;
	bool star_shaped;               ///< cube_multi_hit_fraction == 0
	uint64_t device_bytes;          ///< device memory held by this mesh (buffers and cube map)
	/// Wall time of vkcol_mesh_create, in seconds: the CPU analysis
	/// (checks, welding, bounds, the tree, origin, inner balls), the tree's
	/// build within it, and the rest (upload, the cube map on the device and
	/// its read back, cone bounds).
	double analysis_seconds, tree_seconds, cube_map_seconds;
} vkcol_mesh_info;

VKCOL_API vkcol_result vkcol_mesh_get_info(const vkcol_context *ctx, vkcol_mesh mesh, vkcol_mesh_info *out);

// ---------------------------------------------------------------------------
// Poses, pairs and the double-precision reference

/// A rigid transform: x -> R(rotation) x + translation. rotation = (w, x, y, z)
/// need not be normalised exactly; it is normalised before use. A zero
/// quaternion is an error.
typedef struct vkcol_pose {
	float rotation[4];
	float translation[3];
} vkcol_pose;

/// One query: does mesh a at pose_a intersect mesh b at pose_b?
typedef struct vkcol_pair {
	vkcol_mesh a, b;
	vkcol_pose pose_a, pose_b;
} vkcol_pair;

/// One intersecting triangle pair: triangle indices as given in each mesh's
/// vkcol_mesh_desc (not the tree order).
typedef struct vkcol_triangle_pair {
	uint64_t pair;        ///< index into vkcol_batch_desc.pairs
	uint32_t triangle_a;  ///< triangle of mesh a
	uint32_t triangle_b;  ///< triangle of mesh b
} vkcol_triangle_pair;

/// Answers a pair exactly on the CPU in double precision (the library's test
/// oracle; slow, meant for verification). Closed meshes are solids: they
/// collide when their surfaces cross or touch or one contains the other. If
/// either mesh is open only surface intersection counts.
VKCOL_API vkcol_result vkcol_reference_collide(const vkcol_context *ctx, const vkcol_pair *pair, bool *collide);

/// The distance between the two meshes' surfaces (their triangles) at the
/// pair's poses, exactly in double precision on the CPU (slow, meant for
/// verification): 0 when they touch or cross. A closed mesh wholly inside
/// another is at a positive distance from it, though the two collide.
VKCOL_API vkcol_result vkcol_reference_distance(const vkcol_context *ctx, const vkcol_pair *pair, double *distance);

/// Exact mode's touching distance for the pair: the surfaces of a pair that
/// does not collide may still be answered "collide" when they come within
/// it (see VKCOL_MODE_EXACT), never farther apart. In mesh units:
///   2e-6 x min(rA, rB) + 1e-12 x L,
/// r the meshes' bounding-sphere radii (vkcol_mesh_info.sphere_radius), L
/// the largest coordinate magnitude of the pair in A's frame.
VKCOL_API vkcol_result vkcol_pair_touch_distance(const vkcol_context *ctx, const vkcol_pair *pair, double *distance);

/// Every intersecting (or touching) triangle pair of one pair's surfaces,
/// exactly, in double precision on the CPU: up to `capacity` of them go to
/// entries, sorted by (triangle_a, triangle_b), with `pair` = 0; *count is
/// the total found. When it exceeds capacity, which ones were kept is
/// unspecified.
VKCOL_API vkcol_result vkcol_reference_triangle_pairs(const vkcol_context *ctx, const vkcol_pair *pair,
                                                      vkcol_triangle_pair *entries, uint64_t capacity,
                                                      uint64_t *count);

// ---------------------------------------------------------------------------
// Batches

typedef enum vkcol_mode {
	VKCOL_MODE_DEFAULT = 0, ///< VKCOL_MODE_EXACT
	/// The cube-map test (US 7,928,993): a pair collides when a vertex of one
	/// mesh lies within the other's outer map distance, or when the inner balls
	/// of two closed meshes overlap (a sure collision, tested first). Fast; its
	/// disagreement with exact mode is measured per resolution in
	/// bench/README.md.
	VKCOL_MODE_APPROX = 1,
	/// Never answers "no" to a pair that collides (vkcol_reference_collide),
	/// and answers "collide" to a pair that does not only when its surfaces
	/// come within the pair's touching distance
	///   2e-6 x min(rA, rB) + 1e-12 x L
	/// (vkcol_pair_touch_distance: r the bounding-sphere radii, L the largest
	/// coordinate magnitude of the pair in A's frame), so the band follows
	/// the smaller mesh, not the larger. Degenerate triangles (points,
	/// segments, slivers) are the point sets they are. Bounding volumes, then
	/// a breadth-first traversal of both AABB trees on the device in float,
	/// whose culls only drop what float proves apart; the triangle pairs left
	/// are decided in double on devices with shaderFloat64, and on other
	/// devices in float where float can vouch for the answer, by the CPU
	/// reference where it cannot (vkcol_batch_stats.float_undecided); then
	/// containment (closed meshes) by watertight ray parity.
	VKCOL_MODE_EXACT = 2,
} vkcol_mode;

/// Which stage decided a pair.
typedef enum vkcol_stage {
	VKCOL_STAGE_NONE = 0,        ///< not decided (an error occurred)
	VKCOL_STAGE_BOUNDS = 1,     ///< bounding volumes (spheres, then boxes) apart: no collision
	VKCOL_STAGE_CUBE_MAP = 2,    ///< decided by the cube-map vertex test
	VKCOL_STAGE_TREE = 3,        ///< decided by the AABB-tree traversal (exact mode)
	VKCOL_STAGE_CONTAINMENT = 4, ///< decided by the containment test (exact mode)
} vkcol_stage;

/// One answer per pair, in input order.
typedef struct vkcol_pair_result {
	uint32_t collide;     ///< 1 = the meshes intersect, 0 = they do not
	uint32_t stage;       ///< a vkcol_stage
	/// In mesh units: how far the inner balls of two closed meshes overlap
	/// (each origin's ball up to the nearest triangle lies in its solid; exact
	/// mode also has up to 16 more balls per mesh, spread over the solid) when
	/// they do; else the depth of the first vertex found inside, below the
	/// other's map surface along the ray from its origin (exact mode, inside
	/// a mesh that is not star-shaped: how far within the other's inner ball
	/// the witness lies, 0 beyond it); 0 when apart, and 0 for pairs the
	/// exact traversal decided. The search stops at the first
	/// witness, so this is a lower bound, not the deepest penetration.
	float penetration;
	uint32_t triangle_pairs; ///< exact mode: intersecting triangle pairs found; 0 in approx mode
} vkcol_pair_result;

/// Called after each chunk with the number of pairs answered so far (results
/// 0 .. done-1 are final); return false to stop early.
typedef bool (*vkcol_progress_fn)(void *user, uint64_t done, uint64_t total);

/// The device passes of a batch, as VKCOL_BATCH_TIMESTAMPS times them
/// (vkcol_batch_stats.stage_seconds).
typedef enum vkcol_timed_stage {
	/// Stage 0 and the pairs' set-up: approx_pairs.comp (bounds, inner balls,
	/// the clusters to test); exact mode's setup pass (frames, bounds, inner
	/// balls).
	VKCOL_TIMED_BOUNDS = 0,
	/// Stage 1's cube-map samples: approx mode's group, cluster and spilled
	/// passes; exact mode's witness search and walk.
	VKCOL_TIMED_CUBE_MAP = 1,
	/// Work between the passes: clearing counters, the one-invocation passes
	/// that size each indirect dispatch (exact mode, per level).
	VKCOL_TIMED_SETUP = 2,
	/// Exact mode: node pairs of the two trees, breadth first and depth first.
	VKCOL_TIMED_TRAVERSAL = 3,
	/// Exact mode: leaf pairs, their triangle tests and confirmations.
	VKCOL_TIMED_LEAVES = 4,
	/// Exact mode: the answer pass, containment by ray parity.
	VKCOL_TIMED_CONTAINMENT = 5,
	VKCOL_TIMED_STAGE_COUNT = 6
} vkcol_timed_stage;

/// Counters of a batch's work, filled when vkcol_batch_desc.stats is set
/// (collecting costs two atomic additions per pair on the device).
typedef struct vkcol_batch_stats {
	uint64_t pairs;            ///< pairs answered
	uint64_t sphere_rejected;  ///< decided by stage 0 (bounding spheres)
	uint64_t collisions;       ///< pairs answered "collide"
	uint64_t vertex_tests;     ///< vertices moved into the other mesh's frame (stage 1)
	uint64_t cube_samples;     ///< cube-map samples taken (stage 1)
	double seconds;            ///< wall time of the call
	/// Exact mode: traversal items per level (level k holds node pairs k
	/// steps below the roots), summed over the chunks; levels used.
	uint64_t level_items[128];
	uint32_t levels;
	uint64_t reruns;           ///< pairs rerun in smaller chunks after a frontier overflow
	uint64_t cpu_fallbacks;    ///< pairs answered by the CPU reference (a lone pair overflowed, or float_undecided)
	/// Exact mode: pairs that float arithmetic could not decide, answered by
	/// the CPU reference: on a device without shaderFloat64, pairs whose
	/// triangles come within float's rounding of touching; on any device, a
	/// point of one closed mesh that lies on the other's surface.
	uint64_t float_undecided;
	/// Exact mode: pairs accepted on a cube-map witness (stage 1's early
	/// accept, confirmed by an exact point-in-solid test) without traversal.
	uint64_t witness_accepted;
	/// Exact mode: pairs accepted because inner balls of the two closed
	/// meshes overlap (stage 1's early accept, tried before the witness).
	uint64_t inner_ball_accepted;
	/// The most device memory the context held during the call, in bytes:
	/// its meshes, the batch pool and the batch's buffers (on a device whose
	/// memory is the host's, such as lavapipe, host memory too).
	uint64_t device_bytes;
	/// With VKCOL_BATCH_TIMESTAMPS (else all zero): device time measured
	/// with Vulkan timestamp queries, summed over the chunks and reruns. The
	/// interval between two timestamps goes to the pass that completes at
	/// the second, so overlapping passes share the time each adds.
	bool timestamps;           ///< false when the queue has no timestamps: the times below stay 0
	double gpu_seconds;        ///< each submission's first to last timestamp, summed
	double stage_seconds[VKCOL_TIMED_STAGE_COUNT]; ///< by vkcol_timed_stage; they sum to gpu_seconds
	/// Exact mode: each traversal level's passes (all of vkcol_timed_stage
	/// SETUP, TRAVERSAL and LEAVES that level ran); level k as level_items.
	double level_seconds[128];
	/// Host time writing the pairs into the device's upload buffers, and
	/// making the results visible and copying them out (wall time, also
	/// when it overlaps the device's work, as approx mode's does).
	double upload_seconds, readback_seconds;
} vkcol_batch_stats;

/// Caller-owned output of the intersecting triangle pairs of a batch (exact
/// mode). When it is given the traversal does not stop at a pair's first
/// hit: it finds every triangle pair that intersects (or touches within the
/// tolerance), and vkcol_pair_result.triangle_pairs is that complete count.
/// Entries are sorted by (pair, triangle_a, triangle_b). When more are found
/// than fit, `truncated` is set and the list holds whole pairs only: every
/// entry of the pairs before some pair index, none after (the per-pair
/// counts stay complete; a capacity below the first colliding pair's count
/// gives an empty list). The device holds at most 2^20 entries per chunk of
/// pairs, so a chunk with more also truncates: lower chunk_pairs then.
typedef struct vkcol_triangle_list {
	vkcol_triangle_pair *entries; ///< capacity entries, written by the call
	uint64_t capacity;
	uint64_t count;               ///< out: entries written, <= capacity
	bool truncated;               ///< out: some intersecting pairs did not fit
} vkcol_triangle_list;

/// vkcol_batch_desc.flags
typedef enum vkcol_batch_flags {
	/// Exact mode: skip stage 1's early accepts (overlapping inner balls of
	/// two closed meshes, the origins' and up to 16 more per mesh; and a
	/// cube-map witness: a point of one mesh well within the other's inner
	/// map distance, confirmed exactly by a segment from that mesh's origin
	/// meeting none of its triangles; for an open mesh of one connected
	/// piece, with another of its vertices beyond the other's box); every
	/// pair that the bounds do not reject goes through the tree traversal.
	/// For measurement: the answers are the same either way.
	VKCOL_BATCH_NO_EARLY_ACCEPT = 1u << 0,
	/// Time each device pass with Vulkan timestamp queries, and the host's
	/// upload and readback, into desc->stats (required with this flag; see
	/// vkcol_batch_stats.timestamps). Costs one timestamp per pass (about
	/// 6 per traversal level in exact mode) and a query readback per
	/// submission; the answers are the same. Without the flag the batch
	/// records no query.
	VKCOL_BATCH_TIMESTAMPS = 1u << 1,
} vkcol_batch_flags;

typedef struct vkcol_batch_desc {
	const vkcol_pair *pairs;   ///< pair_count queries; meshes must belong to the context
	uint64_t pair_count;       ///< may be 0
	vkcol_mode mode;           ///< 0 = VKCOL_MODE_DEFAULT
	/// Cube-map mip level sampled by the vertex test: 0 = each mesh's full
	/// resolution, k = resolution / 2^k (clamped to the smallest level).
	uint32_t mip_level;
	/// Pairs per GPU submission. 0 = chosen from device limits and memory
	/// (bounded host and device memory for any pair_count).
	uint32_t chunk_pairs;
	vkcol_progress_fn progress; ///< NULL = none
	void *progress_user;
	vkcol_batch_stats *stats;   ///< NULL = not collected; else overwritten
	uint32_t flags;             ///< vkcol_batch_flags, 0 = none
	/// Exact mode: also list the intersecting triangle pairs (NULL = only
	/// count them, stopping at each pair's first hit). An error in approx mode.
	vkcol_triangle_list *triangles;
	/// Approx mode: test about this many vertices of each mesh at most
	/// (0 = every vertex). A larger mesh is sampled by one of its levels of
	/// detail, each about a quarter of the one before and spread evenly
	/// over the surface (one vertex per cell of a grid): the finest level
	/// within the budget, and never fewer than 256 vertices. Faster on
	/// meshes of 10^4 vertices and more, at the price of missing contacts
	/// shallower than the samples' spacing (docs/semantics.md has the
	/// disagreement with exact mode per budget). The levels are built on
	/// the CPU with the field approx mode culls by, once per mesh (about a
	/// third more vertices in the batch pool). An error in exact mode.
	uint32_t vertex_budget;
} vkcol_batch_desc;

/// Answers desc->pair_count pairs into results (which must hold pair_count
/// entries). Splits the batch into chunks that respect the device's dispatch,
/// binding and memory limits. Approx mode keeps two chunks in flight: the
/// host writes chunk k+1's pairs and copies chunk k-1's answers out while the
/// device answers chunk k. Exact mode submits one chunk at a time and waits
/// for it (then reruns the chunk's overflowed pairs) before it uploads the
/// next. Either way the call returns only when all its device work is done.
/// If progress returns false, the call stops after the current chunk
/// and returns VKCOL_ERROR_INTERRUPTED; results of the chunks already answered
/// are in place, the rest have stage VKCOL_STAGE_NONE. The context's meshes
/// are copied into shared pools the first time a batch runs after a mesh was
/// created or destroyed. The first approx batch to do so also builds, on the
/// CPU (one short-lived thread per core, up to 16) and once per mesh, a
/// field approx mode culls by (CPU work of the order of the mesh's
/// vkcol_mesh_create at the default resolution, up to 128 KiB of device
/// memory); exact batches never build it. Each pool must fit one storage binding
/// (maxStorageBufferRange: 128 MiB on lavapipe, 2-4 GiB on desktop GPUs):
/// 48 bytes per tree node (about 33 bytes per triangle at the default leaf
/// size: 0.68 nodes per triangle on a mesh of 256,000), 16 bytes per
/// triangle and per vertex, over all the context's meshes, so about 4
/// million triangles on lavapipe; else VKCOL_ERROR_TOO_LARGE, naming the pool.
/// An approx batch leaves its chunk buffers in the context for the next one
/// (a run of batches then allocates nothing): for chunks of 2^16 pairs (the
/// default, reached by batches of more than 32,768 pairs) 51 MiB of device
/// memory, about 800 bytes per pair for smaller batches (sizes rounded up to
/// a power of two); the next approx batch of another size replaces them,
/// vkcol_context_destroy frees them.
VKCOL_API vkcol_result vkcol_batch_run(vkcol_context *ctx, const vkcol_batch_desc *desc, vkcol_pair_result *results);

#ifdef __cplusplus
}
#endif
#endif // VKCOLLIDE_H
