// SPDX-License-Identifier: MIT
// Exact triangle-triangle intersection predicate (closed sets).
//
// Algorithm: P. Guigue and O. Devillers, "Fast and robust triangle-triangle
// overlap test using orientation predicates", Journal of Graphics Tools 8(1),
// 2003, 25-32. Corners of each triangle are classified against the other's
// plane with 3D orientation determinants; in the general case both triangles
// are brought to a canonical corner order and two more orientations decide
// whether their intervals on the planes' common line overlap; coplanar
// triangles are projected to 2D and decided with 2D orientations.
//
// The orientations are evaluated exactly: a floating-point filter with a
// forward error bound, falling back to the expansion arithmetic of
// J. R. Shewchuk, "Adaptive precision floating-point arithmetic and fast
// robust geometric predicates", Discrete & Computational Geometry 18(3),
// 1997 (Two-Sum, Two-Product, Grow-Expansion, Scale-Expansion). As only the
// signs of these determinants are used and nothing is divided, every answer
// is exact: not only for small integers but for all coordinates that are zero
// or of magnitude in [2^-200, 2^200]. (Then every exact intermediate is a
// multiple of 2^-756 below 2^610, so no product underflows or overflows.)
//
// Degenerate triangles (collinear or coincident corners) are handled as the
// segments or points they are, with the same predicates.

#include "geometry/tri_tri.h"

#include <float.h>
#include <math.h>

// Two-Sum is exact only when each operation rounds once to double.
#if defined(FLT_EVAL_METHOD) && (FLT_EVAL_METHOD == 1 || FLT_EVAL_METHOD == 2)
#error "tri_tri.c needs double arithmetic evaluated in double (FLT_EVAL_METHOD 0), e.g. SSE2 on x86"
#endif

// ---------------------------------------------------------------------------
// Expansion arithmetic. An expansion is an array of doubles, nonoverlapping
// and in order of increasing magnitude, whose exact sum is the value; length
// 0 is zero. Zero components are dropped as they appear, which keeps the
// expansions of exactly representable determinants (small integers) at one
// or two components.

// a + b == *x + *y exactly, *x = fl(a + b) (Knuth's Two-Sum: no ordering
// precondition on |a|, |b|).
static void two_sum(double a, double b, double *x, double *y)
{
	double s = a + b;
	double bv = s - a;
	double av = s - bv;
	*x = s;
	*y = (a - av) + (b - bv);
}

// a * b == *x + *y exactly: fma rounds once, so it returns the product's
// rounding error exactly (no underflow under the range stated above).
static void two_product(double a, double b, double *x, double *y)
{
	double p = a * b;
	*x = p;
	*y = fma(a, b, -p);
}

// a - b as an expansion of at most 2 components.
static int diff_expansion(double a, double b, double h[2])
{
	double x, y;
	two_sum(a, -b, &x, &y);
	int n = 0;
	if (y != 0.0) {
		h[n++] = y;
	}
	if (x != 0.0) {
		h[n++] = x;
	}
	return n;
}

// h = e + b (Grow-Expansion). h may be e: component i is read before
// anything at index <= i is written. Length at most elen + 1.
static int grow_expansion(int elen, const double *e, double b, double *h)
{
	double q = b;
	int hlen = 0;
	for (int i = 0; i < elen; i++) {
		double hh;
		two_sum(q, e[i], &q, &hh);
		if (hh != 0.0) {
			h[hlen++] = hh;
		}
	}
	if (q != 0.0) {
		h[hlen++] = q;
	}
	return hlen;
}

// h += f, h holding hlen components and room for hlen + flen.
static int add_expansion(int hlen, double *h, int flen, const double *f)
{
	for (int j = 0; j < flen; j++) {
		hlen = grow_expansion(hlen, h, f[j], h);
	}
	return hlen;
}

// h = e * b (Scale-Expansion; Two-Sum where the paper has Fast-Two-Sum, which
// computes the same result without needing the magnitude ordering argued
// there). h must not be e. Length at most 2 * elen.
static int scale_expansion(int elen, const double *e, double b, double *h)
{
	if (elen == 0 || b == 0.0) {
		return 0;
	}
	double q, hh;
	int hlen = 0;
	two_product(e[0], b, &q, &hh);
	if (hh != 0.0) {
		h[hlen++] = hh;
	}
	for (int i = 1; i < elen; i++) {
		double p1, p0, s;
		two_product(e[i], b, &p1, &p0);
		two_sum(q, p0, &s, &hh);
		if (hh != 0.0) {
			h[hlen++] = hh;
		}
		two_sum(p1, s, &q, &hh);
		if (hh != 0.0) {
			h[hlen++] = hh;
		}
	}
	if (q != 0.0) {
		h[hlen++] = q;
	}
	return hlen;
}

// h = sign * e * f, with e and f of at most 2 components each (so h holds at
// most 8). sign is +1 or -1; negation is exact.
static int product_2x2(int elen, const double *e, int flen, const double *f, double sign, double *h)
{
	double t[4];
	int hlen = 0;
	for (int j = 0; j < flen; j++) {
		int tlen = scale_expansion(elen, e, sign * f[j], t);
		hlen = add_expansion(hlen, h, tlen, t);
	}
	return hlen;
}

// The sign of an expansion is the sign of its largest component.
static int expansion_sign(int n, const double *e)
{
	return n == 0 ? 0 : (e[n - 1] > 0.0) - (e[n - 1] < 0.0);
}

// ---------------------------------------------------------------------------
// Orientation predicates.

// Unit roundoff of double, 2^-53.
#define ROUNDOFF (DBL_EPSILON * 0.5)

// Sign of (b - a) x (c - a): +1 when a, b, c turn counterclockwise.
static int orient2d_exact(const double a[2], const double b[2], const double c[2])
{
	double u[2][2], v[2][2];
	int ul[2], vl[2];
	for (int k = 0; k < 2; k++) {
		ul[k] = diff_expansion(b[k], a[k], u[k]);
		vl[k] = diff_expansion(c[k], a[k], v[k]);
	}
	double det[16];
	int n = product_2x2(ul[0], u[0], vl[1], v[1], 1.0, det);
	double t[8];
	int tn = product_2x2(ul[1], u[1], vl[0], v[0], -1.0, t);
	n = add_expansion(n, det, tn, t);
	return expansion_sign(n, det);
}

static int orient2d(const double a[2], const double b[2], const double c[2])
{
	double ux = b[0] - a[0], uy = b[1] - a[1];
	double vx = c[0] - a[0], vy = c[1] - a[1];
	double l = ux * vy, r = uy * vx;
	double det = l - r;
	// Each of the two products carries at most 4 roundings (two differences,
	// the product, the final subtraction): |error| <= gamma_4 (|l| + |r|).
	// 8 units leaves a margin for the rounding of the bound itself.
	double bound = 8.0 * ROUNDOFF * (fabs(l) + fabs(r));
	if (det > bound) {
		return 1;
	}
	if (det < -bound) {
		return -1;
	}
	return orient2d_exact(a, b, c);
}

// Sign of det[b - a, c - a, d - a] = ((b - a) x (c - a)) . (d - a): +1 when d
// lies on the side of plane abc that its normal (b - a) x (c - a) points to.
static int orient3d_exact(const double a[3], const double b[3], const double c[3], const double d[3])
{
	double u[3][2], v[3][2], w[3][2];
	int ul[3], vl[3], wl[3];
	for (int k = 0; k < 3; k++) {
		ul[k] = diff_expansion(b[k], a[k], u[k]);
		vl[k] = diff_expansion(c[k], a[k], v[k]);
		wl[k] = diff_expansion(d[k], a[k], w[k]);
	}
	// u . (v x w), the x component of v x w being v_y w_z - v_z w_y and so on.
	double det[192];
	int n = 0;
	for (int k = 0; k < 3; k++) {
		int i = (k + 1) % 3, j = (k + 2) % 3;
		double minor[16], t[8];
		int mn = product_2x2(vl[i], v[i], wl[j], w[j], 1.0, minor);
		int tn = product_2x2(vl[j], v[j], wl[i], w[i], -1.0, t);
		mn = add_expansion(mn, minor, tn, t);
		for (int c2 = 0; c2 < ul[k]; c2++) {
			double s[32];
			int sn = scale_expansion(mn, minor, u[k][c2], s);
			n = add_expansion(n, det, sn, s);
		}
	}
	return expansion_sign(n, det);
}

static int orient3d(const double a[3], const double b[3], const double c[3], const double d[3])
{
	double ux = b[0] - a[0], uy = b[1] - a[1], uz = b[2] - a[2];
	double vx = c[0] - a[0], vy = c[1] - a[1], vz = c[2] - a[2];
	double wx = d[0] - a[0], wy = d[1] - a[1], wz = d[2] - a[2];
	double m0a = vy * wz, m0b = vz * wy;
	double m1a = vz * wx, m1b = vx * wz;
	double m2a = vx * wy, m2b = vy * wx;
	double det = ux * (m0a - m0b) + uy * (m1a - m1b) + uz * (m2a - m2b);
	// Every one of the six terms u v w passes through at most 8 roundings
	// (three differences, two products, the minor's subtraction, two sums),
	// so |error| <= gamma_8 * permanent; 12 units cover gamma_8 and the
	// rounding of the permanent and of the bound.
	double permanent = fabs(ux) * (fabs(m0a) + fabs(m0b)) + fabs(uy) * (fabs(m1a) + fabs(m1b)) +
	                   fabs(uz) * (fabs(m2a) + fabs(m2b));
	double bound = 12.0 * ROUNDOFF * permanent;
	if (det > bound) {
		return 1;
	}
	if (det < -bound) {
		return -1;
	}
	return orient3d_exact(a, b, c, d);
}

// ---------------------------------------------------------------------------
// Small geometric tests, all closed sets, all decided by orientation signs
// and coordinate comparisons.

// The two coordinates left when axis `drop` is removed, in cyclic order so
// that orient2d of a projection has the sign of the normal's `drop` component.
static void project(const double p[3], int drop, double out[2])
{
	out[0] = p[(drop + 1) % 3];
	out[1] = p[(drop + 2) % 3];
}

// An axis whose removal projects the plane through a, b, c one-to-one (the
// normal's component along it is nonzero), or -1 when a, b, c are collinear.
static int projection_axis(const double a[3], const double b[3], const double c[3])
{
	// The normal's component along axis k is the orientation of the
	// projection dropping k. Try the largest approximate component first:
	// except in near-degenerate cases it is nonzero, so one (filtered)
	// orientation usually decides.
	double u[3], v[3], n[3];
	for (int k = 0; k < 3; k++) {
		u[k] = b[k] - a[k];
		v[k] = c[k] - a[k];
	}
	for (int k = 0; k < 3; k++) {
		n[k] = fabs(u[(k + 1) % 3] * v[(k + 2) % 3] - u[(k + 2) % 3] * v[(k + 1) % 3]);
	}
	int order[3] = {0, 1, 2};
	for (int i = 1; i < 3; i++) {
		for (int j = i; j > 0 && n[order[j]] > n[order[j - 1]]; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	}
	for (int i = 0; i < 3; i++) {
		double a2[2], b2[2], c2[2];
		project(a, order[i], a2);
		project(b, order[i], b2);
		project(c, order[i], c2);
		if (orient2d(a2, b2, c2) != 0) {
			return order[i];
		}
	}
	return -1;
}

// Do [a0, a1] and [b0, b1] (either end first) overlap?
static bool intervals_overlap(double a0, double a1, double b0, double b1)
{
	double alo = a0 < a1 ? a0 : a1, ahi = a0 < a1 ? a1 : a0;
	double blo = b0 < b1 ? b0 : b1, bhi = b0 < b1 ? b1 : b0;
	return alo <= bhi && blo <= ahi;
}

// Segments ab and cd known to lie on one line (or to be points on it): along
// an axis on which the line varies, order on the line is order of that
// coordinate; along an axis on which it is constant, every interval
// overlaps. So comparing every axis is exact without choosing one.
static bool collinear_overlap(const double *a, const double *b, const double *c, const double *d, int dims)
{
	for (int k = 0; k < dims; k++) {
		if (!intervals_overlap(a[k], b[k], c[k], d[k])) {
			return false;
		}
	}
	return true;
}

// Does the closed 2D segment ab meet cd? Either may be a single point.
static bool segments_meet_2d(const double a[2], const double b[2], const double c[2], const double d[2])
{
	int o1 = orient2d(a, b, c), o2 = orient2d(a, b, d);
	if (o1 * o2 > 0) {
		return false;
	}
	int o3 = orient2d(c, d, a), o4 = orient2d(c, d, b);
	if (o3 * o4 > 0) {
		return false;
	}
	// Each segment's ends are weakly on both sides of the other's line; that
	// decides unless all four points are on one line (or both are points).
	if (o1 == 0 && o2 == 0 && o3 == 0 && o4 == 0) {
		return collinear_overlap(a, b, c, d, 2);
	}
	return true;
}

// Does the closed 3D segment ab meet cd? Either may be a single point.
static bool segments_meet_3d(const double a[3], const double b[3], const double c[3], const double d[3])
{
	if (orient3d(a, b, c, d) != 0) {
		return false; // skew lines share no point
	}
	// Coplanar: project along an axis that keeps the common plane one-to-one,
	// taken from any three of the points that are not collinear.
	const double *const pts[4] = {a, b, c, d};
	static const int triples[4][3] = {{0, 1, 2}, {0, 1, 3}, {2, 3, 0}, {2, 3, 1}};
	int axis = -1;
	for (int i = 0; i < 4 && axis < 0; i++) {
		axis = projection_axis(pts[triples[i][0]], pts[triples[i][1]], pts[triples[i][2]]);
	}
	if (axis < 0) {
		// All four on one line (a != b puts c, d on line ab; a == b, c != d
		// puts a on line cd), or two equal points.
		return collinear_overlap(a, b, c, d, 3);
	}
	double a2[2], b2[2], c2[2], d2[2];
	project(a, axis, a2);
	project(b, axis, b2);
	project(c, axis, c2);
	project(d, axis, d2);
	return segments_meet_2d(a2, b2, c2, d2);
}

// A triangle with its corners, or the segment or point its corners span.
struct simplex {
	const double *v[3]; // corners; a segment's ends are v[0], v[1]; a point is v[0] == v[1]
	int dim;            // 2 triangle, 1 segment, 0 point
	int axis;           // triangle only: the axis its projection drops
};

static void classify(const double t[3][3], struct simplex *s)
{
	s->axis = projection_axis(t[0], t[1], t[2]);
	if (s->axis >= 0) {
		s->dim = 2;
		s->v[0] = t[0];
		s->v[1] = t[1];
		s->v[2] = t[2];
		return;
	}
	// Collinear: the hull is the segment between the extreme corners along
	// any axis on which the corners differ (order on the line is order of
	// that coordinate).
	for (int k = 0; k < 3; k++) {
		int lo = 0, hi = 0;
		for (int i = 1; i < 3; i++) {
			if (t[i][k] < t[lo][k]) {
				lo = i;
			}
			if (t[i][k] > t[hi][k]) {
				hi = i;
			}
		}
		if (t[lo][k] < t[hi][k]) {
			s->dim = 1;
			s->v[0] = t[lo];
			s->v[1] = t[hi];
			s->v[2] = t[hi];
			return;
		}
	}
	s->dim = 0;
	s->v[0] = s->v[1] = s->v[2] = t[0];
}

// Closed point-in-triangle for 2D points: no two edge orientations strictly
// disagree. Works for either winding.
static bool signs_agree(int s0, int s1, int s2)
{
	bool pos = s0 > 0 || s1 > 0 || s2 > 0;
	bool neg = s0 < 0 || s1 < 0 || s2 < 0;
	return !(pos && neg);
}

// Is x, known to lie in triangle t's plane, inside the closed triangle?
static bool point_in_triangle(const struct simplex *t, const double x[3])
{
	double c[3][2], x2[2];
	for (int i = 0; i < 3; i++) {
		project(t->v[i], t->axis, c[i]);
	}
	project(x, t->axis, x2);
	return signs_agree(orient2d(c[0], c[1], x2), orient2d(c[1], c[2], x2), orient2d(c[2], c[0], x2));
}

// Does the closed segment ab (a == b for a point) meet triangle t?
static bool segment_meets_triangle(const struct simplex *t, const double a[3], const double b[3])
{
	const double *const *v = t->v;
	int sa = orient3d(v[0], v[1], v[2], a);
	int sb = orient3d(v[0], v[1], v[2], b);
	if (sa * sb > 0) {
		return false;
	}
	if (sa == 0 && sb == 0) {
		// In the plane: an end inside, or the segment crosses the boundary.
		if (point_in_triangle(t, a)) {
			return true;
		}
		double c[3][2], a2[2], b2[2];
		for (int i = 0; i < 3; i++) {
			project(v[i], t->axis, c[i]);
		}
		project(a, t->axis, a2);
		project(b, t->axis, b2);
		for (int i = 0; i < 3; i++) {
			if (segments_meet_2d(a2, b2, c[i], c[(i + 1) % 3])) {
				return true;
			}
		}
		return false;
	}
	if (sa == 0) {
		return point_in_triangle(t, a);
	}
	if (sb == 0) {
		return point_in_triangle(t, b);
	}
	// a and b strictly on opposite sides: orient3d(a, b, v_i, v_j) is the
	// side of the crossing point relative to edge v_i v_j, times a common
	// factor, so the crossing point is in the closed triangle iff no two of
	// them strictly disagree.
	return signs_agree(orient3d(a, b, v[0], v[1]), orient3d(a, b, v[1], v[2]), orient3d(a, b, v[2], v[0]));
}

// Coplanar proper triangles, both projected by p's axis (their normals are
// parallel, so the projection is one-to-one for both). Instead of the paper's
// decision tree on the regions around q, the 18 orientations of each corner
// against each edge line of the other triangle are tabulated: the boundaries
// meet iff some pair of edges does, and otherwise the triangles intersect iff
// one contains a corner of the other.
static bool coplanar_triangles_meet(const struct simplex *p, const struct simplex *q)
{
	double a[3][2], b[3][2];
	for (int i = 0; i < 3; i++) {
		project(p->v[i], p->axis, a[i]);
		project(q->v[i], p->axis, b[i]);
	}
	int side_p[3][3]; // side_p[i][j]: p corner i against q edge j (b[j] -> b[j+1])
	int side_q[3][3]; // side_q[j][i]: q corner j against p edge i (a[i] -> a[i+1])
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 3; j++) {
			side_p[i][j] = orient2d(b[j], b[(j + 1) % 3], a[i]);
			side_q[i][j] = orient2d(a[j], a[(j + 1) % 3], b[i]);
		}
	}
	for (int i = 0; i < 3; i++) {
		int i1 = (i + 1) % 3;
		for (int j = 0; j < 3; j++) {
			int j1 = (j + 1) % 3;
			int o1 = side_q[j][i], o2 = side_q[j1][i];
			int o3 = side_p[i][j], o4 = side_p[i1][j];
			// All four zero: collinear edges. No need to test their overlap:
			// if they overlap, an end of one lies on the other, and the pair
			// formed with the neighbouring (not collinear) edge at that end
			// is reported here.
			if (o1 * o2 <= 0 && o3 * o4 <= 0 && (o1 != 0 || o2 != 0 || o3 != 0 || o4 != 0)) {
				return true;
			}
		}
	}
	return signs_agree(side_p[0][0], side_p[0][1], side_p[0][2]) ||
	       signs_agree(side_q[0][0], side_q[0][1], side_q[0][2]);
}

// For the signs s of a triangle's corners against the other plane (not all
// zero, not all of one strict sign), the corner alone on its side: *apex with
// the other two weakly on the opposite side and strictly below it after
// multiplying all signs by *flip (+1 or -1). Then the triangle meets the
// plane in the segment from edge apex->apex+1 to edge apex->apex+2, both
// crossing points well defined.
static void find_apex(const int s[3], int *apex, int *flip)
{
	for (int a = 0; a < 3; a++) {
		for (int f = 1; f >= -1; f -= 2) {
			int sa = f * s[a], sb = f * s[(a + 1) % 3], sc = f * s[(a + 2) % 3];
			if (sa >= 0 && sb <= 0 && sc <= 0 && sb < sa && sc < sa) {
				*apex = a;
				*flip = f;
				return;
			}
		}
	}
	// Unreachable for the sign patterns the caller passes.
	*apex = 0;
	*flip = 1;
}

static bool triangles_meet(const struct simplex *p, const struct simplex *q)
{
	int dq[3], dp[3];
	for (int i = 0; i < 3; i++) {
		dq[i] = orient3d(p->v[0], p->v[1], p->v[2], q->v[i]);
	}
	if ((dq[0] > 0 && dq[1] > 0 && dq[2] > 0) || (dq[0] < 0 && dq[1] < 0 && dq[2] < 0)) {
		return false;
	}
	if (dq[0] == 0 && dq[1] == 0 && dq[2] == 0) {
		return coplanar_triangles_meet(p, q);
	}
	for (int i = 0; i < 3; i++) {
		dp[i] = orient3d(q->v[0], q->v[1], q->v[2], p->v[i]);
	}
	if ((dp[0] > 0 && dp[1] > 0 && dp[2] > 0) || (dp[0] < 0 && dp[1] < 0 && dp[2] < 0)) {
		return false;
	}

	// Canonical order: p1 alone on the positive side of q's plane (a cyclic
	// rotation of p keeps dq; swapping q2, q3 negates every dp and swaps
	// dq2, dq3), then q1 alone on the positive side of p's plane (rotating q
	// keeps dp; swapping p2, p3 negates every dq and keeps p1 canonical).
	const double *pc[3], *qc[3];
	int qs[3];
	int apex, flip;
	find_apex(dp, &apex, &flip);
	for (int i = 0; i < 3; i++) {
		pc[i] = p->v[(apex + i) % 3];
		qc[i] = q->v[i];
		qs[i] = dq[i];
	}
	if (flip < 0) {
		const double *t = qc[1];
		qc[1] = qc[2];
		qc[2] = t;
		int ts = qs[1];
		qs[1] = qs[2];
		qs[2] = ts;
	}
	find_apex(qs, &apex, &flip);
	const double *q0 = qc[apex], *q1 = qc[(apex + 1) % 3], *q2 = qc[(apex + 2) % 3];
	if (flip < 0) {
		const double *t = pc[1];
		pc[1] = pc[2];
		pc[2] = t;
	}
	// Now p meets q's plane in [j, i] and q meets p's plane in [k, l] on the
	// common line (i on p0p1, j on p0p2, k on q0q1, l on q0q2), and, along
	// the direction n_p x n_q, orient3d(p0, p1, q0, q1) has the sign of
	// k - i and orient3d(p0, p2, q0, q2) the sign of l - j. The intervals
	// overlap iff k <= i and j <= l.
	return orient3d(pc[0], pc[1], q0, q1) <= 0 && orient3d(pc[0], pc[2], q2, q0) <= 0;
}

bool tri_tri_intersect(const double p[3][3], const double q[3][3])
{
	struct simplex a, b;
	classify(p, &a);
	classify(q, &b);
	if (a.dim == 2 && b.dim == 2) {
		return triangles_meet(&a, &b);
	}
	if (a.dim == 2) {
		return segment_meets_triangle(&a, b.v[0], b.v[1]);
	}
	if (b.dim == 2) {
		return segment_meets_triangle(&b, a.v[0], a.v[1]);
	}
	return segments_meet_3d(a.v[0], a.v[1], b.v[0], b.v[1]);
}
