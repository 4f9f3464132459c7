import { Command, Option } from "commander";
import { listDatasets } from "../data/datasets.js";
import { localDbPath, openLocalDb } from "../data/local-db.js";
import { runImport } from "./import-command.js";

/**
 * `npm run data -- import <kind> [path] [--url URL] [--split S] [--db FILE] [--d1 local|remote]` and
 * `npm run data -- list [--db FILE]`.
 */
const program = new Command("data").description("Import task datasets for edgegym environments.");

program
  .command("import")
  .argument("<kind>", "dataset kind, e.g. gsm8k")
  .argument("[path]", "local file to import (a folder for alfworld)")
  .option("--url <url>", "download the file instead of reading a path")
  .option("--split <split>", "split to store the tasks as (default: inferred from the file name)")
  .option(
    "--db <file>",
    "local SQLite file served by `npm run envs` (default $EDGEGYM_DATA_DB, else .edgegym/data.db)",
    localDbPath(),
  )
  .addOption(
    new Option("--d1 <where>", "write to the worker's D1 through wrangler").choices(["local", "remote"]),
  )
  .option("--persist-to <dir>", "local D1 state directory (wrangler --persist-to)")
  .action(async (kind: string, path: string | undefined, opts: Record<string, string | undefined>) => {
    const result = await runImport({
      kind,
      ...(path === undefined ? {} : { path }),
      ...(opts.url === undefined ? {} : { url: opts.url }),
      ...(opts.split === undefined ? {} : { split: opts.split }),
      db: opts.db ?? localDbPath(),
      ...(opts.d1 === "local" || opts.d1 === "remote" ? { d1: opts.d1 } : {}),
      ...(opts.persistTo === undefined ? {} : { persistTo: opts.persistTo }),
    });
    if (!result.ok) {
      console.error(`edgegym data: ${result.error}`);
      process.exitCode = 1;
      return;
    }
    const { refused, ...report } = result.value;
    for (const line of refused ?? []) console.error(`edgegym data: refused ${line}`);
    const total = Object.values(report.counts).reduce((a, b) => a + b, 0);
    if (refused !== undefined) console.error(`edgegym data: imported ${total}, refused ${refused.length}`);
    console.log(JSON.stringify(refused === undefined ? report : { ...report, refused: refused.length }));
  });

program
  .command("list")
  .description("print every imported dataset split and its task count")
  .option("--db <file>", "local SQLite file", localDbPath())
  .action(async (opts: { db: string }) => {
    const db = await openLocalDb(opts.db);
    for (const row of await listDatasets(db)) console.log(`${row.dataset}\t${row.split}\t${row.count}`);
    db.close();
  });

await program.parseAsync();
