import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

/** The flags of every test browser: headless, no network of its own, nothing from a previous run. */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const SYSTEM_CHROMIUMS = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

/** Where a Chromium may be: `EDGEGYM_CHROMIUM`, the one inside `@sparticuz/chromium` (Linux x64), a system one. */
async function candidates(): Promise<Candidate[]> {
  const list: Candidate[] = [];
  const own = process.env.EDGEGYM_CHROMIUM;
  if (own) list.push({ from: "EDGEGYM_CHROMIUM", path: async () => own });
  if (process.platform === "linux" && process.arch === "x64") {
    list.push({
      from: "@sparticuz/chromium (installed by npm ci)",
      // The package ships Chromium brotli-compressed and unpacks it to /tmp on first use.
      path: async () => (await import("@sparticuz/chromium")).default.executablePath(),
    });
  }
  for (const p of SYSTEM_CHROMIUMS) if (existsSync(p)) list.push({ from: "system", path: async () => p });
  return list;
}

export type TestBrowser = { context: BrowserContext; executable: string; close: () => Promise<void> };

export type Candidate = { from: string; path: () => Promise<string> };
type Launch = (executable: string, profile: string) => Promise<BrowserContext>;

/** Playwright's persistent context: the profile folder is the fresh `--user-data-dir`. */
const launchPersistent: Launch = (executable, profile) =>
  chromium.launchPersistentContext(profile, {
    executablePath: executable,
    headless: true,
    args: CHROMIUM_FLAGS,
    timeout: 30_000,
  });

/**
 * A Chromium with a fresh profile (`--user-data-dir` in a new temp folder). Tries each candidate in
 * turn; when none launches it throws, naming what to install: the browser tests never skip.
 */
export async function launchChromium(
  list?: Candidate[],
  launch: Launch = launchPersistent,
): Promise<TestBrowser> {
  const failures: string[] = [];
  for (const c of list ?? (await candidates())) {
    let executable = "";
    const profile = await mkdtemp(join(tmpdir(), "edgegym-chromium-"));
    try {
      executable = await c.path();
      const context = await launch(executable, profile);
      const close = async () => {
        await context.close();
        await rm(profile, { recursive: true, force: true });
      };
      return { context, executable, close };
    } catch (e) {
      await rm(profile, { recursive: true, force: true });
      const why = e instanceof Error ? e.message.split("\n")[0] : String(e);
      failures.push(`${c.from}${executable ? ` (${executable})` : ""}: ${why}`);
    }
  }
  throw new Error(
    [
      "no Chromium could be launched for the browser tests.",
      ...(failures.length ? failures.map((f) => `  tried ${f}`) : ["  no candidate found"]),
      "Install one: on Linux x64 `npm ci` brings @sparticuz/chromium, which needs only the system libraries",
      "libnss3 and libexpat1 (`apt-get install -y libnss3 libexpat1`);",
      "elsewhere install Chromium (Debian/Ubuntu `apt-get install -y chromium`, macOS `brew install --cask chromium`)",
      "or point EDGEGYM_CHROMIUM at a Chrome/Chromium executable.",
    ].join("\n"),
  );
}
