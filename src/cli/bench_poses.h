// SPDX-License-Identifier: MIT
// The poses of `vkcollide bench` (bench_poses.c), all from fixed seeds:
// random poses at a target fraction of collisions, poses at the edge of
// contact, and a mesh moved along a path through another. B moves in A's
// frame; A stays at the identity.
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <vkcollide.h>

// Where a mesh's bounding sphere about its box centre lies: the centre c of
// its axis-aligned box and the largest distance r from c to a vertex
// (gen_poses.py's cX and rX), from the imported positions.
typedef struct pose_frame {
	double centre[3];
	double radius;
} pose_frame;

void pose_frame_of(const float *positions, uint32_t vertex_count, pose_frame *out);

// A pair's meshes and frames, and the context that answers its poses.
typedef struct pose_pair {
	vkcol_context *ctx;
	vkcol_mesh a, b;
	pose_frame fa, fb;
} pose_pair;

// What a pose set's generation found, for the report.
typedef struct pose_info {
	double radius_factor;     // random: offsets uniform in a ball of factor x (rA + rB)
	double expected_fraction; // random: the calibration's collide fraction at that factor
	uint32_t calibration_poses;
	uint64_t candidates;      // near contact: directions tried
	uint64_t dropped;         // near contact: directions along which nothing was met
	double band;              // near contact: shift about the contact, in units of rA + rB
	double seconds;           // time spent making the poses
} pose_info;

// count random poses of B whose collide fraction is about `target`:
// Shoemake's uniform rotation and B's box centre uniform in a ball about
// A's, the ball's radius calibrated first (exact mode on 4,096 poses whose
// offsets are spread evenly in length, weighted by length squared: the
// fraction at any radius, at no extra cost). Returns false on a device
// error (logged by the caller's context).
bool poses_random(const pose_pair *p, double target, uint64_t seed, uint64_t count, vkcol_pair *out,
                  pose_info *info);

// count poses at the edge of contact: a random rotation and direction, B's
// centre marched from outside along it until exact mode first answers
// "collide", the contact bisected, then B shifted by a uniform amount in
// +-band x (rA + rB) about it, so that about half collide. Directions along
// which nothing collides are dropped and replaced.
bool poses_near_contact(const pose_pair *p, double band, uint64_t seed, uint64_t count, vkcol_pair *out,
                        pose_info *info);

// count poses of B along a path through A: B's centre from outside A's
// bounding sphere across to the other side, weaving, while B turns about a
// fixed axis; consecutive poses are close, as a motion planner's are.
void poses_motion(const pose_pair *p, uint64_t count, vkcol_pair *out);

// Writes poses pairs[0], pairs[stride], ... (count of them: B's, in the
// CLI's pose format, 9 significant digits: the float values exactly) for
// the peers. Returns false with errno set.
bool poses_write(const char *path, const vkcol_pair *pairs, uint64_t count, uint64_t stride);
