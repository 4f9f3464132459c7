import { mkdtemp } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LocalHub, startLocalHub } from "../pipeline/local-hub.js";

/** A port the OS just handed out and released. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  await new Promise((r) => server.close(r));
  return typeof address === "object" && address ? address.port : 0;
}

/**
 * A local hub for a test file: wrangler dev on a free port with a D1 folder of its own, so test
 * files can run side by side. Throws with the hub's log when it does not come up; `log` keeps its
 * output lines (tests check what `npm run dev` prints).
 */
export async function startTestHub(name: string): Promise<LocalHub & { log: string[] }> {
  const log: string[] = [];
  const started = await startLocalHub({
    port: await freePort(),
    persistTo: await mkdtemp(join(tmpdir(), `edgegym-${name}-d1-`)),
    log: (l) => log.push(l),
  });
  if (!started.ok) throw new Error(`${started.error}\n${log.join("\n")}`);
  return { ...started.value, log };
}
