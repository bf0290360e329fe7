#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the benchmark's synthetic meshes as OBJ files (python3, stdlib only).

Each shape stands for one case the approx and exact modes have to handle:
  sphere           convex, ~2k triangles (a cube sphere: triangles of even size)
  box              convex with flat faces and sharp edges, ~1k triangles
  star             star-shaped but not convex: a sphere with 14 radial spikes, ~3.9k
  torus            closed but not star-shaped about any point, ~1.9k
  open_hemisphere  an open surface (a boundary loop at the equator), ~1.5k
  small_torus      the torus with 300 triangles: the small end of the sizes
  shell            a sphere of radius 6, ~3k triangles: room for the star
                   (radius 1.5) wholly inside it

With --large DIR it writes instead, into DIR, the meshes too large to keep
in the repository (several MB each), which scripts/bench.sh regenerates for
every exact-mode run:
  torus_250k       the torus with 250,000 triangles (500 x 250 quads)

The output is a pure function of this script: fixed formatting, no randomness,
so `generate.py --check` can prove the committed files are what it writes.
Every closed mesh is checked to be watertight (each edge used by exactly two
triangles), and every mesh to face outward (positive signed volume), before
it is written.
"""

import argparse
import math
import os
import sys


def cube_lattice(n, position):
	"""The surface of an n x n x n lattice cube, two triangles per cell.

	position(i, j, k) maps an integer lattice point on the surface to a
	point; points shared by two faces of the cube are one vertex, so the
	mesh is closed. Faces are wound counter-clockwise seen from outside the
	cube (outward for any position() that keeps the cube's topology)."""
	index = {}
	verts = []
	tris = []

	def vertex(p):
		if p not in index:
			index[p] = len(verts)
			verts.append(position(*p))
		return index[p]

	for axis in range(3):
		u_axis, v_axis = (axis + 1) % 3, (axis + 2) % 3  # e_u x e_v = e_axis
		for side in (n, 0):
			for u in range(n):
				for v in range(n):
					corners = []
					for du, dv in ((0, 0), (1, 0), (1, 1), (0, 1)):
						p = [0, 0, 0]
						p[axis] = side
						p[u_axis] = u + du
						p[v_axis] = v + dv
						corners.append(vertex(tuple(p)))
					if side == 0:  # seen from -axis the winding flips
						corners.reverse()
					a, b, c, d = corners
					tris.append((a, b, c))
					tris.append((a, c, d))
	return verts, tris


def cube_direction(n):
	"""Lattice point -> unit direction, with the tangent warp that makes the
	cells of a cube sphere nearly equal in area."""

	def direction(i, j, k):
		x, y, z = (math.tan(math.pi / 4 * (2 * c / n - 1)) for c in (i, j, k))
		length = math.sqrt(x * x + y * y + z * z)
		return (x / length, y / length, z / length)

	return direction


def cube_sphere(n, radius=1.0):
	"""6 * 2 * n^2 triangles on a sphere of the given radius."""
	direction = cube_direction(n)
	return cube_lattice(n, lambda i, j, k: tuple(radius * c for c in direction(i, j, k)))


def sphere():
	return cube_sphere(13)  # 6 * 2 * 13^2 = 2028 triangles


def shell():
	return cube_sphere(16, 6.0)  # 3072 triangles


def box():
	n = 9  # 972 triangles; unequal sides so orientation matters
	size = (2.0, 1.2, 0.8)
	return cube_lattice(n, lambda i, j, k: tuple(s * (c / n - 0.5) for s, c in zip(size, (i, j, k))))


def star():
	n = 18  # 3888 triangles
	direction = cube_direction(n)
	# Spikes along the 6 axes and the 8 cube diagonals.
	spikes = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
	s = 1 / math.sqrt(3)
	spikes += [(a * s, b * s, c * s) for a in (1, -1) for b in (1, -1) for c in (1, -1)]
	cos_width = math.cos(math.radians(22))

	def position(i, j, k):
		d = direction(i, j, k)
		bump = 0.0
		for sp in spikes:
			t = (d[0] * sp[0] + d[1] * sp[1] + d[2] * sp[2] - cos_width) / (1 - cos_width)
			bump = max(bump, t)
		# A radial function of the direction: star-shaped about the origin.
		r = 0.8 + 0.7 * bump * bump
		return (r * d[0], r * d[1], r * d[2])

	return cube_lattice(n, position)


def torus(nu=48, nv=20):  # 2 * nu * nv triangles
	major, minor = 1.0, 0.35
	verts = []
	for i in range(nu):
		u = 2 * math.pi * i / nu
		for j in range(nv):
			v = 2 * math.pi * j / nv
			ring = major + minor * math.cos(v)
			verts.append((ring * math.cos(u), ring * math.sin(u), minor * math.sin(v)))
	tris = []
	for i in range(nu):
		for j in range(nv):
			a = i * nv + j
			b = ((i + 1) % nu) * nv + j
			c = ((i + 1) % nu) * nv + (j + 1) % nv
			d = i * nv + (j + 1) % nv
			tris.append((a, b, c))
			tris.append((a, c, d))
	return verts, tris


def open_hemisphere():
	# Upper unit hemisphere from the pole down to the equator, left open there.
	n_lon, n_lat = 48, 16  # 48 + 2 * 48 * 15 = 1488 triangles
	verts = [(0.0, 0.0, 1.0)]
	for k in range(1, n_lat + 1):
		theta = math.pi / 2 * k / n_lat
		for i in range(n_lon):
			phi = 2 * math.pi * i / n_lon
			verts.append((math.sin(theta) * math.cos(phi), math.sin(theta) * math.sin(phi), math.cos(theta)))

	def ring(k, i):
		return 1 + (k - 1) * n_lon + i % n_lon

	tris = [(0, ring(1, i), ring(1, i + 1)) for i in range(n_lon)]
	for k in range(1, n_lat):
		for i in range(n_lon):
			a, b = ring(k, i), ring(k, i + 1)
			c, d = ring(k + 1, i + 1), ring(k + 1, i)
			tris.append((a, d, c))
			tris.append((a, c, b))
	return verts, tris


SHAPES = {
	"sphere": (sphere, True),
	"box": (box, True),
	"star": (star, True),
	"torus": (torus, True),
	"open_hemisphere": (open_hemisphere, False),
	"small_torus": (lambda: torus(15, 10), True),  # 300 triangles
	"shell": (shell, True),
}

LARGE_SHAPES = {
	"torus_250k": (lambda: torus(500, 250), True),  # 250,000 triangles
}


def edge_uses(tris):
	uses = {}
	for t in tris:
		for e in ((t[0], t[1]), (t[1], t[2]), (t[2], t[0])):
			key = (min(e), max(e))
			uses[key] = uses.get(key, 0) + 1
	return uses


def signed_volume(verts, tris):
	total = 0.0
	for a, b, c in tris:
		(ax, ay, az), (bx, by, bz), (cx, cy, cz) = verts[a], verts[b], verts[c]
		total += ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx)
	return total / 6


def obj_text(name, verts, tris, closed):
	lines = [f"# vkcollide benchmark mesh '{name}' written by bench/meshes/generate.py",
	         f"# {len(verts)} vertices, {len(tris)} triangles, {'closed' if closed else 'open'}",
	         f"o {name}"]
	# Six decimals: a millionth of the ~1-unit radius, far below any cube-map
	# texel, and the files stay small.
	lines += [f"v {x:.6f} {y:.6f} {z:.6f}" for x, y, z in verts]
	lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in tris]
	return "\n".join(lines) + "\n"


def main():
	parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)), help="output folder (default: this script's)")
	parser.add_argument("--check", action="store_true", help="write nothing; fail if a file in --out differs from what would be written")
	parser.add_argument("--large", metavar="DIR", help="write the large meshes (not kept in the repository) into DIR instead")
	args = parser.parse_args()
	shapes = SHAPES
	if args.large:
		os.makedirs(args.large, exist_ok=True)
		args.out, shapes = args.large, LARGE_SHAPES

	stale = 0
	for name, (make, closed) in shapes.items():
		verts, tris = make()
		uses = edge_uses(tris)
		boundary = sum(1 for u in uses.values() if u == 1)
		if closed:
			if any(u != 2 for u in uses.values()):
				sys.exit(f"{name}: not watertight")
		elif boundary == 0:
			sys.exit(f"{name}: should be open")
		# For the open hemisphere this is the volume of the cone from the
		# origin to the surface: positive when the triangles face outward too.
		if signed_volume(verts, tris) <= 0:
			sys.exit(f"{name}: inward oriented")
		text = obj_text(name, verts, tris, closed)
		path = os.path.join(args.out, name + ".obj")
		if args.check:
			try:
				with open(path) as f:
					same = f.read() == text
			except OSError:
				same = False
			if not same:
				print(f"{path}: differs from the generator's output")
				stale += 1
			continue
		with open(path, "w") as f:
			f.write(text)
		print(f"{path}: {len(verts)} vertices, {len(tris)} triangles, {'closed' if closed else f'open ({boundary} boundary edges)'}")
	sys.exit(1 if stale else 0)


if __name__ == "__main__":
	main()
