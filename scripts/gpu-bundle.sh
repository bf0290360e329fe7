#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds the bundle a lent GPU machine runs (BENCHMARKS.md, "A run on a lent
# GPU"): that machine has no glslc, no meson, no network and perhaps no
# Vulkan loader, so everything is built here and carried there.
#
#   scripts/gpu-bundle.sh [--out DIR] [--build DIR]
#
# DIR (default gpu-bundle/ in the repository root, which the script adds to
# git's info/exclude) receives bundle.tar.gz, start.sh (unpacks it into a
# temporary folder and runs its run.sh, scripts/gpu-run.sh) and
# MANIFEST.txt. The archive holds a release build of the tool, the library,
# the benchmark's helper programs (device_rates, fcl_peer, bullet_peer),
# the GPU test suites and test_bench.py, the models of assimp-testmodels
# the default suite reads, the Vulkan loader, libglvnd (the NVIDIA ICD
# needs it) and the Khronos validation layer with its manifest, and every shared library they need except the C
# library's own (found with ldd; each ELF file given the RPATH
# $ORIGIN/../lib, so nothing needs LD_LIBRARY_PATH). It checks with
# objdump -T that no file needs a newer C library than this machine's, and
# that DIR leaves room for the checkout within the 64 MiB a run carries.
#
# Needs what scripts/install-deps.sh --bench installs (patchelf among it).
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)

dest=gpu-bundle
build=build-gpu
while [ $# -gt 0 ]; do
	case $1 in
	--out) dest=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	-h | --help)
		awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"
		exit 0
		;;
	*) echo "gpu-bundle: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
command -v patchelf >/dev/null || { echo "gpu-bundle: patchelf not found (scripts/install-deps.sh --bench)" >&2; exit 1; }

# 1. A release build with the peers, installed into a staging prefix.
if [ -f "$build/build.ninja" ]; then
	meson setup --reconfigure "$build" >/dev/null
else
	meson setup "$build" -Dbuildtype=release -Dcli=enabled -Dbench=enabled -Dtests=true \
		--prefix=/vkcollide --libdir=lib >/dev/null
fi
nice ninja -C "$build"
for p in bench/fcl_peer bench/bullet_peer bench/device_rates; do
	[ -x "$build/$p" ] || { echo "gpu-bundle: $build/$p was not built (FCL, Bullet: scripts/install-deps.sh --bench)" >&2; exit 1; }
done
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
DESTDIR=$stage/install meson install -C "$build" --no-rebuild --quiet
# The tree is made in the staging folder and carried as one archive: the
# validation layer alone is 22 MB, and a run carries at most 64 MiB with
# the checkout.
if [ -d "$dest" ] && [ -n "$(ls -A "$dest")" ] && [ ! -f "$dest/start.sh" ]; then
	echo "gpu-bundle: $dest is not empty and holds no earlier bundle: name another folder with --out" >&2
	exit 2
fi
rm -rf "$dest"
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
out=$stage/vkcollide-gpu
mkdir -p "$out"
cp -a "$stage/install/vkcollide/bin" "$stage/install/vkcollide/libexec" "$stage/install/vkcollide/share" "$out/"
mkdir -p "$out/lib" "$out/tests" "$out/layers" "$out/models"
cp -a "$stage/install/vkcollide/lib/"libvkcollide.so* "$out/lib/"

# 2. The GPU suites (as tests/meson.build registers them) and the bench test.
for t in gpu_smoke cubemap batch exact precision timing record; do
	cp "$build/tests/test_$t" "$out/tests/"
done
cp "$build/tests/example_minimal" "$build/tests/renderer_embed" tests/test_bench.py "$out/tests/"

# 3. The models of assimp-testmodels the default suite reads (as its
# --list names them), in that package's layout.
models=/usr/share/assimp/models
for m in $("$build/src/vkcollide" bench --list | tr ' ' '\n' | sed -n 's/^models://p' | sort -u); do
	[ -f "$models/$m" ] || { echo "gpu-bundle: $models/$m not found (assimp-testmodels)" >&2; exit 1; }
	mkdir -p "$out/models/$(dirname "$m")"
	cp "$models/$m" "$out/models/$m"
done

# 4. The Vulkan loader, and the validation layer beside a manifest that
# names it by a path relative to the manifest.
cp -L /usr/lib/x86_64-linux-gnu/libvulkan.so.1 "$out/lib/libvulkan.so.1"
cp /usr/lib/x86_64-linux-gnu/libVkLayer_khronos_validation.so "$out/layers/"
sed 's|"library_path": *"[^"]*"|"library_path": "./libVkLayer_khronos_validation.so"|' \
	/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json >"$out/layers/VkLayer_khronos_validation.json"

# The NVIDIA driver's Vulkan ICD (libGLX_nvidia.so.0) loads libglvnd's
# dispatch library when the loader calls it: without one on the lent
# machine, vkCreateInstance finds no driver ("Could not get
# 'vkCreateInstance' via 'vk_icdGetInstanceProcAddr'"). libglvnd's
# libraries travel in lib/, which run.sh puts on LD_LIBRARY_PATH.
for lib in libGLdispatch.so.0 libGLX.so.0 libEGL.so.1 libOpenGL.so.0; do
	[ -e "/usr/lib/x86_64-linux-gnu/$lib" ] || { echo "gpu-bundle: /usr/lib/x86_64-linux-gnu/$lib not found (libglvnd0, libglx0, libegl1, libopengl0)" >&2; exit 1; }
	cp -L "/usr/lib/x86_64-linux-gnu/$lib" "$out/lib/$lib"
done

# 5. Every shared library the ELF files need, but the C library's own,
# until nothing new turns up.
is_glibc() {
	case $1 in
	ld-linux*.so* | libc.so* | libm.so* | libmvec.so* | libpthread.so* | libdl.so* | librt.so* | libresolv.so* | \
		libutil.so* | libanl.so* | libnss_*.so* | linux-vdso.so*) return 0 ;;
	esac
	return 1
}
elves() {
	find "$out" -type f | while read -r f; do
		head -c 4 "$f" | grep -q 'ELF' && echo "$f"
	done
}
while :; do
	added=0
	for f in $(elves); do
		for lib in $(LD_LIBRARY_PATH="$out/lib" ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $1 "=" $3 }'); do
			name=${lib%%=*}
			path=${lib#*=}
			is_glibc "$name" && continue
			[ -e "$out/lib/$name" ] && continue
			cp -L "$path" "$out/lib/$name"
			added=1
		done
	done
	[ $added -eq 0 ] && break
done

# 6. Smaller, and self-contained: no symbols, every ELF file finding its
# libraries in lib/ (DT_RPATH, which also serves the libraries they load
# and dlopen, unlike DT_RUNPATH).
for f in $(elves); do
	strip --strip-unneeded "$f" 2>/dev/null || true
	case $f in
	"$out"/lib/* | "$out"/layers/*) rel='$ORIGIN/../lib' ;;
	"$out"/libexec/vkcollide/*) rel='$ORIGIN/../../lib' ;;
	*) rel='$ORIGIN/../lib' ;;
	esac
	patchelf --force-rpath --set-rpath "$rel" "$f"
done

# 7. The newest C library and libstdc++ symbol versions anything needs.
newest() { # prefix
	for f in $(elves); do objdump -T "$f" 2>/dev/null; done | grep -o "$1[0-9.]*" | sort -u -V | tail -1
}
glibc_needed=$(newest GLIBC_2.)
glibc_here=$(getconf GNU_LIBC_VERSION | awk '{print $2}')
cp scripts/gpu-run.sh "$out/run.sh"
chmod +x "$out/run.sh"
{
	echo "vkcollide GPU bundle"
	echo "commit: $(git describe --always --dirty --abbrev=12)"
	echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release && echo "$PRETTY_NAME"), glibc $glibc_here"
	echo "needs: glibc >= ${glibc_needed#GLIBC_} (newest symbol version any file uses), x86-64"
	echo "carries: libstdc++ $(newest GLIBCXX_) and every other library but the C library's"
	echo "vulkan loader: $(readlink -f /usr/lib/x86_64-linux-gnu/libvulkan.so.1 | sed 's/.*so\.//')"
	echo "size: $(du -sh "$out" | cut -f1)"
	echo
	(cd "$out" && find . -type f | sort)
} >"$out/MANIFEST.txt"
if [ "$(printf '%s\n%s\n' "${glibc_needed#GLIBC_}" "$glibc_here" | sort -V | tail -1)" != "$glibc_here" ]; then
	echo "gpu-bundle: a file needs $glibc_needed, newer than this machine's $glibc_here" >&2
	exit 1
fi

# 8. The archive, the script that unpacks and runs it, the manifest.
tar -czf "$dest/bundle.tar.gz" -C "$stage" vkcollide-gpu
cp "$out/MANIFEST.txt" "$dest/"
cat >"$dest/start.sh" <<'EOF'
#!/bin/sh
# SPDX-License-Identifier: MIT
# Unpacks bundle.tar.gz (made by vkcollide's scripts/gpu-bundle.sh) into a
# temporary folder and runs its run.sh with these arguments:
#   start.sh [--quick] [--budget SECONDS] OUT
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d) || exit 1
tar -xzf "$here/bundle.tar.gz" -C "$dir" || { rm -rf "$dir"; exit 1; }
"$dir/vkcollide-gpu/run.sh" "$@"
status=$?
rm -rf "$dir"
exit $status
EOF
chmod +x "$dest/start.sh"
size=$(du -sb "$dest" | cut -f1)
limit=$((56 * 1024 * 1024))
if [ "$size" -gt "$limit" ]; then
	echo "gpu-bundle: $dest holds $size bytes, over the 56 MiB that leave room for the checkout in a 64 MiB run" >&2
	exit 1
fi

# 9. Keep it out of git when it lies in the repository.
case $dest in
"$root"/*)
	exclude=$(git rev-parse --git-path info/exclude)
	entry="/${dest#"$root"/}/"
	grep -qxF "$entry" "$exclude" 2>/dev/null || echo "$entry" >>"$exclude"
	;;
esac
echo "gpu-bundle: $dest: bundle.tar.gz ($(du -sh "$dest/bundle.tar.gz" | cut -f1); $(du -sh "$out" | cut -f1) unpacked), start.sh, MANIFEST.txt; needs glibc >= ${glibc_needed#GLIBC_}"
