// SPDX-License-Identifier: MIT
// Structures and constants shared by the C host and the GLSL shaders, so that
// std430 layouts cannot drift (the zeux/niagara approach). Only scalar members:
// no vec3 in std430, and the C side _Static_asserts every size.
#ifndef VKCOL_SHARED_H
#define VKCOL_SHARED_H

#ifdef VULKAN // GLSL compiled by glslc for Vulkan
#define VKCOL_U32 uint
#define VKCOL_F32 float
#define VKCOL_STRUCT(name) struct name
#define VKCOL_STRUCT_END(name) ;
#else
#include <stdint.h>
#define VKCOL_U32 uint32_t
#define VKCOL_F32 float
#define VKCOL_STRUCT(name) typedef struct name
#define VKCOL_STRUCT_END(name) name;
#endif

// Workgroup size of one-dimensional compute shaders (a specialization
// constant in the shaders, constant_id 0; this is its default).
#define VKCOL_WORKGROUP_SIZE 64

// Bindings of set 0, named once for the GLSL layouts and the host's
// descriptor writes (src/pipelines.c gives each its descriptor type).
// cubemap_build.comp: the mesh's vertices, triangles and nodes (storage
// buffers), and the texels it writes, every level (storage buffer);
// cubemap_mip.comp reads and writes that buffer alone.
#define VKCOL_CUBEMAP_BINDING_VERTICES 0
#define VKCOL_CUBEMAP_BINDING_TRIANGLES 1
#define VKCOL_CUBEMAP_BINDING_NODES 2
#define VKCOL_CUBEMAP_BINDING_TEXELS 3
#define VKCOL_CUBEMAP_BINDINGS 4
#define VKCOL_CUBEMAP_MIP_BINDING_TEXELS 0
#define VKCOL_CUBEMAP_MIP_BINDINGS 1
// The batch shaders of both modes (pools.glsl): the chunk's pairs, the mesh
// records, the vertex and cluster pools as RGBA32UI uniform texel buffers
// (why: pools.glsl), the chunk's results (storage buffer) and the cube
// arrays (VKCOL_MAP_ARRAYS combined image samplers, one per resolution);
// then each mode's own.
#define VKCOL_BINDING_PAIRS 0
#define VKCOL_BINDING_MESHES 1
#define VKCOL_BINDING_VERTICES 2
#define VKCOL_BINDING_CLUSTERS 3
#define VKCOL_BINDING_RESULTS 4
#define VKCOL_BINDING_MAPS 5
// Approx mode (approx_common.glsl): its statistics counters, the job lists
// written (storage) and read (their texel view), and the lists' indirect
// dispatches and counts (storage, also the indirect buffer).
#define VKCOL_APPROX_BINDING_STATS 6
#define VKCOL_APPROX_BINDING_JOBS 7
#define VKCOL_APPROX_BINDING_JOB_TEXELS 8
#define VKCOL_APPROX_BINDING_JOB_ARGS 9
#define VKCOL_APPROX_BINDINGS 10
// Exact mode (exact_common.glsl): the node and triangle pools (texel
// views), the piece pool, the pairs' state, the frontier a level writes
// (storage) and the one it reads (texel view), the counters, the indirect
// dispatches, the pairs' frames written (storage, by the setup) and read
// (texel view), the triangle-pair list, and the pairs' state read as
// texels (has a pair a hit from an earlier pass? A vector gather on a SIMD
// driver, where a storage load is one per lane).
#define VKCOL_EXACT_BINDING_NODES 6
#define VKCOL_EXACT_BINDING_TRIANGLES 7
#define VKCOL_EXACT_BINDING_PIECES 8
#define VKCOL_EXACT_BINDING_STATE 9
#define VKCOL_EXACT_BINDING_FRONTIER_OUT 10
#define VKCOL_EXACT_BINDING_FRONTIER_IN 11
#define VKCOL_EXACT_BINDING_COUNTERS 12
#define VKCOL_EXACT_BINDING_ARGS 13
#define VKCOL_EXACT_BINDING_FRAMES 14
#define VKCOL_EXACT_BINDING_FRAME_TEXELS 15
#define VKCOL_EXACT_BINDING_LIST 16
#define VKCOL_EXACT_BINDING_STATE_TEXELS 17
#define VKCOL_EXACT_BINDINGS 18

// Recorded queries (vkcol_batch_record; src/batch/record.c, record.comp):
// before each chunk's passes a prepare pass checks the chunk's pairs (in the
// batch's buffer, copied from the caller's) and puts a stand-in pair where a
// pair is invalid or past the count the device reads; after them a finish
// pass turns the answers into the public ones and adds up the summary. Its
// bindings: the chunk's pairs and the mesh table (storage), the live mesh
// id of every mesh slot, the record's state, the chunk's results.
#define VKCOL_RECORD_BINDING_PAIRS 0
#define VKCOL_RECORD_BINDING_MESHES 1
#define VKCOL_RECORD_BINDING_IDS 2
#define VKCOL_RECORD_BINDING_STATE 3
#define VKCOL_RECORD_BINDING_RESULTS 4
#define VKCOL_RECORD_BINDINGS 5
// The record's state (words): the query's count (the caller's, copied, or
// the recorded one), the indirect dispatch of the chunk's per-pair passes
// (x, y, z) and the chunk's pairs, the summary (vkcol_gpu_summary) the
// finish passes add to, then one VKCOL_SLOT_* per pair slot of a chunk.
#define VKCOL_RECORD_COUNT 0
#define VKCOL_RECORD_ARGS 4
#define VKCOL_RECORD_CHUNK_PAIRS 7
#define VKCOL_RECORD_SUMMARY 8
#define VKCOL_RECORD_SLOTS 12
#define VKCOL_SLOT_PAIR 0u    // a valid pair
#define VKCOL_SLOT_INVALID 1u // an invalid pair, replaced by the stand-in
#define VKCOL_SLOT_PAST 2u    // past the count (the stand-in up to a whole workgroup)

// vkcol_gpu_summary (vkcol_batch_record's): what the query answered.
VKCOL_STRUCT(vkcol_gpu_summary) {
	VKCOL_U32 pairs;      // the count, clamped to the recorded pairs
	VKCOL_U32 collisions; // pairs answered "collide"
	VKCOL_U32 undecided;  // pairs left undecided (stage NONE), the invalid ones included
	VKCOL_U32 invalid;    // pairs that were invalid
} VKCOL_STRUCT_END(vkcol_gpu_summary)

// vkcol_pair_result.triangle_pairs of a recorded pair left undecided (the
// public vkcol_undecided values).
#define VKCOL_GPU_UNDECIDED_SCRATCH 1u
#define VKCOL_GPU_UNDECIDED_FLOAT 2u
#define VKCOL_GPU_UNDECIDED_INVALID 3u

// Push constants of record.comp.
VKCOL_STRUCT(vkcol_record_params) {
	VKCOL_U32 chunk_first;     // the chunk's first pair in the query
	VKCOL_U32 chunk_slots;     // pair slots the chunk copies in and out
	VKCOL_U32 pair_count;      // pairs recorded: the count is clamped to it
	VKCOL_U32 mesh_index_mask; // id -> slot: (id & mask) - 1
	VKCOL_U32 mesh_slots;      // entries of the ids binding
	VKCOL_U32 flags;           // VKCOL_RECORD_RELATIVE
	VKCOL_U32 stand_in_mesh;   // a live mesh id: the stand-in pair is this mesh against itself,
	VKCOL_F32 stand_in_apart;  // B this far along x from A, beyond their bounding spheres
} VKCOL_STRUCT_END(vkcol_record_params)

// vkcol_record_params.flags: a pair of a recentred mesh goes as B's pose in
// A's stored frame, A at the identity (the float frames of approx mode and
// of exact mode without shaderFloat64 do not add the centres back).
#define VKCOL_RECORD_RELATIVE 1u
// And a valid pair's mesh ids become those of the records its batch's vertex
// budget picks (batch/pool.h's pool_budget_ids), from the ids binding's
// second half (entry mesh_slots + slot); the passes after read them with a
// mask of all ones.
#define VKCOL_RECORD_BUDGET 2u
// Exact mode: a valid pair's mesh ids become those of the records exact
// mode reads it by: a mesh's fine tree's (batch/pool.c's pool_exact_pair:
// VKCOL_FINE_RATIO, VKCOL_FINE_THICKNESS) from the ids binding's second
// part (entry mesh_slots + slot: the record + 1, 0 for none; its third and
// fourth parts hold each slot's triangle scale and leaf thickness), else
// the slot's own record (slot + 1); the passes read them with a mask of
// all ones.
#define VKCOL_RECORD_FINE 4u
// Exact mode traverses a mesh's fine tree (mesh_cpu.fine_tree) against
// another mesh when its triangles (mesh_cpu.triangle_scale) are
// VKCOL_FINE_RATIO times the other's or larger and its leaves are thicker
// (mesh_cpu.leaf_thickness) than VKCOL_FINE_THICKNESS times the other's
// triangles. Then the other mesh's nodes, small beside a leaf, pass its
// bounds off its triangles; a flat leaf (coplanar triangles: a thin slab)
// is bounded as tightly as its triangles.
#define VKCOL_FINE_RATIO 4.0f
#define VKCOL_FINE_THICKNESS 0.125f

// The deepest tree level (root = 0) of a mesh: vkcol_mesh_desc.max_depth's
// bound, which the trees' walks size their stacks by (aabb_tree.h,
// tree_walk.glsl).
#define VKCOL_TREE_MAX_DEPTH 48u

// A node of a flattened AABB tree. Nodes are stored breadth first: level k of
// the tree is one contiguous index range. count == 0: internal node whose
// children are nodes `first` and `first + 1`. count > 0: leaf holding the
// tree-ordered triangles first .. first + count - 1.
VKCOL_STRUCT(vkcol_gpu_node) {
	VKCOL_F32 min_x, min_y, min_z;
	VKCOL_U32 first;
	VKCOL_F32 max_x, max_y, max_z;
	VKCOL_U32 count;
} VKCOL_STRUCT_END(vkcol_gpu_node)

// A triangle in tree order: its three vertex indices and its index in the
// caller's triangle list (reported in results).
VKCOL_STRUCT(vkcol_gpu_triangle) {
	VKCOL_U32 v0, v1, v2;
	VKCOL_U32 original;
} VKCOL_STRUCT_END(vkcol_gpu_triangle)

// A vertex position padded to 16 bytes (std430 has no packed vec3 arrays).
// In the batch pool the pad holds the vertex's connected piece (a uint).
VKCOL_STRUCT(vkcol_gpu_vertex) {
	VKCOL_F32 x, y, z, pad;
} VKCOL_STRUCT_END(vkcol_gpu_vertex)

// Push constants of cubemap_build.comp: one invocation per texel of level 0.
VKCOL_STRUCT(vkcol_cubemap_build_params) {
	VKCOL_F32 origin_x, origin_y, origin_z;
	VKCOL_U32 resolution;   // texels per face edge
} VKCOL_STRUCT_END(vkcol_cubemap_build_params)

// Push constants of cubemap_mip.comp: level k+1 from level k of one buffer
// holding every level, face-major (layer, row, column) within each level.
VKCOL_STRUCT(vkcol_cubemap_mip_params) {
	VKCOL_U32 src_offset;   // in texels (vec2)
	VKCOL_U32 dst_offset;
	VKCOL_U32 dst_resolution;
	VKCOL_U32 pad;
} VKCOL_STRUCT_END(vkcol_cubemap_mip_params)

// Per-mesh record of the batch shaders, indexed by mesh slot. The pool holds
// each mesh's vertices (those some triangle uses) in k-d order
// (src/geometry/vertex_order.h), so each cluster and each group below is a
// compact cell of space; cluster k covers vertices vertex_first + k *
// VKCOL_CLUSTER_SIZE on, with a bounding sphere (vec4) at cluster_first + k
// of the cluster pool. Group g of VKCOL_GROUP_CLUSTERS clusters, from cluster
// g * VKCOL_GROUP_CLUSTERS on, has its bounding sphere at cluster_first +
// cluster_count + g.
VKCOL_STRUCT(vkcol_gpu_mesh) {
	VKCOL_F32 origin_x, origin_y, origin_z;
	VKCOL_U32 vertex_first;  // into the batch vertex pool
	VKCOL_F32 sphere_x, sphere_y, sphere_z;
	VKCOL_F32 sphere_radius;
	VKCOL_U32 vertex_count;
	VKCOL_U32 map_array;     // which cube-array binding (by resolution)
	VKCOL_U32 map_layer;     // cube index within it
	VKCOL_U32 map_levels;    // mip levels of the map
	VKCOL_U32 cluster_first; // into the batch cluster pool
	VKCOL_U32 cluster_count;
	// > 0 only for closed meshes with an inside origin: the ball of this
	// radius around the origin lies inside the solid (shrunk for float
	// rounding).
	VKCOL_F32 inner_radius;
	VKCOL_U32 flags;         // VKCOL_MESH_CLOSED | VKCOL_MESH_STAR_SHAPED | VKCOL_MESH_FEW_HITS
	VKCOL_F32 aabb_min_x, aabb_min_y, aabb_min_z;
	VKCOL_U32 node_first;    // root in the batch node pool (exact mode)
	VKCOL_F32 aabb_max_x, aabb_max_y, aabb_max_z;
	VKCOL_U32 piece_first;   // VKCOL_PIECE_VERTICES vertices per connected piece, in the piece pool
	VKCOL_U32 piece_count;
	VKCOL_U32 tree_depth;
	// Into the cluster pool (vec4 units): the mesh's VKCOL_CONE_TEXELS cone
	// bounds (cone_bound.glsl).
	VKCOL_U32 cone_first;
	// Inner balls besides the origin's (vec4: centre, radius; each inside
	// the solid), right after the cone bounds in the cluster pool.
	VKCOL_U32 ball_count;
	// What the mesh's stored positions are relative to (mesh_cpu.centre):
	// the exact shaders add it back when they place one mesh in the
	// other's frame in double precision.
	VKCOL_F32 centre_x, centre_y, centre_z;
	VKCOL_U32 pad;
} VKCOL_STRUCT_END(vkcol_gpu_mesh)

// vkcol_gpu_mesh.flags: the mesh bounds a solid; and it is closed and its
// cube map saw one surface hit on every ray (R = G everywhere: star-shaped
// about its origin, as far as the map's resolution tells).
#define VKCOL_MESH_CLOSED 1u
#define VKCOL_MESH_STAR_SHAPED 2u
// Its cube map's rays mostly meet the surface once (multi_hit_fraction at
// most VKCOL_FEW_HITS_MAX): the map's two distances, R and G, stand for
// most of the surface, so the probe between two open meshes looks for
// the other mesh's vertices near them (exact_setup.comp, straddle).
#define VKCOL_MESH_FEW_HITS 4u
#define VKCOL_FEW_HITS_MAX 0.25f

// The (R, G) texel of a distance cube map whose ray misses the mesh. Linear
// filtering blends it into its neighbours' samples, and any sample it
// enters with a weight the filter can give (even 2^-16 of the hit value's
// 1) comes out negative: the vertex tests read a negative sample as no
// surface in that direction, not as a surface between the hits and the
// origin.
#define VKCOL_MAP_MISS (-1.0e30)

// At most this many inner balls per mesh (vkcol_gpu_mesh.ball_count).
#define VKCOL_INNER_BALLS 16

#define VKCOL_CLUSTER_SIZE 16
#define VKCOL_GROUP_CLUSTERS 8

// Cone bounds of a distance cube map (src/geometry/cone_bound.c): level l = 0 ..
// VKCOL_CONE_LEVELS - 1 divides each cube face into n x n cells, n =
// VKCOL_CONE_CELLS >> l, and holds per cell one vec4 of bounds over every
// direction within VKCOL_CONE_ANGLE(l) radians of the cell: an upper bound
// of the map's outer distance (channel G); then, for an open mesh (else 0),
// a lower and an upper bound of its inner distance (R) and a lower bound of
// G, the lower bounds 0 where a ray among those directions misses the mesh.
// Cells are numbered (face * n + j) * n + i within a level, levels follow
// each other from the finest.
#define VKCOL_CONE_CELLS 16
#define VKCOL_CONE_LEVELS 5
#define VKCOL_CONE_ANGLE(l) ((1 << (l)) * (1.0 / VKCOL_CONE_CELLS))
#define VKCOL_CONE_TEXELS 2048 // 6 * (256 + 64 + 16 + 4 + 1) = 2046 cells, padded
#define VKCOL_CONE_FLOATS (4 * VKCOL_CONE_TEXELS)

// Clearance field (src/geometry/clearance.h), in the cluster pool right after
// the inner balls (vec4 units, from cone_first + VKCOL_CONE_TEXELS +
// ball_count): a header of VKCOL_CLEARANCE_HEADER texels, (grid minimum, cell
// edge) as floats, the grid's points per axis (x, y, z) as uints and the
// filter's reach (float); then one float per grid point, x fastest, four per
// texel.
#define VKCOL_CLEARANCE_HEADER 2

// A query as the caller gives it (vkcol_pair): mesh ids and two poses,
// quaternions w first.
VKCOL_STRUCT(vkcol_gpu_pair) {
	VKCOL_U32 mesh_a, mesh_b;
	VKCOL_F32 qa_w, qa_x, qa_y, qa_z, ta_x, ta_y, ta_z;
	VKCOL_F32 qb_w, qb_x, qb_y, qb_z, tb_x, tb_y, tb_z;
} VKCOL_STRUCT_END(vkcol_gpu_pair)

// One answer (vkcol_pair_result).
VKCOL_STRUCT(vkcol_gpu_result) {
	VKCOL_U32 collide;
	VKCOL_U32 stage;
	VKCOL_F32 penetration;
	VKCOL_U32 triangle_pairs;
} VKCOL_STRUCT_END(vkcol_gpu_result)

// Push constants of approx_pairs.comp, approx_groups.comp and approx_jobs.comp.
VKCOL_STRUCT(vkcol_approx_params) {
	VKCOL_U32 pair_count;   // pairs in this chunk
	VKCOL_U32 mip_level;
	VKCOL_U32 mesh_index_mask; // id -> slot: (id & mask) - 1
	VKCOL_U32 flags;           // VKCOL_APPROX_*
	VKCOL_U32 job_capacity;    // cluster jobs the job lists hold, from their start
	VKCOL_U32 group_capacity;  // group jobs they hold, after the cluster jobs
} VKCOL_STRUCT_END(vkcol_approx_params)

// Jobs of approx mode: approx_pairs.comp decides what the bounds, the inner
// balls, the balls of vertex groups and one cluster per direction can; each
// group left to test becomes a group job (uvec2: pair, group | direction <<
// 31, where direction 1 = A's vertices in B's map), whose clusters' balls
// approx_groups.comp tests; each cluster left to test becomes a cluster job
// (uvec2: pair, cluster | direction << 31), which approx_jobs.comp tests.
// One invocation per job, so that the loops of a workgroup's invocations
// have equal lengths. A pair whose jobs do not fit their list is spilled:
// word 3 of its result has VKCOL_RESULT_SPILLED, it is listed
// (VKCOL_JOBS_SPILLED), and approx_pairs.comp's spilled-list variant, after
// the jobs, tests all its clusters and keeps the key it finds as a job
// would. A cluster job's key orders the jobs of a pair (job_key: direction, the nearest group's
// clusters first, cluster); those that find a vertex inside keep the least
// key of them, inverted, in word 2 of the pair's result (atomicMax), and a
// job skips itself when one of a lesser key has found one, so the first in
// key order always runs, whatever order the device runs them in; the pair
// gets VKCOL_RESULT_HIT, and the spilled variant tests that cluster again
// for the penetration. That variant runs one invocation per pair in pair
// order: on lavapipe a cube sample's last bits depend on the coordinates of
// the other lanes of its SIMD group, which must not depend on the order the
// jobs ran in. The job lists hold the cluster jobs, then the group jobs;
// the job arguments, per list, the indirect dispatch of its jobs (x, y, z)
// and their count, at word 4 * list.
#define VKCOL_JOBS_CLUSTER 0
#define VKCOL_JOBS_GROUP 1
// The spilled pairs (uvec2: pair, 0), one slot per pair of the chunk, after
// the group jobs: the spilled-list variant of approx_pairs.comp, after the
// jobs, tests all the clusters of each, one invocation per listed pair.
#define VKCOL_JOBS_SPILLED 2
#define VKCOL_RESULT_SPILLED 1u // word 3 until the spilled variant
#define VKCOL_RESULT_HIT 2u     // word 3 until the spilled variant
#define VKCOL_JOB_COUNT 3 // word of a list's count, after its dispatch
#define VKCOL_JOB_ARGS_WORDS 12

// vkcol_approx_params.flags: add to the statistics counters; leave the
// cone bounds unused (tests compare the answers with and without them).
#define VKCOL_APPROX_STATS 1u
#define VKCOL_APPROX_NO_CONES 2u
#define VKCOL_APPROX_NO_CLEARANCE 4u // the clearance fields off (tests)
#define VKCOL_APPROX_NO_OPEN_BOUNDS 8u // open meshes' bounds of the inner distance off (tests)

// Statistics counters of approx mode (VKCOL_APPROX_BINDING_STATS): 64-bit
// values as (low, high) uint pairs, added to with carry.
#define VKCOL_STAT_VERTEX_TESTS 0
#define VKCOL_STAT_CUBE_SAMPLES 2
#define VKCOL_STAT_WORDS 4

// Exact mode (breadth-first traversal of both trees, Xiao & Shi). The node
// pool holds every mesh's nodes with absolute indices: an internal node's
// children are nodes `first` and `first + 1` of the pool, a leaf's triangles
// are `first ..` of the triangle pool, whose vertex indices are absolute in
// the vertex pool.
//
// A frontier item: (pair within the chunk, node of A, node of B, steps):
// every item in a frontier is a node pair whose boxes overlap (children are
// tested before they are written); steps is 0 but in a pair's seed in the
// depth-first region: the depth-first steps that item may take, a diving
// pair's (seed_budget) or a scout's (scout_budget | VKCOL_ITEM_SCOUT).
// A frontier buffer has three regions: breadth-first items of inner node
// pairs [0, leaf_base), leaf-leaf items [leaf_base, dive_base) (culled by
// exact_leaves.comp, so that no SIMD group of exact_traverse.comp runs the
// triangle loops for one lane), and the depth-first pairs' items
// [dive_base, capacity). Past them, as many slots as the leaf region has
// from capacity on hold the triangle pairs the leaf culls
// left to test, as (pair, first triangle of A, first of B, bits: see
// test_candidates): written, like the other regions, by the level before
// the one that reads them (exact_leaves.comp, both variants).
// Counters (VKCOL_EXACT_BINDING_COUNTERS). Each frontier region counts in
// three words from its VKCOL_COUNTER_<region>: + k, the items written to
// frontier buffer k's region; + VKCOL_COUNTER_CLAMPED, the level's count
// clamped to the region (exact_args.comp). The regions: BREADTH (the
// breadth-first items), DIVE (items of depth-first, VKCOL_PAIR_DIVE, pairs),
// LEAF (leaf-leaf items), CAND (the entries of triangle pairs the leaf culls
// left, from capacity) and CONFIRM (those the separating axes left for
// exact_confirm, after the candidates'). Besides: LIST, triangle pairs
// listed; WITNESS and BALLS, pairs accepted on a witness and on overlapping
// inner balls; SEARCH, pairs the setup listed for the search pass; WALK,
// pairs the search pass listed for the walk pass (exact_setup.comp, at the
// first frontier's candidate slots, which no level has written yet); then
// VKCOL_MAX_LEVELS per-level item counts (statistics) from
// VKCOL_COUNTER_LEVELS on.
#define VKCOL_MAX_LEVELS 128
#define VKCOL_COUNTER_CLAMPED 2
#define VKCOL_COUNTER_BREADTH 0
#define VKCOL_COUNTER_LIST 3
#define VKCOL_COUNTER_WITNESS 4
#define VKCOL_COUNTER_DIVE 5
#define VKCOL_COUNTER_LEAF 8
#define VKCOL_COUNTER_BALLS 11
#define VKCOL_COUNTER_SEARCH 12
#define VKCOL_COUNTER_CAND 13
#define VKCOL_COUNTER_WALK 16
#define VKCOL_COUNTER_CONFIRM 17
#define VKCOL_COUNTER_LEVELS 20
// The indirect dispatches exact_args.comp writes
// (VKCOL_EXACT_BINDING_ARGS): dispatch d at word 4 d, (x, y, z) and a word
// unused. Per level: traverse, dive, leaves, triangles and confirm; before
// level 0, the search and the walk passes'.
#define VKCOL_ARGS_TRAVERSE 0
#define VKCOL_ARGS_DIVE 1
#define VKCOL_ARGS_LEAVES 2
#define VKCOL_ARGS_TRIANGLES 3
#define VKCOL_ARGS_SEARCH 4
#define VKCOL_ARGS_WALK 5
#define VKCOL_ARGS_CONFIRM 6
#define VKCOL_EXACT_ARGS_WORDS 28 // 4 per dispatch
// exact_args.comp's params.level before level 0: the search pass's
// dispatch, then the walk pass's, sized to the pairs listed for them. A dispatch as large as the chunk, with the listed
// pairs packed at its start, left them to one of lavapipe's threads, which
// hands each thread an equal run of a dispatch's workgroups.
#define VKCOL_ARGS_FOR_SEARCH 0xfffffffeu
#define VKCOL_ARGS_FOR_WALK 0xffffffffu
#define VKCOL_COUNTER_WORDS (VKCOL_COUNTER_LEVELS + VKCOL_MAX_LEVELS)

// Texels of a tree node in the exact shaders' node pool (batch/pool.c's
// pool_node): the node's two (vkcol_gpu_node), then its slab. The nodes'
// oriented boxes (aabb_tree.h) follow all the nodes, VKCOL_OBB_TEXELS each,
// from texel vkcol_exact_params.obb_base: per axis its direction and half
// extent, then the centre.
#define VKCOL_NODE_TEXELS 3u
#define VKCOL_OBB_TEXELS 4u

// Per pair, exact mode: triangle pairs found intersecting, and flags.
#define VKCOL_PAIR_OVERFLOW 1u  // a frontier overflowed: rerun in a smaller chunk
#define VKCOL_PAIR_DECIDED 2u   // stage 0, the inner balls or a witness decided it
#define VKCOL_PAIR_DIVE 4u      // traverse depth first (params.budget steps per item): no early accept was tried
// Float could not decide a triangle pair or a containment ray of the pair
// (devices without shaderFloat64, or a point on the other's surface): unless
// a sure hit decides it, the host answers the pair with the CPU reference.
#define VKCOL_PAIR_UNDECIDED 8u
// Decided by a witness vertex inside a star-shaped mesh, whose depth below
// that mesh's map exact_contain.comp works out, one invocation per pair in
// pair order (on lavapipe a cube sample's last bits depend on the other
// lanes of its SIMD group, and the search pass's pairs come in the order
// the device listed them): the state's first word holds the vertex | the
// direction << 31 (1: A's vertex in B), VKCOL_WITNESS_ORIGIN for the
// mesh's origin.
#define VKCOL_PAIR_WITNESS_DEPTH 16u
#define VKCOL_WITNESS_ORIGIN 0x7fffffffu
// Two large trees (exact_setup.comp): the pair's depth-first items take
// twice params.budget steps (exact_dive.comp).
#define VKCOL_PAIR_DEEP 32u
// vkcol_gpu_result.triangle_pairs of a pair left to the CPU reference for
// that reason (stage VKCOL_STAGE_NONE); a pair whose frontier overflowed has
// 0 there and is rerun on the device first.
#define VKCOL_RESULT_FOR_CPU 0xffffffffu
// The flags word's bits from VKCOL_PAIR_ITEMS_SHIFT count the breadth-first
// items a pair has spawned (wrapping is harmless: it is a hint); past
// VKCOL_DIVE_AFTER its further items go depth first, so that a pair with a
// wide overlap region (surfaces lying along each other) finds its first hit
// without expanding all of it. The threshold is high because the early
// accepts leave few colliding pairs to the traversal, and a depth-first step
// costs lavapipe 2-3 breadth-first items; low enough that a large open mesh
// crossing a small one dives before its frontier explodes (the thresholds
// tried are in docs/performance-notes.md).
#define VKCOL_PAIR_ITEMS_SHIFT 8u
#define VKCOL_DIVE_AFTER 512u

// Per connected piece of a mesh: its vertices of lowest and highest x, y, z.
#define VKCOL_PIECE_VERTICES 6

// vkcol_exact_params.flags
#define VKCOL_EXACT_FIND_ALL 1u // list every intersecting triangle pair (no early stop)
#define VKCOL_EXACT_EARLY_ACCEPT 2u // stage 1 accepts: inner balls, cube-map witnesses
// The device's traversal policy (exact_policy, exact.c): no probe between
// two open meshes; a pair with an open mesh goes depth first whatever the
// early accept found.
#define VKCOL_EXACT_NO_PROBE 4u
#define VKCOL_EXACT_DIVE_OPEN 8u
// A test knob: no ball test (exact_setup.comp) for a small compact solid
// against a large mesh.
#define VKCOL_EXACT_NO_BALL 16u
// A test knob: every pair of open meshes the probe's sizes allow is probed,
// from the clusters nearest the other mesh's origin (exact_setup.comp,
// straddle); without it only a small mesh against a large one, from the
// clusters nearest its sampled surface.
#define VKCOL_EXACT_ORIGIN_PROBE 32u

VKCOL_STRUCT(vkcol_exact_params) {
	VKCOL_U32 pair_count;
	VKCOL_U32 mesh_index_mask;
	VKCOL_U32 capacity;      // items of a frontier buffer's three regions (the candidates' first slot)
	VKCOL_U32 level;         // traversal level (0-based) of this dispatch
	VKCOL_U32 flags;         // VKCOL_EXACT_*
	VKCOL_U32 list_capacity; // entries of the triangle-pair list buffer
	VKCOL_U32 budget;        // depth-first steps per traversal item, 1 .. VKCOL_TRAVERSE_BUDGET_MAX
	VKCOL_U32 dive_base;     // first frontier slot of depth-first pairs' items (capacity when none)
	VKCOL_U32 leaf_base;     // first frontier slot of leaf-leaf items (dive_base when none)
	VKCOL_U32 obb_base;      // texel of node 0's oriented box in the node pool
	VKCOL_U32 seed_budget;   // depth-first steps of a diving pair's first item (its seed), budget .. VKCOL_TRAVERSE_BUDGET_MAX
	VKCOL_U32 scout_budget;  // depth-first steps of a scout (VKCOL_ITEM_SCOUT); <= 1: no scouts
} VKCOL_STRUCT_END(vkcol_exact_params)

// A scout: the seed of a pair that goes breadth first, sent depth first
// from the roots for scout_budget steps (exact_setup.comp); what is left on
// its stack then goes to the breadth-first region (exact_dive.comp).
#define VKCOL_ITEM_SCOUT 0x80000000u

// Most depth-first steps one traversal invocation takes before handing what
// is left to the next level (its stack holds one more node pair than this).
#define VKCOL_TRAVERSE_BUDGET_MAX 63u

// Per pair, written by exact_setup.comp for the later passes: B's frame in
// A's in float (rotation columns in xyz, translation in the w of the first
// three); in the fourth, the slack of the float culls (x) and the distance
// within which the triangle tests count two triangles as touching (y:
// pair_touch_distance); then, on devices with shaderFloat64, the same frame
// in double, row by row (r00 r01 | r02 t0 | r10 r11 | r12 t1 | r20 r21 |
// r22 t2, two doubles per vec4).
#define VKCOL_FRAME_VEC4S 10
#define VKCOL_FRAME_DOUBLE 4

// Resolutions 4 .. 1024: one cube-array binding per power of two.
#define VKCOL_MAP_ARRAYS 9

// Specialization constant ids: 0 is the workgroup size (local_size_x_id);
// VKCOL_SPEC_MAP_ARRAY is the one cube array a batch's maps share, or
// VKCOL_MAP_ARRAYS when they do not (map_sample.glsl). The variants of a
// shader (other code) are compiled apart with preprocessor constants
// instead (VKCOL_VARIANT, VKCOL_FP64: shaders/meson.build).
#define VKCOL_SPEC_MAP_ARRAY 1

// vkcol_gpu_result.stage: the public vkcol_stage values (asserted below).
#define VKCOL_GPU_STAGE_NONE 0
#define VKCOL_GPU_STAGE_BOUNDS 1
#define VKCOL_GPU_STAGE_CUBE_MAP 2
#define VKCOL_GPU_STAGE_TREE 3
#define VKCOL_GPU_STAGE_CONTAINMENT 4

#ifndef VULKAN
#include "vkcollide.h"
_Static_assert(VKCOL_GPU_STAGE_NONE == VKCOL_STAGE_NONE && VKCOL_GPU_STAGE_BOUNDS == VKCOL_STAGE_BOUNDS &&
                   VKCOL_GPU_STAGE_CUBE_MAP == VKCOL_STAGE_CUBE_MAP && VKCOL_GPU_STAGE_TREE == VKCOL_STAGE_TREE &&
                   VKCOL_GPU_STAGE_CONTAINMENT == VKCOL_STAGE_CONTAINMENT,
               "the shaders' stages are the public vkcol_stage values");
_Static_assert(sizeof(vkcol_cubemap_build_params) == 16, "push constant layout");
_Static_assert(sizeof(vkcol_cubemap_mip_params) == 16, "push constant layout");
_Static_assert(sizeof(vkcol_gpu_mesh) == 128, "std430 layout of vkcol_gpu_mesh");
_Static_assert(sizeof(vkcol_gpu_pair) == 64, "std430 layout of vkcol_gpu_pair");
_Static_assert(sizeof(vkcol_gpu_result) == 16, "std430 layout of vkcol_gpu_result");
_Static_assert(sizeof(vkcol_approx_params) == 24, "push constant layout");
_Static_assert(sizeof(vkcol_exact_params) == 48, "push constant layout");
_Static_assert(sizeof(vkcol_record_params) == 32, "push constant layout");
_Static_assert(sizeof(vkcol_gpu_summary) == 16, "std430 layout of vkcol_gpu_summary");
_Static_assert(sizeof(vkcol_gpu_node) == 32, "std430 layout of vkcol_gpu_node");
_Static_assert(sizeof(vkcol_gpu_triangle) == 16, "std430 layout of vkcol_gpu_triangle");
_Static_assert(sizeof(vkcol_gpu_vertex) == 16, "std430 layout of vkcol_gpu_vertex");
#endif

#endif
