# SPDX-License-Identifier: MIT
"""End-to-end tests of the vkcollide command-line tool (stdlib only).

usage: python3 tests/test_cli.py PATH/TO/vkcollide [NAME-FILTER]

Environment (set by tests/meson.build):
  VKCOL_SOURCE_DIR   repository root (default: this file's parent's parent)
  VKCOL_MODELS_DIR   Assimp's test models (default /usr/share/assimp/models)
  VKCOLLIDE_VALIDATION=1 makes the tool fail on any validation message.

Exit status: 0 all passed, 1 some failed, 77 skipped (no Vulkan device; the
import tests, which need none, still ran and passed).

The assertions use only what the tool promises (exit codes, "vkcollide: FILE:
reason" lines, JSON keys) and geometry computed here from the files
themselves, never device names or driver quirks.
"""
import base64
import json
import math
import os
import re
import select
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

TIMEOUT_S = 120

TOOL = None
SOURCE_DIR = os.environ.get("VKCOL_SOURCE_DIR") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS_DIR = os.environ.get("VKCOL_MODELS_DIR") or "/usr/share/assimp/models"
EXAMPLES = os.path.join(SOURCE_DIR, "examples")

MESH_INFO_KEYS = {
    "file", "submesh_count", "vertex_count", "unique_vertex_count", "triangle_count",
    "degenerate_count", "closed", "boundary_edge_count", "nonmanifold_edge_count",
    "aabb_min", "aabb_max", "sphere_center", "sphere_radius", "origin", "origin_inside",
    "inner_radius", "inner_ball_count", "volume", "tree", "cube_resolution", "star_shaped",
    "cube_multi_hit_fraction", "device_bytes", "device",
}
TREE_KEYS = {"depth", "node_count", "leaf_count", "leaf_size_min", "leaf_size_mean", "leaf_size_max"}
DEVICE_KEYS = {
    "index", "name", "type", "api_version", "driver", "compute_queue", "max_workgroup_count",
    "max_storage_buffer_range", "max_texel_buffer_elements", "subgroup_size", "device_local_bytes", "chosen",
}


class Skip(Exception):
    pass


class Failure(AssertionError):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


class Run:
    def __init__(self, args, returncode, stdout, stderr):
        self.args, self.returncode, self.stdout, self.stderr = args, returncode, stdout, stderr

    def describe(self):
        return "vkcollide %s -> exit %s\n  stdout: %r\n  stderr: %r" % (
            " ".join(self.args), self.returncode, self.stdout[-800:], self.stderr[-800:])


def run(*args, env=None):
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    try:
        p = subprocess.run([TOOL] + list(args), capture_output=True, timeout=TIMEOUT_S, env=full_env)
    except subprocess.TimeoutExpired:
        raise Failure("vkcollide %s: no answer within %d s (hang)" % (" ".join(args), TIMEOUT_S))
    r = Run(list(args), p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"))
    # A signal is a crash whatever the test expected.
    if r.returncode < 0:
        try:
            name = signal.Signals(-r.returncode).name
        except ValueError:
            name = str(-r.returncode)
        raise Failure("crashed with %s\n%s" % (name, r.describe()))
    return r


def expect_exit(r, code):
    check(r.returncode == code, "expected exit %d\n%s" % (code, r.describe()))


def expect_error_line(r, name, *patterns):
    """One 'vkcollide: ...NAME...: reason' line on stderr matching every pattern."""
    lines = [l for l in r.stderr.splitlines() if l.startswith("vkcollide: ") and name in l]
    check(lines, "no 'vkcollide: ' line naming %r on stderr\n%s" % (name, r.describe()))
    check(len(set(lines)) == len(lines), "an error line is repeated\n%s" % r.describe())
    for pattern in patterns:
        check(any(re.search(pattern, l, re.IGNORECASE) for l in lines),
              "no error line matches %r\n%s" % (pattern, r.describe()))
    check(r.stdout == "", "output on stdout despite the error\n%s" % r.describe())


# The device state, probed once: GPU tests skip without a device.
_device_state = {}


def need_device():
    if "ok" not in _device_state:
        r = run("devices")
        _device_state["ok"] = r.returncode == 0
        _device_state["why"] = r.stderr.strip()
    if not _device_state["ok"]:
        raise Skip("no usable Vulkan device: " + _device_state["why"])


def mesh_info_json(path, *extra, env=None):
    need_device()
    r = run("mesh-info", path, "--json", *extra, env=env)
    expect_exit(r, 0)
    check(r.stderr == "", "stderr not empty on success (validation or library messages?)\n" + r.describe())
    try:
        info = json.loads(r.stdout)
    except ValueError as e:
        raise Failure("--json output is not JSON: %s\n%s" % (e, r.describe()))
    check(isinstance(info, dict), "--json output is not an object")
    return info


def read_obj(path):
    vertices, triangles = [], []
    with open(path) as f:
        for line in f:
            s = line.split()
            if s and s[0] == "v":
                vertices.append(tuple(float(x) for x in s[1:4]))
            elif s and s[0] == "f":
                idx = [int(x.split("/")[0]) - 1 for x in s[1:]]
                for k in range(1, len(idx) - 1):
                    triangles.append((idx[0], idx[k], idx[k + 1]))
    return vertices, triangles


def signed_volume(vertices, triangles):
    total = 0.0
    for a, b, c in triangles:
        (ax, ay, az), (bx, by, bz), (cx, cy, cz) = vertices[a], vertices[b], vertices[c]
        total += ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx)
    return total / 6.0


def close(a, b, tol):
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def write(directory, name, text):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text)
    return path


# ---------------------------------------------------------------------------
# Usage

def test_help_and_version():
    r = run("--help")
    expect_exit(r, 0)
    for name in ("devices", "mesh-info", "help"):
        check(name in r.stdout, "--help does not list %s\n%s" % (name, r.describe()))
    r = run("help", "mesh-info")
    expect_exit(r, 0)
    check("--json" in r.stdout and "--leaf-size" in r.stdout, "help mesh-info lacks its options\n" + r.describe())
    r = run("mesh-info", "--help")
    expect_exit(r, 0)
    check("usage: vkcollide mesh-info" in r.stdout, r.describe())
    r = run("--version")
    expect_exit(r, 0)
    check(re.match(r"vkcollide \d+\.\d+\.\d+\n$", r.stdout), "unexpected --version\n" + r.describe())


def test_usage_errors():
    cases = [
        ((), "no command"),
        (("frobnicate",), "unknown command 'frobnicate'"),
        (("--frobnicate",), "unknown option '--frobnicate'"),
        (("help", "frobnicate"), "unknown command 'frobnicate'"),
        (("mesh-info",), "no FILE"),
        (("mesh-info", "a.obj", "b.obj"), "more than one FILE"),
        (("mesh-info", "--bogus", "a.obj"), "unknown option '--bogus'"),
        (("mesh-info", "--leaf-size", "0", "a.obj"), "--leaf-size"),
        (("mesh-info", "a.obj", "--leaf-size"), "--leaf-size"),
        (("mesh-info", "--max-depth=49", "a.obj"), "--max-depth"),
        (("mesh-info", "--cube-resolution", "48", "a.obj"), "--cube-resolution"),
        (("devices", "extra"), "unexpected argument"),
    ]
    for args, message in cases:
        r = run(*args)
        expect_exit(r, 2)
        check(r.stderr.startswith("vkcollide: "), "first stderr line is not 'vkcollide: ...'\n" + r.describe())
        check(message in r.stderr, "stderr lacks %r\n%s" % (message, r.describe()))
        check("usage: vkcollide" in r.stderr, "no usage on stderr\n" + r.describe())
        check(r.stdout == "", "usage error wrote to stdout\n" + r.describe())


# ---------------------------------------------------------------------------
# devices

def test_devices():
    need_device()
    r = run("devices")
    expect_exit(r, 0)
    marked = [l for l in r.stdout.splitlines() if re.match(r"\* \d+: \S", l)]
    check(len(marked) == 1, "expected one device line marked '*'\n" + r.describe())
    for label in ("type", "API version", "driver", "compute queue", "max workgroup count",
                  "max storage buffer", "subgroup size", "device-local memory"):
        check(label in r.stdout, "devices does not show %r\n%s" % (label, r.describe()))


def test_devices_json():
    need_device()
    r = run("devices", "--json")
    expect_exit(r, 0)
    doc = json.loads(r.stdout)
    devices = doc["devices"]
    check(devices, "no devices in JSON")
    for d in devices:
        check(DEVICE_KEYS <= set(d), "device keys missing: %s" % (DEVICE_KEYS - set(d)))
        check(len(d["max_workgroup_count"]) == 3, "max_workgroup_count is not 3 numbers")
    chosen = [d for d in devices if d["chosen"]]
    check(len(chosen) == 1 and chosen[0]["index"] == doc["chosen"], "chosen device inconsistent: %r" % doc)
    check(chosen[0]["compute_queue"], "the chosen device has no compute queue")

    # Forcing the chosen device by index and by name keeps it chosen.
    for value in (str(chosen[0]["index"]), chosen[0]["name"]):
        r = run("devices", "--json", env={"VKCOLLIDE_DEVICE": value})
        expect_exit(r, 0)
        doc2 = json.loads(r.stdout)
        check(doc2["VKCOLLIDE_DEVICE"] == value, "VKCOLLIDE_DEVICE not shown")
        now = [d for d in doc2["devices"] if d["index"] == doc2["chosen"]]
        check(now and now[0]["name"] == chosen[0]["name"], "VKCOLLIDE_DEVICE=%s chose another device" % value)


def test_forced_missing_device():
    need_device()
    env = {"VKCOLLIDE_DEVICE": "no-such-device-e7f3"}
    r = run("devices", env=env)
    expect_exit(r, 1)
    check("* " not in r.stdout, "a device is marked although none matches\n" + r.describe())
    check(re.search(r"^vkcollide: .*no-such-device-e7f3", r.stderr, re.M), r.describe())
    r = run("mesh-info", os.path.join(EXAMPLES, "box.obj"), env=env)
    expect_exit(r, 1)
    check(r.stderr.startswith("vkcollide: "), r.describe())
    check(len(set(r.stderr.splitlines())) == len(r.stderr.splitlines()), "repeated line\n" + r.describe())


# ---------------------------------------------------------------------------
# mesh-info on good meshes

def test_box():
    path = os.path.join(EXAMPLES, "box.obj")
    info = mesh_info_json(path)
    check(MESH_INFO_KEYS <= set(info), "mesh-info keys missing: %s" % (MESH_INFO_KEYS - set(info)))
    check(TREE_KEYS <= set(info["tree"]), "tree keys missing: %s" % (TREE_KEYS - set(info["tree"])))
    check(info["unique_vertex_count"] == 8, "unique vertices %r" % info["unique_vertex_count"])
    check(info["vertex_count"] >= 8, "vertex_count %r" % info["vertex_count"])
    check(info["triangle_count"] == 12, "triangles %r" % info["triangle_count"])
    check(info["submesh_count"] == 1, "sub-meshes %r" % info["submesh_count"])
    check(info["closed"] is True, "box not closed")
    check(info["boundary_edge_count"] == 0 and info["nonmanifold_edge_count"] == 0, "box has bad edges")
    check(info["degenerate_count"] == 0, "box has degenerate triangles")
    check(close(info["volume"], 1.0, 1e-5), "volume %r" % info["volume"])
    # A convex box seen from its centre: one hit per ray.
    check(info["star_shaped"] is True and info["cube_multi_hit_fraction"] == 0, "box not star-shaped")
    check(all(close(v, -0.5, 1e-6) for v in info["aabb_min"]), "aabb_min %r" % info["aabb_min"])
    check(all(close(v, 0.5, 1e-6) for v in info["aabb_max"]), "aabb_max %r" % info["aabb_max"])
    check(info["origin_inside"] is True, "box origin not inside")
    check(all(-0.5 < c < 0.5 for c in info["origin"]), "origin %r outside the box" % info["origin"])
    check_sphere(info, read_obj(path)[0])
    check(info["device_bytes"] > 0, "no device memory reported")
    tree = info["tree"]
    check(tree["leaf_count"] >= 1 and tree["node_count"] >= tree["leaf_count"], "tree %r" % tree)
    check(tree["leaf_size_min"] <= tree["leaf_size_mean"] <= tree["leaf_size_max"], "tree %r" % tree)

    # The text form says the same in words.
    r = run("mesh-info", path)
    expect_exit(r, 0)
    text = r.stdout
    check(re.search(r"^vertices\s.*\b8 unique", text, re.M), "text: no '8 unique'\n" + r.describe())
    check(re.search(r"^triangles\s+12\b", text, re.M), "text: no '12' triangles\n" + r.describe())
    check(re.search(r"^surface\s+closed", text, re.M), "text: not closed\n" + r.describe())
    check(re.search(r"^volume\s+1\b", text, re.M), "text: no volume 1\n" + r.describe())


def check_sphere(info, vertices):
    c, radius = info["sphere_center"], info["sphere_radius"]
    far = max(math.dist(c, v) for v in vertices)
    check(far <= radius * (1 + 1e-5) + 1e-6, "bounding sphere misses a vertex (%g > %g)" % (far, radius))


def test_tree_options():
    path = os.path.join(EXAMPLES, "torus.obj")
    info = mesh_info_json(path, "--leaf-size", "1", "--max-depth=30", "--cube-resolution", "16")
    check(info["tree"]["leaf_size_max"] <= 1, "--leaf-size 1 not honoured: %r" % info["tree"])
    check(info["tree"]["depth"] <= 30, "--max-depth 30 not honoured: %r" % info["tree"])
    check(info["cube_resolution"] == 16, "--cube-resolution 16 not honoured")
    info = mesh_info_json(path, "--max-depth", "2")
    check(info["tree"]["depth"] <= 2, "--max-depth 2 not honoured: %r" % info["tree"])


def test_torus():
    path = os.path.join(EXAMPLES, "torus.obj")
    vertices, triangles = read_obj(path)
    info = mesh_info_json(path)
    check(info["triangle_count"] == len(triangles), "triangles %r" % info["triangle_count"])
    check(info["unique_vertex_count"] == len(vertices), "vertices %r" % info["unique_vertex_count"])
    check(info["closed"] is True, "torus not closed")
    expected = abs(signed_volume(vertices, triangles))
    check(close(info["volume"], expected, 1e-4), "volume %r, expected %r" % (info["volume"], expected))
    check_sphere(info, vertices)
    # From a point in the tube, rays that cross the hole meet the far side too.
    check(info["star_shaped"] is False and 0 < info["cube_multi_hit_fraction"] < 0.5,
          "torus star-shapedness %r %r" % (info["star_shaped"], info["cube_multi_hit_fraction"]))
    # The origin's ball fills a piece of the tube; more balls fill the rest.
    check(info["origin_inside"] is True and info["inner_radius"] > 0 and info["inner_ball_count"] >= 4,
          "torus inner balls %r %r" % (info["inner_radius"], info["inner_ball_count"]))


def test_open_model():
    path = os.path.join(MODELS_DIR, "STL", "sphereWithHole.stl")
    if not os.path.exists(path):
        raise Skip(path + " missing (assimp-testmodels)")
    info = mesh_info_json(path)
    check(info["closed"] is False, "sphereWithHole.stl reported closed")
    check(info["boundary_edge_count"] > 0, "open mesh without boundary edges")
    check(info["volume"] is None, "open mesh has a volume: %r" % info["volume"])
    check(info["inner_radius"] == 0 and info["inner_ball_count"] == 0,
          "open mesh has inner balls: %r %r" % (info["inner_radius"], info["inner_ball_count"]))
    r = run("mesh-info", path)
    expect_exit(r, 0)
    check(re.search(r"^surface\s+open", r.stdout, re.M), "text: not open\n" + r.describe())


def test_multi_node_scene():
    # glTF with the unit cube instanced twice: once as is, once under a parent
    # translated by (3, 0, 0) with a child scaled by 2. Checks that node
    # transforms are composed parent * child and that instances are merged.
    vertices, triangles = read_obj(os.path.join(EXAMPLES, "box.obj"))
    pos = b"".join(struct.pack("<3f", *v) for v in vertices)
    idx = b"".join(struct.pack("<3H", *t) for t in triangles)
    gltf = {
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [
            {"mesh": 0},
            {"translation": [3, 0, 0], "children": [2]},
            {"scale": [2, 2, 2], "mesh": 0},
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "buffers": [{"byteLength": len(pos) + len(idx),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(pos + idx).decode()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": len(pos), "target": 34962},
            {"buffer": 0, "byteOffset": len(pos), "byteLength": len(idx), "target": 34963},
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": len(vertices), "type": "VEC3",
             "min": [-0.5, -0.5, -0.5], "max": [0.5, 0.5, 0.5]},
            {"bufferView": 1, "componentType": 5123, "count": 3 * len(triangles), "type": "SCALAR"},
        ],
    }
    with tempfile.TemporaryDirectory() as d:
        path = write(d, "two_boxes.gltf", json.dumps(gltf))
        info = mesh_info_json(path)
    check(info["submesh_count"] == 2, "sub-meshes %r, expected 2 instances" % info["submesh_count"])
    check(info["triangle_count"] == 24, "triangles %r" % info["triangle_count"])
    check(info["unique_vertex_count"] == 16, "unique vertices %r" % info["unique_vertex_count"])
    check(info["closed"] is True, "two disjoint cubes not closed")
    check(close(info["volume"], 1.0 + 8.0, 1e-5), "volume %r, expected 9" % info["volume"])
    want_min, want_max = [-0.5, -1.0, -1.0], [4.0, 1.0, 1.0]
    check(all(close(a, b, 1e-5) for a, b in zip(info["aabb_min"], want_min)), "aabb_min %r" % info["aabb_min"])
    check(all(close(a, b, 1e-5) for a, b in zip(info["aabb_max"], want_max)), "aabb_max %r" % info["aabb_max"])


# ---------------------------------------------------------------------------
# Bad input: exit 2, one line naming the file, never a crash or a hang.

# What each file of Assimp's invalid/ corpus really is. malformed2.obj has an
# empty "f" line and an unknown material but five good quads: a valid (open)
# mesh. Files not listed are expected to be rejected.
INVALID_DIR_VALID = {"malformed2.obj": 10}


def test_invalid_corpus():
    directory = os.path.join(MODELS_DIR, "invalid")
    if not os.path.isdir(directory):
        raise Skip(directory + " missing (assimp-testmodels)")
    names = sorted(os.listdir(directory))
    check(names, "empty corpus")
    skipped = None
    for name in names:
        path = os.path.join(directory, name)
        if name in INVALID_DIR_VALID:
            # Needs a device; the rejections below do not.
            try:
                info = mesh_info_json(path)
            except Skip as e:
                skipped = e
                continue
            check(info["triangle_count"] == INVALID_DIR_VALID[name], "%s: triangles %r" % (name, info))
            continue
        r = run("mesh-info", path)
        try:
            expect_exit(r, 2)
            expect_error_line(r, name)
        except Failure as e:
            raise Failure("%s: %s" % (name, e))
        if os.path.getsize(path) == 0:
            expect_error_line(r, name, r"empty")
    if skipped:
        raise skipped


def test_nonexistent_file():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "no_such_mesh.obj")
        r = run("mesh-info", path)
        expect_exit(r, 2)
        expect_error_line(r, "no_such_mesh.obj", r"no such file")
        r = run("mesh-info", d)
        expect_exit(r, 2)
        expect_error_line(r, d, r"directory")


def test_non_finite_coordinates():
    # Assimp parses "nan" and "inf"; the library's check must name the vertex.
    with tempfile.TemporaryDirectory() as d:
        for name, value in (("nan.obj", "nan"), ("inf.obj", "inf"), ("minus_inf.obj", "-inf")):
            path = write(d, name, "v 0 0 0\nv 1 0 0\nv 0 1 0\nv %s 0 1\nf 1 2 3\nf 1 2 4\n" % value)
            r = run("mesh-info", path)
            expect_exit(r, 2)
            expect_error_line(r, name, r"vertex \d+", r"non-finite|nan|inf")


def test_index_out_of_range():
    with tempfile.TemporaryDirectory() as d:
        # Assimp's OBJ reader rejects these itself, positive and negative.
        for name, face in (("oor.obj", "f 1 2 9"), ("oor_negative.obj", "f 1 2 -9"), ("zero.obj", "f 0 1 2")):
            path = write(d, name, "v 0 0 0\nv 1 0 0\nv 0 1 0\n%s\n" % face)
            r = run("mesh-info", path)
            expect_exit(r, 2)
            expect_error_line(r, name, r"index")
        # Assimp's OFF reader clamps the index and only logs it: the tool
        # must still refuse the file.
        path = write(d, "oor.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n")
        r = run("mesh-info", path)
        expect_exit(r, 2)
        expect_error_line(r, "oor.off", r"out of range")
        # PLY: Assimp passes the index through; the importer's own check
        # catches it.
        path = write(d, "oor.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                     "property float y\nproperty float z\nelement face 1\n"
                     "property list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 9\n")
        r = run("mesh-info", path)
        expect_exit(r, 2)
        expect_error_line(r, "oor.ply", r"index")


def test_no_triangles():
    def refused(path, *patterns):
        r = run("mesh-info", path)
        expect_exit(r, 2)
        expect_error_line(r, os.path.basename(path), *patterns)

    with tempfile.TemporaryDirectory() as d:
        refused(write(d, "lines.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nl 1 2\np 3\n"), r"no triangles")
        refused(write(d, "comments.obj", "# nothing here\n\n"))
        refused(write(d, "garbage.stl", "\x00\x01\x02 not a mesh at all\n" * 4))
        # UTF-16 text (with its byte order mark), which Assimp's OBJ reader
        # reads as empty: the error says what the file is.
        path = os.path.join(d, "utf16.obj")
        with open(path, "wb") as f:
            f.write("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n".encode("utf-16"))
        refused(path, r"UTF-16 text")
        # An extension no reader of Assimp claims (VRML): Assimp tries its
        # readers by content (a gzipped .wrl gets the Blender reader's
        # complaint); the error says first that there is no reader for it.
        refused(write(d, "scene.wrl", "#VRML V2.0 utf8\nShape { geometry IndexedFaceSet { } }\n"),
                r"no reader for \.wrl files")


def test_absurd_counts():
    # Headers promising billions of elements in a few bytes: an error, quickly,
    # without allocating what they promise (the importer's child process has
    # an address-space limit far below it on any machine).
    with tempfile.TemporaryDirectory() as d:
        files = {
            "huge_faces.off": "OFF\n3 4000000000 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n",
            "huge_vertices.off": "OFF\n4000000000 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n",
            "huge.ply": "ply\nformat ascii 1.0\nelement vertex 4000000000\nproperty float x\n"
                        "property float y\nproperty float z\nelement face 1\n"
                        "property list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n",
        }
        for name, text in files.items():
            path = write(d, name, text)
            r = run("mesh-info", path)
            expect_exit(r, 2)
            expect_error_line(r, name)


# ---------------------------------------------------------------------------
# collide
#
# Box against box (examples/box.obj, the unit cube centred on the origin),
# B translated without rotation. Only clear-cut poses: with B moved by
# (0.5, 0.3, 0.2) a vertex of B lies 0.2 deep inside A (collide, decided by the
# cube-map stage); moved by (1.2, 0, 0) the boxes are 0.2 apart although their
# bounding spheres (radius 0.866) overlap (no collision, decided by the boxes
# in stage 0, "bounds"); moved by (3, 0, 0) the spheres are apart ("bounds"). Touching poses (B at x = 1,
# or at the identity, every vertex on a face) are in the float tolerance band
# and avoided.

HIT = "1 0 0 0 0.5 0.3 0.2"
NEAR_MISS = "1 0 0 0 1.2 0 0"
FAR = "1 0 0 0 3 0 0"
CSV_HEADER = "index,collide,stage,penetration,triangle_pairs,line"
STAGES = {"bounds", "cube_map", "tree", "containment"}


def box_path():
    return os.path.join(EXAMPLES, "box.obj")


def collide(poses_path, *extra, env=None, a=None, b=None):
    need_device()
    return run("collide", a or box_path(), b or box_path(), "--poses", poses_path, *extra, env=env)


def parse_csv(text):
    """The rows of collide's CSV output as dicts, after checking the header."""
    lines = text.splitlines()
    check(lines and lines[0] == CSV_HEADER, "CSV header %r, expected %r" % (lines[:1], CSV_HEADER))
    rows = []
    for l in lines[1:]:
        f = l.split(",")
        check(len(f) == 6, "CSV row %r has %d fields" % (l, len(f)))
        check(f[1] in ("0", "1"), "collide %r is not 0 or 1" % f[1])
        check(f[2] in STAGES, "stage %r is not one of %s" % (f[2], sorted(STAGES)))
        rows.append({"index": int(f[0]), "collide": f[1] == "1", "stage": f[2],
                     "penetration": float(f[3]), "triangle_pairs": int(f[4]), "line": int(f[5])})
    return rows


def check_rows(rows, expected):
    """expected: (line, collide, stage) per pose, in order."""
    check(len(rows) == len(expected), "%d rows, expected %d: %r" % (len(rows), len(expected), rows))
    for i, (row, (line, hit, stage)) in enumerate(zip(rows, expected)):
        check(row["index"] == i, "row %d has index %r" % (i, row["index"]))
        check(row["line"] == line, "row %d: line %r, expected %d" % (i, row["line"], line))
        check(row["collide"] == hit, "row %d (line %d): collide %r, expected %r" % (i, line, row["collide"], hit))
        check(row["stage"] == stage, "row %d (line %d): stage %r, expected %r" % (i, line, row["stage"], stage))
        if hit:
            check(0 < row["penetration"] < 1, "row %d: penetration %r" % (i, row["penetration"]))
        else:
            check(row["penetration"] == 0, "row %d: penetration %r for a miss" % (i, row["penetration"]))


# Comment lines (with leading blanks too), blank lines, blank-only lines:
# index counts poses only, line counts every line.
MIXED_POSES = "# header comment\n%s\n\n   # indented comment\n%s\n \t \n%s\n%s" % (HIT, FAR, NEAR_MISS, HIT)
MIXED_EXPECTED = [(2, True, "cube_map"), (5, False, "bounds"), (7, False, "bounds"), (8, True, "cube_map")]


def test_collide_csv():
    with tempfile.TemporaryDirectory() as d:
        path = write(d, "poses.txt", MIXED_POSES)  # no final newline
        r = collide(path)
        expect_exit(r, 0)
        check(r.stderr == "", "stderr not empty (progress on a pipe? validation?)\n" + r.describe())
        check_rows(parse_csv(r.stdout), MIXED_EXPECTED)
        # Other resolutions and mip levels give the same clear-cut answers.
        for extra in (("--resolution", "16"), ("--resolution=256", "--mip", "2"), ("--mip", "10"),
                      ("--mode", "approx", "--vertex-budget", "1"), ("--mode=approx", "--vertex-budget=0")):
            r = collide(path, *extra)
            expect_exit(r, 0)
            check_rows(parse_csv(r.stdout), MIXED_EXPECTED)


def test_collide_jsonl():
    with tempfile.TemporaryDirectory() as d:
        path = write(d, "poses.txt", MIXED_POSES + "\n")
        r = collide(path, "--format", "jsonl")
        expect_exit(r, 0)
        check(r.stderr == "", r.describe())
        rows = []
        for l in r.stdout.splitlines():
            try:
                row = json.loads(l)
            except ValueError as e:
                raise Failure("not a JSON line: %r (%s)" % (l, e))
            check(set(row) == {"index", "collide", "stage", "penetration", "triangle_pairs", "line"},
                  "keys %r" % sorted(row))
            check(isinstance(row["collide"], bool), "collide %r is not a JSON boolean" % row["collide"])
            check(isinstance(row["index"], int) and isinstance(row["line"], int), "index/line not integers")
            check(isinstance(row["penetration"], (int, float)), "penetration %r" % row["penetration"])
            rows.append(row)
        check_rows(rows, MIXED_EXPECTED)
        # The same answers as the CSV.
        r2 = collide(path)
        expect_exit(r2, 0)
        check([(x["collide"], x["stage"], x["penetration"]) for x in rows] ==
              [(x["collide"], x["stage"], x["penetration"]) for x in parse_csv(r2.stdout)],
              "jsonl and csv disagree\n%s\n%s" % (r.stdout, r2.stdout))


def test_collide_separators():
    # Commas, commas with blanks, tabs, CRLF line ends and a UTF-8 byte order
    # mark all read as the plain file does; a rotation that maps the box onto
    # itself (90 degrees about z) changes nothing; the quaternion need not be
    # unit length.
    text = ("\ufeff1,0,0,0,0.5,0.3,0.2\r\n"
            "1, 0, 0, 0, 3, 0, 0\r\n"
            "1\t0\t0\t0\t1.2\t0\t0\r\n"
            "0.70710678 0 0 0.70710678, 0.5 0.3 0.2\r\n"
            "2 0 0 0 1.2 0 0\n"
            "-1e0 0 0 0 +5e-1 0.3 2E-1\n")
    expected = [(1, True, "cube_map"), (2, False, "bounds"), (3, False, "bounds"), (4, True, "cube_map"),
                (5, False, "bounds"), (6, True, "cube_map")]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "poses.csv")
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        r = collide(path)
        expect_exit(r, 0)
        check_rows(parse_csv(r.stdout), expected)


# Bad lines: (text, column of the offending field, pattern in the reason).
BAD_LINES = [
    ("1 0 0 0 0.5 0.3", 16, r"6 numbers, expected 7"),
    ("1 0 0", 6, r"3 numbers, expected 7"),
    ("1 0 zero 0 3 0 0", 5, r"'zero' is not a number"),
    ("1 0 0 0 nan 0 0", 9, r"'nan' is not a finite number"),
    ("1 0 0 0 3 0 -inf", 13, r"'-inf' is not a finite number"),
    ("0 0 0 0 3 0 0", 1, r"zero quaternion"),
    ("0,0,0,0,3,0,0", 1, r"zero quaternion"),
    ("1 0 0 0 3 0 0 7", 15, r"unexpected '7'"),
    ("1 0 0 0 3 0 0 garbage", 15, r"unexpected 'garbage'"),
    ("1 0 0 0 3 0 0x", 13, r"'0x' is not a number"),
    ("1 0 0 0 3 0 0 # a trailing comment", 15, r"unexpected '#'"),
    ("1,0,0,,3,0,0", 7, r"empty field"),
    ("1 0 0 0 1e39 0 0", 9, r"out of range"),
]


def test_collide_bad_lines():
    # Lines 1-2 comments, 3-4 good poses, 5 blank, 6 bad, 7 a good pose never
    # reached. The results of lines 3 and 4 are written before the error.
    head = "# poses\n# more\n%s\n%s\n\n" % (HIT, FAR)
    expected = [(3, True, "cube_map"), (4, False, "bounds")]
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out.csv")
        for bad, column, reason in BAD_LINES:
            path = write(d, "bad.txt", head + bad + "\n" + HIT + "\n")
            r = collide(path, "--out", out)
            try:
                expect_exit(r, 2)
                lines = r.stderr.splitlines()
                check(len(lines) == 1, "expected one line on stderr\n" + r.describe())
                want = "vkcollide: %s:6:%d: " % (path, column)
                check(lines[0].startswith(want), "expected %r...\n%s" % (want, r.describe()))
                check(re.search(reason, lines[0]), "reason does not match %r\n%s" % (reason, r.describe()))
                with open(out) as f:
                    check_rows(parse_csv(f.read()), expected)
            except Failure as e:
                raise Failure("bad line %r: %s" % (bad, e))

        # On stdout too, and with one pose per block (the partial block after
        # full ones is flushed), and in jsonl.
        path = write(d, "bad.txt", head + "1 0 0 0 0.5 0.3 nan\n")
        for extra in ((), ("--chunk", "1"), ("--chunk", "3")):
            r = collide(path, *extra)
            expect_exit(r, 2)
            check(re.match(r"vkcollide: .*bad\.txt:6:17: ", r.stderr), r.describe())
            check_rows(parse_csv(r.stdout), expected)
        r = collide(path, "--format", "jsonl")
        expect_exit(r, 2)
        check_rows([json.loads(l) for l in r.stdout.splitlines()], expected)

        # A bad first line: the header alone, and the error.
        path = write(d, "bad.txt", "1 2 3\n")
        r = collide(path)
        expect_exit(r, 2)
        check(r.stdout == CSV_HEADER + "\n", r.describe())
        check(re.match(r"vkcollide: .*bad\.txt:1:6: ", r.stderr), r.describe())


def test_collide_empty():
    # No pose lines: the CSV header alone (jsonl: nothing), exit 0.
    with tempfile.TemporaryDirectory() as d:
        for name, text in (("empty.txt", ""), ("comments.txt", "# nothing\n\n  \n# yet\n")):
            path = write(d, name, text)
            r = collide(path)
            expect_exit(r, 0)
            check(r.stdout == CSV_HEADER + "\n" and r.stderr == "", r.describe())
            r = collide(path, "--format", "jsonl")
            expect_exit(r, 0)
            check(r.stdout == "" and r.stderr == "", r.describe())


def test_collide_out():
    with tempfile.TemporaryDirectory() as d:
        path = write(d, "poses.txt", MIXED_POSES)
        out = os.path.join(d, "results.csv")
        write(d, "results.csv", "old content that must go\n" * 10)
        r = collide(path, "--out", out)
        expect_exit(r, 0)
        check(r.stdout == "" and r.stderr == "", "--out still wrote to stdout/stderr\n" + r.describe())
        with open(out) as f:
            check_rows(parse_csv(f.read()), MIXED_EXPECTED)
        # Standard input as the poses file.
        need_device()
        p = subprocess.run([TOOL, "collide", box_path(), box_path(), "--poses", "-", "--out=" + out],
                           input=MIXED_POSES.encode(), capture_output=True, timeout=TIMEOUT_S)
        check(p.returncode == 0, "--poses - failed: %r" % p.stderr)
        with open(out) as f:
            check_rows(parse_csv(f.read()), MIXED_EXPECTED)
        # The poses file itself is refused as the output, untouched.
        r = collide(path, "--out", path)
        expect_exit(r, 2)
        with open(path) as f:
            check(f.read() == MIXED_POSES, "--out overwrote the poses file")
        # An output that cannot be created.
        r = collide(path, "--out", os.path.join(d, "no", "such", "dir.csv"))
        expect_exit(r, 2)
        expect_error_line(r, "dir.csv")


def test_collide_write_error():
    # A full disk is a runtime failure, said once, not a silent success.
    if not os.path.exists("/dev/full"):
        raise Skip("no /dev/full")
    with tempfile.TemporaryDirectory() as d:
        path = write(d, "poses.txt", MIXED_POSES)
        r = collide(path, "--out", "/dev/full")
        expect_exit(r, 1)
        check(re.match(r"vkcollide: /dev/full: cannot write the results: .+\n$", r.stderr), r.describe())
        need_device()
        with open("/dev/full", "w") as full:
            p = subprocess.run([TOOL, "collide", box_path(), box_path(), "--poses", path], stdout=full,
                               stderr=subprocess.PIPE, timeout=TIMEOUT_S)
        check(p.returncode == 1, "exit %d writing to a full stdout" % p.returncode)
        check(len(p.stderr.splitlines()) == 1 and b"cannot write" in p.stderr, "stderr %r" % p.stderr)


def test_collide_exact_mode():
    # Exact mode (the default) gives the same answers as approx mode on these
    # clear-cut poses, and counts intersecting triangle pairs when the tree
    # decides; crossing boxes that share no vertex inside each other (a
    # plus sign) are found by exact mode, which approx mode cannot see.
    with tempfile.TemporaryDirectory() as d:
        path = write(d, "poses.txt", MIXED_POSES)
        for args in ((), ("--mode", "exact")):
            r = collide(path, *args)
            expect_exit(r, 0)
            check_rows(parse_csv(r.stdout), MIXED_EXPECTED)
        r = collide(write(d, "empty.txt", ""), "--mode", "exact")
        expect_exit(r, 0)
        check(r.stdout == CSV_HEADER + "\n", r.describe())
        long_box = write(d, "long.obj", "\n".join(
            ["v %g %g %g" % (x, y, z) for x in (-2, 2) for y in (-0.2, 0.2) for z in (-0.2, 0.2)] +
            ["f 1 3 4 2", "f 5 6 8 7", "f 1 2 6 5", "f 3 7 8 4", "f 1 5 7 3", "f 2 4 8 6"]) + "\n")
        # B turned 90 degrees about z and moved to (1.5, 1, 0): the long boxes
        # cross like a plus near A's end, no vertex of either inside the
        # other, origins' inner balls (radius 0.2) 1.8 apart.
        plus = write(d, "plus.txt", "0.70710678 0 0 0.70710678 1.5 1 0\n")
        r = run("collide", long_box, long_box, "--poses", plus)
        expect_exit(r, 0)
        rows = parse_csv(r.stdout)
        check(len(rows) == 1 and rows[0]["collide"], "exact mode missed the plus\n" + r.describe())
        r = run("collide", long_box, long_box, "--poses", plus, "--mode", "approx")
        expect_exit(r, 0)
        check(not parse_csv(r.stdout)[0]["collide"], "approx mode saw the plus?\n" + r.describe())


def test_collide_same_bytes():
    # The same poses give the same bytes, run after run, in both modes:
    # the penetration and the triangle count too, which came from whichever
    # of a pair's invocations the device happened to run first.
    import random
    rng = random.Random(17)
    star = os.path.join(SOURCE_DIR, "bench", "meshes", "star.obj")
    bowl = os.path.join(SOURCE_DIR, "bench", "meshes", "open_hemisphere.obj")
    torus = os.path.join(EXAMPLES, "torus.obj")
    with tempfile.TemporaryDirectory() as d:
        for a, b, reach in ((torus, star, 2.4), (bowl, torus, 1.8)):
            lines = []
            for _ in range(6000):
                q = [rng.gauss(0, 1) for _ in range(4)]
                n = math.sqrt(sum(c * c for c in q))
                t = [rng.uniform(-reach, reach) for _ in range(3)]
                lines.append(" ".join("%.7f" % v for v in [c / n for c in q] + t))
            path = write(d, "poses.txt", "\n".join(lines) + "\n")
            for mode in ("approx", "exact"):
                outs = []
                for _ in range(3):
                    r = run("collide", a, b, "--poses", path, "--mode", mode)
                    expect_exit(r, 0)
                    outs.append(r.stdout)
                rows = parse_csv(outs[0])
                deep = sum(1 for row in rows if row["penetration"] > 0)
                counted = sum(1 for row in rows if row["triangle_pairs"] > 0)
                check(deep > 100 and (mode == "approx" or counted > 30), "%s-%s %s: %d rows with a penetration, "
                      "%d with triangle pairs" % (os.path.basename(a), os.path.basename(b), mode, deep, counted))
                check(all(row["triangle_pairs"] in (0, 1) for row in rows), "a triangle count above 1 without "
                      "--triangle-pairs")
                check(outs[1] == outs[0] and outs[2] == outs[0], "%s-%s %s: the same poses gave other bytes" % (
                    os.path.basename(a), os.path.basename(b), mode))


def test_collide_usage_errors():
    box = box_path()
    cases = [
        (("collide",), "no mesh files"),
        (("collide", box), "two needed"),
        (("collide", box, box), "no --poses"),
        (("collide", box, box, box, "--poses", "p"), "more than two"),
        (("collide", box, box, "--poses"), "--poses"),
        (("collide", box, box, "--poses", "p", "--resolution", "48"), "--resolution"),
        (("collide", box, box, "--poses", "p", "--resolution", "2048"), "--resolution"),
        (("collide", box, box, "--poses", "p", "--resolution=2"), "--resolution"),
        (("collide", box, box, "--poses", "p", "--resolution", "-64"), "--resolution"),
        (("collide", box, box, "--poses", "p", "--mode", "fast"), "--mode"),
        (("collide", box, box, "--poses", "p", "--format", "xml"), "--format"),
        (("collide", box, box, "--poses", "p", "--mip", "11"), "--mip"),
        (("collide", box, box, "--poses", "p", "--vertex-budget", "-1"), "--vertex-budget wants"),
        (("collide", box, box, "--poses", "p", "--vertex-budget", "500"), "--vertex-budget needs --mode approx"),
        (("collide", box, box, "--poses", "p", "--chunk", "0"), "--chunk"),
        (("collide", box, box, "--poses", "p", "--bogus"), "unknown option '--bogus'"),
        (("collide", box, box, "--poses", "p", "--triangle-pairs"), "--triangle-pairs wants a file name"),
        (("collide", box, box, "--poses", "p", "--triangle-pairs", "-"), "not '-'"),
        (("collide", box, box, "--poses", "p", "--triangle-pairs", "t", "--mode", "approx"),
         "--triangle-pairs needs exact mode"),
        (("collide", box, box, "--poses", "p", "--max-triangle-pairs", "5"), "needs --triangle-pairs"),
        (("collide", box, box, "--poses", "p", "--triangle-pairs", "t", "--max-triangle-pairs", "0"),
         "--max-triangle-pairs"),
        (("collide", box, box, "--poses", "p", "--triangle-pairs", "t", "--max-triangle-pairs=-1"),
         "--max-triangle-pairs"),
    ]
    for args, message in cases:
        r = run(*args)
        expect_exit(r, 2)
        check(r.stderr.startswith("vkcollide: collide: "), "first stderr line\n" + r.describe())
        check(message in r.stderr, "stderr lacks %r\n%s" % (message, r.describe()))
        check("usage: vkcollide collide" in r.stderr, "no usage on stderr\n" + r.describe())
        check(r.stdout == "", r.describe())


def test_collide_bad_inputs():
    # Checked before any device work: these need no device.
    with tempfile.TemporaryDirectory() as d:
        poses = write(d, "poses.txt", HIT + "\n")
        r = run("collide", box_path(), box_path(), "--poses", os.path.join(d, "missing.txt"))
        expect_exit(r, 2)
        expect_error_line(r, "missing.txt", r"no such file")
        r = run("collide", box_path(), box_path(), "--poses", d)
        expect_exit(r, 2)
        expect_error_line(r, d, r"directory")
        r = run("collide", box_path(), os.path.join(d, "no_mesh.obj"), "--poses", poses)
        expect_exit(r, 2)
        expect_error_line(r, "no_mesh.obj", r"no such file")
        bad = write(d, "nan_mesh.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv nan 0 1\nf 1 2 3\nf 1 2 4\n")
        r = run("collide", bad, box_path(), "--poses", poses)
        expect_exit(r, 2)
        expect_error_line(r, "nan_mesh.obj", r"vertex \d+")


def test_collide_verify():
    with tempfile.TemporaryDirectory() as d:
        path = write(d, "poses.txt", MIXED_POSES)
        r = collide(path, "--verify")
        expect_exit(r, 0)
        check_rows(parse_csv(r.stdout), MIXED_EXPECTED)
        lines = r.stderr.splitlines()
        check(len(lines) == 1 and lines[0].startswith("vkcollide: verify: "), "no summary\n" + r.describe())
        check(re.search(r"\b4 poses, 4 agree \(100\.00%\), 0 false positives, 0 false negatives", lines[0]),
              "unexpected summary\n" + r.describe())
        check(re.search(r"says 2 collide", lines[0]), "reference count\n" + r.describe())
        # A bad line: the summary covers the poses before it, then the error.
        path = write(d, "bad.txt", HIT + "\n" + "1 0 0 0 nan 0 0\n")
        r = collide(path, "--verify")
        expect_exit(r, 2)
        lines = r.stderr.splitlines()
        check(len(lines) == 2 and "1 poses, 1 agree" in lines[0] and "bad.txt:2:9:" in lines[1], r.describe())


def test_collide_verify_band():
    # Two unit cubes face to face, 0.14 to 0.55 of the touching distance
    # apart (docs/semantics.md: 2e-6 x the smaller radius, 1.73e-6 here):
    # exact mode may say either, and --verify places every false positive
    # it gives: all of them within that distance, and no false negative.
    cube = "".join("v %d %d %d\n" % (x, y, z) for z in (0, 1) for y in (0, 1) for x in (0, 1))
    cube += "f 1 4 2\nf 1 3 4\nf 5 6 8\nf 5 8 7\nf 1 2 6\nf 1 6 5\nf 2 4 8\nf 2 8 6\nf 4 3 7\nf 4 7 8\n"
    cube += "f 3 1 5\nf 3 5 7\n"
    with tempfile.TemporaryDirectory() as d:
        a = write(d, "cube.obj", cube)
        poses = write(d, "p.txt", "1 0 0 0 1.0000002 0.3 0.2\n1 0 0 0 1.0000005 0.5 0.5\n"
                      "1 0 0 0 1.0000009 -0.2 0.1\n1 0 0 0 0 1.0000004 0.25\n1 0 0 0 0.5 0 0\n")
        r = collide(poses, "--verify", a=a, b=a)
        expect_exit(r, 0)
        summary = [l for l in r.stderr.splitlines() if re.match(r"vkcollide: verify: \d+ poses", l)]
        check(len(summary) == 1, r.describe())
        m = re.search(r"5 poses, (\d+) agree .*, (\d+) false positives, 0 false negatives", summary[0])
        check(m and int(m.group(1)) + int(m.group(2)) == 5, r.describe())
        fp = int(m.group(2))
        band = re.search(r"; (\d+) of the false positives within the touching distance$", summary[0])
        check((band is None) == (fp == 0), r.describe())
        check(fp == 0 or int(band.group(1)) == fp, r.describe())


def test_collide_degenerate_triangles():
    # A "segment" triangle (first and third corner equal) and a "point"
    # triangle 2.98 apart: exact mode agrees with the reference (no
    # collision) and lists no triangle pair.
    with tempfile.TemporaryDirectory() as d:
        a = write(d, "a.obj", "v -66.724846 1.179926 10.029461\nv -57.915882 6.628378 1.958869\nf 1 2 1\n")
        b = write(d, "b.obj", "v -66.724846 1.234471 -28.696123\nf 1 1 1\n")
        poses = write(d, "p.txt", "0.2181380949303463 0.12753604558997039 -0.96124160581086548 "
                      "0.11029462304927259 -135.76464302488543 -17.782028867856638 11.631106874534117\n")
        pairs = os.path.join(d, "pairs.csv")
        r = collide(poses, "--verify", "--triangle-pairs", pairs, a=a, b=b)
        expect_exit(r, 0)
        rows = parse_csv(r.stdout)
        check(len(rows) == 1 and not rows[0]["collide"] and rows[0]["triangle_pairs"] == 0, r.describe())
        check("1 poses, 1 agree" in r.stderr and "0 false positives" in r.stderr, r.describe())
        with open(pairs) as f:
            check(f.read().splitlines() == ["index,triangle_a,triangle_b"], "triangle pairs listed")


def test_collide_verify_disagreements():
    # Approx mode at a coarse resolution disagrees with the reference on some
    # of the example's torus poses: --verify names the first 10, each with
    # its index, line and the surfaces' distance from the reference, then
    # the summary.
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(EXAMPLES, "poses.txt")) as f:
            lines = [l for l in f.read().splitlines() if l and not l.startswith("#")][:300]
        path = write(d, "poses.txt", "\n".join(lines) + "\n")
        torus = os.path.join(EXAMPLES, "torus.obj")
        r = collide(path, "--verify", "--mode", "approx", "--resolution", "4", a=torus, b=torus)
        expect_exit(r, 0)
        told = [l for l in r.stderr.splitlines() if l.startswith("vkcollide: verify: pose ")]
        summary = [l for l in r.stderr.splitlines() if re.match(r"vkcollide: verify: \d+ poses", l)]
        check(len(summary) == 1, r.describe())
        m = re.search(r"(\d+) false positives, (\d+) false negatives", summary[0])
        wrong = int(m.group(1)) + int(m.group(2))
        check(wrong > 0, "approx mode at resolution 4 agrees everywhere: no disagreement to show\n" + r.describe())
        check(len(told) == min(wrong, 10), "%d disagreements, %d described\n%s" % (wrong, len(told), r.describe()))
        rows = parse_csv(r.stdout)
        for line in told:
            m = re.match(r"vkcollide: verify: pose (\d+) \(line (\d+)\): approx mode says (collide|no collision), "
                         r"the reference (collide|no collision); surfaces ([0-9.e+-]+) apart$", line)
            check(m and m.group(3) != m.group(4), line)
            index = int(m.group(1))
            check(rows[index]["line"] == int(m.group(2)) and rows[index]["collide"] == (m.group(3) == "collide"), line)
            # Surfaces that cross are 0 apart; a pose the reference says
            # does not collide is at a positive distance.
            check(m.group(4) == "collide" or float(m.group(5)) > 0.0, line)


def test_collide_many_poses():
    # 300,000 poses, alternately a hit and a miss (a comment every 1000
    # lines): streamed across blocks, every answer in order, on the line it
    # belongs to. Also through standard input with the default block size.
    count = 300000
    poses = [HIT, NEAR_MISS]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "many.txt")
        line_of = []
        with open(path, "w") as f:
            line = 0
            for i in range(count):
                if i % 1000 == 0:
                    f.write("# block %d\n" % (i // 1000))
                    line += 1
                f.write(poses[i % 2] + "\n")
                line += 1
                line_of.append(line)
        out = os.path.join(d, "out.csv")
        r = collide(path, "--out", out, "--chunk", "65536")
        expect_exit(r, 0)
        check(r.stderr == "", r.describe())
        with open(path, "rb") as f:
            p = subprocess.run([TOOL, "collide", box_path(), box_path(), "--poses", "-"], stdin=f,
                               capture_output=True, timeout=TIMEOUT_S)
        check(p.returncode == 0 and p.stderr == b"", "stdin run failed: %r" % p.stderr[-500:])
        with open(out) as f:
            from_file = f.read()
        check(from_file == p.stdout.decode(), "file and stdin runs differ")
        lines = from_file.splitlines()
        check(lines[0] == CSV_HEADER, "header %r" % lines[0])
        check(len(lines) == count + 1, "%d result lines for %d poses" % (len(lines) - 1, count))
        for i, l in enumerate(lines[1:]):
            index, hit, stage, _, _, line = l.split(",")
            if index != str(i) or hit != ("1" if i % 2 == 0 else "0") or line != str(line_of[i]):
                raise Failure("row %d is %r, expected index %d, collide %d, line %d"
                              % (i, l, i, 1 - i % 2, line_of[i]))


def test_collide_stream_and_interrupt():
    # Poses trickling through a pipe are answered while the pipe is silent;
    # an interrupt then ends the run with what was answered written.
    need_device()
    p = subprocess.Popen([TOOL, "collide", box_path(), box_path(), "--poses", "-", "--format", "jsonl"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        p.stdin.write(("%s\n%s\n# c\n%s\n" % (HIT, FAR, NEAR_MISS)).encode())
        p.stdin.flush()
        got = b""
        deadline = TIMEOUT_S
        while got.count(b"\n") < 3 and deadline > 0:
            ready, _, _ = select.select([p.stdout], [], [], 1.0)
            deadline -= 1
            if ready:
                chunk = os.read(p.stdout.fileno(), 4096)
                if not chunk:
                    break
                got += chunk
        check(got.count(b"\n") == 3, "the poses sent were not answered while the pipe was open: %r" % got)
        rows = [json.loads(l) for l in got.decode().splitlines()]
        check_rows(rows, [(1, True, "cube_map"), (2, False, "bounds"), (4, False, "bounds")])
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=TIMEOUT_S)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    check(p.returncode == 128 + signal.SIGINT, "exit %r after SIGINT, stderr %r" % (p.returncode, err))
    check(out == b"", "output after the interrupt: %r" % out)
    check(re.match(rb"vkcollide: interrupted: 3 poses answered and written, the last on line 4 of <stdin>\n$", err),
          "stderr %r" % err)


def test_collide_help():
    r = run("help", "collide")
    expect_exit(r, 0)
    for word in ("--poses", "--mode", "--resolution", "--mip", "--format", "--out", "--chunk", "--verify",
                 "--quiet", "qw qx qy qz tx ty tz", "R(q) x + t", "Hamilton", "FILE:LINE:COLUMN",
                 CSV_HEADER, "bounds", "cube_map", "containment", "Default: exact", "--triangle-pairs FILE",
                 "--max-triangle-pairs N", TRIANGLE_HEADER, "complete"):
        check(word in r.stdout, "help collide lacks %r\n%s" % (word, r.describe()))
    r = run("collide", "--help")
    expect_exit(r, 0)
    check(r.stdout.startswith("usage: vkcollide collide A B --poses FILE"), r.describe())
    r = run("--help")
    check("collide" in r.stdout, "--help does not list collide")


def test_collide_example_poses():
    # The README's example: examples/poses.txt is what make_poses.py writes,
    # and the torus pair answers all 2,000 poses with 30..60 % colliding.
    path = os.path.join(EXAMPLES, "poses.txt")
    p = subprocess.run([sys.executable, os.path.join(EXAMPLES, "make_poses.py"), "--out", "-"],
                       capture_output=True, timeout=TIMEOUT_S)
    check(p.returncode == 0, "make_poses.py failed: %r" % p.stderr)
    with open(path, "rb") as f:
        check(f.read() == p.stdout, "examples/poses.txt is not what examples/make_poses.py writes")
    torus = os.path.join(EXAMPLES, "torus.obj")
    r = collide(path, a=torus, b=torus)
    expect_exit(r, 0)
    rows = parse_csv(r.stdout)
    check(len(rows) == 2000, "%d rows" % len(rows))
    fraction = sum(x["collide"] for x in rows) / len(rows)
    check(0.3 <= fraction <= 0.6, "collide fraction %.3f" % fraction)


# ---------------------------------------------------------------------------
# collide --triangle-pairs
#
# The expected pairs come from an independent double-precision test written
# here: two non-coplanar triangles meet exactly when an edge of one crosses
# the other, and a segment crosses a triangle when its ends lie strictly on
# both sides of the triangle's plane and the line through it passes strictly
# inside the three edges (signs of tetrahedron volumes). Every sign this
# decides on must be clear by TRIANGLE_MARGIN (far beyond float rounding), so
# the poses below stay away from touching and coplanar contacts; the oracle
# fails the test rather than guess when one is not.

TRIANGLE_HEADER = "index,triangle_a,triangle_b"
TRIANGLE_MARGIN = 1e-4


class Degenerate(Failure):
    pass


def grid_box(half, center, n):
    """A closed axis-aligned box, each face an n x n grid of quads split into
    two triangles: (vertices, triangles) with shared vertices."""
    index, vertices, triangles = {}, [], []

    def vertex(p):
        key = tuple(p)
        if key not in index:
            index[key] = len(vertices)
            vertices.append(key)
        return index[key]

    def coord(axis, k):
        # One expression for every face: shared edges get the same floats.
        return center[axis] - half[axis] + 2 * half[axis] * k / n

    for axis in range(3):
        u, v = (axis + 1) % 3, (axis + 2) % 3
        for side in (0, 1):
            for i in range(n):
                for j in range(n):
                    quad = []
                    for di, dj in ((0, 0), (1, 0), (1, 1), (0, 1)):
                        p = [0.0, 0.0, 0.0]
                        p[axis] = coord(axis, side * n)
                        p[u] = coord(u, i + di)
                        p[v] = coord(v, j + dj)
                        quad.append(vertex(p))
                    if side == 0:
                        quad.reverse()
                    triangles += [(quad[0], quad[1], quad[2]), (quad[0], quad[2], quad[3])]
    return vertices, triangles


def write_objects(directory, name, meshes):
    """An OBJ file with one object per mesh, triangles only, so the i-th 'f'
    line is triangle i."""
    lines, base = [], 0
    for k, (vertices, triangles) in enumerate(meshes):
        lines.append("o part%d" % k)
        lines += ["v %r %r %r" % v for v in vertices]
        lines += ["f %d %d %d" % tuple(base + i + 1 for i in t) for t in triangles]
        base += len(vertices)
    return write(directory, name, "\n".join(lines) + "\n")


def concatenate(meshes):
    vertices, triangles = [], []
    for v, t in meshes:
        triangles += [tuple(len(vertices) + i for i in tri) for tri in t]
        vertices += v
    return vertices, triangles


def place(vertices, pose):
    """R(q) x + t, the poses file's convention."""
    w, x, y, z = pose[:4]
    s = math.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / s, x / s, y / s, z / s
    r = ((1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
         (2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
         (2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))
    return [tuple(sum(r[i][k] * p[k] for k in range(3)) + pose[4 + i] for i in range(3)) for p in vertices]


def orient(a, b, c, d):
    """Six times the signed volume of the tetrahedron abcd."""
    u = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
    v = (c[0] - a[0], c[1] - a[1], c[2] - a[2])
    w = (d[0] - a[0], d[1] - a[1], d[2] - a[2])
    return (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
            u[2] * (v[0] * w[1] - v[1] * w[0]))


def segment_crosses(p, q, triangle):
    a, b, c = triangle
    d = (orient(a, b, c, p), orient(a, b, c, q))
    if min(abs(x) for x in d) <= TRIANGLE_MARGIN:
        raise Degenerate("test geometry: a vertex (nearly) on a triangle's plane")
    if (d[0] > 0) == (d[1] > 0):
        return False
    e = (orient(p, q, a, b), orient(p, q, b, c), orient(p, q, c, a))
    if min(abs(x) for x in e) <= TRIANGLE_MARGIN:
        raise Degenerate("test geometry: an edge (nearly) through a triangle's edge")
    return (e[0] > 0) == (e[1] > 0) == (e[2] > 0)


def triangles_meet(s, t):
    return any(segment_crosses(u[k], u[(k + 1) % 3], w) for u, w in ((s, t), (t, s)) for k in range(3))


def expected_triangle_pairs(mesh_a, mesh_b, pose):
    """{(triangle of A, triangle of B)} for B at pose against A."""
    va, vb = mesh_a[0], place(mesh_b[0], pose)
    tris_a = [tuple(va[i] for i in t) for t in mesh_a[1]]
    tris_b = [tuple(vb[i] for i in t) for t in mesh_b[1]]

    def box(t):
        return [min(p[k] for p in t) - 1e-3 for k in range(3)], [max(p[k] for p in t) + 1e-3 for k in range(3)]

    boxes_b = [box(t) for t in tris_b]
    pairs = set()
    for i, s in enumerate(tris_a):
        lo, hi = box(s)
        for j, t in enumerate(tris_b):
            lo2, hi2 = boxes_b[j]
            # Triangles whose boxes are apart cannot meet.
            if all(lo[k] <= hi2[k] and lo2[k] <= hi[k] for k in range(3)) and triangles_meet(s, t):
                pairs.add((i, j))
    return pairs


# B (0.5 x 0.4 x 0.3 half extents, 3 x 3 grid) against A (the cube of half
# extent 1, 4 x 4 grid): poking out of A's +x face; far away; turned and
# crossing A's -y face; wholly inside A (collides, by containment, with no
# crossing triangles). Index 1 and 3 have no pairs.
TRI_MESH_A = grid_box((1.0, 1.0, 1.0), (0.0, 0.0, 0.0), 4)
TRI_MESH_B = grid_box((0.5, 0.4, 0.3), (0.0, 0.0, 0.0), 3)
TRI_POSES = [(1, 0, 0, 0, 1.2347, 0.1713, -0.0871), (1, 0, 0, 0, 5, 0, 0),
             (0.9, 0.2, -0.3, 0.25, 0.3, -1.05, 0.4), (1, 0, 0, 0, 0.1, 0.05, -0.02)]
TRI_COLLIDE = [True, False, True, True]


def poses_text(poses):
    return "".join(" ".join(repr(float(x)) for x in p) + "\n" for p in poses)


def parse_triangle_pairs(path):
    """The rows of a --triangle-pairs file as (index, a, b), after checking
    the header and the order."""
    with open(path) as f:
        lines = f.read().split("\n")
    check(lines[0] == TRIANGLE_HEADER, "triangle pairs header %r" % lines[0])
    check(lines[-1] == "", "the triangle pairs file does not end with a newline")
    rows = []
    for l in lines[1:-1]:
        check(re.match(r"\d+,\d+,\d+$", l), "triangle pairs row %r" % l)
        rows.append(tuple(int(x) for x in l.split(",")))
    check(rows == sorted(rows), "triangle pairs not sorted by (index, triangle_a, triangle_b)")
    check(len(set(rows)) == len(rows), "a triangle pair is listed twice")
    return rows


def expected_rows(mesh_a, mesh_b, poses):
    rows = []
    for index, pose in enumerate(poses):
        rows += [(index, a, b) for a, b in sorted(expected_triangle_pairs(mesh_a, mesh_b, pose))]
    return rows


def test_collide_triangle_pairs():
    expected = expected_rows(TRI_MESH_A, TRI_MESH_B, TRI_POSES)
    counts = [sum(1 for r in expected if r[0] == i) for i in range(len(TRI_POSES))]
    # The poses are what their comments say (the oracle's side of the test).
    check(counts[0] > 10 and counts[2] > 10 and counts[1] == 0 and counts[3] == 0, "expected counts %r" % counts)
    with tempfile.TemporaryDirectory() as d:
        a = write_objects(d, "a.obj", [TRI_MESH_A])
        b = write_objects(d, "b.obj", [TRI_MESH_B])
        poses = write(d, "poses.txt", poses_text(TRI_POSES))
        out = os.path.join(d, "pairs.csv")
        # Blocks of 4 poses, of 1 (a running total across blocks), jsonl
        # results: the same file.
        for extra in ((), ("--chunk", "1"), ("--format", "jsonl", "--mode", "exact")):
            r = collide(poses, "--triangle-pairs", out, *extra, a=a, b=b)
            expect_exit(r, 0)
            check(r.stderr == "", "stderr not empty\n" + r.describe())
            got = parse_triangle_pairs(out)
            missing, extra_rows = sorted(set(expected) - set(got)), sorted(set(got) - set(expected))
            check(not missing and not extra_rows, "%s: %d pairs listed, %d expected; missing %r, unexpected %r"
                  % (" ".join(extra), len(got), len(expected), missing[:10], extra_rows[:10]))
            rows = [json.loads(l) for l in r.stdout.splitlines()] if "jsonl" in extra else parse_csv(r.stdout)
            check([x["collide"] for x in rows] == TRI_COLLIDE, "collide %r\n%s" % (rows, r.describe()))
            # With the list asked for, the counts are complete.
            check([x["triangle_pairs"] for x in rows] == counts,
                  "triangle_pairs %r, expected %r" % ([x["triangle_pairs"] for x in rows], counts))


def test_collide_triangle_pairs_multi_mesh():
    # A file of two objects numbers the second's triangles after the
    # first's: here a small box that B's far end pokes into, then the cube.
    small = grid_box((0.3, 0.3, 0.3), (2.0, 0.1, 0.03), 2)
    mesh_a = concatenate([small, TRI_MESH_A])
    poses = TRI_POSES[:1]
    expected = expected_rows(mesh_a, TRI_MESH_B, poses)
    n_small = len(small[1])
    check(any(r[1] < n_small for r in expected) and any(r[1] >= n_small for r in expected),
          "test geometry: B does not meet both objects")
    with tempfile.TemporaryDirectory() as d:
        a = write_objects(d, "two.obj", [small, TRI_MESH_A])
        b = write_objects(d, "b.obj", [TRI_MESH_B])
        out = os.path.join(d, "pairs.csv")
        r = collide(write(d, "poses.txt", poses_text(poses)), "--triangle-pairs", out, a=a, b=b)
        expect_exit(r, 0)
        got = parse_triangle_pairs(out)
        check(got == expected, "%d pairs listed, %d expected; missing %r, unexpected %r"
              % (len(got), len(expected), sorted(set(expected) - set(got))[:10],
                 sorted(set(got) - set(expected))[:10]))


def check_truncated(r, path, expected, listed, why):
    """One warning naming the file, `listed` of len(expected) rows, and why;
    the rows listed are every pair of the poses before one pose and some of
    that pose's."""
    lines = r.stderr.splitlines()
    check(len(lines) == 1, "expected one warning line\n" + r.describe())
    m = re.match(r"vkcollide: warning: (.*) lists ([\d,]+) of the ([\d,]+) intersecting triangle pairs found "
                 r"\((.*)\); the triangle_pairs counts in the results are complete$", lines[0])
    check(m, "unexpected warning\n" + r.describe())
    check(m.group(1) == path, "the warning names %r" % m.group(1))
    check(int(m.group(2).replace(",", "")) == listed and int(m.group(3).replace(",", "")) == len(expected),
          "warning counts %s of %s, expected %d of %d" % (m.group(2), m.group(3), listed, len(expected)))
    check(re.search(why, m.group(4)), "warning reason %r does not match %r" % (m.group(4), why))
    got = parse_triangle_pairs(path)
    check(len(got) == listed, "%d rows listed, expected %d" % (len(got), listed))
    check(set(got) <= set(expected), "rows that are not intersecting pairs: %r" % sorted(set(got) - set(expected)))
    if got:
        last = got[-1][0]
        check([x for x in got if x[0] < last] == [x for x in expected if x[0] < last],
              "the poses before the last one listed are not listed whole")


def test_collide_triangle_pairs_truncated():
    expected = expected_rows(TRI_MESH_A, TRI_MESH_B, TRI_POSES)
    first = sum(1 for x in expected if x[0] == 0)
    total = len(expected)
    with tempfile.TemporaryDirectory() as d:
        a = write_objects(d, "a.obj", [TRI_MESH_A])
        b = write_objects(d, "b.obj", [TRI_MESH_B])
        poses = write(d, "poses.txt", poses_text(TRI_POSES))
        out = os.path.join(d, "pairs.csv")
        full = collide(poses, "--triangle-pairs", out, a=a, b=b)
        expect_exit(full, 0)
        check(parse_triangle_pairs(out) == expected, "the full list differs")
        # Caps inside the first pose's pairs, inside the third pose's (also
        # with one pose per block), and one short of all: the warning, the
        # rows up to the cap, and the results unchanged.
        for cap, extra in ((1, ()), (first + 2, ()), (first + 2, ("--chunk", "1")), (total - 1, ())):
            r = collide(poses, "--triangle-pairs", out, "--max-triangle-pairs", str(cap), *extra, a=a, b=b)
            try:
                expect_exit(r, 0)
                check(r.stdout == full.stdout, "the results differ from the untruncated run")
                check_truncated(r, out, expected, cap, r"^--max-triangle-pairs %d$" % cap)
            except Failure as e:
                raise Failure("--max-triangle-pairs %d %s: %s" % (cap, " ".join(extra), e))
        # A cap of exactly all of them is no truncation.
        r = collide(poses, "--triangle-pairs", out, "--max-triangle-pairs", str(total), a=a, b=b)
        expect_exit(r, 0)
        check(r.stderr == "" and r.stdout == full.stdout, r.describe())
        check(parse_triangle_pairs(out) == expected, "--max-triangle-pairs %d: the list differs" % total)
        # The list of one call shrunk (as past 2^20 pairs per call): room
        # for the first pose and part of the third repeats the call from the
        # third; a pose with more pairs than one call can list stops the
        # list before it (the library lists whole poses only).
        for buffer, listed, pose in ((first + counts_of(expected, 2), total, None),
                                     (first + 5, first, 2), (counts_of(expected, 2) - 1, first, 2),
                                     (first - 1, 0, 0)):
            env = {"VKCOLLIDE_TEST_TRIANGLE_BUFFER": str(buffer)}
            r = collide(poses, "--triangle-pairs", out, env=env, a=a, b=b)
            try:
                expect_exit(r, 0)
                check(r.stdout == full.stdout, "the results differ from the untruncated run")
                if pose is None:
                    check(r.stderr == "", r.describe())
                    check(parse_triangle_pairs(out) == expected, "the list differs")
                else:
                    check_truncated(r, out, expected, listed, r"^pose %d has more pairs than one batch can list$" % pose)
            except Failure as e:
                raise Failure("list of %d per call: %s" % (buffer, e))


def counts_of(rows, index):
    return sum(1 for x in rows if x[0] == index)


def test_collide_triangle_pairs_empty():
    # No pair: the header alone; the misses and the containment pose, and an
    # empty poses file.
    with tempfile.TemporaryDirectory() as d:
        a = write_objects(d, "a.obj", [TRI_MESH_A])
        b = write_objects(d, "b.obj", [TRI_MESH_B])
        out = os.path.join(d, "pairs.csv")
        for name, poses in (("misses.txt", [TRI_POSES[1], TRI_POSES[3]]), ("empty.txt", [])):
            write(d, "pairs.csv", "old content that must go\n")
            r = collide(write(d, name, poses_text(poses)), "--triangle-pairs", out, a=a, b=b)
            expect_exit(r, 0)
            check(r.stderr == "", r.describe())
            check([x["collide"] for x in parse_csv(r.stdout)] == [False, True][:len(poses)], r.describe())
            with open(out) as f:
                check(f.read() == TRIANGLE_HEADER + "\n", "%s: not the header alone" % name)


def test_collide_triangle_pairs_refused():
    # Approx mode tests no triangles: a usage error, and no file is made.
    with tempfile.TemporaryDirectory() as d:
        poses = write(d, "poses.txt", HIT + "\n")
        out = os.path.join(d, "pairs.csv")
        r = collide(poses, "--triangle-pairs", out, "--mode", "approx")
        expect_exit(r, 2)
        check(r.stderr.startswith("vkcollide: collide: --triangle-pairs needs exact mode"), r.describe())
        check("usage: vkcollide collide" in r.stderr and r.stdout == "", r.describe())
        check(not os.path.exists(out), "--mode approx created the triangle pairs file")
        # Neither the poses file nor the results' file can take the list.
        r = collide(poses, "--triangle-pairs", poses)
        expect_exit(r, 2)
        expect_error_line(r, "poses.txt", r"--triangle-pairs names the poses file")
        with open(poses) as f:
            check(f.read() == HIT + "\n", "the poses file was overwritten")
        results = os.path.join(d, "results.csv")
        r = collide(poses, "--out", results, "--triangle-pairs", results)
        expect_exit(r, 2)
        expect_error_line(r, "results.csv", r"--triangle-pairs names the file --out writes")
        r = collide(poses, "--triangle-pairs", os.path.join(d, "no", "such", "dir.csv"))
        expect_exit(r, 2)
        expect_error_line(r, "dir.csv", r"cannot create")


def leftovers(directory, keep):
    """Files in directory besides keep (temporary files a run left)."""
    return sorted(set(os.listdir(directory)) - set(keep))


def test_collide_outputs_checked_first():
    # A failing check leaves an existing output as it was: the outputs are
    # checked before any work and written to a temporary file beside them.
    need_device()
    with tempfile.TemporaryDirectory() as d:
        poses = write(d, "poses.txt", MIXED_POSES)
        mesh = write(d, "box.obj", open(box_path()).read())
        out = write(d, "o.csv", "old\n")
        cases = [
            (["--triangle-pairs", os.path.join(d, "nonexistent", "x")], "x", r"cannot create"),
            (["--triangle-pairs", poses], "poses.txt", r"names the poses file"),
            (["--triangle-pairs", out], "o.csv", r"names the file --out writes"),
        ]
        for extra, name, pattern in cases:
            r = run("collide", mesh, mesh, "--poses", poses, "--out", out, *extra)
            expect_exit(r, 2)
            expect_error_line(r, name, pattern)
            check(open(out).read() == "old\n", "%r emptied --out\n%s" % (extra, r.describe()))
        # No output may be an input mesh (A or B, any spelling of its path).
        mesh_text = open(mesh, "rb").read()
        for args in (["--out", mesh], ["--out", out, "--triangle-pairs", os.path.join(d, ".", "box.obj")]):
            r = run("collide", mesh, mesh, "--poses", poses, *args)
            expect_exit(r, 2)
            expect_error_line(r, "box.obj", r"an input: refusing to overwrite it")
            check(open(mesh, "rb").read() == mesh_text, "%r overwrote the mesh" % args)
        link = os.path.join(d, "link.obj")
        os.symlink(mesh, link)
        r = run("collide", mesh, box_path(), "--poses", poses, "--out", link)
        expect_exit(r, 2)
        check(open(mesh, "rb").read() == mesh_text, "a link to mesh A was overwritten")
        # The outputs are checked before the meshes are imported: with a bad
        # mesh and a bad output, the output is what is reported.
        bad_mesh = write(d, "bad.obj", "v 0 0 0\nf 1 2 3\n")
        r = run("collide", bad_mesh, bad_mesh, "--poses", poses, "--out", os.path.join(d, "nonexistent", "o.csv"))
        expect_exit(r, 2)
        expect_error_line(r, "o.csv", r"cannot create")
        check("bad.obj" not in r.stderr, "the mesh was read before the output was checked\n" + r.describe())
        check(leftovers(d, ["poses.txt", "box.obj", "o.csv", "link.obj", "bad.obj"]) == [],
              "temporary files left: %r" % leftovers(d, ["poses.txt", "box.obj", "o.csv", "link.obj", "bad.obj"]))
        # A run that succeeds replaces the file whole, and leaves nothing else.
        r = run("collide", mesh, mesh, "--poses", poses, "--out", out, "--triangle-pairs", os.path.join(d, "t.csv"))
        expect_exit(r, 0)
        check([row["collide"] for row in parse_csv(open(out).read())] == [e[1] for e in MIXED_EXPECTED],
              "wrong answers: %r" % open(out).read())
        check(leftovers(d, ["poses.txt", "box.obj", "o.csv", "link.obj", "bad.obj", "t.csv"]) == [],
              "temporary files left after success")


def test_collide_out_dash_is_stdout():
    need_device()
    with tempfile.TemporaryDirectory() as d:
        poses = write(d, "poses.txt", MIXED_POSES)
        p = subprocess.run([TOOL, "collide", box_path(), box_path(), "--poses", poses, "--out", "-"], cwd=d,
                           capture_output=True, timeout=TIMEOUT_S)
        check(p.returncode == 0, "exit %d: %r" % (p.returncode, p.stderr))
        check_rows(parse_csv(p.stdout.decode()), MIXED_EXPECTED)
        check(not os.path.exists(os.path.join(d, "-")), "--out - wrote a file named '-'")


def test_collide_nul_byte():
    # A NUL byte is an error at its column, not the end of the line.
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "poses.txt")
        with open(path, "wb") as f:
            f.write(b"1 0 0 0 0 0 0\n1 0 0\x000 5 5 5 junk\n")
        out = os.path.join(d, "o.csv")
        r = run("collide", box_path(), box_path(), "--poses", path, "--out", out)
        expect_exit(r, 2)
        expect_error_line(r, "poses.txt:2:6", r"NUL byte")
        rows = parse_csv(open(out).read())
        check(len(rows) == 1 and rows[0]["line"] == 1, "the pose before the bad line was not kept: %r" % rows)


def test_collide_kill_leaves_target():
    # SIGKILL mid-run leaves --out as it was: no torn line, no empty file.
    need_device()
    torus = os.path.join(EXAMPLES, "torus.obj")
    with tempfile.TemporaryDirectory() as d:
        out = write(d, "o.csv", "old\n")
        p = subprocess.Popen([TOOL, "collide", torus, torus, "--poses", "-", "--out", out, "--chunk", "1"],
                             stdin=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            lines = open(os.path.join(EXAMPLES, "poses.txt")).read().splitlines()
            p.stdin.write(("\n".join(lines[:400]) + "\n").encode())
            p.stdin.flush()
            # Wait until results are being written to the temporary file.
            for _ in range(600):
                temps = [f for f in os.listdir(d) if f.startswith("o.csv.tmp-")]
                if temps and os.path.getsize(os.path.join(d, temps[0])) > 200:
                    break
                time.sleep(0.05)
            check(temps, "no temporary file beside the output")
            p.kill()
            p.wait()
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        check(open(out).read() == "old\n", "SIGKILL changed the target: %r" % open(out).read()[:200])


def feed(fd, data):
    """Writes data to the pipe fd and closes it, ignoring a reader that went away."""
    try:
        while data:
            data = data[os.write(fd, data[:65536]):]
    except OSError:
        pass
    os.close(fd)


def test_collide_verify_interrupt():
    # After SIGINT, --verify counts exactly the poses written.
    need_device()
    torus = os.path.join(EXAMPLES, "torus.obj")
    lines = [l for l in open(os.path.join(EXAMPLES, "poses.txt")).read().splitlines() if not l.startswith("#")]
    lines = lines * 10
    read_end, write_end = os.pipe()
    with tempfile.TemporaryDirectory() as d:
        out_path = os.path.join(d, "out.csv")
        with open(out_path, "wb") as out_file:
            p = subprocess.Popen([TOOL, "collide", torus, torus, "--poses", "-", "--verify", "--chunk", "64"],
                                 stdin=read_end, stdout=out_file, stderr=subprocess.PIPE)
        os.close(read_end)
        # Fed from a thread: the pipe holds far less than the poses.
        feeder = threading.Thread(target=feed, args=(write_end, ("\n".join(lines) + "\n").encode()), daemon=True)
        feeder.start()
        try:
            # Interrupt once some results are out (start-up time varies
            # with the machine's load).
            deadline = time.time() + TIMEOUT_S
            while os.path.getsize(out_path) < 4096 and time.time() < deadline and p.poll() is None:
                time.sleep(0.02)
            p.send_signal(signal.SIGINT)
            _, err = p.communicate(timeout=TIMEOUT_S)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        feeder.join()
        rows = parse_csv(open(out_path).read())
    m = re.search(rb"verify: ([0-9,]+) poses", err)
    check(m, "no verify line: %r" % err)
    verified = int(m.group(1).replace(b",", b""))
    check(verified == len(rows), "%d poses verified, %d written" % (verified, len(rows)))
    check(p.returncode == 128 + signal.SIGINT and 0 < len(rows) < len(lines),
          "exit %d, %d rows: %r" % (p.returncode, len(rows), err))


def test_mesh_info_star_shaped_undefined():
    # Star-shapedness belongs to solids: a mesh of zero area and an open box
    # get "does not apply" (JSON null), not "yes".
    need_device()
    with tempfile.TemporaryDirectory() as d:
        flat = write(d, "flat.obj", "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\nf 1 3 2\n")
        corners = "".join("v %d %d %d\n" % (x, y, z) for x in (0, 1) for y in (0, 1) for z in (0, 1))
        quads = [(1, 3, 4, 2), (1, 2, 6, 5), (3, 7, 8, 4), (1, 5, 7, 3), (2, 4, 8, 6)]  # no top
        faces = "".join("f %d %d %d\nf %d %d %d\n" % (q[0], q[1], q[2], q[0], q[2], q[3]) for q in quads)
        open_box = write(d, "open_box.obj", corners + faces)
        for path, why in ((flat, "every triangle has zero area"), (open_box, "an open surface bounds no solid")):
            r = run("mesh-info", path)
            expect_exit(r, 0)
            line = [l for l in r.stdout.splitlines() if l.startswith("star-shaped")]
            check(line and line[0].split(None, 1)[1] == "does not apply: " + why, "%s: %r" % (path, line))
            info = mesh_info_json(path)
            check(info["star_shaped"] is None, "%s: star_shaped %r in JSON" % (path, info["star_shaped"]))


def test_mesh_info_negative_ply_index():
    # Assimp reads a PLY index of -5 as 4294967291: the message says -5.
    with tempfile.TemporaryDirectory() as d:
        path = write(d, "neg.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                     "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
                     "0 0 0\n1 0 0\n0 1 0\n3 0 1 -5\n")
        r = run("mesh-info", path)
        expect_exit(r, 2)
        expect_error_line(r, "neg.ply", r"refers to vertex -5 \(a negative index")


# ---------------------------------------------------------------------------

TESTS = [v for k, v in sorted(globals().items()) if k.startswith("test_") and callable(v)]


def main():
    global TOOL
    if len(sys.argv) < 2:
        print("usage: test_cli.py PATH/TO/vkcollide [NAME-FILTER]", file=sys.stderr)
        return 2
    TOOL = os.path.abspath(sys.argv[1])
    name_filter = sys.argv[2] if len(sys.argv) > 2 else ""
    passed = failed = skipped = 0
    for test in TESTS:
        name = test.__name__
        if name_filter not in name:
            continue
        try:
            test()
        except Skip as e:
            skipped += 1
            print("skip %s: %s" % (name, e))
        except Failure as e:
            failed += 1
            print("FAIL %s: %s" % (name, e))
        except Exception as e:  # a bug in the test or unexpected output shape
            failed += 1
            print("FAIL %s: %s: %s" % (name, type(e).__name__, e))
        else:
            passed += 1
            print("ok   %s" % name)
        sys.stdout.flush()
    print("%d passed, %d failed%s" % (passed, failed, ", %d skipped" % skipped if skipped else ""))
    if failed:
        return 1
    if skipped and not passed:
        return 77
    if skipped and not _device_state.get("ok", True):
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
