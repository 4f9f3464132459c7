#!/usr/bin/env bash
# A CPU Vulkan driver (Mesa's lavapipe) for the webgpu backend's tests, from Debian's own packages:
# bookworm's Mesa 22.3 is too old for Dawn ("shaderUniform*ArrayDynamicIndexing required"), the
# bookworm-backports Mesa 25 works. The packages are unpacked, not installed: nothing outside the
# folder changes, and apt's lists for the backports suite are kept in the folder too.
#   bash .ci/lavapipe.sh [folder]      (default .edgegym/lavapipe)
#   . .edgegym/lavapipe/env.sh && npm run test:gpu
set -euo pipefail
cd "$(dirname "$0")/.."
dir="$(realpath -m "${1:-.edgegym/lavapipe}")"
arch="$(dpkg --print-architecture)"
triplet="$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo "$(uname -m)-linux-gnu")"
mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial" "$dir/debs"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
cat >"$dir/apt/sources.list" <<EOF
deb [signed-by=$keyring] http://deb.debian.org/debian bookworm-backports main
deb [signed-by=$keyring] http://deb.debian.org/debian bookworm main
EOF
apt_opts=(
  -o "Dir::Etc::SourceList=$dir/apt/sources.list" -o "Dir::Etc::SourceParts=-"
  -o "Dir::State::Lists=$dir/apt/lists" -o "Dir::Cache=$dir/apt/cache" -o "Debug::NoLocking=1"
  -o "APT::Sandbox::User=$(id -un)"
)
apt-get "${apt_opts[@]}" -qq update
# libvulkan1 is the loader Dawn opens (libvulkan.so.1); the backports libdrm is the one Mesa 25 links.
packages=(mesa-vulkan-drivers/bookworm-backports libdrm2/bookworm-backports libdrm-amdgpu1/bookworm-backports libvulkan1)
(cd "$dir/debs" && rm -f ./*.deb && apt-get "${apt_opts[@]}" -qq download "${packages[@]}")
rm -rf "$dir/root"
for deb in "$dir"/debs/*.deb; do dpkg-deb -x "$deb" "$dir/root"; done
lib="$dir/root/usr/lib/$triplet"
[ -f "$lib/libvulkan_lvp.so" ] || { echo "lavapipe: no libvulkan_lvp.so for $arch in the packages" >&2; exit 1; }
# Its other libraries (LLVM 15, xcb, wayland) are bookworm's own: say which are missing, if any.
missing="$(LD_LIBRARY_PATH="$lib" ldd "$lib/libvulkan_lvp.so" | awk '/not found/ {print $1}' | tr '\n' ' ')"
[ -z "$missing" ] || { echo "lavapipe: missing system libraries: $missing(apt-get install them)" >&2; exit 1; }
# The package's ICD names a bare soname; this one names the unpacked file.
cat >"$dir/lvp_icd.json" <<EOF
{"file_format_version": "1.0.0", "ICD": {"library_path": "$lib/libvulkan_lvp.so", "api_version": "1.4.305"}}
EOF
cat >"$dir/env.sh" <<EOF
export VK_ICD_FILENAMES="$dir/lvp_icd.json"
export LD_LIBRARY_PATH="$lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
EOF
for deb in "$dir"/debs/*.deb; do dpkg-deb -f "$deb" Package Version | paste -sd' '; done
echo "lavapipe: . $dir/env.sh"
