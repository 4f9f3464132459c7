import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { generateSecrets, SESSION_KEY_VAR, SIGNING_KEY_VAR } from "../kit/index.js";

/** The git-ignored file wrangler reads local secrets from; the Node host reads it too. */
export const DEV_VARS_PATH = resolve(import.meta.dirname, "../../.dev.vars");

function parseDevVars(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const m = /^\s*([A-Z0-9_]+)\s*=\s*(.*)\s*$/.exec(line);
    if (!m?.[1] || m[2] === undefined) continue;
    const raw = m[2];
    out[m[1]] = raw.startsWith("'") && raw.endsWith("'") ? raw.slice(1, -1) : raw;
  }
  return out;
}

/**
 * Local secrets: the environment wins, else `.dev.vars`, else fresh ones are generated and written
 * there (never committed), so a new checkout serves signed receipts with no setup.
 */
export async function localSecrets(path = DEV_VARS_PATH): Promise<Record<string, string>> {
  const file = existsSync(path) ? parseDevVars(readFileSync(path, "utf8")) : {};
  const missing = [SESSION_KEY_VAR, SIGNING_KEY_VAR].filter((k) => !process.env[k] && !file[k]);
  if (missing.length > 0) {
    const fresh = await generateSecrets();
    for (const k of [SESSION_KEY_VAR, SIGNING_KEY_VAR]) file[k] ??= fresh[k] as string;
    const body = Object.entries(file)
      .map(([k, v]) => `${k}='${v}'`)
      .join("\n");
    writeFileSync(path, `${body}\n`, { mode: 0o600 });
  }
  const pick = (k: string) => process.env[k] ?? file[k] ?? "";
  return { ...file, [SESSION_KEY_VAR]: pick(SESSION_KEY_VAR), [SIGNING_KEY_VAR]: pick(SIGNING_KEY_VAR) };
}
