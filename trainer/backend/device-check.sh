#!/usr/bin/env bash
# The webgpu device check, run from its bundle (built by trainer/backend/device-bundle.sh; needs no
# network and no Node.js): finds the machine's Vulkan driver, then prints one JSON line each for the
# driver, the parity check against the cpu backend (adapter included) and bench:trainer on webgpu.
# Exits 1, with one JSON line saying why, when there is no Vulkan ICD or no adapter.
set -uo pipefail
cd "$(dirname "$0")"
fail() { printf '{"ok":false,"error":"%s"}\n' "$1"; exit 1; }
icd="${VK_DRIVER_FILES:-${VK_ICD_FILENAMES:-}}"
if [ -z "$icd" ]; then
  # NVIDIA's container runtime mounts the driver under /usr/local/nvidia; distributions use the others.
  for dir in /usr/local/nvidia/share/vulkan/icd.d /usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/local/share/vulkan/icd.d; do
    for f in "$dir"/nvidia_icd.json "$dir"/*.json; do [ -f "$f" ] && { icd="$f"; break 2; }; done
  done
fi
[ -n "$icd" ] || fail "no Vulkan ICD: no VK_DRIVER_FILES or VK_ICD_FILENAMES, and no icd.d/*.json (NVIDIA: the driver's nvidia_icd.json; in a container NVIDIA_DRIVER_CAPABILITIES must include graphics)"
export VK_DRIVER_FILES="$icd" VK_ICD_FILENAMES="$icd"
# The driver's own libraries first; the bundle's loader and GL dispatch where the machine has none.
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/nvidia/lib64:$PWD/lib"
driver="$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
printf '{"icd":"%s","nvidia_smi":"%s"}\n' "$icd" "${driver:-none}"
./node check.mjs 2>check.stderr || { tail -3 check.stderr >&2; exit 1; }
./node bench.mjs --backend webgpu --no-peer 2>bench.stderr || { tail -3 bench.stderr >&2; exit 1; }
