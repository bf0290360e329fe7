#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Estimates whether a cheap probe could find a hit between two open
meshes before the traversal does (docs/performance-notes.md, "Tried and
dropped"): at random poses, for the colliding ones, the node pairs a
depth-first descent visits before its first intersecting triangle pair,
against single greedy paths down both trees (no backtracking) that keep,
at each step, the first overlapping child pair, the most deeply
overlapping one, or a random one (up to four tries). A model, not the
library: a median split along the longest axis, leaves of up to 4
triangles, boxes only (no slabs), the triangle test a separating-axis
test in double.

    bench/probe_estimate.py MESH_A MESH_B RADIUS_FACTOR POSES
"""
import numpy as np, sys
from model_meshes import load
rng = np.random.default_rng(5)
class Node: pass
def build(tris, idx):
    nd=Node(); pts=tris[idx].reshape(-1,3); nd.lo=pts.min(0); nd.hi=pts.max(0); nd.idx=idx
    nd.leaf=len(idx)<=4
    if not nd.leaf:
        cen=tris[idx].mean(1); ax=np.argmax(cen.max(0)-cen.min(0)); o=idx[np.argsort(cen[:,ax])]; h=len(o)//2
        nd.kids=[build(tris,o[:h]),build(tris,o[h:])]
    return nd
def box_overlap(a, b, R, t):
    # b's box carried into a's frame (world of a): conservative AABB of rotated box
    cb=(b.lo+b.hi)/2; eb=(b.hi-b.lo)/2; c=R@cb+t; e=np.abs(R)@eb
    ca=(a.lo+a.hi)/2; ea=(a.hi-a.lo)/2
    gap=np.abs(c-ca)-(e+ea)
    return np.all(gap<=0), -gap.max()  # overlap depth proxy
def tri_int(A,B):
    # SAT on 11 axes (non-coplanar); A,B 3x3
    ea=[A[1]-A[0],A[2]-A[1],A[0]-A[2]]; eb=[B[1]-B[0],B[2]-B[1],B[0]-B[2]]
    axes=[np.cross(ea[0],ea[1]),np.cross(eb[0],eb[1])]+[np.cross(x,y) for x in ea for y in eb]
    for ax in axes:
        if ax@ax<1e-20: continue
        pa=A@ax; pb=B@ax
        if pa.max()<pb.min() or pb.max()<pa.min(): return False
    return True
def leaf_hit(ta, tb, a, b, R, t):
    for i in a.idx:
        for j in b.idx:
            if tri_int(ta[i], (R@tb[j].T).T+t): return True
    return False
def collide(ta,tb,ra,rb,R,t):
    st=[(ra,rb)]; n=0
    while st:
        a,b=st.pop(); n+=1
        if not box_overlap(a,b,R,t)[0]: continue
        if a.leaf and b.leaf:
            if leaf_hit(ta,tb,a,b,R,t): return True,n
            continue
        if b.leaf or (not a.leaf and np.sum((a.hi-a.lo)**2)>np.sum((b.hi-b.lo)**2)):
            st+= [(k,b) for k in a.kids]
        else: st+=[(a,k) for k in b.kids]
    return False,n
def greedy(ta,tb,ra,rb,R,t,h):
    a,b=ra,rb; steps=0
    while True:
        steps+=1
        if a.leaf and b.leaf: return leaf_hit(ta,tb,a,b,R,t),steps
        if b.leaf or (not a.leaf and np.sum((a.hi-a.lo)**2)>np.sum((b.hi-b.lo)**2)):
            cand=[(k,b) for k in a.kids]
        else: cand=[(a,k) for k in b.kids]
        sc=[box_overlap(x,y,R,t) for x,y in cand]
        ok=[(s[1],i) for i,s in enumerate(sc) if s[0]]
        if not ok: return False,steps
        if h=='first': i=ok[0][1]
        elif h=='deep': i=max(ok)[1]
        elif h=='rand': i=ok[rng.integers(len(ok))][1]
        a,b=cand[i]
def rand_rot():
    q=rng.normal(size=4); q/=np.linalg.norm(q); w,x,y,z=q
    return np.array([[1-2*(y*y+z*z),2*(x*y-w*z),2*(x*z+w*y)],[2*(x*y+w*z),1-2*(x*x+z*z),2*(y*z-w*x)],[2*(x*z-w*y),2*(y*z+w*x),1-2*(x*x+y*y)]])
ta=load(sys.argv[1]); tb=load(sys.argv[2]); fac=float(sys.argv[3]); N=int(sys.argv[4])
ta=ta-ta.reshape(-1,3).mean(0); tb=tb-tb.reshape(-1,3).mean(0)
ra=build(ta,np.arange(len(ta))); rb=build(tb,np.arange(len(tb)))
r_a=np.linalg.norm(ta.reshape(-1,3),axis=1).max(); r_b=np.linalg.norm(tb.reshape(-1,3),axis=1).max()
res={'first':[0,0],'deep':[0,0],'rand4':[0,0]}; ncol=0; dfs=[]
for k in range(N):
    R=rand_rot(); d=rng.normal(size=3); d/=np.linalg.norm(d); t=d*rng.uniform(0,1)**(1/3)*fac*(r_a+r_b)
    c,n=collide(ta,tb,ra,rb,R,t)
    if not c: continue
    ncol+=1; dfs.append(n)
    for h in ('first','deep'):
        ok,s=greedy(ta,tb,ra,rb,R,t,h); res[h][0]+=ok; res[h][1]+=s
    ok=False; s=0
    for rep in range(4):
        o,ss=greedy(ta,tb,ra,rb,R,t,'rand'); s+=ss; ok=ok or o
        if ok: break
    res['rand4'][0]+=ok; res['rand4'][1]+=s
print('colliding',ncol,'of',N,'dfs steps median',np.median(dfs) if dfs else 0)
for h,(ok,s) in res.items(): print(h,'found',ok,'of',ncol,'avg steps',s/max(ncol,1))
