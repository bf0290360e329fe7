#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds a libFuzzer harness of tests/fuzz/ with Debian's clang (AddressSanitizer
# and UndefinedBehaviorSanitizer on) and fuzzes it for SECONDS, starting from
# the seed corpus tests/fuzz/corpus/NAME (copied: the run's new inputs go to
# a scratch folder, not into the repository).
#
#   tests/fuzz/run.sh NAME SECONDS [BUILD_DIR]      NAME: pairline or job
#
# Exit status 0 when the harness found nothing in that time; else libFuzzer's
# status, and the crashing input is kept in BUILD_DIR (default build/fuzz)
# as crash-*. Used by the test command (60 s each) and by hand for longer runs.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
name=${1:?usage: run.sh NAME SECONDS [BUILD_DIR]}
seconds=${2:?usage: run.sh NAME SECONDS [BUILD_DIR]}
out=${3:-$root/build/fuzz}
mkdir -p "$out"
out=$(cd "$out" && pwd)

cc=${CLANG:-clang}
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -std=c17 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Wno-unused-parameter"
case $name in
pairline) srcs="$root/src/cli/pairline.c"; libs="-lm" ;;
job) srcs="$root/src/cli/job.c"; libs="$(pkg-config --cflags --libs json-c)" ;;
*) echo "run.sh: unknown harness '$name' (pairline or job)" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086 # flags and libs are word lists
$cc $flags -I"$root/include" -I"$root/src/cli" "$here/fuzz_$name.c" $srcs $libs -o "$out/fuzz_$name"

work=$(mktemp -d "$out/corpus-$name.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$here/corpus/$name"/* "$work"/
cd "$out"
# -max_len: pairs lines past 1 MiB are refused before parsing; 64 KiB covers
# every path of both parsers. -timeout: one input over 120 s is a hang (inputs
# take microseconds; the margin is for a loaded machine, where 10 s gave false
# alarms).
"$out/fuzz_$name" -max_total_time="$seconds" -max_len=65536 -timeout=120 -rss_limit_mb=2048 \
	-print_final_stats=1 -dict="$here/$name.dict" "$work"
