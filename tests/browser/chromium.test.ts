import type { BrowserContext } from "playwright-core";
import { describe, expect, it } from "vitest";
import { launchChromium } from "./chromium.js";

/** A stand-in for a launched browser: only `close` is called on it here. */
const fakeContext = { close: async () => {} } as unknown as BrowserContext;

describe("launchChromium", () => {
  it("falls back to the next candidate when one fails to launch", async () => {
    const tried: string[] = [];
    const b = await launchChromium(
      [
        { from: "@sparticuz/chromium", path: async () => "/tmp/broken-chromium" },
        { from: "system", path: async () => "/usr/bin/chromium" },
      ],
      async (exe) => {
        tried.push(exe);
        if (exe === "/tmp/broken-chromium")
          throw new Error("error while loading shared libraries: libnss3.so");
        return fakeContext;
      },
    );
    expect(tried).toEqual(["/tmp/broken-chromium", "/usr/bin/chromium"]);
    expect(b.executable).toBe("/usr/bin/chromium");
    await b.close();
  });

  it("fails, never skips, when no Chromium launches, naming each attempt and what to install", async () => {
    const run = launchChromium(
      [
        { from: "@sparticuz/chromium", path: async () => "/tmp/broken-chromium" },
        { from: "EDGEGYM_CHROMIUM", path: async () => Promise.reject(new Error("not a file")) },
      ],
      async () => {
        throw new Error("error while loading shared libraries: libnss3.so: cannot open shared object file");
      },
    );
    await expect(run).rejects.toThrow(/no Chromium could be launched/);
    await expect(run).rejects.toThrow(
      /tried @sparticuz\/chromium \(\/tmp\/broken-chromium\): error while loading shared libraries: libnss3/,
    );
    await expect(run).rejects.toThrow(/tried EDGEGYM_CHROMIUM: not a file/);
    await expect(run).rejects.toThrow(/apt-get install -y chromium/);
    await expect(run).rejects.toThrow(/apt-get install -y libnss3 libexpat1/);
  });
});
