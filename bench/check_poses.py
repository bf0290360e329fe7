#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that bench_approx (and any further driver named, e.g. bench_exact)
generates, in memory, exactly the poses that gen_poses.py writes for the
same meshes, seed and radius factor: the benchmark relies on it to give
vkcollide and its peers the same poses.

  check_poses.py BENCH_APPROX GEN_POSES A B [DRIVER ...]
"""

import os
import subprocess
import sys


def main():
	bench_approx, gen_poses, a, b = sys.argv[1:5]
	for seed, factor in ((1, 1.0), (7, 0.63), (123456789, 1.3)):
		common = ["--seed", str(seed), "--radius-factor", str(factor)]
		py = subprocess.run([sys.executable, gen_poses, a, b, "--count", "2000"] + common,
		                    check=True, capture_output=True, text=True).stdout
		for driver in [bench_approx] + sys.argv[5:]:
			c = subprocess.run([driver, a, b, "--dump-poses", "2000"] + common,
			                   check=True, capture_output=True, text=True).stdout
			if c != py:
				lines = list(zip(c.splitlines(), py.splitlines()))
				bad = next((i for i, (x, y) in enumerate(lines) if x != y), len(lines))
				name = os.path.basename(driver)
				print(f"seed {seed}: {name}'s poses differ from line {bad + 1}:")
				print(f"  {name}: {c.splitlines()[bad] if bad < len(c.splitlines()) else '(none)'}")
				print(f"  gen_poses.py: {py.splitlines()[bad] if bad < len(py.splitlines()) else '(none)'}")
				sys.exit(1)
			print(f"seed {seed}, factor {factor}: {os.path.basename(driver)}: 2000 poses identical")


if __name__ == "__main__":
	main()
