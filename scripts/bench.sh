#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The benchmarks (bench/README.md), one mode at a time:
#  - approx (default): vkcollide's approx mode against FCL 0.7 on the same
#    poses, and approx mode's accuracy against the exact CPU reference;
#  - exact (--exact): exact mode against the reference on every pose (the
#    correctness bar) and against FCL 0.7 and Bullet 3.24 for speed, on
#    random and on near-contact poses, with and without early accept.
#
#   scripts/bench.sh [--exact] [--real | --pairs-file FILE] [--quick] [--pairs NAME,NAME]
#                    [--out FILE] [--no-deps]
#
# Installs the peers' packages, builds build-bench (release), then for each
# pair of bench/pairs.txt (exact: bench/exact_pairs.txt; --real:
# bench/real_pairs.txt, real models from Debian's assimp-testmodels;
# --pairs-file: any file of that format) runs the peers and vkcollide's
# driver one after the other on the same poses, and finally merges
# everything into one JSON file (default bench/results/MODE-<device>.json,
# MODE-real-<device>.json for --real, MODE-STEM-<device>.json for
# --pairs-file STEM_pairs.txt; -quick added for --quick, -partial for
# --pairs) and prints a table of medians and ratios (bench/merge.py). One
# run at a time per checkout (a lock in build-bench).
#
# --real runs at the procedural pairs' scale, except Bullet, which answers
# only the first 2,000 poses of each set (GImpact answers 200-1,000 random
# pairs/s on these models here).
#
# Environment, approx: BENCH_FCL_POSES (poses per pair for the speed
# comparison, default 100000), BENCH_BATCH_SIZES (default
# 1000,10000,100000,1000000), BENCH_REPEAT (default 5), BENCH_MAX_SECONDS
# (per batch size, default 120), BENCH_ACCURACY (poses checked against the
# reference, default 20000), BENCH_VERTEX_BUDGETS (vertex budgets timed
# and checked at resolution 64, default 0 = every vertex; --real:
# 0,16384,4096,1024).
# Exact: BENCH_FCL_POSES (random poses FCL answers, default 100000),
# BENCH_BULLET_POSES (the first poses Bullet answers, default 5000),
# BENCH_CORRECTNESS (random poses checked against the reference, default
# 100000), BENCH_NEAR_POSES (random poses moved to near contact, default
# 10000; all of them are checked and timed), BENCH_BATCH_SIZES (default
# 1000,10000,100000,1000000), BENCH_NEAR_BATCH_SIZES (default
# 1000,10000), BENCH_REPEAT (default 3), BENCH_MAX_SECONDS (per batch size,
# a pass cut at the first chunk past it; default 15).
# Both: BENCH_BUILD (the build folder, default build-bench).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=approx
quick=0
deps=1
only=""
out=""
pairs_file=""
real=0
while [ $# -gt 0 ]; do
	case $1 in
	--exact) mode=exact ;;
	--quick) quick=1 ;;
	--no-deps) deps=0 ;;
	--real) real=1 ;;
	--pairs-file)
		pairs_file=${2:?--pairs-file needs a file}
		shift
		;;
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

if [ $real = 1 ] && [ -n "$pairs_file" ]; then
	echo "bench.sh: --real and --pairs-file are two pair lists; give one" >&2
	exit 2
fi
[ $real = 1 ] && pairs_file=bench/real_pairs.txt
if [ -n "$pairs_file" ] && [ ! -r "$pairs_file" ]; then
	echo "bench.sh: $pairs_file: cannot read it" >&2
	exit 2
fi
given_pairs_file=$pairs_file

# Defaults per mode; --quick makes a smoke run of a few minutes.
q() { [ $quick = 1 ] && echo "$1" || echo "$2"; }
if [ $mode = approx ]; then
	pairs_file=${pairs_file:-bench/pairs.txt}
	fcl_poses=${BENCH_FCL_POSES:-$(q 2000 100000)}
	batch_sizes=${BENCH_BATCH_SIZES:-$(q 1000,2000 1000,10000,100000,1000000)}
	repeat=${BENCH_REPEAT:-$(q 2 5)}
	accuracy=${BENCH_ACCURACY:-$(q 2000 20000)}
	resolutions=${BENCH_RESOLUTIONS:-$(q 8,64 8,16,32,64,128,256)}
	vertex_budgets=${BENCH_VERTEX_BUDGETS:-$([ $real = 1 ] && echo 0,16384,4096,1024 || echo 0)}
	max_seconds=${BENCH_MAX_SECONDS:-120}
else
	pairs_file=${pairs_file:-bench/exact_pairs.txt}
	fcl_poses=${BENCH_FCL_POSES:-$(q 2000 100000)}
	bullet_poses=${BENCH_BULLET_POSES:-$(q 500 "$([ $real = 1 ] && echo 2000 || echo 5000)")}
	correctness=${BENCH_CORRECTNESS:-$(q 2000 100000)}
	near_poses=${BENCH_NEAR_POSES:-$(q 500 10000)}
	batch_sizes=${BENCH_BATCH_SIZES:-$(q 1000,2000 1000,10000,100000,1000000)}
	near_batch_sizes=${BENCH_NEAR_BATCH_SIZES:-$(q 500,1000 1000,10000)}
	repeat=${BENCH_REPEAT:-$(q 2 3)}
	max_seconds=${BENCH_MAX_SECONDS:-15}
fi
# The result file's label: none for the mode's own pairs, else the pairs
# file's name without _pairs.txt (real for bench/real_pairs.txt).
label=""
default_pairs=bench/pairs.txt
[ $mode = exact ] && default_pairs=bench/exact_pairs.txt
if [ -n "$given_pairs_file" ] && ! [ "$pairs_file" -ef $default_pairs ]; then
	label=$(basename "$pairs_file" .txt)
	label=${label%_pairs}
fi

if [ $deps = 1 ]; then
	scripts/install-deps.sh --bench
fi

# Timings must not include the validation layer; lavapipe wants a runtime dir.
unset VKCOLLIDE_VALIDATION
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"

build=${BENCH_BUILD:-build-bench}
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
bench_exact=$build/bench/bench_exact
fcl_peer=$build/bench/fcl_peer
bullet_peer=$build/bench/bullet_peer
near_contact=$build/bench/near_contact
[ -x $fcl_peer ] || echo "bench.sh: no FCL peer was built (FCL or a C++ compiler missing); vkcollide only" >&2
if [ $mode = exact ] && [ ! -x $bullet_peer ]; then
	echo "bench.sh: no Bullet peer was built (Bullet or a C++ compiler missing)" >&2
fi

work=$(mktemp -d $build/bench-work.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p bench/results

# The pose files the peers read are the ones the drivers generate in memory
# (one sampler, bench_common.c); prove it once before relying on it.
python3 bench/check_poses.py $bench_approx bench/gen_poses.py bench/meshes/box.obj bench/meshes/star.obj \
	$bench_exact >/dev/null
# The exact pairs' large meshes are written for each run, not kept in git.
[ $mode = exact ] && python3 bench/meshes/generate.py --large $work/large >/dev/null

# Timings are only as good as the machine is quiet: keep the load averages.
load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "")
quick_arg=()
[ $quick = 1 ] && quick_arg=(--quick)
status=0

# The peers' pose file: the driver's own sampler (gen_poses.py's, bit for
# bit, as checked above) on the meshes as imported, so any format Assimp
# reads works. pose_file DRIVER A B COUNT SEED FACTOR OUT
pose_file() {
	"$1" "$2" "$3" --dump-poses "$4" --seed "$5" --radius-factor "$6" >"$7"
}

# approx: one pair. FCL on the pose file, then bench_approx on the same
# poses generated in memory.
approx_pair() {
	local name=$1 a=$2 b=$3 factor=$4 seed=$5
	local peer_args=()
	if [ -x $fcl_peer ]; then
		pose_file $bench_approx "$a" "$b" "$fcl_poses" "$seed" "$factor" $work/$name.poses
		$fcl_peer "$a" "$b" --poses $work/$name.poses --repeat "$repeat" --name "$name" \
			--answers $work/$name.fcl-answers --out $work/$name.fcl.json || status=1
		peer_args=(--peer-answers $work/$name.fcl-answers --peer-name fcl)
	fi
	$bench_approx "$a" "$b" --name "$name" --seed "$seed" --radius-factor "$factor" \
		--accuracy "$accuracy" --resolutions $resolutions --vertex-budgets "$vertex_budgets" --batch-sizes "$batch_sizes" \
		--repeat "$repeat" --max-seconds "$max_seconds" "${peer_args[@]}" "${quick_arg[@]}" \
		--out $work/$name.vkcol.json || status=1
}

# exact: one pose set (random or near) of a pair: FCL and Bullet on the pose
# file, then bench_exact with their answers; the rest of the arguments say
# where bench_exact takes the poses from and how many it checks and times.
exact_set() {
	local name=$1 set=$2 a=$3 b=$4 poses=$5 count=$6
	shift 6
	local base=$work/$name.$set peers=()
	if [ -x $fcl_peer ]; then
		$fcl_peer "$a" "$b" --poses "$poses" --count "$count" --repeat "$repeat" --name "$name" \
			--answers $base.fcl-answers --out $base.fcl.json && peers+=(--peer fcl=$base.fcl-answers) || status=1
	fi
	if [ -x $bullet_peer ]; then
		$bullet_peer "$a" "$b" --poses "$poses" --count "$bullet_poses" --repeat "$repeat" --name "$name" \
			--answers $base.bullet-answers --out $base.bullet.json && peers+=(--peer bullet=$base.bullet-answers) || status=1
	fi
	$bench_exact "$a" "$b" --name "$name" "$@" --repeat "$repeat" --max-seconds "$max_seconds" \
		"${peers[@]}" "${quick_arg[@]}" --out $base.exact.json || status=1
}

# exact: one pair, on random poses and then on the first of them moved to
# the edge of contact.
exact_pair() {
	local name=$1 a=$2 b=$3 factor=$4 seed=$5
	local random=$work/$name.random.poses near=$work/$name.near.poses
	pose_file $bench_exact "$a" "$b" $((fcl_poses > near_poses ? fcl_poses : near_poses)) "$seed" "$factor" $random
	exact_set "$name" random "$a" "$b" $random "$fcl_poses" --seed "$seed" --radius-factor "$factor" \
		--correctness "$correctness" --batch-sizes "$batch_sizes"
	[ -x $near_contact ] || return 0
	head -n "$near_poses" $random >$work/$name.near-source.poses
	if ! $near_contact "$a" "$b" --poses $work/$name.near-source.poses --out $near --seed "$seed" \
		2>$work/$name.near.info.json; then
		cat $work/$name.near.info.json >&2
		status=1
		return 0
	fi
	local kept
	kept=$(wc -l <$near)
	exact_set "$name" near "$a" "$b" $near "$kept" --poses $near --correctness "$kept" \
		--batch-sizes "$near_batch_sizes"
}

while read -r name a b factor seed _; do
	case $name in '' | '#'*) continue ;; esac
	if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then
		continue
	fi
	a=${a/#large\//$work/large/}
	b=${b/#large\//$work/large/}
	for f in "$a" "$b"; do
		[ -r "$f" ] || { echo "bench.sh: $name: $f is missing (Debian: assimp-testmodels)" >&2; status=1; continue 2; }
	done
	echo "== $name" >&2
	${mode}_pair "$name" "$a" "$b" "$factor" "$seed"
done <$pairs_file

# A subset must not overwrite the results of a full run by default.
merge_args=(--pairs $pairs_file --load-start "$load_start")
[ -n "$label" ] && merge_args+=(--label "$label")
# The correctness bar of the real models (issue 25) asks at least four
# pairs; the procedural pairs, six. Both 100,000 random poses each.
[ $real = 1 ] && merge_args+=(--bar-pairs 4)
[ -n "$out" ] && merge_args+=(--out "$out")
[ $quick = 1 ] && merge_args+=(--quick)
[ -n "$only" ] && [ -z "$out" ] && merge_args+=(--partial)
if [ $mode = approx ]; then
	merge_args+=(--setting fcl_poses_per_pair=$fcl_poses)
else
	for setting in fcl_poses bullet_poses correctness near_poses repeat max_seconds; do
		merge_args+=(--setting "$setting=${!setting}")
	done
	merge_args+=(--setting "batch_sizes=[$batch_sizes]" --setting "near_batch_sizes=[$near_batch_sizes]")
fi
python3 bench/merge.py $mode $work "${merge_args[@]}" || status=1
exit $status
