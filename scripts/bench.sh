#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The approx-mode benchmark: vkcollide against FCL 0.7 on the same poses, and
# approx mode's accuracy against the exact CPU reference (bench/README.md).
#
#   scripts/bench.sh [--quick] [--pairs NAME,NAME] [--out FILE] [--no-deps]
#
# Installs the peers' packages, builds build-bench (release), then for each
# pair of bench/pairs.txt: writes the pose file, runs the FCL peer and
# bench_approx one after the other on the same poses, and finally merges
# everything into one JSON file (default bench/results/approx-<device>.json,
# -quick added for --quick, -partial for --pairs) and prints a table of
# medians and ratios. One run at a time per checkout (a lock in build-bench).
#
# Environment: BENCH_FCL_POSES (poses per pair for the speed comparison,
# default 100000), BENCH_BATCH_SIZES (default 1000,10000,100000,1000000),
# BENCH_REPEAT (default 5), BENCH_MAX_SECONDS (per batch size, default 120),
# BENCH_ACCURACY (poses checked against the reference, default 20000).
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
deps=1
only=""
out=""
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--no-deps) deps=0 ;;
	--pairs)
		only=${2:?--pairs needs a list}
		shift
		;;
	--out)
		out=${2:?--out needs a file}
		shift
		;;
	-h | --help)
		awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"
		exit 0
		;;
	*)
		echo "bench.sh: unknown argument '$1' (see --help)" >&2
		exit 2
		;;
	esac
	shift
done

if [ $quick = 1 ]; then
	fcl_poses=${BENCH_FCL_POSES:-2000}
	batch_sizes=${BENCH_BATCH_SIZES:-1000,2000}
	repeat=${BENCH_REPEAT:-2}
	accuracy=${BENCH_ACCURACY:-2000}
	resolutions=8,64
else
	fcl_poses=${BENCH_FCL_POSES:-100000}
	batch_sizes=${BENCH_BATCH_SIZES:-1000,10000,100000,1000000}
	repeat=${BENCH_REPEAT:-5}
	accuracy=${BENCH_ACCURACY:-20000}
	resolutions=8,16,32,64,128,256
fi
max_seconds=${BENCH_MAX_SECONDS:-120}

if [ $deps = 1 ]; then
	scripts/install-deps.sh --bench
fi

# Timings must not include the validation layer; lavapipe wants a runtime dir.
unset VKCOLLIDE_VALIDATION
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"

build=build-bench
mkdir -p $build
# Two benchmark runs at once would time each other and share build-bench:
# one at a time per checkout.
exec 9>$build/.bench.lock
if ! flock -n 9; then
	echo "bench.sh: another scripts/bench.sh is running in this checkout; timings taken side by side mean nothing" >&2
	exit 1
fi
if [ -f $build/build.ninja ]; then
	meson setup --reconfigure $build -Dbuildtype=release -Dbench=enabled -Dtests=false >/dev/null
else
	meson setup $build -Dbuildtype=release -Dbench=enabled -Dtests=false
fi
ninja -C $build
bench_approx=$build/bench/bench_approx
fcl_peer=$build/bench/fcl_peer
[ -x $fcl_peer ] || echo "bench.sh: no FCL peer was built (FCL or a C++ compiler missing); vkcollide only" >&2

work=$(mktemp -d $build/bench-work.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p bench/results

# The pose files the peers read are the ones bench_approx generates in
# memory; prove it once before relying on it.
python3 bench/check_poses.py $bench_approx bench/gen_poses.py bench/meshes/box.obj bench/meshes/star.obj >/dev/null

# Timings are only as good as the machine is quiet: keep the load averages.
load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "")

status=0
while read -r name a b factor seed; do
	case $name in '' | '#'*) continue ;; esac
	if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then
		continue
	fi
	for f in "$a" "$b"; do
		[ -r "$f" ] || { echo "bench.sh: $name: $f is missing (Debian: assimp-testmodels)" >&2; status=1; continue 2; }
	done
	echo "== $name" >&2
	peer_args=()
	if [ -x $fcl_peer ]; then
		python3 bench/gen_poses.py "$a" "$b" --count "$fcl_poses" --seed "$seed" --radius-factor "$factor" \
			--out $work/$name.poses 2>/dev/null
		$fcl_peer "$a" "$b" --poses $work/$name.poses --repeat "$repeat" --name "$name" \
			--answers $work/$name.fcl-answers --out $work/$name.fcl.json || status=1
		peer_args=(--peer-answers $work/$name.fcl-answers --peer-name fcl)
	fi
	quick_arg=()
	[ $quick = 1 ] && quick_arg=(--quick)
	$bench_approx "$a" "$b" --name "$name" --seed "$seed" --radius-factor "$factor" \
		--accuracy "$accuracy" --resolutions $resolutions --batch-sizes "$batch_sizes" \
		--repeat "$repeat" --max-seconds "$max_seconds" "${peer_args[@]}" "${quick_arg[@]}" \
		--out $work/$name.vkcol.json || status=1
done <bench/pairs.txt

# A subset must not overwrite the results of a full run by default.
if [ -n "$only" ] && [ -z "$out" ]; then
	partial=1
else
	partial=0
fi

python3 - "$work" "$out" "$quick" "$fcl_poses" "$load_start" "$partial" <<'PY' || status=1
import datetime, json, os, platform, re, subprocess, sys

work, out, quick, fcl_poses = sys.argv[1], sys.argv[2], sys.argv[3] == "1", int(sys.argv[4])
load_start = [float(x) for x in sys.argv[5].split()]
partial = sys.argv[6] == "1"

def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"bench.sh: {path}: {e}", file=sys.stderr)
        return None

names = []
for line in open("bench/pairs.txt"):
    if line.strip() and not line.startswith("#"):
        names.append(line.split()[0])
pairs = []
for name in names:
    v = load(f"{work}/{name}.vkcol.json") if os.path.exists(f"{work}/{name}.vkcol.json") else None
    f = load(f"{work}/{name}.fcl.json") if os.path.exists(f"{work}/{name}.fcl.json") else None
    if v or f:
        pairs.append({"pair": name, "vkcollide": v, "fcl": f})
if not pairs:
    sys.exit("bench.sh: no results")

def git(*args):
    try:
        return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None

cpu = None
try:
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
except OSError:
    pass
device = next((p["vkcollide"]["device"] for p in pairs if p["vkcollide"]), None)
result = {
    "benchmark": "approx mode vs FCL 0.7 and vs the exact reference",
    "generated_by": "scripts/bench.sh" + (" --quick" if quick else ""),
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "git_commit": git("rev-parse", "HEAD"),
    "git_dirty": bool(git("status", "--porcelain", "--untracked-files=no", "--", "src", "shaders", "include")),
    "machine": {"cpu": cpu, "logical_cpus": os.cpu_count(), "system": platform.platform(),
                "load_average_start": load_start, "load_average_end": list(os.getloadavg())},
    "device": device,
    "fcl_poses_per_pair": fcl_poses,
    "pairs": pairs,
}

def speed_at(v, n):
    for s in (v or {}).get("speed", []):
        for b in s.get("batches", []):
            if b.get("pairs") == n and "median_pairs_per_second" in b:
                return b["median_pairs_per_second"]
    return None

summary = []
for p in pairs:
    v, f = p["vkcollide"] or {}, p["fcl"] or {}
    fcl_rate = f.get("median_pairs_per_second")
    n = f.get("poses", fcl_poses)
    vk_rate = speed_at(v, n)
    acc = v.get("accuracy", {})
    row = {
        "pair": p["pair"],
        "poses_compared": n,
        "fcl_pairs_per_second": fcl_rate,
        "fcl_collide_fraction": f.get("collide_fraction"),
        "vkcollide_pairs_per_second": vk_rate,
        "ratio_vkcollide_over_fcl": vk_rate / fcl_rate if vk_rate and fcl_rate else None,
        "reference_collide_fraction": acc.get("reference_collide_fraction"),
        "accuracy": {str(r["resolution"]): {"false_positives": r.get("false_positives"),
                                            "false_negatives": r.get("false_negatives")}
                     for r in acc.get("resolutions", [])},
    }
    summary.append(row)
result["summary"] = summary

if not out:
    name = (device or {}).get("name", "unknown")
    slug = "lavapipe" if "llvmpipe" in name else re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    out = f"bench/results/approx-{slug}{'-quick' if quick else ''}{'-partial' if partial else ''}.json"
with open(out, "w") as fh:
    json.dump(result, fh, indent=1)
    fh.write("\n")

def fmt(x, spec):
    return format(x, spec) if isinstance(x, (int, float)) else "-"

print(f"\nspeed: median pairs/s over the same {fcl_poses} poses per pair "
      f"(FCL: {pairs[0]['fcl']['threads'] if pairs[0]['fcl'] else '?'} threads; vkcollide: "
      f"{(device or {}).get('name', '?')}, cube maps at 64)")
print(f"{'pair':24} {'collide':>8} {'FCL':>10} {'vkcollide':>10} {'ratio':>7}")
for r in summary:
    frac = r["reference_collide_fraction"] if r["reference_collide_fraction"] is not None else r["fcl_collide_fraction"]
    print(f"{r['pair']:24} {fmt(frac, '8.1%')} {fmt(r['fcl_pairs_per_second'], '10.0f')} "
          f"{fmt(r['vkcollide_pairs_per_second'], '10.0f')} {fmt(r['ratio_vkcollide_over_fcl'], '7.3f')}")

resolutions = sorted({int(k) for r in summary for k in r["accuracy"]})
if resolutions:
    print("\naccuracy: approx mode against the reference, false positives / false negatives"
          f" out of {next((p['vkcollide']['accuracy']['poses'] for p in pairs if p['vkcollide'] and 'accuracy' in p['vkcollide']), '?')} poses")
    print(f"{'pair':24}" + "".join(f"{res:>12}" for res in resolutions) + f"{'FCL':>12}")
    for p, r in zip(pairs, summary):
        cells = []
        for res in resolutions:
            a = r["accuracy"].get(str(res), {})
            cells.append(f"{fmt(a.get('false_positives'), 'd')}/{fmt(a.get('false_negatives'), 'd')}")
        peer = ((p["vkcollide"] or {}).get("accuracy") or {}).get("peer") or {}
        cells.append(f"{fmt(peer.get('false_positives'), 'd')}/{fmt(peer.get('false_negatives'), 'd')}")
        print(f"{r['pair']:24}" + "".join(f"{c:>12}" for c in cells))
print(f"\nwritten: {out}")
PY
exit $status
