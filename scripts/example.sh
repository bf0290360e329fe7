#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The run command: installs what is missing (Debian 12), builds vkcollide in
# release mode, lists the Vulkan devices (lavapipe on a machine without a
# GPU), describes the example mesh, and runs an example batch collision job:
# 2,000 poses of a torus against itself, answered on the device.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"

if [ -f build-release/build.ninja ]; then
	meson setup --reconfigure build-release -Dbuildtype=release -Dcli=enabled >/dev/null
else
	meson setup build-release -Dbuildtype=release -Dcli=enabled
fi
ninja -C build-release

vk=build-release/src/vkcollide
echo
echo "== vkcollide devices"
"$vk" devices
echo
echo "== vkcollide mesh-info examples/torus.obj"
"$vk" mesh-info examples/torus.obj
echo
echo "== vkcollide collide examples/torus.obj examples/torus.obj --poses examples/poses.txt"
out=build-release/example-results.csv
"$vk" collide examples/torus.obj examples/torus.obj --poses examples/poses.txt --out "$out" --verify
echo "results: $out ($(($(wc -l <"$out") - 1)) poses, $(grep -c ',1,' "$out" || true) colliding)"
head -n 6 "$out"
