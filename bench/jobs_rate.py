# SPDX-License-Identifier: MIT
"""The rate of `vkcollide run` and `vkcollide collide` beside the library's own
(bench_approx / bench_exact) on the same poses, and the peak memory of a long
job. Writes one JSON object (python3 with Debian's python3-numpy).

usage: python3 bench/jobs_rate.py --build BUILD_DIR [--count N] [--repeat R]
                                  [--long N] [--modes approx,exact] [--out FILE]

Poses: gen_poses.py's for spider.obj against itself (Assimp's test models),
radius factor 1.3, seed 1: the poses bench_approx and bench_exact read with
--poses. For each mode it times, on the same N poses (default 100,000):
  library    bench_approx/bench_exact --poses, one batch of N pairs, its
             median of R (its median_pairs_per_second)
  collide    `vkcollide collide A B --poses P --out /dev/null`: N / (wall of
             the run - wall of the same run on 1 pose), i.e. after the build
  run text   `vkcollide run` on a text pairs file, csv output: the pairs/s of
             its summary (the pairs phase, after import and build)
  run npy    the same pairs as .npy arrays, .npy output
Each is the median of R runs (default 3), all in one invocation, one after
the other on the same machine.

--long N (default 0 = skip): peak RSS (GNU time's maximum resident set
size) and rate of `vkcollide run --mode approx` on N pairs (the N poses
repeated), text in and csv out, and npy in and npy out; also on N / 100
pairs.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SPIDER = "/usr/share/assimp/models/OBJ/spider.obj"


def timed(cmd, **kw):
    """(wall seconds, stdout, stderr) of one child."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
    out, err = p.communicate()
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), err.decode()[-2000:]))
    return wall, out.decode(), err.decode()


def peak_rss(cmd):
    """Runs cmd under GNU time; returns (wall, peak RSS bytes, stderr). (The
    rusage of a child forked from this process would count this process's
    pages too, until the exec.)"""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "vkcol-maxrss-kib %M"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    err = p.stderr.decode()
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), err[-2000:]))
    kib = int(re.search(r"vkcol-maxrss-kib (\d+)", err).group(1))
    return wall, kib * 1024, err


def summary_rate(err):
    m = re.search(r"done: ([\d,]+) pairs, .*?, ([\d,]+) pairs/s;.*?pairs ([\d.]+) \(device ([\d.]+); parse ([\d.]+) and "
                  r"format ([\d.]+) of CPU on (\d+) threads; write ([\d.]+)\)", err)
    if not m:
        sys.exit("no summary in: %s" % err[-1000:])
    g = m.groups()
    return {"pairs": int(g[0].replace(",", "")), "pairs_per_s": int(g[1].replace(",", "")),
            "pairs_phase_s": float(g[2]), "device_s": float(g[3]), "parse_cpu_s": float(g[4]),
            "format_cpu_s": float(g[5]), "threads": int(g[6]), "write_s": float(g[7])}


def write_npy_inputs(d, poses, prefix):
    pairs = np.zeros((len(poses), 2), dtype="<i8")
    np.save(os.path.join(d, prefix + "pairs.npy"), pairs)
    np.save(os.path.join(d, prefix + "poses.npy"), poses.astype("<f8"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--count", type=int, default=100000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--long", type=int, default=0)
    ap.add_argument("--modes", default="approx,exact")
    ap.add_argument("--out")
    args = ap.parse_args()
    tool = os.path.join(args.build, "src", "vkcollide")
    env = dict(os.environ)
    env.pop("VKCOLLIDE_VALIDATION", None)
    result = {"tool": "vkcollide run / collide vs the library's bench", "poses": args.count, "mesh": "spider.obj",
              "repeat": args.repeat, "cores": os.cpu_count(), "modes": {}}
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as d:
        poses_txt = os.path.join(d, "poses.txt")
        subprocess.run([sys.executable, os.path.join(HERE, "gen_poses.py"), SPIDER, SPIDER, "--count", str(args.count),
                        "--radius-factor", "1.3", "--seed", "1", "--out", poses_txt], check=True)
        poses = np.array([[float(x) for x in l.split()] for l in open(poses_txt) if l.strip() and l[0] != "#"])
        with open(os.path.join(d, "pairs.txt"), "w") as f:
            for row in open(poses_txt):
                if row.strip() and row[0] != "#":
                    f.write("0 0 " + row)
        write_npy_inputs(d, poses, "")
        one = os.path.join(d, "one.txt")
        with open(one, "w") as f:
            f.write(next(l for l in open(poses_txt) if l.strip() and l[0] != "#"))
        job = {"meshes": [{"path": SPIDER, "name": "spider"}], "pairs": "pairs.txt"}
        json.dump(job, open(os.path.join(d, "job.json"), "w"))
        for mode in args.modes.split(","):
            r = {}
            bench = os.path.join(args.build, "bench", "bench_" + mode)
            extra = (["--accuracy", "0", "--speed-resolutions", "64", "--resolutions", "64"] if mode == "approx"
                     else ["--correctness", "0"])
            _, out, _ = timed([bench, SPIDER, SPIDER, "--poses", poses_txt, "--batch-sizes", str(args.count),
                               "--repeat", str(args.repeat)] + extra, env=env)
            rates = [float(x) for x in re.findall(r'"median_pairs_per_second"\s*:\s*([\d.e+]+)', out)]
            r["library_pairs_per_s"] = rates[-1] if rates else None
            base = [timed([tool, "collide", SPIDER, SPIDER, "--poses", one, "--mode", mode, "--out", "/dev/null"],
                          env=env)[0] for _ in range(args.repeat)]
            full = [timed([tool, "collide", SPIDER, SPIDER, "--poses", poses_txt, "--mode", mode, "--out", "/dev/null"],
                          env=env)[0] for _ in range(args.repeat)]
            r["collide_pairs_per_s"] = args.count / max(1e-9, statistics.median(full) - statistics.median(base))
            for kind, extra in (("run_text_csv", ["--out", os.path.join(d, "o.csv")]),
                                ("run_npy_npy", ["--pairs", os.path.join(d, "pairs.npy"), "--poses",
                                                 os.path.join(d, "poses.npy"), "--out", os.path.join(d, "o.npy")])):
                runs = [summary_rate(timed([tool, "run", os.path.join(d, "job.json"), "--mode", mode] + extra,
                                           env=env)[2]) for _ in range(args.repeat)]
                runs.sort(key=lambda x: x["pairs_per_s"])
                r[kind] = runs[len(runs) // 2]
            result["modes"][mode] = r
            print(mode, r, file=sys.stderr)
        if args.long:
            result["long"] = []
            for n in (args.long // 100, args.long):
                reps = max(1, n // args.count)
                txt = os.path.join(d, "long.txt")
                with open(txt, "w") as f:
                    body = open(os.path.join(d, "pairs.txt")).read()
                    for _ in range(reps):
                        f.write(body)
                tiled = np.tile(poses, (reps, 1))
                write_npy_inputs(d, tiled, "long_")
                del tiled
                json.dump({"meshes": [{"path": SPIDER}], "pairs": txt}, open(os.path.join(d, "long.json"), "w"))
                for kind, extra in (("text_csv", ["--out", os.path.join(d, "l.csv")]),
                                    ("npy_npy", ["--pairs", os.path.join(d, "long_pairs.npy"), "--poses",
                                                 os.path.join(d, "long_poses.npy"), "--out", os.path.join(d, "l.npy")])):
                    wall, rss, err = peak_rss([tool, "run", os.path.join(d, "long.json"), "--mode", "approx"] + extra)
                    s = summary_rate(err)
                    entry = {"pairs": reps * args.count, "io": kind, "mode": "approx", "wall_s": wall,
                             "peak_rss_bytes": rss, "peak_rss_mib": round(rss / 2**20, 1)}
                    entry.update(s)
                    result["long"].append(entry)
                    print(entry, file=sys.stderr)
                    for f in ("l.csv", "l.npy"):
                        if os.path.exists(os.path.join(d, f)):
                            os.unlink(os.path.join(d, f))
    text = json.dumps(result, indent=1)
    if args.out:
        open(args.out, "w").write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
