# SPDX-License-Identifier: MIT
"""Triangle soups for the bench's Python models (obb_estimate.py,
probe_estimate.py): binary STL or OBJ (polygons fanned), as an array of
triangles x 3 vertices x 3 coordinates in double."""
import struct
import numpy as np


def load_stl(path):
    b = open(path, 'rb').read()
    n = struct.unpack('<I', b[80:84])[0]
    a = np.frombuffer(b[84:84 + n * 50], dtype=np.dtype([('n', '<f4', 3), ('v', '<f4', (3, 3)), ('a', '<u2')]))
    return a['v'].astype(np.float64)


def load_obj(path):
    vs, fs = [], []
    for line in open(path):
        if line.startswith('v '):
            vs.append([float(x) for x in line.split()[1:4]])
        elif line.startswith('f '):
            idx = [int(t.split('/')[0]) for t in line.split()[1:]]
            for k in range(1, len(idx) - 1):
                fs.append([idx[0] - 1, idx[k] - 1, idx[k + 1] - 1])
    return np.array(vs)[np.array(fs)]


def load(path):
    return load_stl(path) if path.lower().endswith('.stl') else load_obj(path)
