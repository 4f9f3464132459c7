import { pathToFileURL } from "node:url";
import {
  type Action,
  type ChatMessage,
  ExpertResponse,
  Manifest,
  SessionResponse,
  StepResult,
} from "../../shared/protocol.js";
import { verifyReceipt } from "../../shared/receipt.js";
import { stepSuccess } from "../../shared/success.js";
import { createEnvironmentsHost } from "../host.js";
import { listen } from "./listen.js";
import { localSecrets } from "./local-keys.js";

export type DemoOptions = {
  /** Episodes to play. */
  episodes?: number;
  /** Environment to play; it must be one the host serves. */
  env?: string;
  /** Secrets for the host; default the local ones (`.dev.vars`, generated on first use). */
  secrets?: Record<string, string>;
  /** Where transcript lines go. */
  log?: (line: string) => void;
};

export type DemoEpisode = {
  index: number;
  steps: number;
  reward: number;
  return: number;
  receiptVerified: boolean;
};

const show = (m: ChatMessage) => {
  const calls = m.role === "assistant" && m.tool_calls ? ` ${JSON.stringify(m.tool_calls)}` : "";
  return `  [${m.role}] ${(m.content ?? "").replaceAll("\n", "\n    ")}${calls}`;
};

/**
 * `npm run demo`: starts the local stack (the Node host on a free port, real HTTP) and plays episodes
 * with the expert through the protocol, printing each transcript, the reward and whether the
 * receipt verifies against the manifest's public key.
 */
export async function runDemo(options: DemoOptions = {}): Promise<DemoEpisode[]> {
  const { episodes = 3, env = "calculator", log = console.log } = options;
  const secrets = options.secrets ?? (await localSecrets());
  const server = await listen(createEnvironmentsHost(), secrets);
  const base = `${server.url}/envs/${env}`;
  const post = async (path: string, body: unknown): Promise<unknown> => {
    const res = await fetch(`${base}${path}`, { method: "POST", body: JSON.stringify(body) });
    const json: unknown = await res.json();
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  try {
    const manifest = Manifest.parse(await (await fetch(`${base}/v1/manifest`)).json());
    log(`edgegym: ${manifest.name} ${manifest.version} at ${base} (${manifest.contentHash})`);
    const played: DemoEpisode[] = [];
    let solved = 0;
    for (let index = 0; index < episodes; index++) {
      const start = SessionResponse.parse(await post("/v1/sessions", { split: "train", index }));
      log(`\n=== episode ${index + 1}: ${start.task.split}/${start.task.index} (${start.episodeId})`);
      for (const m of start.observation.messages) log(show(m));
      let session = start.session;
      let total = 0;
      for (let steps = 1; ; steps++) {
        const action: Action = ExpertResponse.parse(await post("/v1/expert", { session })).action;
        log(show({ role: "assistant", content: action.content ?? null }));
        const r = StepResult.parse(await post("/v1/step", { session, action }));
        for (const m of r.observation.messages) log(show(m));
        total += r.reward;
        if (!r.done) {
          session = r.session;
          continue;
        }
        const verified = await verifyReceipt(r.receipt ?? "", manifest.publicKey);
        const mark = verified.ok ? "verified with the manifest key" : `NOT verified: ${verified.error}`;
        log(
          `  reward ${r.reward} (return ${total}, ${steps} steps${r.truncated ? ", truncated" : ""}); receipt ${mark}`,
        );
        played.push({ index, steps, reward: r.reward, return: total, receiptVerified: verified.ok });
        if (stepSuccess(r)) solved++;
        break;
      }
    }
    log(
      `\nedgegym: the expert solved ${solved}/${played.length} episodes; every receipt verified: ${played.every((e) => e.receiptVerified)}`,
    );
    return played;
  } finally {
    await server.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const played = await runDemo();
  process.exitCode = played.every((e) => e.receiptVerified) ? 0 : 1;
}
