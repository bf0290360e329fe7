// SPDX-License-Identifier: MIT
// The exact triangle test's last word: do two triangles meet or come within
// the touching distance? Any of them may be degenerate (three equal corners,
// two equal, three collinear, or a sliver whose area rounds to zero), so
// the test rests on no normal: two triangles that do not intersect come
// nearest between an edge of each or between a corner of one and the face
// of the other (C. Ericson, "Real-Time Collision Detection", 2005: closest
// points of two segments, 5.1.9, degenerate segments included; a point's
// distance to a face it projects into, 5.1.5), and when they intersect an
// edge of one passes through the face of the other.
//
// Compiled in double where the device has shaderFloat64 (VKCOL_FP64 = 1:
// triangles placed in double from the pair's double frame, so that the
// rounding is far below the touching distance and the answer is the
// reference's up to that distance), else in float, where an answer float
// cannot vouch for is left undecided (TOUCH_UNDECIDED) for the CPU.
#ifndef VKCOL_TRI_DISTANCE_GLSL
#define VKCOL_TRI_DISTANCE_GLSL

// `real`, `real3`: double or float (exact_common.glsl).

const uint TOUCH_APART = 0u;
const uint TOUCH_HIT = 1u;
const uint TOUCH_UNDECIDED = 2u;

// A distance beyond any pair's (squared distances of float coordinates stay
// far below it).
const real FAR2 = real(3.0e38);

real clamp01(real x)
{
	return clamp(x, real(0.0), real(1.0));
}

// Squared distance of the segments [p0, p1] and [q0, q1] (Ericson's
// ClosestPtSegmentSegment), branch free: a SIMD driver such as lavapipe runs
// both sides of a branch. s is found for the infinite lines (0 when one
// segment is a point or they are parallel), t from s, clamped; then s again
// from the clamped t, which gives the nearest pair in every case.
real seg_seg_dist2(real3 p0, real3 p1, real3 q0, real3 q1)
{
	real3 d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
	real a = dot(d1, d1), e = dot(d2, d2), f = dot(d2, r), c = dot(d1, r), b = dot(d1, d2);
	real denom = a * e - b * b;
	real s = a > 0.0 && e > 0.0 && denom > 0.0 ? clamp01((b * f - c * e) / denom) : real(0.0);
	real t = e > 0.0 ? clamp01((b * s + f) / e) : real(0.0);
	s = a > 0.0 ? clamp01((b * t - c) / a) : real(0.0);
	real3 g = (p0 + d1 * s) - (q0 + d2 * t);
	return dot(g, g);
}

// Is x within the prism over triangle v (normal n, n . n = nn > 0), that is
// on the inner side of its three edges?
bool over_face(real3 x, real3 v0, real3 v1, real3 v2, real3 n)
{
	return dot(n, cross(v1 - v0, x - v0)) >= 0.0 && dot(n, cross(v2 - v1, x - v1)) >= 0.0 &&
	       dot(n, cross(v0 - v2, x - v2)) >= 0.0;
}

// Squared distance from x to the face of triangle v when x projects into it
// (FAR2 otherwise: the edges hold the nearest point then, and for a
// triangle without area).
real point_face_dist2(real3 x, real3 v0, real3 v1, real3 v2, real3 n, real nn)
{
	real h = dot(n, x - v0);
	return nn > 0.0 && over_face(x, v0, v1, v2, n) ? h * h / nn : FAR2;
}

// Does the edge [p, q] pass through the face of triangle v (normal n) at a
// point strictly between its ends and strictly inside the face? With a
// margin (float), only a crossing that an error of `margin` in every
// coordinate cannot undo counts: the face well shaped (its normal then
// trustworthy), the ends at least margin from its plane, and the crossing
// point at least margin inside every edge, more for an edge nearly
// parallel to the plane (the point's error grows by the edge's length over
// its drop across the plane).
bool pierces(real3 p, real3 q, real3 v0, real3 v1, real3 v2, real3 n, real margin)
{
	real sp = dot(n, p - v0), sq = dot(n, q - v0), ln = length(n);
	real l0 = length(v1 - v0), l1 = length(v2 - v1), l2 = length(v0 - v2);
	bool ends = ((sp < 0.0 && sq > 0.0) || (sp > 0.0 && sq < 0.0)) && min(abs(sp), abs(sq)) > margin * ln;
	bool shaped = margin == 0.0 || ln > 1e-3 * l0 * l2;
	real drop = abs(sp - sq);
	real3 x = p + (q - p) * (sp / (ends ? sp - sq : real(1.0)));
	real reach = margin * ln * (1.0 + ln * length(q - p) / max(drop, real(1e-30)));
	return ends && shaped && dot(n, cross(v1 - v0, x - v0)) > reach * l0 &&
	       dot(n, cross(v2 - v1, x - v1)) > reach * l1 && dot(n, cross(v0 - v2, x - v2)) > reach * l2;
}

// Does an edge of one triangle pass through the other's face by more than
// an error of `err` in the coordinates could undo (pierces with margin
// 4 err)? A sure hit, in any precision.
bool triangles_cross(real3 a0, real3 a1, real3 a2, real3 b0, real3 b1, real3 b2, real err)
{
	real3 na = cross(a1 - a0, a2 - a0), nb = cross(b1 - b0, b2 - b0);
	real margin = 4.0 * err;
	return pierces(a0, a1, b0, b1, b2, nb, margin) || pierces(a1, a2, b0, b1, b2, nb, margin) ||
	       pierces(a2, a0, b0, b1, b2, nb, margin) || pierces(b0, b1, a0, a1, a2, na, margin) ||
	       pierces(b1, b2, a0, a1, a2, na, margin) || pierces(b2, b0, a0, a1, a2, na, margin);
}

// Do triangles a and b (one frame) meet or come within `touch`?
// In double (VKCOL_FP64): TOUCH_HIT when an edge of one passes through the
// other's face or their least distance (9 edge pairs, 6 corner-face pairs)
// is at most touch, else TOUCH_APART. In float, where the coordinates may
// be off by up to `err`: TOUCH_HIT only for a crossing that error cannot
// undo, else TOUCH_UNDECIDED (the CPU reference answers the pair; such
// triangle pairs are the ones the float culls could not separate, near
// contact).
uint triangles_touch(real3 a0, real3 a1, real3 a2, real3 b0, real3 b1, real3 b2, real touch, real err)
{
	bool through = triangles_cross(a0, a1, a2, b0, b1, b2, err);
#if VKCOL_FP64
	real3 na = cross(a1 - a0, a2 - a0), nb = cross(b1 - b0, b2 - b0);
	real nna = dot(na, na), nnb = dot(nb, nb), best = FAR2;
	real3 pa[3] = real3[3](a0, a1, a2), pb[3] = real3[3](b0, b1, b2);
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 3; j++)
			best = min(best, seg_seg_dist2(pa[i], pa[(i + 1) % 3], pb[j], pb[(j + 1) % 3]));
		best = min(best, point_face_dist2(pa[i], b0, b1, b2, nb, nnb));
		best = min(best, point_face_dist2(pb[i], a0, a1, a2, na, nna));
	}
	return through || best <= touch * touch ? TOUCH_HIT : TOUCH_APART;
#else
	return through ? TOUCH_HIT : TOUCH_UNDECIDED;
#endif
}

#endif
