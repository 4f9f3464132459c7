// Which letter the expert clicks on a webshop-l1 item page (1.5.0), per split: its second command on
// goals 0..299 of train and validation, played in-process. "none" is an item with no option the
// instruction names, where the second command is buy now. Usage: npx tsx letters.ts
import { parseHermesCalls } from "../../../../shared/tool-calls.js";
import { openLocalDb } from "../../../../environments/data/local-db.js";
import { generateSecrets } from "../../../../environments/kit/index.js";
import { createWebshop } from "../../../../environments/webshop/index.js";

const runtime = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: await openLocalDb(":memory:") } };
const l1 = createWebshop({ level: 1 });

for (const split of ["train", "validation"]) {
  const counts = new Map<string, number>();
  for (let index = 0; index < 300; index++) {
    let { session } = await l1.startSession({ split, index }, runtime);
    const commands: string[] = [];
    for (let step = 0; step < 2; step++) {
      const call = parseHermesCalls((await l1.expert(session, runtime)).action.content ?? "")[0];
      const command = call?.ok ? String((call.arguments as { command?: unknown }).command) : "";
      commands.push(command);
      session = (await l1.step({ session, action: { content: command } }, runtime)).session;
    }
    const second = commands[1] === "click[buy now]" ? "none" : (commands[1] ?? "");
    counts.set(second, (counts.get(second) ?? 0) + 1);
  }
  console.log(JSON.stringify({ split, goals: 300, secondCommand: Object.fromEntries([...counts].sort()) }));
}
