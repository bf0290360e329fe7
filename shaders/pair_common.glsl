// SPDX-License-Identifier: MIT
// Helpers of the batch shaders that read vkcol_gpu_mesh records: bounding
// boxes and the transformed-AABB overlap test (the box of a rotated box from
// the absolute rotation matrix: 9 multiply-adds, no corner loop).
#ifndef VKCOL_PAIR_COMMON_GLSL
#define VKCOL_PAIR_COMMON_GLSL

vec3 box_min(vkcol_gpu_mesh m)
{
	return vec3(m.aabb_min_x, m.aabb_min_y, m.aabb_min_z);
}

vec3 box_max(vkcol_gpu_mesh m)
{
	return vec3(m.aabb_max_x, m.aabb_max_y, m.aabb_max_z);
}

// Is the point (in m's frame) in m's AABB, boundary included?
bool in_box(vkcol_gpu_mesh m, vec3 point)
{
	return all(greaterThanEqual(point, box_min(m))) && all(lessThanEqual(point, box_max(m)));
}

// Does `from`'s AABB, carried into `to`'s frame by x -> r x + t, come
// within slack of `to`'s AABB?
bool boxes_overlap(vkcol_gpu_mesh from, vkcol_gpu_mesh to, mat3 r, vec3 t, float slack)
{
	vec3 c = 0.5 * (box_min(from) + box_max(from)), e = 0.5 * (box_max(from) - box_min(from));
	mat3 a = mat3(abs(r[0]), abs(r[1]), abs(r[2]));
	vec3 moved = r * c + t, reach = a * e;
	vec3 tc = 0.5 * (box_min(to) + box_max(to)), te = 0.5 * (box_max(to) - box_min(to));
	return all(lessThanEqual(abs(moved - tc), reach + te + vec3(slack)));
}

// The rigid transforms of a pair: B's frame into A's (r_ba, t_ba) and back.
struct pair_frames {
	mat3 r_ba, r_ab;
	vec3 t_ba, t_ab;
};

pair_frames make_frames(vkcol_gpu_pair pr)
{
	// precise: the same bits in every shader and at every call site (no
	// fused multiply-adds), which approx mode's deterministic penetration
	// needs (approx_jobs.comp).
	precise vec4 qa = normalize(vec4(pr.qa_x, pr.qa_y, pr.qa_z, pr.qa_w));
	precise vec4 qb = normalize(vec4(pr.qb_x, pr.qb_y, pr.qb_z, pr.qb_w));
	vec3 ta = vec3(pr.ta_x, pr.ta_y, pr.ta_z), tb = vec3(pr.tb_x, pr.tb_y, pr.tb_z);
	// x_A = Ra^T (Rb x_B + tb - ta); the inverse is r_ab = r_ba^T.
	mat3 ra = quat_to_mat3(qa), rb = quat_to_mat3(qb);
	precise mat3 r_ba = transpose(ra) * rb;
	precise vec3 t_ba = transpose(ra) * (tb - ta), t_ab = transpose(rb) * (ta - tb);
	pair_frames f;
	f.r_ba = r_ba;
	f.r_ab = transpose(r_ba);
	f.t_ba = t_ba;
	f.t_ab = t_ab;
	return f;
}

// Stage 0: do the bounding spheres and the two carried AABBs come within
// slack of each other (exact mode: the float rounding of its coordinates,
// so that a touching pair is never rejected)?
bool bounds_overlap(vkcol_gpu_mesh a, vkcol_gpu_mesh b, pair_frames f, float slack)
{
	vec3 cb = f.r_ba * vec3(b.sphere_x, b.sphere_y, b.sphere_z) + f.t_ba;
	vec3 gap = cb - vec3(a.sphere_x, a.sphere_y, a.sphere_z);
	float reach = a.sphere_radius + b.sphere_radius + slack;
	return dot(gap, gap) <= reach * reach && boxes_overlap(b, a, f.r_ba, f.t_ba, slack) &&
	       boxes_overlap(a, b, f.r_ab, f.t_ab, slack);
}

// Depth by which the inner balls of two closed meshes overlap (their
// origins' balls up to the nearest triangle lie in the solids), or -1.
float inner_ball_overlap(vkcol_gpu_mesh a, vkcol_gpu_mesh b, pair_frames f)
{
	if (a.inner_radius <= 0.0 || b.inner_radius <= 0.0)
		return -1.0;
	vec3 ob = f.r_ba * vec3(b.origin_x, b.origin_y, b.origin_z) + f.t_ba;
	float apart = distance(ob, vec3(a.origin_x, a.origin_y, a.origin_z));
	return apart <= a.inner_radius + b.inner_radius ? a.inner_radius + b.inner_radius - apart : -1.0;
}

#endif
