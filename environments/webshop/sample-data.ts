import { existsSync, readFileSync } from "node:fs";

/** WebShop's sample files, kept beside the repo (never copied into it). Node only: tests and the bench. */
const SAMPLES = new URL("../../../shared/data/webshop/", import.meta.url);

/** A sample file's text; throws saying the folder is missing when it is. */
export function webshopSample(name: string): string {
  const url = new URL(name, SAMPLES);
  if (!existsSync(url)) {
    throw new Error(
      `WebShop samples are missing: ${url.pathname} (expected ../shared/data/webshop beside the repo)`,
    );
  }
  return readFileSync(url, "utf8");
}
