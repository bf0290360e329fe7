#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The test command: installs what is missing (Debian 12), builds with warnings
# as errors, runs every suite with the Vulkan validation layer on, then builds
# again with AddressSanitizer + UndefinedBehaviorSanitizer and runs the CPU
# suites under it. Ends with "N passed, N failed". .ci/run calls exactly this.
#
# A skipped suite (exit 77: no Vulkan device) counts as a failure unless
# VKCOL_ALLOW_SKIP=1: on lavapipe every suite must run.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

export VKCOLLIDE_VALIDATION=1
# lavapipe's winsys wants a runtime dir; harmless elsewhere.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"

configure() { # dir, options...
	local dir=$1
	shift
	if [ -f "$dir/build.ninja" ]; then
		meson setup --reconfigure "$dir" "$@" >/dev/null
	else
		meson setup "$dir" "$@"
	fi
}

configure build -Dwerror=true -Dcli=enabled
ninja -C build
status=0
meson test -C build --print-errorlogs --num-processes 2 || status=1

# -O1, as AddressSanitizer's documentation advises for reasonable speed
# (at -O0 the tree test, which builds the oriented boxes of trees of up to
# 500,000 nodes, took twice as long).
configure build-asan -Dwerror=true -Dcli=enabled -Dbuildtype=debug -Doptimization=1 -Db_sanitize=address,undefined -Db_lundef=false
ninja -C build-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	meson test -C build-asan --suite cpu --print-errorlogs --num-processes 2 || status=1

python3 - build/meson-logs/testlog.json build-asan/meson-logs/testlog.json <<'PY' || status=1
import json, os, sys
passed = failed = skipped = 0
for path in sys.argv[1:]:
    for line in open(path):
        t = json.loads(line)
        r = t["result"]
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
            print(f"skipped: {t['name']} ({os.path.dirname(os.path.dirname(path))})")
        else:
            failed += 1
            print(f"failed: {t['name']} ({os.path.dirname(os.path.dirname(path))}): {r}")
allow_skip = os.environ.get("VKCOL_ALLOW_SKIP") == "1"
if skipped and not allow_skip:
    failed += skipped
    print("a skipped suite is a failure here (set VKCOL_ALLOW_SKIP=1 on a machine without Vulkan)")
print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
sys.exit(1 if failed else 0)
PY
exit $status
