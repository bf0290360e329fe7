// SPDX-License-Identifier: MIT
// The one walk of a ray or a segment through a mesh's flattened AABB tree
// (the balanced tree of CN 102663825, aabb_tree.h), shared by
// cubemap_build.comp (a ray per texel, every hit), exact_contain.comp (ray
// parity) and exact_setup.comp (a segment that must stay clear): a stack of
// nodes, the slab test of each node's box against the ray, and a leaf's
// triangles handed back to the caller, which tests them its own way. The
// including shader defines `vkcol_gpu_node tree_node(uint i)` first.
//
// A caller's loop, one node per iteration (a leaf's triangles in the same
// iteration), ending through its condition, never an early `return`
// (lavapipe 22.3 miscompiled one inside such a loop: the pushes after it
// were lost and the loop revisited the root):
//
//     tree_walk_start(root);
//     while (tree_walk_more() && !done) {
//         uvec2 leaf = tree_walk_step(ray, false);
//         for (uint k = leaf.x; k < leaf.x + leaf.y && !done; k++) ...
//     }
#ifndef VKCOL_TREE_WALK_GLSL
#define VKCOL_TREE_WALK_GLSL

// A depth-first walk holds at most the tree's depth + 1 nodes on its stack:
// it pops a node and pushes its two children.
const uint TREE_STACK_SIZE = VKCOL_TREE_MAX_DEPTH + 1u;

// The walk's stack (private to the invocation; one walk at a time).
uint tree_stack[TREE_STACK_SIZE];
uint tree_top;

// The points o + s d, s in [0, s_max], as the walk meets boxes with them.
// inv_d = 1 / d (an infinite component is fine: the slab test then keeps or
// drops the whole axis). A box counts as met when the span of s within it,
// the box widened by `pad` (length units) on every side, is empty by no
// more than TREE_SPAN_REL of its end plus `floor` (units of s): the slack
// for the rounding of the slab test. With a `settled` interval (s values)
// and tree_walk_step's `skip_settled`, a box whose span lies within it is
// not met either.
struct tree_ray {
	vec3 o;
	vec3 inv_d;
	float s_max;
	float pad;
	float floor;
	vec2 settled;
};

const float TREE_SPAN_REL = 1e-5;

tree_ray tree_ray_of(vec3 o, vec3 inv_d, float s_max, float pad, float floor)
{
	return tree_ray(o, inv_d, s_max, pad, floor, vec2(0.0));
}

void tree_walk_start(uint root)
{
	tree_stack[0] = root;
	tree_top = 1u;
}

bool tree_walk_more()
{
	return tree_top > 0u;
}

// The span (first, last s) of the ray within box [lo, hi] widened by the
// ray's pad, clipped to [0, s_max]; empty when first > last.
vec2 tree_ray_span(tree_ray r, vec3 lo, vec3 hi)
{
	vec3 t0 = (lo - vec3(r.pad) - r.o) * r.inv_d, t1 = (hi + vec3(r.pad) - r.o) * r.inv_d;
	vec3 near = min(t0, t1), far = max(t0, t1);
	return vec2(max(max(near.x, near.y), max(near.z, 0.0)), min(min(far.x, far.y), min(far.z, r.s_max)));
}

// Visits the walk's next node: when the ray meets its box, an internal
// node's children are pushed, and a leaf's triangles are returned as
// (first, count); (0, 0) otherwise. skip_settled: a constant of the caller.
uvec2 tree_walk_step(tree_ray r, bool skip_settled)
{
	vkcol_gpu_node n = tree_node(tree_stack[--tree_top]);
	vec2 span = tree_ray_span(r, vec3(n.min_x, n.min_y, n.min_z), vec3(n.max_x, n.max_y, n.max_z));
	bool meets = !(span.x > span.y * (1.0 + TREE_SPAN_REL) + r.floor);
	meets = meets && !(skip_settled && span.x >= r.settled.x && span.y <= r.settled.y);
	bool inner = n.count == 0u;
	if (meets && inner) {
		tree_stack[tree_top++] = n.first;
		tree_stack[tree_top++] = n.first + 1u;
	}
	return meets && !inner ? uvec2(n.first, n.count) : uvec2(0u);
}

#endif
