# SPDX-License-Identifier: MIT
"""End-to-end tests of `vkcollide bench` (stdlib only).

usage: python3 tests/test_bench.py PATH/TO/vkcollide [NAME-FILTER]

Runs the smallest suite (--smoke, about 20 s on lavapipe) once, with the
validation layer on (VKCOLLIDE_VALIDATION=1 from tests/meson.build: any
message fails the command), and checks its report against the schema
BENCHMARKS.md documents: every figure's median within its range, the
stages adding up to the device time, the calibrated collide fractions, the
peers and their ratios when the peer programs are built, the targets, the
summary and the plots. Then --compare: a report against itself changes
nothing; figures moved beyond their spread are flagged in the right
direction; a file that is no report is refused. Exit status 0 all passed,
1 some failed, 77 skipped (no Vulkan device).
"""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile

TIMEOUT_S = 300
TOOL = None
SCHEMA_VERSION = 1
STAGES = ["bounds", "cube_map", "setup", "traversal", "leaves", "containment"]


class Skip(Exception):
    pass


class Failure(AssertionError):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def run(*args):
    p = subprocess.run([TOOL] + list(args), capture_output=True, timeout=TIMEOUT_S)
    out, err = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    check(p.returncode >= 0, "vkcollide %s crashed (signal %d)\n%s" % (" ".join(args), -p.returncode, err[-2000:]))
    return p.returncode, out, err


_smoke = {}


def smoke_report():
    """The smoke suite's report, run once for every test that reads it."""
    if "report" not in _smoke:
        rc, _, err = run("devices")
        if rc != 0:
            raise Skip("no usable Vulkan device: " + err.strip())
        directory = tempfile.mkdtemp(prefix="vkcol-bench-")
        rc, out, err = run("bench", "--smoke", "--out", directory)
        check(rc == 0, "bench --smoke exited with %d\n%s" % (rc, err[-3000:]))
        with open(os.path.join(directory, "report.json")) as f:
            _smoke["report"] = json.load(f)
        _smoke["dir"] = directory
        _smoke["stderr"] = err
    return _smoke["report"]


def figures_of(holder):
    return holder.get("figures", {})


def check_figure(where, name, f):
    check(isinstance(f, dict), "%s: figure %s is not an object" % (where, name))
    for key in ("unit", "median", "min", "max", "n"):
        check(key in f, "%s: figure %s has no %r" % (where, name, key))
    if f["median"] is None:
        return
    check(f["min"] <= f["median"] <= f["max"], "%s: %s median %r outside [%r, %r]" %
          (where, name, f["median"], f["min"], f["max"]))
    if "samples" in f:
        check(len(f["samples"]) == f["n"], "%s: %s has %d samples, n = %d" % (where, name, len(f["samples"]), f["n"]))
        check(min(f["samples"]) == f["min"] and max(f["samples"]) == f["max"],
              "%s: %s min/max are not its samples'" % (where, name))


def all_figures(report):
    """(where, name, figure) for every figure of the report."""
    out = [("device", n, f) for n, f in figures_of(report.get("device_rates", {})).items()]
    for c in report["cases"]:
        for key in ("meshes", "peers", "runs", "accuracy"):
            for item in c.get(key, []):
                out += [("%s/%s" % (c["id"], item["id"]), n, f) for n, f in figures_of(item).items()]
    return out


def test_report_header():
    r = smoke_report()
    check(r["schema"] == "vkcollide-bench" and r["schema_version"] == SCHEMA_VERSION, "schema %r %r" %
          (r.get("schema"), r.get("schema_version")))
    rc, version, _ = run("--version")
    check(r["tool"]["version"] in version, "tool version %r, --version says %r" % (r["tool"]["version"], version))
    check(r["tool"]["commit"] and r["suite"] == "smoke", "commit %r suite %r" % (r["tool"]["commit"], r["suite"]))
    for key in ("name", "type", "driver", "api_version"):
        check(r["device"].get(key), "device has no %s" % key)
    check(r["device"]["validation"] is True, "the test runs with validation on; the report says %r" %
          r["device"]["validation"])
    check(r["validation_messages"] == 0, "%r validation messages" % r["validation_messages"])
    check(r["machine"]["cores"] >= 1 and r["machine"]["memory_bytes"] > 0, "machine %r" % r["machine"])
    # A GPU warms up with full batches (its clocks drop while the peers run);
    # a CPU device does not.
    warm = r["settings"]["warmup_seconds"]
    check(warm == 0 if r["device"]["type"] == "cpu" else warm > 0, "warmup_seconds %r on a %s device" %
          (warm, r["device"]["type"]))
    groups = {c["group"] for c in r["cases"]}
    check(groups == {"batch_size", "triangles", "collide_fraction", "resolution", "motion"}, "groups %r" % groups)
    check(not any("skipped" in c for c in r["cases"]), "a smoke case was skipped: %r" %
          [c.get("skipped") for c in r["cases"] if "skipped" in c])


NUMBER = (int, float)
# The report's fields and their types, as BENCHMARKS.md's "The report" lists
# them (bool is not a number here).
SCHEMA = {
    "": {"schema": str, "schema_version": int, "created": str, "suite": str, "seconds": NUMBER, "tool": dict,
         "settings": dict, "machine": dict, "device": dict, "peers": dict, "device_rates": dict, "cases": list,
         "headline": dict, "targets": list, "validation_messages": int},
    "tool": {"version": str, "commit": str, "buildtype": str, "found": dict},
    "settings": {"repeat": int, "timed_repeat": int, "max_seconds": NUMBER, "warmup_seconds": NUMBER, "peer_poses": int, "bullet_poses": int,
                 "peer_repeat": int, "models": str, "models_found": bool},
    "machine": {"cpu": str, "cores": int, "peer_threads": int, "memory_bytes": int, "os": str, "kernel": str,
                "load_average_start": NUMBER, "load_average_end": NUMBER},
    "device": {"name": str, "type": str, "driver": str, "api_version": str, "vendor_id": int, "device_id": int,
               "subgroup_size": int, "device_local_bytes": int, "validation": bool},
    "peers": {"fcl": bool, "bullet": bool, "threads": int},
}
CASE = {"id": str, "group": str, "pair": str, "triangles": int, "meshes": list, "poses": dict, "runs": list,
        "seconds": NUMBER}
RUN = {"id": str, "mode": str, "batch": int, "resolution": int, "collide_fraction": NUMBER, "decided_by": dict,
       "figures": dict, "timed": dict}


def check_types(where, obj, fields):
    for key, kind in fields.items():
        check(key in obj, "%s: no %r" % (where, key))
        value = obj[key]
        ok = isinstance(value, kind) and not (kind is not bool and isinstance(value, bool))
        check(ok, "%s.%s is %r, not %s" % (where, key, value, kind))


def test_schema_types():
    r = smoke_report()
    for part, fields in SCHEMA.items():
        check_types(part or "report", r[part] if part else r, fields)
    for c in r["cases"]:
        check_types(c["id"], c, CASE)
        for run_ in c["runs"]:
            check_types("%s/%s" % (c["id"], run_["id"]), run_, RUN)
            check(run_["mode"] in ("exact", "approx"), "mode %r" % run_["mode"])
    for t in r["targets"]:
        check_types("target", t, {"name": str, "threshold": NUMBER, "value": NUMBER, "met": bool})


def test_figures_consistent():
    r = smoke_report()
    figures = all_figures(r)
    check(len(figures) > 100, "only %d figures" % len(figures))
    for where, name, f in figures:
        check_figure(where, name, f)
    rates = figures_of(r["device_rates"])
    check(rates["raw_samples_per_second"]["median"] > 0 and rates["bandwidth_bytes_per_second"]["median"] > 0,
          "device rates %r" % rates)


def test_runs_and_stages():
    r = smoke_report()
    for c in r["cases"]:
        modes = {run["mode"] for run in c["runs"]}
        check(modes == {"exact", "approx"}, "%s: modes %r" % (c["id"], modes))
        for run in c["runs"]:
            f, where = figures_of(run), "%s/%s" % (c["id"], run["id"])
            check(f["pairs_per_second"]["median"] > 0, "%s: no speed" % where)
            ran = [s for s in STAGES if "stage_ns_per_pair." + s in f]
            expected = STAGES if run["mode"] == "exact" else ["bounds", "cube_map", "setup"]
            check(ran == expected, "%s: stages %r, expected %r" % (where, ran, expected))
            # One timed run in the smoke suite: the stages add up to the
            # device time exactly (the library's sums do, tests/test_timing.c).
            total = sum(f["stage_ns_per_pair." + s]["median"] for s in ran)
            device = f["device_ns_per_pair"]["median"]
            check(abs(total - device) <= 1e-3 * device + 1e-3, "%s: stages %g ns, device %g ns" % (where, total, device))
            check(f["device_bytes"]["median"] > 0, "%s: no device memory" % where)
            decided = sum(run["decided_by"].values())
            check(decided == run["batch"], "%s: %d pairs decided of %d" % (where, decided, run["batch"]))
            if run["mode"] == "exact":
                check(run["timed"]["level_seconds"], "%s: no traversal levels" % where)


def test_early_accept_off():
    # The smoke suite's sphere pair also runs exact mode without its early
    # accepts: the same answers, none of them from stage 1's accepts, and
    # a row in the summary.
    r = smoke_report()
    found = 0
    for c in r["cases"]:
        for run in c["runs"]:
            if run.get("early_accept", True):
                continue
            found += 1
            where = "%s/%s" % (c["id"], run["id"])
            check(run["mode"] == "exact" and run["id"].startswith("exact-noaccept-"), "%s: mode %s" % (where, run["mode"]))
            on = [x for x in c["runs"] if x["mode"] == "exact" and x.get("early_accept", True)
                  and x["batch"] == run["batch"]]
            check(len(on) == 1, "%s: %d exact runs of its batch with the early accepts" % (where, len(on)))
            check(on and on[0]["collide_fraction"] == run["collide_fraction"],
                  "%s: collide fraction %r, with the early accepts %r" % (where, run["collide_fraction"],
                                                                          on and on[0]["collide_fraction"]))
            check(run.get("answers_differ_from_early_accept") == 0,
                  "%s: %r answers differ from the run with the early accepts" % (where, run.get("answers_differ_from_early_accept")))
            # Timed side by side with the default run: the same number of
            # speed runs and runs with timestamps, taken in turns.
            check(on and len(figures_of(run)["pairs_per_second"]["samples"]) ==
                  len(figures_of(on[0])["pairs_per_second"]["samples"]),
                  "%s: not as many speed runs as the run with the early accepts" % where)
            check(run["decided_by"]["cube_map"] == 0, "%s: %d pairs early accepted" % (where, run["decided_by"]["cube_map"]))
            check(on and on[0]["decided_by"]["cube_map"] > 0, "%s: the default run accepted none early" % where)
            check("ratio_over_fcl-all" in figures_of(run) or not r["peers"], "%s: no ratio over FCL" % where)
    check(found == 1, "%d runs without the early accepts in the smoke suite, expected 1" % found)
    with open(os.path.join(_smoke["dir"], "summary.md")) as f:
        check("## Exact mode without its early accepts" in f.read(), "summary.md has no early-accept table")


def test_pose_sets():
    r = smoke_report()
    for c in r["cases"]:
        exact = [run for run in c["runs"] if run["mode"] == "exact"][0]
        if c["poses"]["kind"] == "random":
            # The calibration aims at the target; 500 to 1,000 poses.
            target = c["poses"]["target_collide_fraction"]
            check(abs(exact["collide_fraction"] - target) < 0.15, "%s: %g collide, target %g" %
                  (c["id"], exact["collide_fraction"], target))
            check(c["poses"]["radius_factor"] > 0, "%s: radius factor %r" % (c["id"], c["poses"]["radius_factor"]))
        elif c["poses"]["kind"] == "near":
            check(0.2 < exact["collide_fraction"] < 0.8, "%s: %g collide near contact" %
                  (c["id"], exact["collide_fraction"]))
            check(c["poses"]["directions_tried"] >= c["poses"]["count"], "%s: %r" % (c["id"], c["poses"]))


def test_accuracy_by_resolution():
    r = smoke_report()
    res = [c for c in r["cases"] if c["group"] == "resolution"][0]
    got = sorted(a["resolution"] for a in res["accuracy"])
    check(got == [16, 64, 256], "resolutions %r" % got)
    for a in res["accuracy"]:
        f = figures_of(a)
        fp, fn, d = (f[k]["median"] for k in ("false_positive_rate", "false_negative_rate", "disagreement_rate"))
        check(0 <= fp <= 1 and 0 <= fn <= 1 and abs(d - fp - fn) < 1e-9, "r%d: %g %g %g" % (a["resolution"], fp, fn, d))
        check(f["false_positive_rate"].get("exact") is True, "accuracy figures are exact counts")
    cubes = {m["id"]: m for m in res["meshes"]}
    check({"a", "a-r16", "a-r256"} <= set(cubes), "mesh builds %r" % sorted(cubes))
    check(cubes["a-r256"]["figures"]["device_bytes"]["median"] > cubes["a-r16"]["figures"]["device_bytes"]["median"],
          "a 256 map holds more than a 16 map")


def test_peers_and_ratios():
    r = smoke_report()
    if not r["peers"]["fcl"]:
        raise Skip("fcl_peer is not built (no FCL)")
    batch = [c for c in r["cases"] if c["group"] == "batch_size"][0]
    peers = {p["id"]: p for p in batch["peers"]}
    expected = {"fcl-1", "fcl-all"} if r["peers"]["threads"] > 1 else {"fcl-1"}
    check(expected <= set(peers), "peers %r" % sorted(peers))
    for pid in expected:
        p = peers[pid]
        check("error" not in p, "%s: %s" % (pid, p.get("error")))
        check(figures_of(p)["pairs_per_second"]["median"] > 0, "%s: no speed" % pid)
        # FCL answers surfaces, exact mode solids: on two tori apart from
        # containment they agree except within the float tolerance.
        total = sum(figures_of(p)[k]["median"] for k in ("disagreements_exact_collides", "disagreements_peer_collides"))
        check(total <= 0.02 * p["compared_with_exact"], "%s: %d of %d answers differ from exact mode" %
              (pid, total, p["compared_with_exact"]))
    for run in batch["runs"]:
        ratio = figures_of(run)["ratio_over_fcl-1"]
        expect = figures_of(run)["pairs_per_second"]["median"] / figures_of(peers["fcl-1"])["pairs_per_second"]["median"]
        check(abs(ratio["median"] - expect) <= 1e-4 * expect, "%s: ratio %g, rates give %g" %
              (run["id"], ratio["median"], expect))
    head = r["headline"]
    check(head["case"] == batch["id"] and head["exact_pairs_per_second"]["median"] > 0, "headline %r" % head)
    for t in r["targets"]:
        check(t["met"] is (t["value"] >= t["threshold"]), "target %r" % t)


def test_summary_and_plots():
    r = smoke_report()
    with open(os.path.join(_smoke["dir"], "summary.md")) as f:
        text = f.read()
    check(r["device"]["name"] in text and "## Headline" in text, "summary.md lacks the device or the headline")
    has_matplotlib = subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"], capture_output=True).returncode == 0
    if has_matplotlib:
        for name in ("throughput_batch.svg", "throughput_triangles.svg", "stages.svg", "accuracy_resolution.svg"):
            path = os.path.join(_smoke["dir"], name)
            check(os.path.getsize(path) > 1000 and name in text, "%s missing or not in summary.md" % name)
    check(not os.path.exists(os.path.join(_smoke["dir"], "work")), "the work folder was left behind")
    # --summarize makes them again elsewhere.
    # A report cut short (as run.sh's time limit leaves one) says so in its
    # summary.
    with tempfile.TemporaryDirectory(prefix="vkcol-bench-summary-") as other:
        cut = dict(r, incomplete="running: 3 of 7 cases done")
        cut_path = os.path.join(other, "cut.json")
        with open(cut_path, "w") as f:
            json.dump(cut, f)
        rc, _, err = run("bench", "--summarize", cut_path, "--out", other)
        check(rc == 0 and os.path.exists(os.path.join(other, "summary.md")), "--summarize: %d %s" % (rc, err))
        with open(os.path.join(other, "summary.md")) as f:
            check("**Incomplete** (running: 3 of 7 cases done)" in f.read(), "an incomplete report's summary hides it")


def compare(a, b, *extra):
    return run("bench", "--compare", a, b, *extra)


def scaled(figure, factor):
    g = copy.deepcopy(figure)
    for key in ("median", "min", "max"):
        g[key] *= factor
    if "samples" in g:
        g["samples"] = [v * factor for v in g["samples"]]
    return g


def test_compare():
    smoke_report()
    a = os.path.join(_smoke["dir"], "report.json")
    rc, out, err = compare(a, a)
    check(rc == 0, "compare A A: %d %s" % (rc, err))
    check("0 beyond the reports' spread" in out and "0 only in A, 0 only in B" in out, "compare A A:\n" + out[-600:])
    # A: two speeds measured twice (the smoke suite measures once, and a
    # figure measured once has no spread to be beyond). B: one of them up
    # tenfold, the other down tenfold, and a count changed.
    with open(a) as f:
        report = json.load(f)
    case = report["cases"][0]
    faster, slower = case["runs"][0], case["runs"][1]
    for run_ in (faster, slower):
        f = run_["figures"]["pairs_per_second"]
        f["samples"] = [f["median"], f["median"] * 1.01]
        f["min"], f["max"], f["n"] = f["median"], f["median"] * 1.01, 2
    a = os.path.join(_smoke["dir"], "twice.json")
    with open(a, "w") as f:
        json.dump(report, f)
    faster["figures"]["pairs_per_second"] = scaled(faster["figures"]["pairs_per_second"], 10)
    slower["figures"]["pairs_per_second"] = scaled(slower["figures"]["pairs_per_second"], 0.1)
    acc = case["accuracy"][0]["figures"]["false_positive_rate"]
    acc["median"] = acc["min"] = acc["max"] = acc["median"] + 0.5
    b = os.path.join(_smoke["dir"], "changed.json")
    with open(b, "w") as f:
        json.dump(report, f)
    rc, out, err = compare(a, b, "--json")
    check(rc == 0, "compare --json: %d %s" % (rc, err))
    rows = {row["figure"]: row for row in json.loads(out)["figures"]}
    key = "%s/%s:pairs_per_second" % (case["id"], faster["id"])
    check(rows[key]["flag"] == "better" and abs(rows[key]["ratio"] - 10) < 1e-3, "faster: %r" % rows[key])
    key = "%s/%s:pairs_per_second" % (case["id"], slower["id"])
    check(rows[key]["flag"] == "worse", "slower: %r" % rows[key])
    key = "%s/%s:false_positive_rate" % (case["id"], case["accuracy"][0]["id"])
    check(rows[key]["flag"] == "changed", "count: %r" % rows[key])
    # With the smoke suite's single repeats nothing else has a spread to be
    # beyond, so exactly those three are flagged.
    flagged = sorted(k for k, row in rows.items() if row["flag"])
    check(len(flagged) == 3, "flagged: %r" % flagged)


def test_usage_errors():
    with tempfile.TemporaryDirectory() as d:
        not_report = os.path.join(d, "other.json")
        with open(not_report, "w") as f:
            json.dump({"schema": "something-else", "schema_version": 1}, f)
        rc, _, err = compare(not_report, not_report)
        check(rc == 2 and "not a vkcollide bench report" in err, "compare of a non-report: %d %s" % (rc, err))
        rc, _, err = run("bench", "--only", "nonsense", "--out", d)
        check(rc == 2 and "unknown group 'nonsense'" in err, "--only nonsense: %d %s" % (rc, err))
        missing = os.path.join(d, "missing.json")
        rc, _, err = compare(missing, not_report)
        check(rc == 2 and missing + ": cannot read it" in err and "\n)" not in err, "compare of a missing file: %d %s" %
              (rc, err))
        broken = os.path.join(d, "broken.json")
        with open(broken, "w") as f:
            f.write('{"schema": ')
        rc, _, err = compare(broken, not_report)
        check(rc == 2 and broken + ": not a JSON file" in err, "compare of a broken file: %d %s" % (rc, err))
        rc, _, err = run("bench", "--compare", not_report)
        check(rc == 2, "--compare with one report: %d" % rc)
        # --list: what scripts/gpu-bundle.sh reads the models from.
        rc, out, _ = run("bench", "--list")
        rows = [line.split() for line in out.splitlines()]
        check(rc == 0 and len(rows) > 10 and all(len(r[0].split("/")) == 3 for r in rows), "--list: %d\n%s" % (rc, out))
        check(any(r[1].startswith("models:") for r in rows), "--list names no model of assimp-testmodels")
        rc, quick, _ = run("bench", "--list", "--quick", "--only", "motion")
        check(rc == 0 and len(quick.splitlines()) == 1 and quick.startswith("motion/"), "--list --quick --only motion: %r" % quick)
        rc, out, _ = run("bench", "--help")
        check(rc == 0 and "--compare A.json B.json" in out and "--quick" in out, "bench --help: %d" % rc)


def test_missing_models():
    """Without assimp-testmodels the suite says so once, records each case
    that needs a model as skipped with the path, and goes on."""
    with tempfile.TemporaryDirectory() as d:
        missing = os.path.join(d, "no-models-here")
        out = os.path.join(d, "report")
        rc, _, err = run("bench", "--quick", "--only", "motion", "--no-peers", "--models", missing, "--out", out)
        check(rc == 0, "bench without models: %d\n%s" % (rc, err[-2000:]))
        check(missing in err and "assimp-testmodels" in err and "skipped" in err,
              "the warning does not name the folder:\n" + err[-2000:])
        with open(os.path.join(out, "report.json")) as f:
            r = json.load(f)
        check(r["settings"]["models_found"] is False, "models_found %r" % r["settings"].get("models_found"))
        check(len(r["cases"]) == 1 and missing in r["cases"][0].get("skipped", ""),
              "cases %r" % [(c["id"], c.get("skipped")) for c in r["cases"]])
        with open(os.path.join(out, "summary.md")) as f:
            check("skipped" in f.read(), "summary.md does not list the skipped case")


def find_file(root, tail):
    for d, _, files in os.walk(root):
        for name in files:
            path = os.path.join(d, name)
            if path.endswith(tail):
                return path
    return None


def test_installed():
    """`meson install --destdir`: the installed tool finds its helper
    programs and data beside itself (not in the build tree), and runs."""
    build = os.environ.get("VKCOL_BUILD_DIR")
    if not build:
        raise Skip("VKCOL_BUILD_DIR not set (tests/meson.build sets it)")
    with tempfile.TemporaryDirectory() as d:
        dest = os.path.join(d, "dest")
        p = subprocess.run(["meson", "install", "-C", build, "--no-rebuild", "--quiet", "--destdir", dest],
                           capture_output=True, timeout=TIMEOUT_S)
        check(p.returncode == 0, "meson install: %s" % p.stderr.decode()[-2000:])
        tool = find_file(dest, "/bin/vkcollide")
        lib = find_file(dest, "/libvkcollide.so.0")
        check(tool and lib, "installed tool %r, library %r" % (tool, lib))
        env = dict(os.environ, LD_LIBRARY_PATH=os.path.dirname(lib))
        for key in ("VKCOLLIDE_BENCH_LIBEXEC", "VKCOLLIDE_BENCH_DATA"):
            env.pop(key, None)
        out = os.path.join(d, "report")
        p = subprocess.run([tool, "bench", "--smoke", "--only", "device,motion", "--out", out], env=env,
                           capture_output=True, timeout=TIMEOUT_S)
        check(p.returncode == 0, "installed bench: %d\n%s" % (p.returncode, p.stderr.decode()[-2000:]))
        with open(os.path.join(out, "report.json")) as f:
            r = json.load(f)
        found = r["tool"]["found"]
        check(found["device_rates"].startswith(dest) and found["data"].startswith(dest),
              "the installed tool used helpers outside its prefix: %r" % found)
        if os.path.exists(os.path.join(build, "bench", "fcl_peer")):
            check(found["fcl_peer"].startswith(dest), "fcl_peer %r" % found["fcl_peer"])
        check(figures_of(r["device_rates"]).get("raw_samples_per_second"), "no device rates")
        check(os.path.exists(os.path.join(out, "summary.md")), "no summary.md")
        p = subprocess.run([tool, "bench", "--compare", os.path.join(out, "report.json"),
                            os.path.join(out, "report.json")], env=env, capture_output=True, timeout=TIMEOUT_S)
        check(p.returncode == 0 and b"beyond the reports' spread" in p.stdout, "installed --compare: %d" % p.returncode)


def answers_of(report):
    """What a report says that does not depend on timing: poses, answers,
    accuracy counts, mesh facts."""
    out = []
    for c in report["cases"]:
        out.append((c["id"], c["poses"], [(m["id"], m["triangles"], m["tree_depth"]) for m in c["meshes"]]))
        for run_ in c["runs"]:
            out.append((run_["id"], run_["collide_fraction"], run_["decided_by"]))
        for a in c.get("accuracy", []):
            out.append((a["id"], {k: f["median"] for k, f in a["figures"].items()}))
    for entry in out:
        if isinstance(entry[1], dict):
            entry[1].pop("seconds", None)
    return out


def test_same_inputs_same_answers():
    """Fixed seeds: two runs make the same poses and give the same answers;
    the summary and plots of one report come out byte for byte the same."""
    first = smoke_report()
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "again")
        rc, _, err = run("bench", "--smoke", "--only", "motion", "--no-peers", "--out", out)
        check(rc == 0, "bench: %d\n%s" % (rc, err[-2000:]))
        with open(os.path.join(out, "report.json")) as f:
            second = json.load(f)
        cases = [c for c in first["cases"] if c["group"] == "motion"]
        a, b = answers_of({"cases": cases}), answers_of(second)
        check(len(a) >= 4 and a == b, "two runs differ: %r" % [(x, y) for x, y in zip(a, b) if x != y][:3])
        remade = os.path.join(d, "remade")
        rc, _, err = run("bench", "--summarize", os.path.join(out, "report.json"), "--out", remade)
        check(rc == 0, "--summarize: %d %s" % (rc, err))
        for name in sorted(os.listdir(remade)):
            with open(os.path.join(remade, name), "rb") as f1, open(os.path.join(out, name), "rb") as f2:
                check(f1.read() == f2.read(), "%s differs when made again from the same report" % name)


def test_warmup():
    """--warmup: full batches before each measurement (a GPU's default; forced
    here on whatever device runs the tests), recorded per run and in the
    settings; none by default on a CPU device."""
    smoke = smoke_report()
    runs = [x for c in smoke["cases"] for x in c.get("runs", [])]
    if smoke["device"]["type"] == "cpu":
        check(not any("warmup_runs" in x for x in runs), "a CPU device warmed up by default: %r" %
              [x["id"] for x in runs if "warmup_runs" in x])
    with tempfile.TemporaryDirectory() as d:
        rc, _, err = run("bench", "--smoke", "--only", "motion", "--no-peers", "--warmup", "0.05", "--quiet",
                         "--out", d)
        check(rc == 0, "bench --warmup 0.05 exited with %d\n%s" % (rc, err[-2000:]))
        with open(os.path.join(d, "report.json")) as f:
            r = json.load(f)
        check(r["settings"]["warmup_seconds"] == 0.05, "settings.warmup_seconds %r" % r["settings"]["warmup_seconds"])
        runs = [x for c in r["cases"] for x in c["runs"]]
        check(runs and all(x.get("warmup_runs", 0) >= 1 for x in runs), "warmup_runs %r" %
              [(x["id"], x.get("warmup_runs")) for x in runs])
        # At least the time asked for, at most six times it (and a batch).
        check(all(0.05 <= x.get("warmup_seconds", 0) <= 0.3 + 1.0 for x in runs), "warmup_seconds %r" %
              [(x["id"], x.get("warmup_seconds")) for x in runs])
        for bad in ("-1", "61", "x"):
            rc, _, err = run("bench", "--warmup", bad, "--out", d)
            check(rc == 2 and "--warmup needs seconds from 0 to 60" in err, "--warmup %s: %d %s" % (bad, rc, err))


TESTS = [test_report_header, test_schema_types, test_figures_consistent, test_runs_and_stages, test_early_accept_off,
         test_pose_sets,
         test_accuracy_by_resolution, test_peers_and_ratios, test_summary_and_plots, test_compare,
         test_usage_errors, test_missing_models, test_installed,
         test_same_inputs_same_answers, test_warmup]


def main():
    global TOOL
    if len(sys.argv) < 2:
        print("usage: test_bench.py PATH/TO/vkcollide [NAME-FILTER]", file=sys.stderr)
        return 2
    TOOL = os.path.abspath(sys.argv[1])
    name_filter = sys.argv[2] if len(sys.argv) > 2 else ""
    passed = failed = skipped = 0
    for test in TESTS:
        if name_filter not in test.__name__:
            continue
        try:
            test()
        except Skip as e:
            skipped += 1
            print("skip %s: %s" % (test.__name__, e))
        except Failure as e:
            failed += 1
            print("FAIL %s: %s" % (test.__name__, e))
        except Exception as e:  # a bug in the test or an unexpected report shape
            failed += 1
            print("FAIL %s: %s: %s" % (test.__name__, type(e).__name__, e))
        else:
            passed += 1
            print("ok   %s" % test.__name__)
        sys.stdout.flush()
    if "dir" in _smoke:
        shutil.rmtree(_smoke["dir"], ignore_errors=True)
    print("%d passed, %d failed%s" % (passed, failed, ", %d skipped" % skipped if skipped else ""))
    if failed:
        return 1
    return 77 if skipped and not passed else 0


if __name__ == "__main__":
    sys.exit(main())
