// The first observation of webshop-l1's tasks 0..n-1 of a split, as `--env local:webshop-l1` shows
// them on this host, keyed by task index. With EDGEGYM_DATA_DB naming a file that does not exist, the
// host has no database. Usage: npx tsx first-pages.ts <split> <n> > pages.json
import { connectEnv } from "../../../../../trainer/client/connect-env.js";

const split = process.argv[2] ?? "test";
const n = Number(process.argv[3] ?? 1000);
const env = await connectEnv("local:webshop-l1", 16);
if (!env.ok) throw new Error(env.error);
const pages: Record<number, unknown> = {};
for (let index = 0; index < n; index++) {
  const reset = await env.value.client.reset({ split, index });
  if (!reset.ok) throw new Error(reset.error.detail);
  pages[index] = reset.value.observation.messages;
}
await env.value.client.close();
console.log(JSON.stringify(pages));
