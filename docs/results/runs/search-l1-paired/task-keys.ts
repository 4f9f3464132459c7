// Which of search-l1's test tasks 0..N-1 are the same task as the policy sees it (the same reset
// messages, as `npm run results` counts distinct tasks): prints a JSON array, the key of each index,
// so that paired.py can treat a repeated task as one. Usage: npx tsx task-keys.ts [N] > task-keys.json
import { createHash } from "node:crypto";
import { connectEnv } from "../../../../trainer/client/connect-env.js";

const n = Number(process.argv[2] ?? 1000);
const env = await connectEnv("local:search-l1", 16);
if (!env.ok) throw new Error(env.error);
const keys: string[] = [];
for (let index = 0; index < n; index++) {
  const reset = await env.value.client.reset({ split: "test", index });
  if (!reset.ok) throw new Error(reset.error.detail);
  const seen = JSON.stringify(reset.value.observation.messages);
  keys.push(createHash("sha256").update(seen).digest("hex").slice(0, 16));
}
await env.value.client.close();
console.log(JSON.stringify(keys));
