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
	/// A vkcol_gpu_batch created before a mesh of its context was created or
	/// destroyed: its pool no longer holds the context's meshes. Destroy it
	/// and create another.
	VKCOL_ERROR_OUT_OF_DATE = -15,
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
/// vkcol_context_create checks what it can see: a physical device below
/// Vulkan 1.1 or without imageCubeArray (or without shaderFloat64 or
/// synchronization2 when those are claimed below) is VKCOL_ERROR_UNSUPPORTED,
/// logged with the missing feature's name. Whether a feature was enabled at
/// vkCreateDevice cannot be queried: the validation layer reports its use.
/// Vulkan requires a queue's submissions to be externally synchronized: the
/// caller must not submit to queue (queue_family_index, queue_index) while a
/// library call that submits runs (vkcol_mesh_create, vkcol_batch_run,
/// vkcol_gpu_batch_create; vkcol_batch_record submits nothing). Each
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
	/// The device was created with the synchronization2 feature enabled
	/// (Vulkan 1.3, or VK_KHR_synchronization2): the barriers the library
	/// records, in its own command buffers and in vkcol_batch_record's, are
	/// vkCmdPipelineBarrier2. false: vkCmdPipelineBarrier (Vulkan 1.1).
	/// Setting it for a physical device without the feature is
	/// VKCOL_ERROR_UNSUPPORTED.
	bool synchronization2;
} vkcol_external_device;

/// How the library runs the CPU work it splits into independent tasks: the
/// clearance fields of approx mode (see vkcol_batch_run), built by
/// vkcol_gpu_batch_create or the first approx vkcol_batch_run after a mesh
/// was created; and on a GPU (not a CPU device such as lavapipe, whose work
/// runs on the same cores) the checking and copying of vkcol_batch_run's
/// pairs, in tasks of 16,384 pairs. Nothing else in the library starts a
/// thread.
typedef enum vkcol_threads {
	/// Threads of the library's own: one per online core (up to 16, the
	/// calling thread among them), started and joined within the call.
	VKCOL_THREADS_DEFAULT = 0,
	/// The calling thread only: the library never starts a thread.
	VKCOL_THREADS_CALLER = 1,
} vkcol_threads;

/// A caller's job system: calls task(task_user, i) exactly once for each i
/// in 0 .. count - 1, on any threads, in any order and concurrency, and
/// returns only when every call has returned. The tasks only read shared
/// data and write disjoint outputs; they call nothing that may block.
typedef void (*vkcol_parallel_fn)(void *user, uint32_t count, void (*task)(void *task_user, uint32_t index),
                                  void *task_user);

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
	vkcol_threads threads;      ///< 0 = the library's own threads (vkcol_threads); ignored when parallel is set
	/// NULL = as `threads` says. Else the library's parallel CPU work goes
	/// through it, called on the thread that called into the library.
	vkcol_parallel_fn parallel;
	void *parallel_user;        ///< passed to parallel
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
	uint32_t max_texel_buffer_elements; ///< 16-byte texels of a buffer the library reads as texels
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

/// Frees the device memory batches keep in the context between calls:
/// approx mode's chunk buffers and exact mode's (see vkcol_batch_run: up to
/// about 411 MB after an exact batch on a discrete GPU). The next batch
/// creates what it needs again. Meshes, pipelines and recorded queries'
/// batches are untouched. Returns the bytes of device memory released; 0
/// for NULL. Not while another call on the context runs.
VKCOL_API uint64_t vkcol_context_trim(vkcol_context *ctx);

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
	/// Most triangles in a tree leaf, 1 .. 64. 0 = 4, and for a mesh of up to
	/// 65,536 triangles also a second tree of one triangle a leaf, which
	/// exact mode (vkcol_batch_run and recorded batches alike) traverses
	/// against a mesh whose triangles are 4 times smaller or less where this
	/// mesh's leaves are not flat (same answers, fewer node pairs).
	uint32_t leaf_size;
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
	// AABB tree (the first, where vkcol_mesh_desc.leaf_size chose two)
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
	/// build within it (both trees', where leaf_size chose two), and the rest
	/// (upload, the cube map on the device and its read back, cone bounds).
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
	/// the witness lies, 0 beyond it); exact mode, a small compact solid
	/// against a solid of at least 4 times its bounding radius: how far an
	/// edge of the larger reaches within the smaller's inner ball when that
	/// decided; 0 when apart, and 0 for pairs the
	/// exact traversal decided. The search stops at the first
	/// witness, so this is a lower bound, not the deepest penetration.
	float penetration;
	/// Exact mode, a pair the traversal found colliding: with a triangle
	/// list (vkcol_batch_desc.triangles), how many triangle pairs
	/// intersect; without one the traversal stops at the first, and this is
	/// 1. 0 otherwise, and in approx mode. For
	/// a pair vkcol_batch_record left undecided (stage VKCOL_STAGE_NONE,
	/// collide 0): why, a vkcol_undecided value.
	uint32_t triangle_pairs;
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
	/// accept, confirmed by an exact point-in-solid test) or, between two
	/// open meshes, by the probe's sure edge crossing, without traversal.
	uint64_t witness_accepted;
	/// Exact mode: pairs accepted because inner balls of the two closed
	/// meshes overlap (stage 1's early accept, tried before the witness),
	/// or because a triangle of one enters the inner ball of the other, a
	/// small compact solid (the ball test).
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
	/// two closed meshes, the origins' and up to 16 more per mesh; a
	/// cube-map witness: a point of one mesh well within the other's inner
	/// map distance, confirmed exactly by a segment from that mesh's origin
	/// meeting none of its triangles; for a vertex of an open mesh, with a
	/// vertex of its connected piece beyond the other's box; and, between
	/// a small open mesh and a large one of similar size, a probe: a few
	/// depth-first steps where the small one's vertices straddle the large
	/// one's sampled surface, accepting a sure edge crossing only); every
	/// pair that the bounds do not reject goes through the tree traversal
	/// (the probe's straddle test still picks which go depth first; it
	/// decides none). For measurement: the answers are the same either way.
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
	/// within the budget, and never fewer than 64 vertices. Faster on
	/// meshes of 10^4 vertices and more, at the price of missing contacts
	/// shallower than the samples' spacing (BENCHMARKS.md has the
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
/// CPU (as vkcol_context_desc.threads and .parallel say) and once per mesh, a
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
/// vkcol_context_trim or vkcol_context_destroy frees them. An exact batch
/// leaves its buffers the same way: about 12.5 KB per pair of its chunk (mostly the traversal
/// frontiers), 103 MB for chunks of 8,192 pairs (the default; 2^15 pairs,
/// 411 MB, on a discrete GPU), for a smaller batch the power of two at or
/// above its size (at least 12.6 MB).
VKCOL_API vkcol_result vkcol_batch_run(vkcol_context *ctx, const vkcol_batch_desc *desc, vkcol_pair_result *results);

// ---------------------------------------------------------------------------
// Recorded queries: a query recorded into the caller's command buffer
// (renderers)
//
// A vkcol_gpu_batch holds what recording needs, made once: the meshes' pool
// (as vkcol_batch_run's), the pipelines, the descriptor sets and its own
// scratch for chunks of pairs. vkcol_batch_record then records a whole
// query, approx or exact, into the caller's command buffer: pairs read from
// the caller's buffer, one answer per pair written to the caller's buffer. It
// never submits, waits, allocates host memory or creates Vulkan objects, so
// it can run every frame. Only a context on the caller's device
// (vkcol_context_desc.external) can record; the command buffer must come
// from a pool of the context's queue family.
//
// Synchronization: the library records both barriers around the query.
// The first makes every write of desc->wait_stages (and of the library's
// earlier commands) available and visible to the query's reads and writes;
// the last makes the query's writes (the results and summary) available and
// visible to every read and write of desc->signal_stages. The query reads
// the pairs and the count, and writes the results and the summary, with
// transfer commands (vkCmdCopyBuffer, VK_PIPELINE_STAGE_TRANSFER_BIT), and
// works in between in compute shaders on its own buffers. The barriers are
// vkCmdPipelineBarrier2 when the device has synchronization2 enabled
// (vkcol_external_device.synchronization2), else vkCmdPipelineBarrier. A
// batch's scratch is used by one query at a time: its recordings may follow
// each other in one command buffer, or in several on one queue (each waits
// for the one before); recordings of one batch must not run at once on
// several queues. Distinct batches share nothing written: two queries on
// distinct batches never trample each other.
//
// Threads and blocking: every library call runs on the calling thread and
// returns when its work is done. vkcol_context_create, vkcol_mesh_create,
// vkcol_gpu_batch_create and vkcol_batch_run submit to the context's queue
// and wait for that work (milliseconds for a mesh of thousands of triangles;
// a batch, in proportion to its pairs); CPU work they split into tasks runs
// as vkcol_context_desc.threads and .parallel say. vkcol_gpu_batch_create
// builds the pool when the meshes changed since the last one (CPU work in
// proportion to the meshes' vertices and triangles, and in approx mode each
// new mesh's clearance field and vertex levels of detail, of the order of
// its vkcol_mesh_create). A recorded approx query's vertex budget is its
// batch's (vkcol_gpu_batch_desc.vertex_budget).
// vkcol_batch_record, vkcol_gpu_batch_get_info and vkcol_gpu_batch_destroy
// never block: recording costs host time in proportion to the commands it
// records (about 30 per chunk in approx mode; in exact mode about 26 per
// traversal level per chunk, twice the deepest tree's depth + 4 levels).

/// A recorded query's batch: pool, pipelines, descriptor sets and scratch.
typedef struct vkcol_gpu_batch vkcol_gpu_batch;

typedef struct vkcol_gpu_batch_desc {
	vkcol_mode mode;      ///< 0 = VKCOL_MODE_EXACT
	/// The most pairs one recording answers, >= 1. Memory does not grow
	/// with it past one chunk: chunks run one after another on the scratch.
	uint32_t max_pairs;
	uint32_t mip_level;   ///< approx mode's cube-map mip level (vkcol_batch_desc.mip_level)
	uint32_t flags;       ///< vkcol_batch_flags, 0 = none
	/// Pairs per chunk of the recorded commands, at most max_pairs. 0 = 65,536
	/// in approx mode, 8,192 in exact mode (fewer where the device's limits
	/// ask). Each chunk records its own passes and barriers, so larger
	/// chunks record fewer commands; in exact mode a chunk's pairs share its
	/// traversal frontiers, so larger chunks leave more pairs undecided
	/// (VKCOL_UNDECIDED_SCRATCH) when many pairs are in near contact.
	uint32_t chunk_pairs;
	/// Approx mode: vkcol_batch_desc.vertex_budget, for every recording of
	/// the batch (0 = every vertex). An error in exact mode.
	uint32_t vertex_budget;
} vkcol_gpu_batch_desc;

/// Makes a batch for recorded queries on the context's current meshes:
/// builds the pool when they changed (see "Threads and blocking" above),
/// creates the pipelines, the descriptor sets and the scratch, and waits
/// for its device work. The batch belongs to the context;
/// vkcol_context_destroy frees it too. Device memory, as vkcol_gpu_batch_info
/// reports, in proportion to the chunk: about 400 bytes per chunk pair in
/// approx mode (26 MiB for a chunk of 2^16), about 12 KiB in exact mode (its
/// two traversal frontiers: 98 MiB for a chunk of 8,192), within the
/// device's binding limits.
/// Errors: VKCOL_ERROR_INVALID_ARGUMENT (no external device, no mesh, a
/// desc field out of range), VKCOL_ERROR_TOO_LARGE (the pool: as
/// vkcol_batch_run), memory and device errors. *out is NULL on failure.
VKCOL_API vkcol_result vkcol_gpu_batch_create(vkcol_context *ctx, const vkcol_gpu_batch_desc *desc,
                                              vkcol_gpu_batch **out);

/// Frees the batch. Waits for nothing: no submitted command buffer that
/// recorded it may still be pending (as for any Vulkan object). NULL is
/// accepted; a batch of another context is logged and ignored.
VKCOL_API void vkcol_gpu_batch_destroy(vkcol_context *ctx, vkcol_gpu_batch *batch);

typedef struct vkcol_gpu_batch_info {
	vkcol_mode mode;
	uint32_t max_pairs;
	uint32_t chunk_pairs;     ///< pairs per chunk of the recorded commands
	uint32_t chunks;          ///< chunks a recording of max_pairs pairs runs
	uint64_t device_bytes;    ///< device memory the batch holds, its pool not counted
	/// The shaders compose the poses in double (exact mode, shaderFloat64):
	/// pairs go as given, whatever their distance from the origin. false:
	/// in float, from the poses as given (a pair of a mesh the library
	/// recentred is first made relative, in float): unlike vkcol_batch_run,
	/// which makes pairs far from the origin relative in double on the host,
	/// poses far from the origin lose float precision. Keep them near it.
	bool poses_in_double;
} vkcol_gpu_batch_info;

VKCOL_API vkcol_result vkcol_gpu_batch_get_info(const vkcol_gpu_batch *batch, vkcol_gpu_batch_info *out);

/// Why vkcol_batch_record left a pair undecided (vkcol_pair_result.
/// triangle_pairs of a result with stage VKCOL_STAGE_NONE). vkcol_batch_run
/// on the pair answers it (or, for an invalid pair, logs what is wrong).
typedef enum vkcol_undecided {
	/// Exact mode: the pair's traversal overflowed the batch's frontier
	/// (vkcol_batch_run reruns it in smaller chunks).
	VKCOL_UNDECIDED_SCRATCH = 1,
	/// Exact mode: float arithmetic could not decide it (see
	/// vkcol_batch_stats.float_undecided).
	VKCOL_UNDECIDED_FLOAT = 2,
	/// A mesh id that is not a live mesh of the batch, a non-finite pose or
	/// a zero quaternion.
	VKCOL_UNDECIDED_INVALID = 3,
} vkcol_undecided;

/// What a recorded query answered, written to vkcol_record_desc.summary
/// (std430: four uint32).
typedef struct vkcol_record_summary {
	uint32_t pairs;      ///< pairs answered: the count, at most pair_count
	uint32_t collisions; ///< pairs answered "collide"
	uint32_t undecided;  ///< pairs left undecided (stage VKCOL_STAGE_NONE), the invalid ones included
	uint32_t invalid;    ///< of those, the invalid pairs (VKCOL_UNDECIDED_INVALID)
} vkcol_record_summary;

typedef struct vkcol_record_desc {
	vkcol_gpu_batch *batch;
	/// The pairs: pair_count vkcol_pair records from pairs_offset, read on
	/// the device when the commands run. vkcol_pair's C layout is the std430
	/// layout, 64 bytes: uint mesh_a, mesh_b (vkcol_mesh ids); float
	/// qa_w, qa_x, qa_y, qa_z, ta_x, ta_y, ta_z, qb_w, qb_x, qb_y, qb_z,
	/// tb_x, tb_y, tb_z. Needs VK_BUFFER_USAGE_TRANSFER_SRC_BIT.
	VkBuffer pairs;
	VkDeviceSize pairs_offset;
	/// Pairs recorded, 0 .. the batch's max_pairs: the recorded commands copy
	/// this many and write as many results.
	uint32_t pair_count;
	/// VK_NULL_HANDLE: every recorded pair is answered. Else a uint32 at
	/// count_offset, read on the device when the commands run: pairs from
	/// that count (clamped to pair_count) on are not answered, and their
	/// results are written as zeros (stage VKCOL_STAGE_NONE, triangle_pairs
	/// 0). Needs VK_BUFFER_USAGE_TRANSFER_SRC_BIT. The commands of every
	/// chunk up to pair_count are recorded either way.
	VkBuffer count_buffer;
	VkDeviceSize count_offset;
	/// The answers: pair_count vkcol_pair_result records (16 bytes: uint
	/// collide, stage; float penetration; uint triangle_pairs) from
	/// results_offset. Needs VK_BUFFER_USAGE_TRANSFER_DST_BIT.
	VkBuffer results;
	VkDeviceSize results_offset;
	/// VK_NULL_HANDLE or where a vkcol_record_summary goes. Needs
	/// VK_BUFFER_USAGE_TRANSFER_DST_BIT.
	VkBuffer summary;
	VkDeviceSize summary_offset;
	/// The stages whose writes the query waits for (those that wrote the
	/// pairs or the count, and those that last read the results). 0 =
	/// VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT. Host writes need no stage: a
	/// submission makes them visible.
	VkPipelineStageFlags2 wait_stages;
	/// The stages that wait for the query (those that read the results or
	/// the summary, and those that next write the pairs or the count). 0 =
	/// ALL_COMMANDS | HOST (HOST: the results read through a mapping after
	/// the submission's fence). Without synchronization2, both masks must
	/// be Vulkan 1.1 stages (bits below 2^32).
	VkPipelineStageFlags2 signal_stages;
} vkcol_record_desc;

/// Records desc->batch's query into cmd (a primary or secondary command
/// buffer in the recording state, outside a render pass), with the barriers
/// described above; submits nothing and waits for nothing. The answers are
/// those of vkcol_batch_run on the same pairs (the same passes run), except
/// that a pair vkcol_batch_run would rerun or answer on the CPU is left
/// undecided (vkcol_undecided), never answered wrong, and invalid pairs are
/// answered undecided rather than refused. The commands of every chunk up
/// to pair_count are recorded, whatever the count the device reads (see
/// "Threads and blocking" above for their number); their device time
/// grows with the pairs answered. Errors (nothing is recorded):
/// VKCOL_ERROR_INVALID_ARGUMENT
/// (NULL, a batch of another context, pair_count above max_pairs, stage
/// bits the device's barriers cannot take), VKCOL_ERROR_OUT_OF_DATE (a mesh
/// was created or destroyed since the batch was made). The caller's buffers
/// and their offsets are not checked beyond VK_NULL_HANDLE: the validation
/// layer reports a copy past a buffer's end.
VKCOL_API vkcol_result vkcol_batch_record(vkcol_context *ctx, VkCommandBuffer cmd, const vkcol_record_desc *desc);

#ifdef __cplusplus
}
#endif
#endif // VKCOLLIDE_H
