#!/bin/sh
# SPDX-License-Identifier: MIT
# The script a lent GPU machine runs, from the bundle scripts/gpu-bundle.sh
# builds (where it is run.sh): the GPU test suites with the validation
# layer on, then `vkcollide bench` with FCL on every core, within about 9
# minutes. BENCHMARKS.md, "A run on a lent GPU", says how and when.
#
#   run.sh [--quick] [--budget SECONDS] OUT
#
# OUT (created) receives at most 8 files, as the lending machinery brings
# back: report.json, summary.md (the bench report; the plots are in the
# tarball, or made here again with `vkcollide bench --summarize`),
# tests.txt (each suite's status and time), run.log (everything printed),
# and results.tar.gz (the whole report folder, the test logs, `vkcollide
# devices`, MANIFEST.txt).
#
# --quick: the dry run for a machine without a GPU (lavapipe): two short
# suites and the bench's smoke suite, a few minutes on 2 cores.
# --budget: seconds for the whole run (default 540): the suites get at most
# a third, the bench what is left, less a minute for the summary; a bench
# stopped at its limit keeps every finished case (its report says
# "incomplete"). Exit status: 0 all passed and the bench finished, 1
# otherwise (the files are written either way), 2 bad usage.
set -u
here=$(cd "$(dirname "$0")" && pwd)

quick=0
budget=540
out=
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1; shift ;;
	--budget) budget=$2; shift 2 ;;
	-h | --help)
		awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"
		exit 0
		;;
	-*) echo "run.sh: unknown option '$1'" >&2; exit 2 ;;
	*) out=$1; shift ;;
	esac
done
[ -n "$out" ] || { echo "run.sh: name the output folder (run.sh [--quick] OUT)" >&2; exit 2; }
case $budget in '' | *[!0-9]*) echo "run.sh: --budget needs seconds" >&2; exit 2 ;; esac
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/logs"
start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }

# Everything printed goes to run.log too.
exec >"$out/run.log" 2>&1

# The bundle's loader and libraries; the Khronos validation layer from the
# bundle. The driver is the machine's: its ICD manifest where the loader
# looks, else NVIDIA's mounted driver folder.
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export VK_LAYER_PATH="$here/layers"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ] && [ -f "$nvidia_icd" ] &&
	! ls /usr/share/vulkan/icd.d/nvidia* /etc/vulkan/icd.d/nvidia* >/dev/null 2>&1; then
	export VK_DRIVER_FILES="$nvidia_icd" VK_ICD_FILENAMES="$nvidia_icd"
fi
for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib; do
	[ -d "$d" ] && LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d"
done
echo "run.sh: bundle $here, $(nproc) cores, budget ${budget}s$([ $quick = 1 ] && echo ', quick')"
echo "run.sh: VK_DRIVER_FILES=${VK_DRIVER_FILES:-unset}"
head -3 "$here/MANIFEST.txt"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv

status=0
"$here/bin/vkcollide" devices >"$work/logs/devices.txt" 2>&1 || status=1
cat "$work/logs/devices.txt"

# 1. The GPU suites, validation on: each one's exit status and time. A
# suite skipped (77: no device) counts as a failure, as in scripts/test.sh.
tests_budget=$((budget / 3))
if [ $quick = 1 ]; then
	suites="gpu_smoke timing"
else
	suites="gpu_smoke cubemap batch exact precision timing record example_minimal renderer_embed
		renderer_embed_approx bench"
fi
: >"$out/tests.txt"
for t in $suites; do
	left=$((tests_budget - $(elapsed)))
	if [ $left -lt 10 ]; then
		echo "$t: not run (the suites' ${tests_budget}s were spent)" >>"$out/tests.txt"
		status=1
		continue
	fi
	t0=$(date +%s)
	if [ "$t" = bench ]; then
		cmd="python3 $here/tests/test_bench.py $here/bin/vkcollide"
	elif [ "$t" = example_minimal ]; then
		cmd="$here/tests/example_minimal"
	elif [ "$t" = renderer_embed ]; then
		cmd="$here/tests/renderer_embed $here/share/vkcollide/meshes $work/logs/renderer_embed.png"
	elif [ "$t" = renderer_embed_approx ]; then
		cmd="$here/tests/renderer_embed $here/share/vkcollide/meshes $work/logs/renderer_embed_approx.png --approx"
	else
		cmd="$here/tests/test_$t"
	fi
	VKCOLLIDE_VALIDATION=1 timeout "$left" $cmd >"$work/logs/test_$t.log" 2>&1
	rc=$?
	case $rc in
	0) verdict=ok ;;
	124) verdict="FAIL (stopped at the ${left}s left)" ;;
	77) verdict="FAIL (skipped: no device)" ;;
	*) verdict="FAIL (exit $rc)" ;;
	esac
	[ $rc -eq 0 ] || status=1
	echo "$t: $verdict, $(($(date +%s) - t0))s" >>"$out/tests.txt"
	echo "run.sh: [$(elapsed)s] test $t: $verdict"
	[ $rc -eq 0 ] || tail -20 "$work/logs/test_$t.log"
done

# 2. The bench: FCL (and Bullet) on every core, no validation layer. Its
# limit leaves a minute for the summary; stopped there (SIGINT, then KILL)
# the report holds every case finished.
report="$work/report"
left=$((budget - $(elapsed) - 60))
if [ $quick = 1 ]; then
	size=--smoke
else
	size=
fi
if [ $left -lt 30 ]; then
	echo "run.sh: no time left for the bench"
	status=1
else
	echo "run.sh: [$(elapsed)s] vkcollide bench $size, at most ${left}s"
	timeout -s INT -k 10 "$left" "$here/bin/vkcollide" bench $size --threads "$(nproc)" --models "$here/models" \
		--out "$report"
	rc=$?
	echo "run.sh: [$(elapsed)s] bench exit status $rc"
	[ $rc -eq 0 ] || status=1
	if [ $rc -ne 0 ] && [ -f "$report/report.json" ]; then
		"$here/bin/vkcollide" bench --summarize "$report/report.json" || true
	fi
fi

# 3. What comes back. A bench cut short leaves its work folder: its logs
# are kept, its meshes and pose files (tens of MB) are not.
if [ -d "$report/work" ]; then
	find "$report/work" -type f ! -name '*.log' -delete
fi
# 3. What comes back.
[ -f "$report/report.json" ] && cp "$report/report.json" "$out/"
[ -f "$report/summary.md" ] && cp "$report/summary.md" "$out/"
cp "$here/MANIFEST.txt" "$work/logs/"
mkdir -p "$report"
mv "$work/logs" "$report/logs"
tar -czf "$out/results.tar.gz" -C "$work" report
echo "run.sh: [$(elapsed)s] done, status $status; $(cat "$out/tests.txt" | grep -c ': ok') suites passed"
exit $status
