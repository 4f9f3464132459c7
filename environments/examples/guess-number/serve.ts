import { pathToFileURL } from "node:url";
import { createEnvironmentsHost } from "../../host.js";
import { listen } from "../../node/listen.js";
import { localSecrets } from "../../node/local-keys.js";
import { guessNumber } from "./index.js";

/**
 * Serves guess-number on Node with its keys kept in `keyFile` (created on first start, mode 0600).
 * A published version's manifest holds the env's public key: a server that made fresh keys on every
 * start would sign receipts the hub rejects, and the sessions it issued before would stop opening.
 */
export async function serveGuessNumber(keyFile: string, port = 0) {
  return listen(createEnvironmentsHost([guessNumber]), await localSecrets(keyFile), port);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = await serveGuessNumber(process.env.GUESS_NUMBER_KEYS ?? ".guess-number.keys", 8790);
  console.log(`${server.url}/envs/guess-number/v1/manifest`);
}
