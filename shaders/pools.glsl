// SPDX-License-Identifier: MIT
// The bindings both batch modes read alike (shared.h): the chunk's pairs,
// the mesh records, the vertex and cluster pools, and the cube arrays; and
// their accessors. The read-only pools are RGBA32UI uniform texel buffers,
// bitcast where float: lavapipe (Mesa 22.3) loads a storage buffer one lane
// at a time, with a branch per lane and per component, and fetches texels
// as one vector gather. The pair and mesh records take 4 and 8 texels. The
// including shader declares push constants `params` with a
// mesh_index_mask first, and the results (VKCOL_BINDING_RESULTS) as it
// writes them.
#ifndef VKCOL_POOLS_GLSL
#define VKCOL_POOLS_GLSL

layout(set = 0, binding = VKCOL_BINDING_PAIRS) uniform usamplerBuffer pair_texels;
layout(set = 0, binding = VKCOL_BINDING_MESHES) uniform usamplerBuffer mesh_texels;
layout(set = 0, binding = VKCOL_BINDING_VERTICES) uniform usamplerBuffer vertex_texels;
// Per mesh: its clusters' and groups' bounding spheres (centre, radius), its
// cone bounds, inner balls and clearance field (shared.h).
layout(set = 0, binding = VKCOL_BINDING_CLUSTERS) uniform usamplerBuffer cluster_texels;
layout(set = 0, binding = VKCOL_BINDING_MAPS) uniform samplerCubeArray maps[VKCOL_MAP_ARRAYS];

#define VKCOL_MESH_TEXELS 8
#define VKCOL_PAIR_TEXELS 4

vkcol_gpu_mesh mesh_from_texels(uvec4 w0, uvec4 w1, uvec4 w2, uvec4 w3, uvec4 w4, uvec4 w5, uvec4 w6, uvec4 w7)
{
	vec4 f0 = uintBitsToFloat(w0), f1 = uintBitsToFloat(w1), f3 = uintBitsToFloat(w3);
	vec4 f4 = uintBitsToFloat(w4), f5 = uintBitsToFloat(w5), f7 = uintBitsToFloat(w7);
	return vkcol_gpu_mesh(f0.x, f0.y, f0.z, w0.w,      // origin, vertex_first
	                      f1.x, f1.y, f1.z, f1.w,      // sphere
	                      w2.x, w2.y, w2.z, w2.w,      // vertex_count, map_array, map_layer, map_levels
	                      w3.x, w3.y, f3.z, w3.w,      // cluster_first, cluster_count, inner_radius, flags
	                      f4.x, f4.y, f4.z, w4.w,      // aabb_min, node_first
	                      f5.x, f5.y, f5.z, w5.w,      // aabb_max, piece_first
	                      w6.x, w6.y, w6.z, w6.w,      // piece_count, tree_depth, cone_first, ball_count
	                      f7.x, f7.y, f7.z, w7.w);     // centre, pad
}

vkcol_gpu_pair pair_from_texels(uvec4 w0, uvec4 w1, uvec4 w2, uvec4 w3)
{
	vec4 f0 = uintBitsToFloat(w0), f1 = uintBitsToFloat(w1), f2 = uintBitsToFloat(w2), f3 = uintBitsToFloat(w3);
	return vkcol_gpu_pair(w0.x, w0.y,                  // mesh_a, mesh_b
	                      f0.z, f0.w, f1.x, f1.y,      // qa
	                      f1.z, f1.w, f2.x,            // ta
	                      f2.y, f2.z, f2.w, f3.x,      // qb
	                      f3.y, f3.z, f3.w);           // tb
}

vkcol_gpu_pair pair_at(uint p)
{
	int i = int(VKCOL_PAIR_TEXELS * p);
	return pair_from_texels(texelFetch(pair_texels, i), texelFetch(pair_texels, i + 1),
	                        texelFetch(pair_texels, i + 2), texelFetch(pair_texels, i + 3));
}

// The record of the mesh with this id.
vkcol_gpu_mesh mesh_of(uint id)
{
	int i = int(VKCOL_MESH_TEXELS * ((id & params.mesh_index_mask) - 1u));
	return mesh_from_texels(texelFetch(mesh_texels, i), texelFetch(mesh_texels, i + 1),
	                        texelFetch(mesh_texels, i + 2), texelFetch(mesh_texels, i + 3),
	                        texelFetch(mesh_texels, i + 4), texelFetch(mesh_texels, i + 5),
	                        texelFetch(mesh_texels, i + 6), texelFetch(mesh_texels, i + 7));
}

// Vertex i of the pool (xyz; w holds vertex_piece's bits, or 1.0 in a
// level of detail).
vec4 vertex_at(uint i)
{
	return uintBitsToFloat(texelFetch(vertex_texels, int(i)));
}

// The connected piece of vertex i of a mesh's own vertices (not of a level
// of detail): an index below the mesh's piece_count.
uint vertex_piece(uint i)
{
	return texelFetch(vertex_texels, int(i)).w;
}

// Entry i of the cluster pool (a cluster's bounding sphere, cone bounds, an
// inner ball).
vec4 cluster_at(uint i)
{
	return uintBitsToFloat(texelFetch(cluster_texels, int(i)));
}

#endif
