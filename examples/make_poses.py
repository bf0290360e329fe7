# SPDX-License-Identifier: MIT
"""Writes a poses file for `vkcollide collide` (python3, stdlib only).

usage: python3 examples/make_poses.py [A.obj [B.obj]] [--count N] [--seed S]
                                      [--factor F] [--out FILE]

With no arguments it writes examples/poses.txt: 2,000 poses of
examples/torus.obj against itself, about half of them colliding. Check the
fraction with the exact CPU reference:

    vkcollide collide examples/torus.obj examples/torus.obj \\
        --poses examples/poses.txt --verify --out /dev/null

The file format: one pose of B in A's frame per line, `qw qx qy qz tx ty tz`
(a Hamilton unit quaternion, w first, then a translation); a point x of B's
file is placed at R(q) x + t in A's file coordinates. Lines starting with '#'
are comments.

Sampling, pose by pose, from random.Random(seed) (its random() is the same
Mersenne Twister sequence on every Python 3):
  - rotation: uniform over SO(3) (Shoemake, "Uniform random rotations",
    Graphics Gems III) from three uniforms;
  - offset: uniform in a ball of radius F * (rA + rB), by rejection from the
    cube around it, where rX is the largest distance from the centre of mesh
    X's bounding box to a vertex of X;
  - translation: t = cA + offset - R(q) cB, so that B's bounding-box centre
    lands at A's plus the offset, wherever the models sit in their files.
With F <= 1 the bounding spheres of every pose overlap; the default F = 1
gives about 45 % colliding poses for two copies of the example torus (the
exact reference says 890 of the 2,000 in examples/poses.txt).

Same arguments, same file: values are printed with fixed formatting.
"""
import argparse
import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def read_obj_vertices(path):
    vertices = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 4 and parts[0] == "v":
                vertices.append(tuple(float(c) for c in parts[1:4]))
    if not vertices:
        sys.exit("%s: no vertices ('v' lines)" % path)
    return vertices


def bounds(vertices):
    """(centre of the bounding box, largest distance from it to a vertex)."""
    lo = [min(v[i] for v in vertices) for i in range(3)]
    hi = [max(v[i] for v in vertices) for i in range(3)]
    c = [0.5 * (lo[i] + hi[i]) for i in range(3)]
    return c, max(math.dist(c, v) for v in vertices)


def rotate(q, p):
    """R(q) p for a unit quaternion q = (w, x, y, z), Hamilton convention."""
    w, x, y, z = q
    return (
        (1 - 2 * (y * y + z * z)) * p[0] + 2 * (x * y - w * z) * p[1] + 2 * (x * z + w * y) * p[2],
        2 * (x * y + w * z) * p[0] + (1 - 2 * (x * x + z * z)) * p[1] + 2 * (y * z - w * x) * p[2],
        2 * (x * z - w * y) * p[0] + 2 * (y * z + w * x) * p[1] + (1 - 2 * (x * x + y * y)) * p[2],
    )


def poses(rng, count, rho, ca, cb):
    for _ in range(count):
        u1, u2, u3 = rng.random(), rng.random(), rng.random()
        s1, s2 = math.sqrt(1 - u1), math.sqrt(u1)
        q = (s2 * math.cos(2 * math.pi * u3), s1 * math.sin(2 * math.pi * u2),
             s1 * math.cos(2 * math.pi * u2), s2 * math.sin(2 * math.pi * u3))
        while True:
            o = [2 * rng.random() - 1 for _ in range(3)]
            if o[0] * o[0] + o[1] * o[1] + o[2] * o[2] <= 1:
                break
        rc = rotate(q, cb)
        yield q, tuple(ca[i] + rho * o[i] - rc[i] for i in range(3))


def fmt(x):
    s = "%.6f" % x
    return "0.000000" if s == "-0.000000" else s


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mesh_a", nargs="?", default=os.path.join(HERE, "torus.obj"))
    parser.add_argument("mesh_b", nargs="?", help="default: mesh_a")
    parser.add_argument("--count", type=int, default=2000, help="poses to write (default 2000)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--factor", type=float, default=1.0,
                        help="offset ball radius as a multiple of rA + rB (default 1)")
    parser.add_argument("--out", help="file to write, - for standard output (default: "
                                      "examples/poses.txt when no mesh is named, else standard output)")
    args = parser.parse_args()
    if args.count < 0 or args.factor < 0:
        sys.exit("--count and --factor must not be negative")
    mesh_b = args.mesh_b or args.mesh_a
    out_path = args.out
    if out_path is None and len(sys.argv) == 1:
        out_path = os.path.join(HERE, "poses.txt")

    ca, ra = bounds(read_obj_vertices(args.mesh_a))
    cb, rb = bounds(read_obj_vertices(mesh_b))
    rho = args.factor * (ra + rb)
    rng = random.Random(args.seed)
    if out_path == "-":
        out_path = None
    out = open(out_path, "w", newline="\n") if out_path else sys.stdout
    out.write("# SPDX-License-Identifier: MIT\n")
    out.write("# Poses of B = %s in the frame of A = %s, one per line:\n"
              % (os.path.basename(mesh_b), os.path.basename(args.mesh_a)))
    out.write("#   qw qx qy qz tx ty tz   (x of B goes to R(q) x + t in A's coordinates)\n")
    out.write("# Generated by examples/make_poses.py --count %d --seed %d --factor %g; do not edit.\n"
              % (args.count, args.seed, args.factor))
    for q, t in poses(rng, args.count, rho, ca, cb):
        out.write(" ".join(fmt(v) for v in q + t) + "\n")
    if out_path:
        out.close()

if __name__ == "__main__":
    main()
