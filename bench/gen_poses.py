#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a deterministic pose file for a mesh pair (python3, stdlib only).

The file is the command-line tool's pose format: one pose of B in A's frame
per line, `qw qx qy qz tx ty tz`, a Hamilton unit quaternion w first; a point
x of B's file maps to R(q) x + t in A's file coordinates.

Sampling, pose by pose (sample_poses in bench_common.c does exactly the same
arithmetic, so a batch generated in memory there equals this file):
  - the generator is splitmix64 seeded with --seed; a uniform in [0, 1) is the
    top 53 bits of one output times 2^-53;
  - rotation: uniform over SO(3) by Shoemake's method ("Uniform random
    rotations", Graphics Gems III) from three uniforms u1 u2 u3:
      q = (sqrt(u1) cos 2pi u3, sqrt(1-u1) sin 2pi u2, sqrt(1-u1) cos 2pi u2, sqrt(u1) sin 2pi u3)
  - offset: uniform in the unit ball by rejection from the cube [-1, 1)^3
    (three uniforms per try), scaled by  rho = factor * (rA + rB);
  - translation: chosen so that B's centre lands at A's centre plus the offset:
      t = cA + offset - R(q) cB
    where cX is the centre of mesh X's axis-aligned bounding box and rX the
    largest distance from cX to a vertex of X (a bounding sphere about cX).
    Placing the centres, not the file origins, makes the fraction of colliding
    poses depend on the factor and the shapes only, not on where each model
    happens to sit in its file.
The bounding spheres meet only when |offset| <= rA + rB, so with factor <= 1
every pose is near enough to possibly collide. For two unit spheres the
collide fraction is 1/factor^3 above 1; bench/calibrate.py finds the factor
giving ~45 % collisions for each benchmark pair (0.63 for the thin-legged
spider, 1.30 for spheres; the table is bench/pairs.txt).

Values are rounded to float32 (the library's type) and printed with 9
significant digits, which read back as exactly those float32 values: every
reader (the library, the CLI, the FCL peer) sees the same poses.
"""

import argparse
import json
import math
import os
import struct
import sys

MASK64 = (1 << 64) - 1


class SplitMix64:
	"""Steele, Lea & Flood, "Fast splittable pseudorandom number generators"
	(OOPSLA 2014): tiny, and trivial to reproduce bit for bit in C."""

	def __init__(self, seed):
		self.state = seed & MASK64

	def next(self):
		self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
		z = self.state
		z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
		z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
		return z ^ (z >> 31)

	def uniform(self):
		return (self.next() >> 11) * (1.0 / (1 << 53))


def read_vertices(path):
	"""Vertex positions of an OBJ or STL (binary or ASCII) file."""
	with open(path, "rb") as f:
		data = f.read()
	ext = os.path.splitext(path)[1].lower()
	verts = []
	if ext == ".obj":
		for line in data.decode("utf-8", "replace").splitlines():
			parts = line.split()
			if len(parts) >= 4 and parts[0] == "v":
				verts.append(tuple(float(c) for c in parts[1:4]))
	elif ext == ".stl":
		count = struct.unpack_from("<I", data, 80)[0] if len(data) >= 84 else -1
		if len(data) == 84 + 50 * count:  # binary: the size is exact
			for i in range(count):
				floats = struct.unpack_from("<12f", data, 84 + 50 * i)
				verts += [floats[3:6], floats[6:9], floats[9:12]]
		else:
			for line in data.decode("utf-8", "replace").splitlines():
				parts = line.split()
				if len(parts) == 4 and parts[0] == "vertex":
					verts.append(tuple(float(c) for c in parts[1:4]))
	else:
		sys.exit(f"{path}: only .obj and .stl are read here")
	if not verts:
		sys.exit(f"{path}: no vertices")
	# The library and Assimp hold positions as float32: measure those.
	return [struct.unpack("<3f", struct.pack("<3f", *v)) for v in verts]


def bounds(verts):
	"""(centre of the bounding box, largest distance from it to a vertex)."""
	lo = [min(v[i] for v in verts) for i in range(3)]
	hi = [max(v[i] for v in verts) for i in range(3)]
	c = [0.5 * (lo[i] + hi[i]) for i in range(3)]
	r = 0.0
	for v in verts:
		# Products, not ** 2 (pow): bench_approx.c must get the same doubles.
		dx, dy, dz = v[0] - c[0], v[1] - c[1], v[2] - c[2]
		r = max(r, math.sqrt(dx * dx + dy * dy + dz * dz))
	return c, r


def poses(seed, count, factor, ca, ra, cb, rb):
	"""Yields count poses (qw, qx, qy, qz, tx, ty, tz) in double precision.
	Keep the arithmetic in step with sample_poses in bench_common.c."""
	rng = SplitMix64(seed)
	rho = factor * (ra + rb)
	for _ in range(count):
		u1, u2, u3 = rng.uniform(), rng.uniform(), rng.uniform()
		s1, s2 = math.sqrt(1.0 - u1), math.sqrt(u1)
		a, b = 2.0 * math.pi * u2, 2.0 * math.pi * u3
		w, x, y, z = s2 * math.cos(b), s1 * math.sin(a), s1 * math.cos(a), s2 * math.sin(b)
		while True:
			ox = 2.0 * rng.uniform() - 1.0
			oy = 2.0 * rng.uniform() - 1.0
			oz = 2.0 * rng.uniform() - 1.0
			if ox * ox + oy * oy + oz * oz <= 1.0:
				break
		# R(q) cB, the rotation matrix of a unit quaternion written out.
		rcx = (1.0 - 2.0 * (y * y + z * z)) * cb[0] + 2.0 * (x * y - w * z) * cb[1] + 2.0 * (x * z + w * y) * cb[2]
		rcy = 2.0 * (x * y + w * z) * cb[0] + (1.0 - 2.0 * (x * x + z * z)) * cb[1] + 2.0 * (y * z - w * x) * cb[2]
		rcz = 2.0 * (x * z - w * y) * cb[0] + 2.0 * (y * z + w * x) * cb[1] + (1.0 - 2.0 * (x * x + y * y)) * cb[2]
		yield (w, x, y, z, ca[0] + rho * ox - rcx, ca[1] + rho * oy - rcy, ca[2] + rho * oz - rcz)


def main():
	parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	parser.add_argument("mesh_a")
	parser.add_argument("mesh_b")
	parser.add_argument("--count", type=int, default=20000, help="poses to write (default 20000)")
	parser.add_argument("--seed", type=int, default=1, help="splitmix64 seed (default 1)")
	parser.add_argument("--radius-factor", type=float, default=1.0,
	                    help="offset ball radius as a multiple of rA + rB (default 1)")
	parser.add_argument("--out", help="pose file to write (default: stdout)")
	parser.add_argument("--describe", action="store_true",
	                    help="print only the sampling parameters as one JSON object")
	args = parser.parse_args()
	if args.count < 0 or args.radius_factor < 0:
		sys.exit("--count and --radius-factor must not be negative")

	ca, ra = bounds(read_vertices(args.mesh_a))
	cb, rb = bounds(read_vertices(args.mesh_b))
	info = {"mesh_a": args.mesh_a, "mesh_b": args.mesh_b, "count": args.count, "seed": args.seed,
	        "radius_factor": args.radius_factor, "centre_a": ca, "radius_a": ra, "centre_b": cb, "radius_b": rb,
	        "offset_ball_radius": args.radius_factor * (ra + rb)}
	if args.describe:
		print(json.dumps(info))
		return

	out = open(args.out, "w") if args.out else sys.stdout
	pack = struct.Struct("<7f")
	for p in poses(args.seed, args.count, args.radius_factor, ca, ra, cb, rb):
		out.write("%.9g %.9g %.9g %.9g %.9g %.9g %.9g\n" % pack.unpack(pack.pack(*p)))
	if args.out:
		out.close()
		print(json.dumps(info), file=sys.stderr)


if __name__ == "__main__":
	main()
