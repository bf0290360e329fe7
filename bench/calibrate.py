#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Finds, per mesh pair, the gen_poses.py --radius-factor at which a target
fraction of poses collide (python3, stdlib only; runs the FCL peer).

One FCL run is enough per pair: poses are drawn with a generous factor K, and
since the offsets are uniform in a ball, the poses whose offset is at most
s * (rA + rB) are a uniform sample of the ball of factor s <= K with the same
rotations. Sorting the poses by offset length gives the collide fraction as
a function of the factor; the factor reported is where it falls to the
target. FCL answers surface intersection, which equals the solids' answer
for these pairs except when one mesh lies wholly inside the other, a case
the bounding radii make rare (bench_approx records the reference's fraction).
Where containment is the point (shell-star), --cli VKCOLLIDE takes the
answers of the command-line tool in exact mode instead: closed meshes as
solids, one inside the other colliding.

gen_poses.py reads OBJ and STL only. For any other format Assimp reads
(the real models of real_pairs.txt), --driver BENCH_EXACT (or
bench_approx) samples the poses instead: the same sampler, bit for bit, on
the meshes as the library receives them (--describe gives their bounds,
--dump-poses the poses).

  calibrate.py FCL_PEER [--cli VKCOLLIDE] [--driver BENCH_EXACT] [--target 0.45] [--count 20000] NAME=A,B ...
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_poses  # noqa: E402  (the same sampler, to know each pose's offset)


def answer(fcl_peer, cli, a, b, poses_path, answers_path):
	"""0/1 per pose: FCL's boolean query, or the CLI's exact mode."""
	if cli:
		out = subprocess.run([cli, "collide", a, b, "--poses", poses_path, "--mode", "exact", "--format", "csv"],
		                     check=True, capture_output=True, text=True).stdout
		return [int(line.split(",")[1]) for line in out.splitlines()[1:] if line]
	subprocess.run([fcl_peer, a, b, "--poses", poses_path, "--repeat", "1", "--answers", answers_path],
	               check=True, stdout=subprocess.DEVNULL)
	with open(answers_path) as f:
		return [int(line) for line in f]


def sample(driver, a, b, seed, count, k_max):
	"""(cA, rA, cB, rB, poses): the benchmark's poses of B in A's frame, from
	gen_poses.py, or from the driver for formats gen_poses.py cannot read."""
	if not driver:
		ca, ra = gen_poses.bounds(gen_poses.read_vertices(a))
		cb, rb = gen_poses.bounds(gen_poses.read_vertices(b))
		return ca, ra, cb, rb, list(gen_poses.poses(seed, count, k_max, ca, ra, cb, rb))
	common = [driver, a, b, "--seed", str(seed), "--radius-factor", repr(k_max)]
	info = json.loads(subprocess.run(common + ["--describe"], check=True, capture_output=True, text=True).stdout)
	out = subprocess.run(common + ["--dump-poses", str(count)], check=True, capture_output=True, text=True).stdout
	poses = [tuple(float(v) for v in line.split()) for line in out.splitlines() if line.strip()]
	return info["centre_a"], info["radius_a"], info["centre_b"], info["radius_b"], poses


def calibrate(fcl_peer, cli, driver, a, b, target, count, seed, k_max):
	ca, ra, cb, rb, poses = sample(driver, a, b, seed, count, k_max)
	rho = ra + rb
	offsets = []
	with tempfile.TemporaryDirectory() as tmp:
		poses_path = os.path.join(tmp, "poses")
		answers_path = os.path.join(tmp, "answers")
		with open(poses_path, "w") as f:
			for p in poses:
				w, x, y, z = p[:4]
				# offset = t + R(q) cB - cA, recomputed from the double pose.
				rcx = (1 - 2 * (y * y + z * z)) * cb[0] + 2 * (x * y - w * z) * cb[1] + 2 * (x * z + w * y) * cb[2]
				rcy = 2 * (x * y + w * z) * cb[0] + (1 - 2 * (x * x + z * z)) * cb[1] + 2 * (y * z - w * x) * cb[2]
				rcz = 2 * (x * z - w * y) * cb[0] + 2 * (y * z + w * x) * cb[1] + (1 - 2 * (x * x + y * y)) * cb[2]
				o = (p[4] + rcx - ca[0], p[5] + rcy - ca[1], p[6] + rcz - ca[2])
				offsets.append(math.sqrt(o[0] ** 2 + o[1] ** 2 + o[2] ** 2) / rho)
				f.write("%.9g %.9g %.9g %.9g %.9g %.9g %.9g\n" % p)
		answers = answer(fcl_peer, cli, a, b, poses_path, answers_path)
	order = sorted(range(count), key=lambda i: offsets[i])
	hits = 0
	# Scan outward; keep the last factor at which the running fraction is
	# still at or above the target (the curve is noisy at small factors).
	factor = None
	for n, i in enumerate(order, 1):
		hits += answers[i]
		if n >= count // 20 and hits / n >= target:
			factor = offsets[i]
	return factor, sum(answers) / count


def main():
	parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	parser.add_argument("fcl_peer")
	parser.add_argument("pairs", nargs="+", help="NAME=A,B")
	parser.add_argument("--cli", help="the vkcollide command-line tool: exact-mode answers instead of FCL's")
	parser.add_argument("--driver", help="bench_exact or bench_approx: samples the poses (any format Assimp reads)")
	parser.add_argument("--target", type=float, default=0.45)
	parser.add_argument("--count", type=int, default=20000)
	parser.add_argument("--seed", type=int, default=12345, help="not the benchmark's seeds, so the check is fair")
	parser.add_argument("--k-max", type=float, default=2.0)
	args = parser.parse_args()
	for spec in args.pairs:
		name, files = spec.split("=", 1)
		a, b = files.split(",")
		k_max = args.k_max
		# Thin shapes (the spider's legs) fill little of their bounding
		# sphere: if even the nearest twentieth of the poses miss too often,
		# sample a smaller ball.
		while True:
			factor, at_max = calibrate(args.fcl_peer, args.cli, args.driver, a, b, args.target, args.count, args.seed, k_max)
			if factor is not None or k_max < 0.1:
				break
			k_max /= 2
		if factor is None:
			print(f"{name}: fewer than {args.target:.0%} collide even at small factors")
			continue
		print(f"{name}: radius factor {factor:.3f} (collide fraction at {k_max}: {at_max:.3f})")


if __name__ == "__main__":
	main()
