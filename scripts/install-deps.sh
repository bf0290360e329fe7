#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs what building and testing vkcollide needs on Debian 12 (bookworm),
# and only what is missing: safe to run again, never asks a question.
#
#   scripts/install-deps.sh              build, test and CLI dependencies
#   scripts/install-deps.sh --bench      also the benchmark peers (FCL, Bullet) and
#                                        patchelf (scripts/gpu-bundle.sh)
#   scripts/install-deps.sh --dry-run    say what would be installed, change nothing
#   scripts/install-deps.sh PACKAGE...   also these Debian packages
#
# Runs apt-get as root directly, else through sudo. Exit status: 0 when
# everything is (now) installed, 1 when installing failed, 2 on bad usage.
set -eu

# Kept one per line so a diff shows what changed.
PACKAGES="
build-essential
pkg-config
meson
ninja-build
glslc
libvulkan-dev
libvulkan1
mesa-vulkan-drivers
vulkan-validationlayers
libvulkan-volk-dev
libcglm-dev
libassimp-dev
assimp-testmodels
python3
libjson-c-dev
libxxhash-dev
libpng-dev
clang
libclang-rt-dev
python3-numpy
python3-matplotlib
slurm-wlm
munge
"
BENCH_PACKAGES="
libfcl-dev
libbullet-dev
g++
patchelf
libglvnd0
libglx0
libegl1
libopengl0
"

usage() {
	# The comment block under the SPDX line.
	awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"
}

die() {
	echo "install-deps: $*" >&2
	exit 1
}

dry_run=0
wanted=$PACKAGES
for arg in "$@"; do
	case $arg in
	--bench) wanted="$wanted $BENCH_PACKAGES" ;;
	-n | --dry-run) dry_run=1 ;;
	-h | --help)
		usage
		exit 0
		;;
	-*)
		echo "install-deps: unknown option '$arg'" >&2
		usage >&2
		exit 2
		;;
	*) wanted="$wanted $arg" ;;
	esac
done

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
	die "dpkg-query and apt-get not found: this script is for Debian 12 (install the packages listed in $0 by hand)"
fi

# "install ok installed" is the one state in which a package is usable;
# "deinstall ok config-files" (removed, config kept) counts as missing.
missing=""
for pkg in $wanted; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	if [ "$status" != "install ok installed" ]; then
		case " $missing " in
		*" $pkg "*) ;;
		*) missing="$missing $pkg" ;;
		esac
	fi
done
missing=${missing# }

if [ -z "$missing" ]; then
	echo "install-deps: nothing to install, all $(echo "$wanted" | wc -w) packages are present"
	exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
	as_root=""
elif command -v sudo >/dev/null 2>&1; then
	# env, not sudo's VAR=value: sudoers' env_reset may refuse the latter.
	as_root="sudo"
else
	die "not root and sudo is not installed: run as root to install: $missing"
fi

if [ "$dry_run" -eq 1 ]; then
	echo "install-deps: missing: $missing"
	echo "install-deps: dry run, would run:"
	echo "  $as_root${as_root:+ }env DEBIAN_FRONTEND=noninteractive apt-get update"
	echo "  $as_root${as_root:+ }env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing"
	exit 0
fi

echo "install-deps: installing: $missing"
# $as_root and $missing are word-split on purpose (package names have no spaces).
# shellcheck disable=SC2086
$as_root env DEBIAN_FRONTEND=noninteractive apt-get update ||
	die "apt-get update failed"
# shellcheck disable=SC2086
$as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing ||
	die "apt-get install failed for: $missing"
echo "install-deps: installed: $missing"
