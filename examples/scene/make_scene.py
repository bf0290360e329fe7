# SPDX-License-Identifier: MIT
"""Writes the example scene job of `vkcollide run` (python3, stdlib only).

usage: python3 examples/scene/make_scene.py [--pairs N] [--seed S] [--out DIR]

With no arguments it writes, beside this script:
  sphere.obj   a UV sphere of radius 0.6, 24 x 16 segments, closed
  plate.obj    a 1.5 x 1.5 square in z = 0, 8 x 8 cells: open (a surface)
  scene.json   the job: these two, ../box.obj, ../torus.obj and the box
               again at scale 0.4 ("pebble"): five meshes
  pairs.txt    3,000 pairs: mesh names (or indices), the pose of B in A's
               frame (qw qx qy qz tx ty tz), on every tenth line also A's
               pose in the world; '#' comments and blank lines between

Poses: uniform random rotation (Shoemake), B's bounding-box centre placed at
A's plus an offset uniform in the ball of radius rA + rB (so the bounding
spheres overlap and about half the pairs collide). Same arguments, same
files: values are printed with fixed formatting from random.Random(seed).
"""
import argparse
import json
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))


def write_obj(path, comment, vertices, triangles):
    with open(path, "w", newline="\n") as f:
        f.write("# SPDX-License-Identifier: MIT\n# %s\n" % comment)
        for v in vertices:
            f.write("v %.6f %.6f %.6f\n" % v)
        for t in triangles:
            f.write("f %d %d %d\n" % (t[0] + 1, t[1] + 1, t[2] + 1))


def sphere(radius, nu, nv):
    verts = [(0.0, 0.0, radius)]
    for j in range(1, nv):
        theta = math.pi * j / nv
        for i in range(nu):
            phi = 2 * math.pi * i / nu
            verts.append((radius * math.sin(theta) * math.cos(phi), radius * math.sin(theta) * math.sin(phi),
                          radius * math.cos(theta)))
    verts.append((0.0, 0.0, -radius))
    tris = []
    south = len(verts) - 1
    for i in range(nu):
        tris.append((0, 1 + i, 1 + (i + 1) % nu))
    for j in range(nv - 2):
        for i in range(nu):
            a, b = 1 + j * nu + i, 1 + j * nu + (i + 1) % nu
            c, d = a + nu, b + nu
            tris += [(a, c, d), (a, d, b)]
    last = 1 + (nv - 2) * nu
    for i in range(nu):
        tris.append((last + i, south, last + (i + 1) % nu))
    return verts, tris


def plate(size, n):
    verts = [(-size / 2 + size * i / n, -size / 2 + size * j / n, 0.0) for j in range(n + 1) for i in range(n + 1)]
    tris = []
    for j in range(n):
        for i in range(n):
            a = j * (n + 1) + i
            tris += [(a, a + 1, a + n + 2), (a, a + n + 2, a + n + 1)]
    return verts, tris


def read_obj(path):
    verts = []
    for line in open(path):
        if line.startswith("v "):
            verts.append(tuple(float(x) for x in line.split()[1:4]))
    return verts


def centre_radius(verts, scale):
    lo = [min(v[k] for v in verts) * scale for k in range(3)]
    hi = [max(v[k] for v in verts) * scale for k in range(3)]
    c = [(lo[k] + hi[k]) / 2 for k in range(3)]
    r = max(math.dist(c, [x * scale for x in v]) for v in verts)
    return c, r


def rotate(q, v):
    w, x, y, z = q
    return (
        (1 - 2 * (y * y + z * z)) * v[0] + 2 * (x * y - w * z) * v[1] + 2 * (x * z + w * y) * v[2],
        2 * (x * y + w * z) * v[0] + (1 - 2 * (x * x + z * z)) * v[1] + 2 * (y * z - w * x) * v[2],
        2 * (x * z - w * y) * v[0] + 2 * (y * z + w * x) * v[1] + (1 - 2 * (x * x + y * y)) * v[2],
    )


def random_rotation(rng):
    u1, u2, u3 = rng.random(), rng.random(), rng.random()
    a, b = math.sqrt(1 - u1), math.sqrt(u1)
    return (b * math.cos(2 * math.pi * u3), a * math.sin(2 * math.pi * u2), a * math.cos(2 * math.pi * u2),
            b * math.sin(2 * math.pi * u3))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=30)
    ap.add_argument("--out", default=HERE)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    write_obj(os.path.join(args.out, "sphere.obj"), "UV sphere, radius 0.6, 24 x 16 segments (make_scene.py)",
              *sphere(0.6, 24, 16))
    write_obj(os.path.join(args.out, "plate.obj"), "open square plate 1.5 x 1.5 in z = 0 (make_scene.py)",
              *plate(1.5, 8))
    examples = os.path.dirname(HERE)
    rel = os.path.relpath(examples, os.path.abspath(args.out))
    meshes = [
        {"name": "box", "path": os.path.join(rel, "box.obj")},
        {"name": "torus", "path": os.path.join(rel, "torus.obj"), "resolution": 64},
        {"name": "sphere", "path": "sphere.obj"},
        {"name": "plate", "path": "plate.obj"},
        {"name": "pebble", "path": os.path.join(rel, "box.obj"), "scale": 0.4},
    ]
    job = {"meshes": meshes, "pairs": "pairs.txt", "mode": "exact", "output": "results.csv"}
    with open(os.path.join(args.out, "scene.json"), "w", newline="\n") as f:
        json.dump(job, f, indent=2)
        f.write("\n")
    files = [os.path.join(examples, "box.obj"), os.path.join(examples, "torus.obj"),
             os.path.join(args.out, "sphere.obj"), os.path.join(args.out, "plate.obj"),
             os.path.join(examples, "box.obj")]
    scales = [1, 1, 1, 1, 0.4]
    bounds = [centre_radius(read_obj(p), s) for p, s in zip(files, scales)]
    rng = random.Random(args.seed)
    with open(os.path.join(args.out, "pairs.txt"), "w", newline="\n") as f:
        f.write("# SPDX-License-Identifier: MIT\n")
        f.write("# Pairs of the example scene (make_scene.py): A B qw qx qy qz tx ty tz [A's world pose]\n")
        for k in range(args.pairs):
            a, b = rng.randrange(5), rng.randrange(5)
            (ca, ra), (cb, rb) = bounds[a], bounds[b]
            q = random_rotation(rng)
            while True:
                off = [rng.uniform(-1, 1) for _ in range(3)]
                if sum(x * x for x in off) <= 1:
                    break
            rb_c = rotate(q, cb)
            t = [ca[i] + off[i] * (ra + rb) - rb_c[i] for i in range(3)]
            name_a = meshes[a]["name"] if k % 7 else str(a)
            fields = [name_a, meshes[b]["name"]] + ["%.9f" % x for x in q] + ["%.9f" % x for x in t]
            if k % 10 == 3:
                qa = random_rotation(rng)
                fields += ["%.9f" % x for x in qa] + ["%.6f" % rng.uniform(-50, 50) for _ in range(3)]
            f.write(" ".join(fields) + "\n")
            if k % 500 == 499:
                f.write("\n# --- %d pairs above ---\n" % (k + 1))


if __name__ == "__main__":
    main()
