#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Estimates what an oriented box per tree node would prune beyond the box
and the slab exact mode uses (docs/performance-notes.md, "What is left near
contact"): node pairs and leaf pairs visited by a simultaneous descent of
two copies of one mesh's tree at random poses whose bounding spheres
overlap, with and without the oriented box (the principal axes of the
node's vertices, fitted to them). A model, not the library: the tree here
splits at the median centroid along the longest axis, leaves of up to 4
triangles; the slab test is slabs_meet of shaders/exact_traverse.glsl.

    bench/obb_estimate.py MESH.stl|MESH.obj [POSES]   (default 40 poses)
"""
import numpy as np, sys
from model_meshes import load
rng = np.random.default_rng(1)
tris = load(sys.argv[1])
tris -= tris.reshape(-1,3).mean(0)
class Node: pass
def build(idx, depth=0):
    nd = Node(); pts = tris[idx].reshape(-1, 3)
    nd.lo, nd.hi = pts.min(0), pts.max(0)
    c = pts.mean(0); cov = np.cov((pts - c).T) if len(pts) > 3 else np.eye(3)
    w, v = np.linalg.eigh(cov); R = v  # columns = axes
    p = (pts - c) @ R; lo, hi = p.min(0), p.max(0)
    nd.oc = c + R @ ((lo + hi) / 2); nd.oe = (hi - lo) / 2; nd.oR = R
    e1 = tris[idx][:,1]-tris[idx][:,0]; e2 = tris[idx][:,2]-tris[idx][:,0]
    nrm = np.cross(e1, e2).sum(0); nrm = nrm / np.linalg.norm(nrm) if np.linalg.norm(nrm) > 1e-12 else np.array([0,0,1.])
    bc = (nd.lo + nd.hi) / 2; pr = (pts - bc) @ nrm
    nd.sn = nrm; nd.sm = (pr.max() + pr.min()) / 2; nd.sh = (pr.max() - pr.min()) / 2
    nd.leaf = len(idx) <= 4 or depth > 30
    if not nd.leaf:
        cen = tris[idx].mean(1); ax = np.argmax(cen.max(0) - cen.min(0))
        order = idx[np.argsort(cen[:, ax])]; h = len(order) // 2
        nd.kids = [build(order[:h], depth + 1), build(order[h:], depth + 1)]
    return nd
root = build(np.arange(len(tris)))
def obb_overlap(ca, Ra, ea, cb, Rb, eb):
    # boxes in world: A (ca, Ra cols, ea), B likewise; 15-axis SAT
    R = Ra.T @ Rb; t = Ra.T @ (cb - ca); AR = np.abs(R) + 1e-9
    for i in range(3):
        if abs(t[i]) > ea[i] + AR[i] @ eb: return False
    for j in range(3):
        if abs(t @ R[:, j]) > ea @ AR[:, j] + eb[j]: return False
    for i in range(3):
        for j in range(3):
            i1, i2 = (i + 1) % 3, (i + 2) % 3; j1, j2 = (j + 1) % 3, (j + 2) % 3
            ra = ea[i1] * AR[i2, j] + ea[i2] * AR[i1, j]; rb = eb[j1] * AR[i, j2] + eb[j2] * AR[i, j1]
            if abs(t[i2] * R[i1, j] - t[i1] * R[i2, j]) > ra + rb: return False
    return True
I3 = np.eye(3)
def slabs_meet(g, ea, eb, a, b, r):
    na = a.sn; nb = r @ b.sn
    ab = na @ nb; ka = ab / (nb @ nb); kb = ab / (na @ na)
    wa = na - ka * nb; wb = nb - kb * na
    ga = na @ g - a.sm; gb = nb @ g + b.sm
    return not (abs(ga) > a.sh + np.abs(na @ r) @ eb or abs(gb) > b.sh + np.abs(nb) @ ea or
                abs(ga + ka * b.sm) > a.sh + abs(ka) * b.sh + np.abs(wa @ r) @ eb or
                abs(gb - kb * a.sm) > b.sh + abs(kb) * a.sh + np.abs(wb) @ ea)
def count(Rrel, trel, use_obb):
    # B posed in A's frame: x -> Rrel x + trel
    n = 0; stack = [(root, root)]; leafpairs = 0
    while stack:
        a, b = stack.pop(); n += 1
        if not obb_overlap((a.lo + a.hi) / 2, I3, (a.hi - a.lo) / 2, Rrel @ ((b.lo + b.hi) / 2) + trel, Rrel, (b.hi - b.lo) / 2):
            continue
        ea, eb = (a.hi - a.lo) / 2, (b.hi - b.lo) / 2
        g = Rrel @ ((b.lo + b.hi) / 2) + trel - (a.lo + a.hi) / 2
        if not slabs_meet(g, ea, eb, a, b, Rrel):
            continue
        if use_obb and not obb_overlap(a.oc, a.oR, a.oe, Rrel @ b.oc + trel, Rrel @ b.oR, b.oe):
            continue
        if a.leaf and b.leaf: leafpairs += 1; continue
        if b.leaf or (not a.leaf and np.prod(a.hi - a.lo + 1e-9) >= np.prod(b.hi - b.lo + 1e-9)):
            stack += [(a.kids[0], b), (a.kids[1], b)]
        else:
            stack += [(a, b.kids[0]), (a, b.kids[1])]
    return n, leafpairs
def rand_rot():
    q = rng.normal(size=4); q /= np.linalg.norm(q); w, x, y, z = q
    return np.array([[1-2*(y*y+z*z), 2*(x*y-w*z), 2*(x*z+w*y)], [2*(x*y+w*z), 1-2*(x*x+z*z), 2*(y*z-w*x)], [2*(x*z-w*y), 2*(y*z+w*x), 1-2*(x*x+y*y)]])
r = np.linalg.norm(tris.reshape(-1, 3), axis=1).max()
tot = [0, 0]; lp = [0, 0]; N = int(sys.argv[2]) if len(sys.argv) > 2 else 60
for k in range(N):
    R = rand_rot(); d = rng.normal(size=3); d /= np.linalg.norm(d); t = d * rng.uniform(0, 2 * r)
    for u in (0, 1):
        n, l = count(R, t, u); tot[u] += n; lp[u] += l
print(sys.argv[1].split('/')[-1], len(tris), 'triangles; node pairs visited with box and slab %d, with the oriented box too %d (%.2f); leaf pairs %d, %d (%.2f)' % (tot[0], tot[1], tot[1] / tot[0], lp[0], lp[1], lp[1] / max(1, lp[0])))
