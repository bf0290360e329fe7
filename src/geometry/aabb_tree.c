// SPDX-License-Identifier: MIT
// AABB tree, built top down and flattened breadth first.
//
// Splits, by aabb_split:
// - The surface area heuristic (the default): among the boundaries between
//   SAH_BINS equal bins of the triangle centroids' extent on each axis, the
//   one that minimises the children's surface areas weighted by their
//   triangle counts (J. D. MacDonald and K. S. Booth, "Heuristics for ray
//   tracing using space subdivision", The Visual Computer 6(3), 1990; the
//   binned evaluation of I. Wald, "On fast construction of SAH-based
//   bounding volume hierarchies", IEEE Symposium on Interactive Ray Tracing,
//   2007). A pair of trees is traversed where their boxes overlap, and the
//   chance that a box meets another grows with its surface: smaller children
//   mean fewer node pairs, most of all on thin, uneven shapes.
// - The balanced split of CN 102663825 A (Sun Yat-sen University),
//   "一种三维碰撞检测方法" (a 3D collision detection method), claim 4: the
//   root box holds every primitive; a node is split on the longest axis of
//   its box; the projections of the primitives' centres on that axis are
//   grouped around the smallest and the largest projection (the two
//   "centres"), each joining the nearer one, and a projection equidistant
//   from both joins the group with fewer members. It is also the fallback
//   where no bin boundary separates the centroids. The recursion stops on a
//   depth and a primitive-count bound (the patent's linear stopping
//   function with those two factors).
//
// Our additions: the tree is built level by level (no recursion), so level k
// is one contiguous range of nodes and the GPU can traverse it with one
// dispatch per level (Xiao & Shi); an internal node's children are a
// consecutive pair of the next level. And each node gets a slab besides its
// box (aabb_tree.h): the two planes normal to its triangles' mean normal
// that enclose them, one axis of an oriented box (the OBB of Gottschalk,
// Lin & Manocha, "OBBTree", SIGGRAPH 1996, tests such axes as separating
// axes). The normal is stored in two floats by the octahedral encoding
// (Cigolle et al., "A Survey of Efficient Representations for Independent
// Unit Vectors", JCGT 3(2), 2014), so that normal, offset and half-width
// fit one texel on the GPU.
#include "geometry/aabb_tree.h"

#include <float.h>
#include <stdbool.h>
#include <math.h>
#include <string.h>


typedef struct tri_info {
	float min[3], max[3];
	float centre[3];
} tri_info;

typedef struct build_scratch {
	const float *positions;
	const uint32_t *indices;
	const tri_info *tris;
	uint32_t *perm; // tree order being formed
	uint32_t *tmp;  // partition buffer, same size
	float *proj;    // projection of each element of the range being split
} build_scratch;

static void box_of_range(const build_scratch *s, uint32_t first, uint32_t count, vkcol_gpu_node *node)
{
	float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX};
	float hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
	for (uint32_t i = first; i < first + count; ++i) {
		const tri_info *t = &s->tris[s->perm[i]];
		for (int k = 0; k < 3; ++k) {
			lo[k] = t->min[k] < lo[k] ? t->min[k] : lo[k];
			hi[k] = t->max[k] > hi[k] ? t->max[k] : hi[k];
		}
	}
	node->min_x = lo[0];
	node->min_y = lo[1];
	node->min_z = lo[2];
	node->max_x = hi[0];
	node->max_y = hi[1];
	node->max_z = hi[2];
	node->first = first;
	node->count = count;
}

void aabb_tree_slab_normal(const float o[2], float n[3])
{
	float ax = fabsf(o[0]), ay = fabsf(o[1]), z = 1.0f - ax - ay;
	n[0] = z < 0.0f ? (1.0f - ay) * (o[0] >= 0.0f ? 1.0f : -1.0f) : o[0];
	n[1] = z < 0.0f ? (1.0f - ax) * (o[1] >= 0.0f ? 1.0f : -1.0f) : o[1];
	n[2] = z;
}

// Corner k of the triangle at position i of the tree order.
static const float *corner(const build_scratch *s, uint32_t i, int k)
{
	return s->positions + 3 * (size_t)s->indices[3 * (size_t)s->perm[i] + k];
}

// The slab of a node (aabb_tree.h) over its range of the tree order: the
// normal's direction and the distances along the decoded normal in double;
// the half-width is rounded up so that it covers the rounded offset.
static void slab_of_range(const build_scratch *s, const vkcol_gpu_node *node, float out[4])
{
	double n[3] = {0.0, 0.0, 0.0};
	for (uint32_t i = node->first; i < node->first + node->count; ++i) {
		const uint32_t *tri = s->indices + 3 * (size_t)s->perm[i];
		const float *a = s->positions + 3 * (size_t)tri[0], *b = s->positions + 3 * (size_t)tri[1],
		            *c = s->positions + 3 * (size_t)tri[2];
		double u[3] = {(double)b[0] - a[0], (double)b[1] - a[1], (double)b[2] - a[2]};
		double v[3] = {(double)c[0] - a[0], (double)c[1] - a[1], (double)c[2] - a[2]};
		n[0] += u[1] * v[2] - u[2] * v[1];
		n[1] += u[2] * v[0] - u[0] * v[2];
		n[2] += u[0] * v[1] - u[1] * v[0];
	}
	double l1 = fabs(n[0]) + fabs(n[1]) + fabs(n[2]);
	float o[2] = {0.0f, 0.0f};
	if (l1 > 0.0 && isfinite(l1)) {
		double x = n[0] / l1, y = n[1] / l1;
		if (n[2] < 0.0) {
			double fx = (1.0 - fabs(y)) * (x >= 0.0 ? 1.0 : -1.0), fy = (1.0 - fabs(x)) * (y >= 0.0 ? 1.0 : -1.0);
			x = fx;
			y = fy;
		}
		o[0] = (float)x;
		o[1] = (float)y;
	}
	float nf[3];
	aabb_tree_slab_normal(o, nf);
	const float centre[3] = {0.5f * (node->min_x + node->max_x), 0.5f * (node->min_y + node->max_y),
	                         0.5f * (node->min_z + node->max_z)};
	double lo = DBL_MAX, hi = -DBL_MAX;
	for (uint32_t i = node->first; i < node->first + node->count; ++i)
		for (int k = 0; k < 3; ++k) {
			const float *p = corner(s, i, k);
			double d = 0.0;
			for (int j = 0; j < 3; ++j)
				d += (double)nf[j] * ((double)p[j] - centre[j]);
			lo = d < lo ? d : lo;
			hi = d > hi ? d : hi;
		}
	float mf = (float)(0.5 * (lo + hi));
	double h = hi - mf > mf - lo ? hi - mf : mf - lo;
	float hf = (float)h;
	if ((double)hf < h)
		hf = nextafterf(hf, INFINITY);
	if (!isfinite(mf) || !(hf >= 0.0f)) {
		// Coordinates near the float range's end: a slab that holds all.
		o[0] = o[1] = mf = 0.0f;
		hf = INFINITY;
	}
	out[0] = o[0];
	out[1] = o[1];
	out[2] = mf;
	out[3] = hf;
}

// Jacobi rotations of the symmetric 3 x 3 matrix a (row major) until its
// off-diagonal is negligible; v receives the eigenvectors as columns.
static void jacobi3(double a[9], double v[9])
{
	for (int i = 0; i < 9; i++)
		v[i] = i % 4 == 0 ? 1.0 : 0.0;
	for (int sweep = 0; sweep < 8; sweep++) {
		double off = fabs(a[1]) + fabs(a[2]) + fabs(a[5]);
		double diag = fabs(a[0]) + fabs(a[4]) + fabs(a[8]);
		if (!(off > 1e-12 * diag))
			break;
		for (int p = 0; p < 2; p++)
			for (int q = p + 1; q < 3; q++) {
				double apq = a[3 * p + q];
				if (apq == 0.0)
					continue;
				double theta = (a[3 * q + q] - a[3 * p + p]) / (2.0 * apq);
				double tn = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
				double c = 1.0 / sqrt(tn * tn + 1.0), sn = tn * c;
				for (int k = 0; k < 3; k++) { // columns p, q of a
					double akp = a[3 * k + p], akq = a[3 * k + q];
					a[3 * k + p] = c * akp - sn * akq;
					a[3 * k + q] = sn * akp + c * akq;
				}
				for (int k = 0; k < 3; k++) { // rows p, q
					double apk = a[3 * p + k], aqk = a[3 * q + k];
					a[3 * p + k] = c * apk - sn * aqk;
					a[3 * q + k] = sn * apk + c * aqk;
				}
				for (int k = 0; k < 3; k++) {
					double vkp = v[3 * k + p], vkq = v[3 * k + q];
					v[3 * k + p] = c * vkp - sn * vkq;
					v[3 * k + q] = sn * vkp + c * vkq;
				}
			}
	}
}

// A box that holds all (infinite extents): what a node gets where the
// oriented boxes are not worth testing, or coordinates overflow.
static void obb_all(float out[16])
{
	memset(out, 0, 16 * sizeof(float));
	out[0] = out[5] = out[10] = 1.0f;
	out[3] = out[7] = out[11] = INFINITY;
}

// The oriented box of a node (aabb_tree.h) over its range of the tree
// order: axes along the principal directions of its triangles' vertices
// (the OBB of Gottschalk, Lin & Manocha, "OBBTree", SIGGRAPH 1996), stored
// in float, and the extents measured in double along the stored axes from
// the stored centre, padded for rounding and rounded up. Returns whether the
// box is worth testing: less than half the volume of the node's box cut by
// its slab (`slab`), as estimated from the slab's share of the box's width
// along its normal (aabb_tree.h, obb_worth); a flat box (of no volume) never
// is.
static bool obb_of_range(const build_scratch *s, const vkcol_gpu_node *node, const float slab[4], float out[16])
{
	// One pass for the covariance: sums about the box's centre (so that
	// large coordinates do not cancel), then one for the projections.
	const double o[3] = {0.5 * ((double)node->min_x + node->max_x), 0.5 * ((double)node->min_y + node->max_y),
	                     0.5 * ((double)node->min_z + node->max_z)};
	double sum[3] = {0.0, 0.0, 0.0}, cov[9] = {0.0};
	double n = 3.0 * node->count;
	for (uint32_t i = node->first; i < node->first + node->count; ++i)
		for (int k = 0; k < 3; ++k) {
			const float *p = corner(s, i, k);
			double d[3] = {p[0] - o[0], p[1] - o[1], p[2] - o[2]};
			for (int a = 0; a < 3; ++a) {
				sum[a] += d[a];
				for (int b = a; b < 3; ++b)
					cov[3 * a + b] += d[a] * d[b];
			}
		}
	for (int a = 0; a < 3; ++a)
		for (int b = a; b < 3; ++b) {
			cov[3 * a + b] -= sum[a] * sum[b] / n;
			cov[3 * b + a] = cov[3 * a + b];
		}
	double v[9];
	jacobi3(cov, v);
	float axes[9];
	bool finite = true;
	for (int k = 0; k < 3; ++k) { // axis k: column k of v, normalized
		double l = sqrt(v[k] * v[k] + v[3 + k] * v[3 + k] + v[6 + k] * v[6 + k]);
		for (int j = 0; j < 3; ++j) {
			axes[3 * k + j] = (float)(v[3 * j + k] / l);
			finite = finite && isfinite(axes[3 * k + j]);
		}
	}
	double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX}, big = 0.0;
	for (uint32_t i = node->first; i < node->first + node->count; ++i)
		for (int k = 0; k < 3; ++k) {
			const float *p = corner(s, i, k);
			for (int a = 0; a < 3; ++a) {
				double d = (double)axes[3 * a] * p[0] + (double)axes[3 * a + 1] * p[1] + (double)axes[3 * a + 2] * p[2];
				lo[a] = d < lo[a] ? d : lo[a];
				hi[a] = d > hi[a] ? d : hi[a];
			}
			double m = fabs(p[0]) + fabs(p[1]) + fabs(p[2]);
			big = m > big ? m : big;
		}
	double centre[3] = {0.0, 0.0, 0.0};
	for (int a = 0; a < 3; ++a)
		for (int j = 0; j < 3; ++j)
			centre[j] += 0.5 * (lo[a] + hi[a]) * axes[3 * a + j];
	float cf[3] = {(float)centre[0], (float)centre[1], (float)centre[2]};
	// The extents about the stored centre, from the projections: a . (v - c)
	// evaluated otherwise (as tests/tree_check.h does) differs by rounding,
	// at most a few ulps of the coordinates' magnitude, which the pad covers.
	double pad = 1e-13 * (big + fabs(cf[0]) + fabs(cf[1]) + fabs(cf[2]));
	for (int a = 0; a < 3; ++a) {
		double m = (double)axes[3 * a] * cf[0] + (double)axes[3 * a + 1] * cf[1] + (double)axes[3 * a + 2] * cf[2];
		double e = (hi[a] - m > m - lo[a] ? hi[a] - m : m - lo[a]) + pad;
		float ef = (float)e;
		if ((double)ef < e)
			ef = nextafterf(ef, INFINITY);
		finite = finite && isfinite(ef) && isfinite(cf[a]);
		out[4 * a] = axes[3 * a];
		out[4 * a + 1] = axes[3 * a + 1];
		out[4 * a + 2] = axes[3 * a + 2];
		out[4 * a + 3] = ef;
	}
	out[12] = cf[0];
	out[13] = cf[1];
	out[14] = cf[2];
	out[15] = 0.0f;
	double box[3] = {0.5 * ((double)node->max_x - node->min_x), 0.5 * ((double)node->max_y - node->min_y),
	                 0.5 * ((double)node->max_z - node->min_z)};
	double obb_volume = 8.0 * out[3] * out[7] * out[11];
	double box_volume = 8.0 * box[0] * box[1] * box[2];
	float sn[3];
	aabb_tree_slab_normal(slab, sn);
	double width = 2.0 * (fabs(sn[0]) * box[0] + fabs(sn[1]) * box[1] + fabs(sn[2]) * box[2]);
	double cut = width > 0.0 && 2.0 * slab[3] < width ? box_volume * 2.0 * slab[3] / width : box_volume;
	if (!finite) {
		obb_all(out); // coordinates near the float range's end
		return false;
	}
	return obb_volume < 0.5 * cut;
}

// Node i's oriented box into out->obbs, over its range of the tree order
// (first[i], count[i]); returns obb_of_range's verdict.
static bool obb_of_node(const build_scratch *s, const uint32_t *first, const uint32_t *count, uint32_t i,
                        aabb_tree *out)
{
	vkcol_gpu_node range = out->nodes[i];
	range.first = first[i];
	range.count = count[i];
	return obb_of_range(s, &range, &out->slabs[4 * (size_t)i], &out->obbs[16 * (size_t)i]);
}

// The nodes' oriented boxes (aabb_tree.h) and obb_worth, once the tree is
// built: each node's range of the tree order found bottom up (an inner
// node's is its children's), obb_worth estimated on every node of a tree of
// up to 4,096 nodes, else on about 1,024 spread over the breadth-first
// order; the boxes kept only where it reaches AABB_TREE_OBB_WORTH or the
// tree is large (aabb_tree_keeps_obbs: the traversal tests them only
// then), else none (obbs NULL).
static bool tree_obbs(const core_env *env, const build_scratch *s, aabb_tree *out)
{
	uint32_t n = out->node_count;
	out->obbs = core_calloc(env, n, 16 * sizeof(float));
	uint32_t *first = core_calloc(env, n, sizeof(uint32_t)), *count = core_calloc(env, n, sizeof(uint32_t));
	bool ok = out->obbs && first && count;
	if (ok) {
		for (uint32_t i = n; i-- > 0;) {
			const vkcol_gpu_node *node = &out->nodes[i];
			first[i] = node->count ? node->first : first[node->first];
			count[i] = node->count ? node->count : count[node->first] + count[node->first + 1];
		}
		uint32_t stride = n > 4096 ? n / 1024 : 1, sampled = 0, worth = 0;
		// (From stride / 2: the root and the top levels, whose boxes cost a
		// pass over the whole mesh each, are few among the nodes anyway.)
		for (uint32_t i = stride / 2; i < n; i += stride, sampled++)
			worth += obb_of_node(s, first, count, i, out);
		out->obb_worth = (float)worth / (float)sampled;
		bool keep = aabb_tree_keeps_obbs(out->obb_worth, n);
		for (uint32_t i = 0; i < n && keep; i++)
			if (i % stride != stride / 2)
				obb_of_node(s, first, count, i, out);
		if (!keep) {
			core_free(env, out->obbs);
			out->obbs = NULL;
		}
	}
	core_free(env, first);
	core_free(env, count);
	return ok;
}

void aabb_tree_obb(const aabb_tree *tree, uint32_t i, float out[16])
{
	if (tree->obbs)
		memcpy(out, &tree->obbs[16 * (size_t)i], 16 * sizeof(float));
	else
		obb_all(out);
}

static int longest_axis(const vkcol_gpu_node *node)
{
	// Extents in double: a float difference of two large coordinates may round.
	double ex = (double)node->max_x - node->min_x;
	double ey = (double)node->max_y - node->min_y;
	double ez = (double)node->max_z - node->min_z;
	if (ex >= ey && ex >= ez)
		return 0;
	return ey >= ez ? 1 : 2;
}

static void swap_u32(uint32_t *a, uint32_t *b)
{
	uint32_t t = *a;
	*a = *b;
	*b = t;
}

static void swap_f32(float *a, float *b)
{
	float t = *a;
	*a = *b;
	*b = t;
}

// Rearranges perm[0..n) and proj[0..n) (parallel arrays) so that the k-th
// smallest projection is at k, smaller ones before it, larger ones after.
static void select_kth(uint32_t *perm, float *proj, uint32_t n, uint32_t k)
{
	uint32_t lo = 0, hi = n - 1;
	while (lo < hi) {
		// Median of three as pivot, moved to hi.
		uint32_t mid = lo + (hi - lo) / 2;
		if (proj[mid] < proj[lo]) {
			swap_f32(&proj[mid], &proj[lo]);
			swap_u32(&perm[mid], &perm[lo]);
		}
		if (proj[hi] < proj[lo]) {
			swap_f32(&proj[hi], &proj[lo]);
			swap_u32(&perm[hi], &perm[lo]);
		}
		if (proj[mid] < proj[hi]) {
			swap_f32(&proj[mid], &proj[hi]);
			swap_u32(&perm[mid], &perm[hi]);
		}
		float pivot = proj[hi];
		uint32_t store = lo;
		for (uint32_t i = lo; i < hi; ++i) {
			if (proj[i] < pivot) {
				swap_f32(&proj[i], &proj[store]);
				swap_u32(&perm[i], &perm[store]);
				store++;
			}
		}
		swap_f32(&proj[hi], &proj[store]);
		swap_u32(&perm[hi], &perm[store]);
		if (store == k)
			return;
		if (store < k)
			lo = store + 1;
		else
			hi = store - 1;
	}
}

// Half the surface area of the box lo .. hi.
static double half_area(const double lo[3], const double hi[3])
{
	double x = hi[0] - lo[0], y = hi[1] - lo[1], z = hi[2] - lo[2];
	return x * y + y * z + z * x;
}

// Centroid bins per axis of the surface area heuristic.
#define SAH_BINS 16

// The bin of a centroid coordinate c in SAH_BINS bins over lo .. lo + extent.
static int sah_bin(double c, double lo, double extent)
{
	int b = (int)((c - lo) / extent * SAH_BINS);
	return b < 0 ? 0 : b >= SAH_BINS ? SAH_BINS - 1 : b;
}

// The surface area heuristic's split of the range of `node` (file comment):
// partitions perm[first .. first + count) in place, the first child's
// triangles first, each side in its earlier order, and returns their count;
// 0, with perm untouched, when no bin boundary separates the centroids.
static uint32_t split_sah(build_scratch *s, const vkcol_gpu_node *node)
{
	uint32_t count = node->count;
	uint32_t *perm = s->perm + node->first;
	double cmin[3] = {INFINITY, INFINITY, INFINITY}, cmax[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (uint32_t i = 0; i < count; ++i)
		for (int k = 0; k < 3; ++k) {
			double c = s->tris[perm[i]].centre[k];
			cmin[k] = c < cmin[k] ? c : cmin[k];
			cmax[k] = c > cmax[k] ? c : cmax[k];
		}
	double best = INFINITY;
	int best_axis = -1, best_bin = 0;
	for (int axis = 0; axis < 3; ++axis) {
		double extent = cmax[axis] - cmin[axis];
		if (!(extent > 0.0))
			continue;
		uint32_t n[SAH_BINS] = {0};
		double lo[SAH_BINS][3], hi[SAH_BINS][3];
		for (int b = 0; b < SAH_BINS; ++b)
			for (int k = 0; k < 3; ++k)
				lo[b][k] = INFINITY, hi[b][k] = -INFINITY;
		for (uint32_t i = 0; i < count; ++i) {
			const tri_info *t = &s->tris[perm[i]];
			int b = sah_bin(t->centre[axis], cmin[axis], extent);
			n[b]++;
			for (int k = 0; k < 3; ++k) {
				lo[b][k] = t->min[k] < lo[b][k] ? t->min[k] : lo[b][k];
				hi[b][k] = t->max[k] > hi[b][k] ? t->max[k] : hi[b][k];
			}
		}
		// Right sides first: the box and count of bins b .. SAH_BINS - 1.
		double right_area[SAH_BINS] = {0};
		uint32_t right_n[SAH_BINS] = {0};
		double rl[3] = {INFINITY, INFINITY, INFINITY}, rh[3] = {-INFINITY, -INFINITY, -INFINITY};
		uint32_t rn = 0;
		for (int b = SAH_BINS - 1; b > 0; --b) {
			for (int k = 0; k < 3; ++k) {
				rl[k] = lo[b][k] < rl[k] ? lo[b][k] : rl[k];
				rh[k] = hi[b][k] > rh[k] ? hi[b][k] : rh[k];
			}
			rn += n[b];
			right_area[b] = rn ? half_area(rl, rh) : 0.0;
			right_n[b] = rn;
		}
		double ll[3] = {INFINITY, INFINITY, INFINITY}, lh[3] = {-INFINITY, -INFINITY, -INFINITY};
		uint32_t ln = 0;
		for (int b = 0; b + 1 < SAH_BINS; ++b) {
			for (int k = 0; k < 3; ++k) {
				ll[k] = lo[b][k] < ll[k] ? lo[b][k] : ll[k];
				lh[k] = hi[b][k] > lh[k] ? hi[b][k] : lh[k];
			}
			ln += n[b];
			if (ln == 0 || right_n[b + 1] == 0)
				continue;
			double cost = half_area(ll, lh) * ln + right_area[b + 1] * right_n[b + 1];
			if (cost < best) {
				best = cost;
				best_axis = axis;
				best_bin = b;
			}
		}
	}
	if (best_axis < 0)
		return 0;
	double extent = cmax[best_axis] - cmin[best_axis];
	uint32_t left = 0;
	for (uint32_t i = 0; i < count; ++i)
		left += sah_bin(s->tris[perm[i]].centre[best_axis], cmin[best_axis], extent) <= best_bin;
	uint32_t *tmp = s->tmp, wlo = 0, whi = left;
	for (uint32_t i = 0; i < count; ++i) {
		bool to_lo = sah_bin(s->tris[perm[i]].centre[best_axis], cmin[best_axis], extent) <= best_bin;
		tmp[to_lo ? wlo++ : whi++] = perm[i];
	}
	memcpy(perm, tmp, count * sizeof(uint32_t));
	return left;
}

// CN 102663825's split of the range of `node` (file comment), in place
// (perm[first .. first + count)); returns how many triangles go to the first
// child (1 .. count - 1).
static uint32_t split_two_centres(build_scratch *s, const vkcol_gpu_node *node)
{
	uint32_t first = node->first, count = node->count;
	uint32_t *perm = s->perm + first;
	float *proj = s->proj;
	int axis = longest_axis(node);

	float pmin = FLT_MAX, pmax = -FLT_MAX;
	for (uint32_t i = 0; i < count; ++i) {
		float p = s->tris[perm[i]].centre[axis];
		proj[i] = p;
		pmin = p < pmin ? p : pmin;
		pmax = p > pmax ? p : pmax;
	}

	// Distances to the two centres in double: the differences of two floats
	// are then exact, so "equidistant" means exactly equidistant.
	uint32_t near_lo = 0, near_hi = 0;
	for (uint32_t i = 0; i < count; ++i) {
		double dlo = (double)proj[i] - pmin, dhi = (double)pmax - proj[i];
		near_lo += dlo < dhi;
		near_hi += dhi < dlo;
	}
	uint32_t ties = count - near_lo - near_hi;

	// Ties join the group that is smaller at the moment they are placed, in
	// range order; on equal groups the first (low) one. This only depends on
	// the counts, so the final sizes are known before the partition.
	uint32_t lo_count = near_lo, hi_count = near_hi;
	for (uint32_t i = 0; i < ties; ++i) {
		if (lo_count <= hi_count)
			lo_count++;
		else
			hi_count++;
	}

	if (lo_count == 0 || hi_count == 0) {
		// Cannot happen with finite inputs (the extreme projections always
		// seed both groups, and all-equal projections are all ties), kept so
		// that a split always makes progress: median of the projections.
		uint32_t half = count / 2;
		select_kth(perm, proj, count, half);
		return half;
	}

	uint32_t *tmp = s->tmp;
	uint32_t wlo = 0, whi = lo_count, placed_lo = near_lo, placed_hi = near_hi;
	for (uint32_t i = 0; i < count; ++i) {
		double dlo = (double)proj[i] - pmin, dhi = (double)pmax - proj[i];
		bool to_lo;
		if (dlo != dhi) {
			to_lo = dlo < dhi;
		} else {
			to_lo = placed_lo <= placed_hi;
			if (to_lo)
				placed_lo++;
			else
				placed_hi++;
		}
		if (to_lo)
			tmp[wlo++] = perm[i];
		else
			tmp[whi++] = perm[i];
	}
	memcpy(perm, tmp, count * sizeof(uint32_t));
	return lo_count;
}

vkcol_result aabb_tree_build(const core_env *env, const float *positions, const uint32_t *indices,
                             uint32_t triangle_count, uint32_t leaf_size, uint32_t max_depth, aabb_split split,
                             aabb_tree *out)
{
	vkcol_result res = VKCOL_SUCCESS;
	build_scratch s = {0};
	tri_info *tris = NULL;
	size_t node_capacity = 0, slab_capacity = 0;

	if (out == NULL)
		return VKCOL_ERROR_INVALID_ARGUMENT;
	memset(out, 0, sizeof(*out));
	if (positions == NULL || indices == NULL || triangle_count == 0 || leaf_size == 0 ||
	    max_depth > AABB_TREE_MAX_DEPTH) {
		CORE_ERROR(env, "aabb_tree_build: invalid arguments (%u triangles, leaf size %u, max depth %u)",
		           triangle_count, leaf_size, max_depth);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}

	tris = core_calloc(env, triangle_count, sizeof(tri_info));
	s.perm = core_calloc(env, triangle_count, sizeof(uint32_t));
	s.tmp = core_calloc(env, triangle_count, sizeof(uint32_t));
	s.proj = core_calloc(env, triangle_count, sizeof(float));
	out->level_first = core_calloc(env, (size_t)max_depth + 2, sizeof(uint32_t));
	if (tris == NULL || s.perm == NULL || s.tmp == NULL || s.proj == NULL || out->level_first == NULL) {
		res = VKCOL_ERROR_OUT_OF_HOST_MEMORY;
		goto cleanup;
	}
	s.tris = tris;
	s.positions = positions;
	s.indices = indices;

	for (uint32_t t = 0; t < triangle_count; ++t) {
		const float *v[3];
		for (int c = 0; c < 3; ++c)
			v[c] = positions + 3 * (size_t)indices[3 * (size_t)t + c];
		for (int k = 0; k < 3; ++k) {
			float a = v[0][k], b = v[1][k], c = v[2][k];
			float lo = a < b ? a : b, hi = a < b ? b : a;
			tris[t].min[k] = c < lo ? c : lo;
			tris[t].max[k] = c > hi ? c : hi;
			tris[t].centre[k] = (float)(((double)a + b + c) / 3.0);
		}
		s.perm[t] = t;
	}

	// A binary tree with n leaves has 2n - 1 nodes; leaves of up to leaf_size
	// triangles make that a generous first guess.
	if (!core_grow(env, (void **)&out->nodes, sizeof(vkcol_gpu_node), &node_capacity,
	               2 * ((size_t)triangle_count / leaf_size) + 1)) {
		res = VKCOL_ERROR_OUT_OF_HOST_MEMORY;
		goto cleanup;
	}
	box_of_range(&s, 0, triangle_count, &out->nodes[0]);
	out->node_count = 1;
	out->level_first[0] = 0;
	out->level_first[1] = 1;
	out->leaf_min = UINT32_MAX;

	uint32_t depth = 0;
	for (;;) {
		uint32_t begin = out->level_first[depth], end = out->level_first[depth + 1];
		for (uint32_t i = begin; i < end; ++i) {
			vkcol_gpu_node node = out->nodes[i];
			if (!core_grow(env, (void **)&out->slabs, 4 * sizeof(float), &slab_capacity, (size_t)i + 1)) {
				res = VKCOL_ERROR_OUT_OF_HOST_MEMORY;
				goto cleanup;
			}
			slab_of_range(&s, &node, &out->slabs[4 * (size_t)i]);
			if (node.count <= leaf_size || depth == max_depth) {
				out->leaf_count++;
				out->leaf_min = node.count < out->leaf_min ? node.count : out->leaf_min;
				out->leaf_max = node.count > out->leaf_max ? node.count : out->leaf_max;
				continue;
			}
			uint32_t lo_count = split == AABB_SPLIT_SAH ? split_sah(&s, &node) : 0;
			if (lo_count == 0)
				lo_count = split_two_centres(&s, &node);
			if (!core_grow(env, (void **)&out->nodes, sizeof(vkcol_gpu_node), &node_capacity,
			               (size_t)out->node_count + 2)) {
				res = VKCOL_ERROR_OUT_OF_HOST_MEMORY;
				goto cleanup;
			}
			uint32_t child = out->node_count;
			box_of_range(&s, node.first, lo_count, &out->nodes[child]);
			box_of_range(&s, node.first + lo_count, node.count - lo_count, &out->nodes[child + 1]);
			out->nodes[i].first = child;
			out->nodes[i].count = 0;
			out->node_count += 2;
		}
		if (out->node_count == end)
			break;
		depth++;
		out->level_first[depth + 1] = out->node_count;
	}
	out->depth = depth;
	out->level_count = depth + 1;
	if (!tree_obbs(env, &s, out)) {
		res = VKCOL_ERROR_OUT_OF_HOST_MEMORY;
		goto cleanup;
	}
	out->triangles = s.perm;
	out->triangle_count = triangle_count;
	s.perm = NULL;

cleanup:
	core_free(env, tris);
	core_free(env, s.perm);
	core_free(env, s.tmp);
	core_free(env, s.proj);
	if (res != VKCOL_SUCCESS) {
		CORE_ERROR(env, "aabb_tree_build: out of host memory (%u triangles)", triangle_count);
		aabb_tree_free(env, out);
	}
	return res;
}

void aabb_tree_ray_span(const vkcol_gpu_node *n, const double o[3], const double inv_d[3], double pad, double *enter,
                        double *exit)
{
	double lo[3] = {(double)n->min_x - pad, (double)n->min_y - pad, (double)n->min_z - pad};
	double hi[3] = {(double)n->max_x + pad, (double)n->max_y + pad, (double)n->max_z + pad};
	double tmin = 0.0, tmax = INFINITY;
	for (int k = 0; k < 3; ++k) {
		double t0 = (lo[k] - o[k]) * inv_d[k], t1 = (hi[k] - o[k]) * inv_d[k];
		if (t0 > t1) {
			double t = t0;
			t0 = t1;
			t1 = t;
		}
		tmin = t0 > tmin ? t0 : tmin;
		tmax = t1 < tmax ? t1 : tmax;
	}
	*enter = tmin;
	*exit = tmax;
}

void aabb_tree_free(const core_env *env, aabb_tree *tree)
{
	if (tree == NULL)
		return;
	core_free(env, tree->nodes);
	core_free(env, tree->slabs);
	core_free(env, tree->obbs);
	core_free(env, tree->level_first);
	core_free(env, tree->triangles);
	memset(tree, 0, sizeof(*tree));
}
