#!/usr/bin/env node
// The npm registry reachable here serves only this platform's native packages, so `npm install` leaves
// other platforms' optional binaries (biome, workerd, esbuild, ...) out of package-lock.json and `npm ci`
// then refuses the lockfile as out of sync. This adds the missing optional entries, marked with the
// os/cpu/libc their names state, so `npm ci` skips them here and installs them on their own platforms.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

const lockPath = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, "utf8"));
const packages = lock.packages;

const OS = [
  "darwin",
  "win32",
  "linux",
  "android",
  "freebsd",
  "openbsd",
  "netbsd",
  "sunos",
  "aix",
  "openharmony",
];
const CPU = {
  arm64: "arm64",
  x64: "x64",
  64: "x64",
  ia32: "ia32",
  arm: "arm",
  ppc64: "ppc64",
  s390x: "s390x",
  riscv64: "riscv64",
  loong64: "loong64",
  mips64el: "mips64el",
  wasm32: "wasm32",
};

function platformOf(name) {
  const parts = name.split("/").pop().split("-");
  const os = parts.includes("windows")
    ? "win32"
    : parts.includes("macos")
      ? "darwin"
      : OS.find((o) => parts.includes(o));
  const cpu = parts.map((p) => CPU[p]).find(Boolean);
  const libc = parts.includes("musl")
    ? "musl"
    : parts.includes("gnu") && os === "linux"
      ? "glibc"
      : undefined;
  return { ...(os ? { os: [os] } : {}), ...(cpu ? { cpu: [cpu] } : {}), ...(libc ? { libc: [libc] } : {}) };
}

let added = 0;
for (const [path, meta] of Object.entries(packages)) {
  for (const [dep, range] of Object.entries(meta.optionalDependencies ?? {})) {
    const base = path === "" ? "node_modules" : `${path}/node_modules`;
    const candidates = [`${base}/${dep}`, `node_modules/${dep}`];
    if (candidates.some((c) => packages[c])) continue;
    const version = range.replace(/^[\^~=]/, "");
    if (!/^\d+\.\d+\.\d+/.test(version)) continue;
    packages[`node_modules/${dep}`] = { version, ...platformOf(dep), optional: true };
    added++;
  }
}
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} optional platform entries`);
if (process.argv.includes("--check")) execFileSync("npm", ["ci", "--dry-run"], { stdio: "inherit" });
