# SPDX-License-Identifier: MIT
"""End-to-end tests of `vkcollide run` and `vkcollide merge` (stdlib only; the
.npy results are also read with NumPy from Debian's /usr/bin/python3).

usage: python3 tests/test_jobs.py PATH/TO/vkcollide [NAME-FILTER | !NAME-FILTER]
(a filter runs the tests whose names contain it; with '!', the others)

Environment (set by tests/meson.build): VKCOL_SOURCE_DIR, and
VKCOLLIDE_VALIDATION=1, which makes the tool fail on any validation message.

The answers are checked against the exact CPU reference (--verify), the
bytes of one run against another (threads, block sizes, shards merged,
resumed runs), and every bad input against its one error line.
"""
import ast
import json
import math
import os
import pty
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

TIMEOUT_S = 300
TOOL = None
SOURCE_DIR = os.environ.get("VKCOL_SOURCE_DIR") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(SOURCE_DIR, "examples")
SCENE = os.path.join(EXAMPLES, "scene")
NAMES = ["box", "torus", "sphere", "plate", "pebble"]
CSV_COLUMNS = "index,mesh_a,mesh_b,collide,stage,line"
PENETRATION_COLUMNS = "index,mesh_a,mesh_b,collide,stage,penetration,line"
STAGES = {"none": 0, "bounds": 1, "cube_map": 2, "tree": 3, "containment": 4}


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
            " ".join(self.args), self.returncode, self.stdout[-600:], self.stderr[-1200:])


def run(*args, cwd=None, env=None, stdin=None):
    full_env = dict(os.environ)
    full_env.update(env or {})
    p = subprocess.run([TOOL] + list(args), capture_output=True, timeout=TIMEOUT_S, cwd=cwd, env=full_env,
                       input=stdin)
    r = Run(list(args), p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"))
    check(r.returncode >= 0, "crashed with signal %d\n%s" % (-r.returncode, r.describe()))
    return r


def expect(r, code):
    check(r.returncode == code, "expected exit %d\n%s" % (code, r.describe()))


def error_line(r, pattern):
    """The one 'vkcollide: ' line of stderr, matching pattern."""
    lines = [l for l in r.stderr.splitlines() if l.startswith("vkcollide: ") and not l.startswith("vkcollide: the ")]
    check(len(lines) == 1, "expected one error line\n%s" % r.describe())
    check(re.search(pattern, lines[0]), "error line %r does not match %r" % (lines[0], pattern))
    return lines[0]


def write(path, data):
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    return path


def scene_copy(d):
    """The example scene in d, its mesh paths absolute."""
    job = json.load(open(os.path.join(SCENE, "scene.json")))
    for m in job["meshes"]:
        m["path"] = os.path.normpath(os.path.join(SCENE, m["path"]))
    shutil.copy(os.path.join(SCENE, "pairs.txt"), os.path.join(d, "pairs.txt"))
    job["output"] = "results.csv"
    write(os.path.join(d, "scene.json"), json.dumps(job, indent=1))
    return os.path.join(d, "scene.json")


def make_job(d, pairs_text, meshes=None, name="job.json", **extra):
    meshes = meshes or [{"path": os.path.join(EXAMPLES, "box.obj"), "name": "box"},
                        {"path": os.path.join(EXAMPLES, "torus.obj"), "name": "torus"}]
    job = {"meshes": meshes, "pairs": "pairs.txt"}
    job.update(extra)
    if pairs_text is not None:
        write(os.path.join(d, "pairs.txt"), pairs_text)
    return write(os.path.join(d, name), json.dumps(job, indent=1))


def parse_csv(text):
    """(header line, rows): (index, mesh_a, mesh_b, collide, stage, penetration or None, line)."""
    lines = text.splitlines()
    check(lines[0].startswith("# vkcollide job "), "no job header: %r" % lines[:2])
    check(lines[1] in (CSV_COLUMNS, PENETRATION_COLUMNS), "columns %r" % lines[1])
    pen = lines[1] == PENETRATION_COLUMNS
    rows = []
    for l in lines[2:]:
        f = l.split(",")
        check(len(f) == (7 if pen else 6), "row %r" % l)
        rows.append((int(f[0]), int(f[1]), int(f[2]), int(f[3]), STAGES[f[4]], float(f[5]) if pen else None,
                     int(f[-1])))
    return lines[0], rows


def parse_jsonl(text):
    lines = text.splitlines()
    head = json.loads(lines[0])
    rows = []
    for l in lines[1:]:
        o = json.loads(l)
        check(list(o) in (CSV_COLUMNS.split(","), PENETRATION_COLUMNS.split(",")), "keys %r" % list(o))
        rows.append((o["index"], o["mesh_a"], o["mesh_b"], int(o["collide"]), STAGES[o["stage"]],
                     float(o["penetration"]) if "penetration" in o else None, o["line"]))
    return head, rows


def parse_npy(data):
    """A .npy results file read by the format's definition (no NumPy)."""
    check(data[:8] == b"\x93NUMPY\x01\x00", "not an .npy v1: %r" % data[:10])
    hl = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + hl].decode("latin1")
    check((10 + hl) % 64 == 0 and header.endswith("\n"), "header not padded to 64")
    d = ast.literal_eval(header)  # what NumPy does; the comment after the dict is ignored
    check(d["fortran_order"] is False, "fortran order")
    names = [n for n, _ in d["descr"]]
    check(names in (CSV_COLUMNS.split(","), PENETRATION_COLUMNS.split(",")), "fields %r" % names)
    pen = "penetration" in names
    size, fmt = (30, "<QIIBBfQ") if pen else (26, "<QIIBBQ")
    n = d["shape"][0]
    body = data[10 + hl:]
    check(len(body) == n * size, "%d bytes of data for %d rows" % (len(body), n))
    rows = [struct.unpack(fmt, body[size * i:size * i + size]) for i in range(n)]
    return header, [(r[0], r[1], r[2], r[3], r[4], r[5] if pen else None, r[-1]) for r in rows]


def numpy_rows(path):
    """The same file read by NumPy (Debian's python3-numpy)."""
    code = ("import numpy, sys; a = numpy.load(sys.argv[1]); "
            "print(a.shape[0], int(a['collide'].sum()), int(a['index'][-1]), a.dtype.names)")
    p = subprocess.run(["/usr/bin/python3", "-c", code, path], capture_output=True, timeout=60)
    check(p.returncode == 0, "numpy.load failed: %r" % p.stderr)
    return p.stdout.decode().split(None, 3)


def scene_pairs():
    """(mesh_a, mesh_b, line) of every pair of the example pairs file."""
    out = []
    for number, line in enumerate(open(os.path.join(SCENE, "pairs.txt")), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        f = s.split()
        idx = [int(x) if x.isdigit() else NAMES.index(x) for x in f[:2]]
        out.append((idx[0], idx[1], number))
    return out


# ---------------------------------------------------------------------------

def test_scene_job_verified():
    # The example scene: five meshes (closed and open, one file at two
    # scales), 3,000 pairs, some with A's world pose. Exact mode agrees with
    # the CPU reference on every pair; the rows follow the pairs file.
    with tempfile.TemporaryDirectory() as d:
        job = scene_copy(d)
        r = run("run", job, "--verify", "--block", "700")
        expect(r, 0)
        m = re.search(r"verify: ([\d,]+) pairs, ([\d,]+) agree .*says ([\d,]+) collide\)", r.stderr)
        check(m and m.group(1) == "3,000" and m.group(2) == "3,000", "verify: %s" % r.stderr)
        collide = int(m.group(3).replace(",", ""))
        check(400 < collide < 2600, "%d of 3,000 collide: the poses are not a mix" % collide)
        summary = [l for l in r.stderr.splitlines() if l.startswith("vkcollide: done: ")]
        check(len(summary) == 1, "no summary\n%s" % r.describe())
        for word in ("3,000 pairs", "collide", "pairs/s", "import", "build", "device", "job ", "shard 0/1"):
            check(word in summary[0], "summary lacks %r: %s" % (word, summary[0]))
        head, rows = parse_csv(open(os.path.join(d, "results.csv")).read())
        check(re.match(r"# vkcollide job [0-9a-f]{16} pairs 3000 shard 0/1 first 0 rows 3000$", head), head)
        expected = scene_pairs()
        check([(r[1], r[2], r[6]) for r in rows] == expected, "mesh indices or lines differ from the pairs file")
        check([r[0] for r in rows] == list(range(3000)), "indices not 0..2999")
        check(sum(r[3] for r in rows) == collide, "collide column disagrees with the verified count")
        check(all((r[3] == 1) == (r[4] in (2, 3, 4)) or r[4] == 3 for r in rows), "stage and collide disagree")
        check(not os.path.exists(os.path.join(d, "results.csv.partial")), "the .partial file was left")


def test_verify_band():
    # Two unit cubes face to face, 0.14 to 0.55 of the touching distance
    # apart (docs/semantics.md): exact mode may say either, and --verify
    # places every false positive it gives: all within that distance, and
    # no false negative.
    cube = "".join("v %d %d %d\n" % (x, y, z) for z in (0, 1) for y in (0, 1) for x in (0, 1))
    cube += "f 1 4 2\nf 1 3 4\nf 5 6 8\nf 5 8 7\nf 1 2 6\nf 1 6 5\nf 2 4 8\nf 2 8 6\nf 4 3 7\nf 4 7 8\n"
    cube += "f 3 1 5\nf 3 5 7\n"
    with tempfile.TemporaryDirectory() as d:
        path = write(os.path.join(d, "cube.obj"), cube)
        pairs = ("cube cube 1 0 0 0 1.0000002 0.3 0.2\ncube cube 1 0 0 0 1.0000005 0.5 0.5\n"
                 "cube cube 1 0 0 0 1.0000009 -0.2 0.1\ncube cube 1 0 0 0 0 1.0000004 0.25\n"
                 "cube cube 1 0 0 0 0.5 0 0\n")
        job = make_job(d, pairs, meshes=[{"path": path, "name": "cube"}], output="results.csv")
        r = run("run", job, "--verify")
        expect(r, 0)
        m = re.search(r"verify: 5 pairs, (\d+) agree .*, (\d+) false positives, 0 false negatives", r.stderr)
        check(m and int(m.group(1)) + int(m.group(2)) == 5, "verify: %s" % r.stderr)
        fp = int(m.group(2))
        band = re.search(r"collide\); (\d+) of the false positives within the touching distance", r.stderr)
        check((band is None) == (fp == 0), "verify: %s" % r.stderr)
        check(fp == 0 or int(band.group(1)) == fp, "verify: %s" % r.stderr)


def test_same_bytes():
    # Same inputs, same bytes, in both modes: again, on one thread or
    # several, in blocks of any size (the test command's MALLOC_PERTURB_
    # fills fresh memory differently each run).
    with tempfile.TemporaryDirectory() as d:
        job = scene_copy(d)
        for mode in ("exact", "approx"):
            outs = []
            for extra in ([], ["--threads", "1"], ["--threads", "3", "--block", "97"], ["--block", "1000"], []):
                out = os.path.join(d, "r%d.csv" % len(outs))
                env = {"MALLOC_PERTURB_": str(17 + 40 * len(outs))}
                expect(run("run", job, "--mode", mode, "--out", out, "-q", *extra, env=env), 0)
                outs.append(open(out, "rb").read())
            check(all(o == outs[0] for o in outs), "%s mode: runs differ" % mode)
            check(len(parse_csv(outs[0].decode())[1]) == 3000, "%s mode: rows missing" % mode)
        # --penetration adds the library's estimate (not compared across
        # runs: it depends on the device's search order).
        r = run("run", job, "--out", "-", "-q", "--penetration")
        expect(r, 0)
        _, rows = parse_csv(r.stdout)
        check(all(x[5] >= 0 for x in rows) and any(x[5] > 0 for x in rows if x[3]), "penetration column")
        check(all(x[5] == 0 for x in rows if not x[3]), "penetration of a pair apart")


def test_formats_agree():
    # csv, jsonl and npy hold the same rows; NumPy reads the .npy.
    with tempfile.TemporaryDirectory() as d:
        job = scene_copy(d)
        expect(run("run", job, "--out", os.path.join(d, "r.csv"), "-q"), 0)
        expect(run("run", job, "--out", os.path.join(d, "r.jsonl"), "-q"), 0)
        expect(run("run", job, "--out", os.path.join(d, "r.npy"), "-q"), 0)
        expect(run("run", job, "--out", os.path.join(d, "p.npy"), "-q", "--penetration"), 0)
        expect(run("run", job, "--out", os.path.join(d, "p.csv"), "-q", "--penetration"), 0)
        expect(run("run", job, "--out", os.path.join(d, "r.txt"), "--format", "jsonl", "-q"), 0)
        _, csv_rows = parse_csv(open(os.path.join(d, "r.csv")).read())
        head, jsonl_rows = parse_jsonl(open(os.path.join(d, "r.jsonl")).read())
        _, npy_rows = parse_npy(open(os.path.join(d, "r.npy"), "rb").read())
        check(head["pairs"] == 3000 and head["shard"] == "0/1" and re.match("^[0-9a-f]{16}$", head["vkcollide_job"]),
              "jsonl header %r" % head)
        check(csv_rows == jsonl_rows, "csv and jsonl rows differ")
        check(csv_rows == npy_rows, "csv and npy rows differ")
        _, pen_csv = parse_csv(open(os.path.join(d, "p.csv")).read())
        _, pen_npy = parse_npy(open(os.path.join(d, "p.npy"), "rb").read())
        check([r[:5] + r[6:] for r in pen_csv] == [r[:5] + r[6:] for r in csv_rows], "--penetration changed answers")
        check([r[:5] + r[6:] for r in pen_npy] == [r[:5] + r[6:] for r in csv_rows], "npy --penetration rows differ")
        check(any(r[5] > 0 for r in pen_npy), "no penetration in the npy")
        n, collide, last, names = numpy_rows(os.path.join(d, "r.npy"))
        check(int(n) == 3000 and int(last) == 2999 and int(collide) == sum(r[3] for r in csv_rows),
              "numpy read %s rows, %s collide" % (n, collide))
        check(open(os.path.join(d, "r.txt")).read() == open(os.path.join(d, "r.jsonl")).read(),
              "--format jsonl differs from the .jsonl extension")


def test_npy_input():
    # Pairs (N, 2) int64 and poses (N, 7) / (N, 14) float64 as .npy give the
    # rows of the same pairs as text (line = the row, from 1).
    with tempfile.TemporaryDirectory() as d:
        text = "\n".join([
            "box torus 1 0 0 0 0.5 0 0",
            "torus torus 0.7071 0 0.7071 0 3 0 0",
            "1 0 1 0 0 0 0.1 0.1 0.1",
            "box box 1 0 0 0 0.2 0 0 0.9238795 0 0 0.3826834 100 -50 7",
            "torus box 1 0 0 0 5 5 5",
        ]) + "\n"
        job = make_job(d, text, output="r.csv")
        expect(run("run", job, "-q"), 0)
        _, want = parse_csv(open(os.path.join(d, "r.csv")).read())
        pairs = [(0, 1), (1, 1), (1, 0), (0, 0), (1, 0)]
        poses = [[float(x) for x in l.split()[2:]] for l in text.splitlines()]

        def npy(path, descr, shape, payload):
            h = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
            h += " " * (63 - (10 + len(h)) % 64) + "\n"
            write(path, b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + payload)

        npy(os.path.join(d, "p.npy"), "<i8", "(5, 2)", b"".join(struct.pack("<qq", *p) for p in pairs))
        full = [p + [1, 0, 0, 0, 0, 0, 0] if len(p) == 7 else p for p in poses]
        npy(os.path.join(d, "q.npy"), "<f8", "(5, 14)", b"".join(struct.pack("<14d", *p) for p in full))
        r = run("run", job, "--pairs", os.path.join(d, "p.npy"), "--poses", os.path.join(d, "q.npy"),
                "--out", os.path.join(d, "n.csv"), "-q")
        expect(r, 0)
        _, got = parse_csv(open(os.path.join(d, "n.csv")).read())
        check([g[:6] for g in got] == [w[:6] for w in want], "npy input answers differ:\n%r\n%r" % (got, want))
        check([g[6] for g in got] == [1, 2, 3, 4, 5], "npy line column %r" % [g[6] for g in got])
        # (N, 7) poses, int32 pairs: no A poses; row 4 then differs only in A's world pose, which moves both.
        npy(os.path.join(d, "p4.npy"), "<i4", "(5, 2)", b"".join(struct.pack("<ii", *p) for p in pairs))
        npy(os.path.join(d, "q7.npy"), "<f8", "(5, 7)", b"".join(struct.pack("<7d", *p[:7]) for p in full))
        r = run("run", job, "--pairs", os.path.join(d, "p4.npy"), "--poses", os.path.join(d, "q7.npy"),
                "--out", os.path.join(d, "n7.csv"), "-q")
        expect(r, 0)
        _, got7 = parse_csv(open(os.path.join(d, "n7.csv")).read())
        check([g[3] for g in got7] == [w[3] for w in want], "A's world pose changed an answer")
        # Bad .npy inputs: a mesh index out of range, a NaN, a wrong shape.
        npy(os.path.join(d, "bad.npy"), "<i8", "(5, 2)", b"".join(struct.pack("<qq", *p) for p in pairs[:4] + [(0, 9)]))
        r = run("run", job, "--pairs", os.path.join(d, "bad.npy"), "--poses", os.path.join(d, "q.npy"),
                "--out", os.path.join(d, "b.csv"))
        expect(r, 2)
        error_line(r, r"bad\.npy:5:2: mesh index 9: the job has 2 meshes")
        nan = [list(p) for p in full]
        nan[2][5] = float("nan")
        npy(os.path.join(d, "nan.npy"), "<f8", "(5, 14)", b"".join(struct.pack("<14d", *p) for p in nan))
        r = run("run", job, "--pairs", os.path.join(d, "p.npy"), "--poses", os.path.join(d, "nan.npy"),
                "--out", os.path.join(d, "b.csv"))
        expect(r, 2)
        error_line(r, r"nan\.npy:3:6: nan is not a finite number")
        part = open(os.path.join(d, "b.csv.partial")).read()
        check(len(parse_csv(part)[1]) == 2, "the 2 pairs before the bad row were not kept")
        npy(os.path.join(d, "q3.npy"), "<f8", "(5, 3)", b"\0" * 120)
        r = run("run", job, "--pairs", os.path.join(d, "p.npy"), "--poses", os.path.join(d, "q3.npy"))
        expect(r, 2)
        error_line(r, r"q3\.npy: the poses \.npy is <f8 .*shape \(N, 7\) or \(N, 14\)")


def test_shards_merge():
    # Shards answer disjoint slices; merge gives the single run's bytes and
    # refuses missing, duplicated, foreign and incomplete shards.
    with tempfile.TemporaryDirectory() as d:
        job = scene_copy(d)
        expect(run("run", job, "-q"), 0)
        single = open(os.path.join(d, "results.csv"), "rb").read()
        shards = []
        for k in range(4):
            r = run("run", job, "--shard", "%d/4" % k, "-q")
            expect(r, 0)
            shards.append(os.path.join(d, "results.shard-%d-of-4.csv" % k))
            head, rows = parse_csv(open(shards[-1]).read())
            first, end = 3000 * k // 4, 3000 * (k + 1) // 4
            check([x[0] for x in rows] == list(range(first, end)), "shard %d holds the wrong pairs" % k)
        merged = os.path.join(d, "merged.csv")
        expect(run("merge", "--out", merged, *reversed(shards)), 0)
        check(open(merged, "rb").read() == single, "merged shards differ from the single run")
        # SLURM_ARRAY_TASK_ID picks the shard.
        env = {"SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "5", "SLURM_ARRAY_TASK_COUNT": "4"}
        expect(run("run", job, "--shard", "slurm", "--out", os.path.join(d, "s.csv"), "-q", env=env), 0)
        check(open(os.path.join(d, "s.shard-2-of-4.csv"), "rb").read() == open(shards[2], "rb").read(),
              "--shard slurm (task 7 of 5..8) is not shard 2/4")
        r = run("run", job, "--shard", "slurm", "-q", env={"SLURM_ARRAY_TASK_ID": ""})
        expect(r, 2)
        # Refusals; the output is not created.
        out = os.path.join(d, "m.csv")
        r = run("merge", "--out", out, shards[0], shards[1], shards[3])
        expect(r, 2)
        error_line(r, r"shard 2/4 of job [0-9a-f]{16} is missing")
        r = run("merge", "--out", out, shards[0], shards[1], shards[1], shards[2], shards[3])
        expect(r, 2)
        error_line(r, r"shard 1/4 given twice")
        expect(run("run", job, "--shard", "1/4", "--mode", "approx", "--out", os.path.join(d, "x.csv"), "-q"), 0)
        r = run("merge", "--out", out, shards[0], os.path.join(d, "x.shard-1-of-4.csv"), shards[2], shards[3])
        expect(r, 2)
        error_line(r, r"x\.shard-1-of-4\.csv: from another job")
        torn = write(os.path.join(d, "torn.csv"), open(shards[1], "rb").read()[:-7])
        r = run("merge", "--out", out, shards[0], torn, shards[2], shards[3])
        expect(r, 2)
        error_line(r, r"torn\.csv: shard 1/4: incomplete: 749 whole rows and a torn one of 750")
        short = write(os.path.join(d, "short.csv"), b"".join(open(shards[1], "rb").readlines()[:-1]))
        r = run("merge", "--out", out, shards[0], short, shards[2], shards[3])
        expect(r, 2)
        error_line(r, r"incomplete: 749 whole rows of 750")
        r = run("merge", "--out", shards[0], shards[0], shards[1], shards[2], shards[3])
        expect(r, 2)
        error_line(r, r"an input: refusing to overwrite it")
        check(not os.path.exists(out), "a refused merge wrote its output")
        for fmt in ("jsonl", "npy"):
            one = os.path.join(d, "f." + fmt)
            expect(run("run", job, "--out", one, "-q"), 0)
            parts = []
            for k in range(2):
                expect(run("run", job, "--out", one, "--shard", "%d/2" % k, "-q"), 0)
                parts.append(os.path.join(d, "f.shard-%d-of-2.%s" % (k, fmt)))
            expect(run("merge", "--out", os.path.join(d, "fm." + fmt), *parts), 0)
            check(open(one, "rb").read() == open(os.path.join(d, "fm." + fmt), "rb").read(),
                  "%s shards merged differ from the single run" % fmt)


def longer_job(d, copies):
    """The scene with its pairs repeated: long enough to be killed mid-run."""
    job = scene_copy(d)
    lines = open(os.path.join(d, "pairs.txt")).read()
    write(os.path.join(d, "pairs.txt"), lines * copies)
    return job


def whole_lines(data):
    return data[:data.rfind(b"\n") + 1] if b"\n" in data else b""


def test_resume_after_kills():
    # SIGKILL at 20 random moments, each followed by --resume: the end
    # result is the uninterrupted run's bytes, and after every kill the
    # .partial file's whole lines are a prefix of them. Half the kills land
    # anywhere in a run; the other half once results are being written
    # (start-up, the validation layer's included, is most of a short run).
    rng = random.Random(30)
    with tempfile.TemporaryDirectory() as d:
        job = longer_job(d, 2)
        ref = os.path.join(d, "ref.csv")
        t0 = time.time()
        expect(run("run", job, "--out", ref, "-q", "--block", "100"), 0)
        duration = time.time() - t0
        want = open(ref, "rb").read()
        out = os.path.join(d, "out.csv")
        partial = out + ".partial"
        kills = 0
        sizes = []
        while kills < 20:
            before = os.path.getsize(partial) if os.path.exists(partial) else 0
            p = subprocess.Popen([TOOL, "run", job, "--out", out, "--resume", "-q", "--block", "100"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if kills % 2:
                time.sleep(rng.uniform(0.0, duration))
            else:
                deadline = time.time() + duration * 3
                while p.poll() is None and time.time() < deadline and \
                        (not os.path.exists(partial) or os.path.getsize(partial) <= before):
                    time.sleep(0.005)
                time.sleep(rng.uniform(0.0, 0.2))
            if p.poll() is not None:
                err = p.stderr.read()
                p.stderr.close()
                check(p.returncode == 0, "a resumed run failed: %r" % err)
                # It finished before the kill: start again to kill more.
                os.unlink(out)
                continue
            p.kill()
            p.wait()
            p.stderr.close()
            kills += 1
            if os.path.exists(partial):
                data = open(partial, "rb").read()
                sizes.append(len(data))
                check(want.startswith(whole_lines(data)), "after kill %d the .partial is not a prefix" % kills)
            if os.path.exists(out):
                # Killed after the rename, while closing down: complete.
                check(open(out, "rb").read() == want, "the target appeared before the job was complete")
                os.unlink(out)
        r = run("run", job, "--out", out, "--resume", "--block", "100")
        expect(r, 0)
        check(open(out, "rb").read() == want, "the resumed output differs from the uninterrupted one")
        mid = sum(1 for s in sizes if 150 < s < len(want))
        check(mid >= 5, "only %d kills landed mid-output: sizes %r" % (mid, sizes))
        # Resuming a complete job does nothing.
        r = run("run", job, "--out", out, "--resume")
        expect(r, 0)
        check("complete already" in r.stderr, r.describe())
        # A torn last line is dropped and redone.
        write(partial, want[:len(want) // 2 + 5])
        expect(run("run", job, "--out", os.path.join(d, "out.csv"), "--resume", "-q"), 0)
        check(open(out, "rb").read() == want, "resume after a torn line differs")
        # A .partial of another job is refused, and left as it was.
        os.unlink(out)
        other = write(partial, want[:1000].replace(b"pairs 6000", b"pairs 6001"))
        r = run("run", job, "--out", out, "--resume")
        expect(r, 2)
        error_line(r, r"--resume: not a csv results file of vkcollide run|the job changed")
        check(open(other, "rb").read() == want[:1000].replace(b"pairs 6000", b"pairs 6001"), "it was changed")


def test_interrupt_and_resume():
    # SIGINT keeps what was answered in OUT.partial, says so, exits 130;
    # --resume finishes it; the npy output resumes too.
    with tempfile.TemporaryDirectory() as d:
        job = longer_job(d, 4)
        for ext in ("csv", "npy"):
            ref = os.path.join(d, "ref." + ext)
            expect(run("run", job, "--out", ref, "-q"), 0)
            out = os.path.join(d, "o." + ext)
            p = subprocess.Popen([TOOL, "run", job, "--out", out, "--block", "200", "--progress", "0"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            for _ in range(600):
                if os.path.exists(out + ".partial") and os.path.getsize(out + ".partial") > 4096:
                    break
                time.sleep(0.02)
            p.send_signal(signal.SIGINT)
            _, err = p.communicate(timeout=TIMEOUT_S)
            check(p.returncode == 130, "exit %d: %r" % (p.returncode, err))
            m = re.search(rb"interrupted: (\d+) of 12000 pairs answered and kept in .*\.partial; `vkcollide run .* "
                          rb"--resume` continues", err)
            check(m, "stderr %r" % err)
            kept = int(m.group(1))
            data = open(out + ".partial", "rb").read()
            if ext == "csv":
                check(len(parse_csv(data.decode())[1]) == kept, "the .partial does not hold the pairs said")
            else:
                check((len(data) - data.index(b"\n") - 1) == kept * 26, "the .partial does not hold the pairs said")
            check(0 < kept < 12000, "interrupted after %d pairs" % kept)
            r = run("run", job, "--out", out, "--resume")
            expect(r, 0)
            check("resuming" in r.stderr, r.describe())
            check(open(out, "rb").read() == open(ref, "rb").read(), "%s: resumed output differs" % ext)


def test_bad_inputs():
    # Each bad input: one line FILE:LINE:COLUMN: reason, exit 2, the results
    # of the pairs before a bad line kept, never a crash.
    with tempfile.TemporaryDirectory() as d:
        good = "box torus 1 0 0 0 0.5 0 0\n"
        # (bad line, where the column points: a field or None = the end, reason)
        cases = [
            ("box torus 1 0 0 0 nan 0 0", "nan", r"'nan' is not a finite number \(tx\)"),
            ("box torus 1 0 0 0 inf 0 0", "inf", r"'inf' is not a finite number"),
            ("box torus 1 0 0", None, r"5 fields, expected 9 .*: qz is missing"),
            ("box torus 0 0 0 0 1 1 1", "0 0 0 0", r"zero quaternion"),
            ("box wheel 1 0 0 0 1 1 1", "wheel", r"mesh B 'wheel' is neither a mesh name"),
            ("box 2 1 0 0 0 1 1 1", "2", r"mesh B '2': the job has 2 meshes \(indices 0\.\.1\)"),
            ("box torus 1 0 0 0 1 1 1 2", None, r"10 fields: A's pose wants 7 numbers"),
            ("box torus 1 0 0 0 1 1 1 0 0 0 0 1 1 1", "0 0 0 0 1", r"A's pose: zero quaternion"),
            ("box torus 1 0 0 0 1e39 0 0", "1 0 0 0 1e39", r"a translation beyond the float range"),
            ("box torus 1 0 0 0 1\x00 0 0", "\x00", r"a NUL byte"),
            ("box torus 1,,0 0 0 1 1 1", ",0 0 0", r"empty field before ','"),
            ("box torus 1 0 0 0 1 1 " + "1" * 200, "1" * 200, r"'1111.*' is too long for a number"),
        ]
        job = make_job(d, None, output="o.csv")
        for bad, at, reason in cases:
            write(os.path.join(d, "o.csv"), "old\n")
            write(os.path.join(d, "pairs.txt"), good + bad + "\n" + good)
            r = run("run", job)
            expect(r, 2)
            column = bad.index(at) + 1 if at else len(bad) + 1
            error_line(r, r"pairs\.txt:2:%d: %s" % (column, reason))
            check(open(os.path.join(d, "o.csv")).read() == "old\n", "the output was replaced after a bad line")
            _, rows = parse_csv(open(os.path.join(d, "o.csv.partial")).read())
            check(len(rows) == 1 and rows[0][6] == 1, "the pair before the bad line was not kept: %r" % rows)
        # A line over 1 MiB, and a file without any newline, are refused
        # before any work.
        write(os.path.join(d, "pairs.txt"), good + "#" + "x" * (1 << 20) + "\n")
        r = run("run", job)
        expect(r, 2)
        error_line(r, r"pairs\.txt:2:1048577: the line is longer than 1048576 bytes")
        # A binary file (an .obj's bytes mangled, then a PNG header).
        write(os.path.join(d, "pairs.txt"), b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
        r = run("run", job)
        expect(r, 2)
        error_line(r, r"pairs\.txt:1:1: mesh A '\\x89PNG' is neither")
        # Pairs that never end (standard input kept open) stream: the
        # answers come while the input is open; SIGINT ends the run.
        p = subprocess.Popen([TOOL, "run", job, "--pairs", "-", "--out", "-", "--block", "1"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            p.stdin.write((good * 3).encode())
            p.stdin.flush()
            got = b""
            deadline = time.time() + 120
            while got.count(b"\n") < 5 and time.time() < deadline:
                chunk = os.read(p.stdout.fileno(), 4096)
                if not chunk:
                    break
                got += chunk
            check(got.count(b"\n") == 5, "answers did not stream: %r" % got)
            p.send_signal(signal.SIGINT)
            p.communicate(timeout=TIMEOUT_S)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        check(p.returncode == 130, "exit %d after SIGINT on silent input" % p.returncode)


def test_bad_jobs():
    with tempfile.TemporaryDirectory() as d:
        box = os.path.join(EXAMPLES, "box.obj")
        write(os.path.join(d, "pairs.txt"), "0 0 1 0 0 0 0 0 0\n")
        cases = [
            ('{"meshes": [{"path": "%s"}], "pairs": "pairs.txt",\n "mode": "fast"}' % box,
             r"job\.json:2:10: mode wants one of exact, approx, not 'fast'"),
            ('{"meshes": [{"path": "%s"}], "pairs": "pairs.txt",\n  "colour": 1}' % box,
             r"job\.json:2:3: unknown key 'colour'"),
            ('{"meshes": [{"path": "%s"}], "pairs": "pairs.txt",\n "mode": "approx", "mode": "exact"}' % box,
             r"job\.json:2:20: the key \"mode\" appears twice in one object"),
            ('{"meshes": [{"path": "%s", "scale": 2,\n "scale": 3}], "pairs": "pairs.txt"}' % box,
             r"job\.json:2:2: the key \"scale\" appears twice in one object"),
            ('{"meshes": [\n {"path": "%s", "name": "a"},\n {"path": "%s", "name": "a"}], "pairs": "pairs.txt"}'
             % (box, box), r"job\.json:3:\d+: meshes\[0\] and meshes\[1\] are both named 'a'"),
            ('{"meshes": [{"path": "%s", "scale": -1}], "pairs": "pairs.txt"}' % box,
             r"job\.json:1:\d+: meshes\[0\]\.scale wants a number > 0"),
            ('{"meshes": [{"path": "%s", "name": "12"}], "pairs": "pairs.txt"}' % box,
             r"job\.json:1:\d+: meshes\[0\]\.name: a mesh name may not be all digits"),
            ('{"meshes": [{"path": "%s"}], "pairs": "pairs.txt",' % box, r"job\.json:1:\d+: the JSON text ends early"),
            ('{"meshes": [{"path": "%s"}] "pairs": "pairs.txt"}' % box, r"job\.json:1:\d+: not valid JSON"),
            ('{"meshes": [], "pairs": "pairs.txt"}', r"job\.json:1:12: meshes is empty"),
            ('{"meshes": [{"path": "%s"}]}' % box, r"job\.json:1:1: the job has no \"pairs\" file"),
            ('{"meshes": [{"path": "%s"}], "pairs": "pairs.txt", "resolution": 100}' % box,
             r"job\.json:1:\d+: resolution wants a power of two in 4\.\.1024"),
            ('{"meshes": [{"path": "nothere.obj"}], "pairs": "pairs.txt"}',
             r"job\.json:1:22: meshes\[0\]: cannot open .*nothere\.obj: No such file"),
            ('{"meshes": [{"path": "pairs.txt"}], "pairs": "pairs.txt"}',
             r"job\.json:1:22: meshes\[0\] .*pairs\.txt: Assimp cannot read it"),
            ('{"meshes": [{"path": "%s"}], "pairs": "none.txt"}' % box,
             r"none\.txt: cannot open the pairs file: No such file"),
            ('[1, 2]', r"job\.json:1:1: a job is a JSON object"),
            ('{"meshes": [{"path": "%s"}], "pairs": "pairs.txt", "output": "pairs.txt"}' % box,
             r"pairs\.txt: the output names the pairs file, an input: refusing to overwrite it"),
            ('{"meshes": [{"path": "%s"}], "pairs": "pairs.txt", "output": "%s"}' % (box, box),
             r"box\.obj: the output names the mesh file, an input"),
            ('{"meshes": [{"path": "%s"}], "pairs": "pairs.txt", "output": "job.json"}' % box,
             r"job\.json: the output names the job file, an input"),
        ]
        for text, pattern in cases:
            job = write(os.path.join(d, "job.json"), text)
            r = run("run", job)
            expect(r, 2)
            error_line(r, pattern)
            check(open(os.path.join(d, "pairs.txt")).read() == "0 0 1 0 0 0 0 0 0\n", "the pairs file changed")
            check(open(job).read() == text, "the job file changed")
        check(sorted(os.listdir(d)) == ["job.json", "pairs.txt"], "files left: %r" % os.listdir(d))
        write(os.path.join(d, "job.json"), b'{"meshes": [{"path": "a\x00"}]}')
        r = run("run", os.path.join(d, "job.json"))
        expect(r, 2)
        error_line(r, r"job\.json:1:24: a NUL byte")


def test_command_line_overrides():
    # Options override the job; '-' is standard output; the output is
    # written only at the end.
    with tempfile.TemporaryDirectory() as d:
        job = scene_copy(d)
        r = run("run", job, "--out", "-", "--mode", "approx", "--resolution", "32", "--mip", "1", "-q")
        expect(r, 0)
        _, rows = parse_csv(r.stdout)
        check(len(rows) == 3000, "stdout held %d rows" % len(rows))
        check(not os.path.exists(os.path.join(d, "-")) and not os.path.exists(os.path.join(d, "results.csv")),
              "--out - wrote a file")
        r2 = run("run", job, "--out", "-", "-q")
        check(r2.stdout.splitlines()[0] != r.stdout.splitlines()[0], "the fingerprint ignores the mode")
        r = run("run", job, "--pairs", "-", "--out", "-", "-q", stdin=open(os.path.join(d, "pairs.txt"), "rb").read())
        expect(r, 0)
        check(r.stdout.splitlines()[2:] == r2.stdout.splitlines()[2:], "pairs from standard input answer differently")
        r = run("run", job, "--resume", "--out", "-")
        expect(r, 2)
        r = run("run", job, "--shard", "3/3")
        expect(r, 2)


def test_progress():
    # Not a terminal: periodic lines; a terminal: a bar with rate and ETA.
    with tempfile.TemporaryDirectory() as d:
        job = scene_copy(d)
        r = run("run", job, "--progress", "0.01", "--block", "50")
        expect(r, 0)
        lines = [l for l in r.stderr.splitlines() if l.startswith("vkcollide: progress: ")]
        check(lines, "no progress lines\n%s" % r.describe())
        check(re.match(r"vkcollide: progress: [\d,]+ of 3,000 pairs \([\d.]+%\), [\d,]+ pairs/s, ETA \S+$", lines[0]),
              lines[0])
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(TOOL, [TOOL, "run", job, "--block", "50", "--out", os.path.join(d, "t.csv")])
        seen = b""
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        _, status = os.waitpid(pid, 0)
        check(os.WEXITSTATUS(status) == 0, "exit %d on a terminal: %r" % (os.WEXITSTATUS(status), seen[-500:]))
        check(re.search(rb"\r\[[#.]{24}\] +[\d.]+%  [\d,]+/3,000 pairs  [\d,]+ pairs/s  ETA", seen),
              "no progress bar on a terminal: %r" % seen[-500:])
        check(b"vkcollide: done: 3,000 pairs" in seen, "no summary on a terminal")


def test_help_lists_run_and_merge():
    r = run("--help")
    expect(r, 0)
    check(re.search(r"^  run ", r.stdout, re.M) and re.search(r"^  merge ", r.stdout, re.M), r.stdout)
    r = run("help", "run")
    expect(r, 0)
    for word in ("--shard", "--resume", "SLURM_ARRAY_TASK_ID", "MESH_A MESH_B", "npy"):
        check(word in r.stdout, "help run lacks %r" % word)
    r = run("run")
    expect(r, 2)
    r = run("merge", "x.csv")
    expect(r, 2)


# ---------------------------------------------------------------------------

def test_vertex_budget():
    # A vertex budget (approx mode) in the job or on the command line answers
    # as collide does with it, never collides where every vertex does not,
    # enters the fingerprint, and is refused in exact mode.
    with tempfile.TemporaryDirectory() as d:
        star = os.path.join(SOURCE_DIR, "bench", "meshes", "star.obj")  # 1,946 vertices: a level of 486
        rnd = random.Random(5)
        poses = []
        for _ in range(400):
            q = [rnd.gauss(0, 1) for _ in range(4)]
            n = math.sqrt(sum(x * x for x in q))
            t = [rnd.uniform(-2.1, 2.1) for _ in range(3)]
            poses.append(" ".join("%.7f" % x for x in [y / n for y in q] + t))
        write(os.path.join(d, "poses.txt"), "\n".join(poses) + "\n")
        pairs = "".join("s s %s\n" % p for p in poses)
        meshes = [{"path": star, "name": "s"}]
        job = make_job(d, pairs, meshes, mode="approx", vertex_budget=300)
        r = run("run", job, "--out", "-", "-q")
        expect(r, 0)
        head, budget_rows = parse_csv(r.stdout)
        r = run("run", job, "--out", "-", "-q", "--vertex-budget", "0")
        expect(r, 0)
        head_all, all_rows = parse_csv(r.stdout)
        check(head != head_all, "the fingerprint ignores the vertex budget")
        c = run("collide", star, star, "--poses", os.path.join(d, "poses.txt"), "--mode", "approx",
                "--vertex-budget", "300", "-q")
        expect(c, 0)
        collide_hits = [l.split(",")[1] == "1" for l in c.stdout.splitlines()[1:]]
        check(collide_hits == [x[3] == 1 for x in budget_rows], "run and collide answer differently with a budget")
        check(all(a[3] == 1 for a, b in zip(all_rows, budget_rows) if b[3] == 1),
              "the budget collides where every vertex does not")
        hits = sum(x[3] for x in all_rows)
        check(50 < hits < 390, "%d of 400 collide: not a mix" % hits)
        lost = sum(1 for a, b in zip(all_rows, budget_rows) if a[3] != b[3])
        check(lost > 0, "the budget changed no answer: was it applied?")
        r = run("run", job, "--mode", "exact", "-q")
        expect(r, 2)
        error_line(r, r"vertex budget \(the job's \"vertex_budget\"\) needs approx mode")
        make_job(d, None, meshes, name="exact.json", vertex_budget=300)
        r = run("run", os.path.join(d, "exact.json"), "--vertex-budget", "0", "--out", "-", "-q")
        expect(r, 0)


TESTS = [v for k, v in sorted(globals().items()) if k.startswith("test_") and callable(v)]


def main():
    global TOOL
    if len(sys.argv) < 2:
        print("usage: test_jobs.py PATH/TO/vkcollide [NAME-FILTER]", file=sys.stderr)
        return 2
    TOOL = os.path.abspath(sys.argv[1])
    name_filter = sys.argv[2] if len(sys.argv) > 2 else ""
    passed = failed = 0
    for test in TESTS:
        name = test.__name__
        if name_filter.startswith("!") and name_filter[1:] in name:
            continue
        if not name_filter.startswith("!") and name_filter not in name:
            continue
        t0 = time.time()
        try:
            test()
        except Failure as e:
            failed += 1
            print("FAIL %s: %s" % (name, e))
        except Exception as e:  # a bug in the test or unexpected output shape
            failed += 1
            print("FAIL %s: %s: %s" % (name, type(e).__name__, e))
        else:
            passed += 1
            print("ok   %s (%.1f s)" % (name, time.time() - t0))
        sys.stdout.flush()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
