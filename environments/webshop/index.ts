import { z } from "zod";
import { EdgegymError } from "../../shared/errors.js";
import { formatHermesCall } from "../../shared/tool-calls.js";
import { requireDataset } from "../data/dataset-source.js";
import { defineEnvironment, type Environment } from "../kit/index.js";
import { checkLevel, levelDescription, levelName, lowerLevels, withLevel } from "../kit/levels.js";
import { browse, searchState, showPage } from "./browser.js";
import {
  builtinSource,
  type GoalKind,
  IMPORT_HINT,
  IMPORTED_DATASET,
  importedSource,
  type WebshopSource,
} from "./catalog.js";
import { expertCommand, MAX_SEARCHES } from "./expert.js";
import { WEBSHOP_LEVEL_CATALOG, WEBSHOP_LEVELS, type WebshopLevel } from "./generator.js";
import type { Goal, Wording } from "./goal.js";
import { type PageIds, PageState, renderPage } from "./pages.js";

export type WebshopConfig = {
  /** Products in the built-in generated catalog (ignored by `webshop-real`). */
  catalogSize: number;
  /**
   * What the agent's context holds after each step. `page`: the last turn only, the system prompt,
   * the action and the page it led to (observation `mode: "replace"`), as WebShop's own env returns
   * only the current observation; an item page then lists the options chosen so far, which the page
   * itself does not show. `history`: every page is appended, about 1k tokens more a step.
   */
  context: "page" | "history";
  /**
   * Difficulty level of the generated catalog and goals, 1 to `WEBSHOP_LEVELS` (see `generator.ts`);
   * absent: the top. A level below the top sets the catalog size unless `catalogSize` is given.
   */
  level?: number;
};

export const DEFAULT_WEBSHOP_CONFIG: WebshopConfig = { catalogSize: 1000, context: "page" };

const SYSTEM =
  "You shop on WebShop for the product the instruction describes. Each turn send one command, " +
  "search[keywords] or click[button] (a button or option shown on the page), as plain text or with " +
  'the env_step tool: <tool_call>{"name":"env_step","arguments":{"command":"search[red shoes]"}}</tool_call>. ' +
  "Choose the options the instruction asks for, then click[buy now].";

/** The last `search[...]` or `click[...]` in a text (after a thought, say), if there is one. */
function commandIn(content: string): string | undefined {
  return [...content.matchAll(/(?:search|click)\[[^\n]*\]/g)].at(-1)?.[0];
}

/**
 * How a level's episodes start and name their results and options; the top level's and the imported envs'
 * is WebShop's.
 */
type View = { ids: PageIds; opensOnResults: boolean; perPage?: number };
const WEBSHOP_VIEW: View = { ids: "product", opensOnResults: false };

function createWebshopEnv(
  name: string,
  description: string,
  source: WebshopSource,
  config: WebshopConfig,
  view: View = WEBSHOP_VIEW,
  version: { version: string; sameTasksAs?: readonly string[] } = { version: "1.5.0" },
) {
  return defineEnvironment<Goal, PageState, WebshopConfig>({
    name,
    ...version,
    description,
    tools: {
      env_step: {
        description:
          "Act on the WebShop page: search[keywords] (any page) or click[x] for a button, product id or option on the current page.",
        parameters: z.object({
          command: z.string().describe("for example search[red running shoes] or click[buy now]"),
        }),
        run: async ({ command }, ctx) => {
          const state = PageState.parse(ctx.state);
          const store = await source.store(ctx.runtime);
          const r = await browse(command, state, ctx.task, store, view.ids);
          if (!r.ok) throw new EdgegymError("internal", r.error);
          const { page, reward, valid } = r.value;
          const next = r.value.state;
          const chosen = config.context === "page" && "opts" in next ? Object.values(next.opts) : [];
          return {
            // With only the last page in the context, the item page must say which options are set.
            content: chosen.length > 0 ? `${page.text} [SEP] Chosen: ${chosen.join(", ")}` : page.text,
            state: r.value.state,
            done: reward !== undefined,
            rewards: reward?.components ?? {},
            // WebShop's success rate counts a purchase scored exactly 1 (Yao et al. 2022, "SR").
            ...(reward === undefined ? {} : { success: reward.total === 1 }),
            info: {
              has_search_bar: page.has_search_bar,
              clickables: page.clickables,
              valid_action: valid,
              ...(reward ? { reward_details: reward.details, reward_total: reward.total } : {}),
            },
          };
        },
      },
    },
    toolConcurrency: "sequential",
    tasks: source.tasks,
    // Goals on one product share its pages, so a policy's outcomes on them move together.
    taskCluster: { unit: "products", of: (goal) => goal.asin },
    limits: { maxSteps: 15, maxActionChars: 2048, stepTimeoutMs: 10_000 },
    reward: { min: 0, max: 1 },
    config,
    initialState: async (task, { runtime }) => {
      if (!view.opensOnResults)
        return view.perPage === undefined ? { p: "start" } : { p: "start", per: view.perPage };
      // The search an episode opens on is the expert's own first command: the instruction, lowercased.
      const store = await source.store(runtime);
      const opened = await searchState(task.instruction.toLowerCase(), store, view.perPage);
      if (!opened.ok) throw new EdgegymError("internal", opened.error);
      return opened.value;
    },
    stateSchema: PageState,
    firstObservation: async ({ task, state, runtime }) => {
      const page = view.opensOnResults
        ? await showPage(state, task, await source.store(runtime), view.ids)
        : { ok: true as const, value: renderPage({ p: "start" }, task.instruction, new Map()) };
      if (!page.ok) throw new EdgegymError("internal", page.error);
      return [
        { role: "system", content: SYSTEM },
        { role: "user", content: page.value.text },
      ];
    },
    // The last turn only: the page in the tool response holds the instruction and (see `run`) the
    // options chosen. A turn with a bad call is appended, so that the model sees its error.
    replaceContext: (appended, _ctx, turn) =>
      config.context === "history" || turn.invalidCalls > 0
        ? undefined
        : [{ role: "system", content: SYSTEM }, turn.assistant, ...appended],
    textAction: (content) => {
      const command = commandIn(content);
      return command === undefined ? undefined : [{ name: "env_step", arguments: { command } }];
    },
    // A text with no command and no tool call is a final answer (edgegym/v1): it ends the episode unbought.
    finish: () => ({ reward: 0, components: {}, info: { purchased: false } }),
    expert: async ({ state, task, runtime }) => {
      // Where an episode opens on results, its recipes give 4 steps (rl.maxSteps): one more search or
      // page, the result, its option and buy. (webshop-l1 3.0.0's expert takes 5 to 7 on 8 of train tasks
      // 0..299, reading up to 4 pages of 5 before its second search.)
      const searches = view.opensOnResults ? 2 : MAX_SEARCHES;
      const store = await source.store(runtime);
      const r = await expertCommand(PageState.parse(state), task, store, view.ids, searches, source.wording);
      if (!r.ok) throw new EdgegymError("internal", r.error);
      return { content: formatHermesCall("env_step", { command: r.value }) };
    },
  });
}

const LEVEL_TEXT: Record<number, (size: number, settings?: Partial<WebshopLevel>) => string> = {
  1: (size, settings) =>
    `${size.toLocaleString("en-US")} products, at most one option each; an episode opens on the results of a search for the instruction, its best 5 numbered 1 to 5, and a search shows ${settings?.perPage === undefined ? "5" : `${settings.perPage} a page, numbered on (6 to 10 on page 2)`}; an item's option values are listed in an order drawn per instruction and clicked as the instruction writes them, click[size: small]`,
  2: (size) =>
    `${size.toLocaleString("en-US")} products named by made-up words, at most one option each, 10 results a search`,
};

/**
 * Versions of the built-in catalog's envs, by level. webshop-l1 1.6.0 ordered an item's option values
 * per instruction, since at 1.5.0 (the product's own order) a policy learned the 240 train products'
 * letters by heart; 1.7.0 keeps that order and names a value's button as the instruction writes it
 * (`size: small`) instead of by a letter, which no small policy learned to read. At every level, the
 * next version searches the built-in catalog in memory on every host (catalog.ts `builtinSource`): a
 * host with a database had ranked it with FTS5, differently. Goals are 1.5.0's, and so is the first
 * page as a host without a database showed it, which is how the tasks are counted and grouped.
 * webshop-l1 2.0.0 has 3,000 products instead of 300: a split is a tenth of the products, and test's
 * 30 were too few to measure a policy by (an episode's outcome mostly follows its product). New
 * goals, so no earlier version's tasks. webshop-l1 3.0.0, webshop-l2 2.0.0 and webshop 2.0.0 name the
 * goal product's type in the instruction (`Wording` `type`) instead of its kind's query: the same
 * products, options and price bounds as before, new instructions, so new tasks.
 */
const LEVEL_VERSION: Record<number, Release> = {
  1: { version: "3.0.0", wording: "type", level: { results: 50, perPage: 5 } },
  2: { version: "2.0.0", wording: "type" },
  3: { version: "2.0.0", wording: "type" },
};

/**
 * A version of a built-in catalog's env: its number, the earlier ones with its tasks, its wording, and
 * what it changes in its level's settings (`WEBSHOP_LEVEL_CATALOG`, the settings before 3.0.0).
 */
type Release = {
  version: string;
  sameTasksAs?: readonly string[];
  wording: Wording;
  level?: Partial<WebshopLevel>;
};

/**
 * WebShop over the built-in generated catalog, searched in memory: needs no download and no database.
 * `level` below the top (`webshop-l<level>`) makes the catalog smaller and keeps one option per product.
 */
export function createWebshop(overrides: Partial<WebshopConfig> = {}, release?: Release): Environment {
  const level = checkLevel(overrides.level, WEBSHOP_LEVELS);
  const catalogSize = WEBSHOP_LEVEL_CATALOG[level]?.size ?? DEFAULT_WEBSHOP_CONFIG.catalogSize;
  const config = withLevel({ ...DEFAULT_WEBSHOP_CONFIG, catalogSize, ...overrides }, level, WEBSHOP_LEVELS);
  const description =
    "WebShop (Yao et al. 2022) text mode over a generated catalog: search and click to buy the product the instruction describes.";
  const { wording, level: changed, ...version } = release ?? (LEVEL_VERSION[level] as Release);
  const settings = WEBSHOP_LEVEL_CATALOG[level] && { ...WEBSHOP_LEVEL_CATALOG[level], ...changed };
  return createWebshopEnv(
    levelName("webshop", level, WEBSHOP_LEVELS),
    levelDescription(description, level, WEBSHOP_LEVELS, LEVEL_TEXT[level]?.(config.catalogSize, settings)),
    builtinSource(config.catalogSize, level, wording, settings?.results),
    config,
    settings ?? WEBSHOP_VIEW,
    version,
  );
}

/**
 * WebShop over imported products (`npm run data -- import webshop ...`) with WebShop's synthetic goals
 * (`webshop-real`, from items_ins_v2) or its human goals (`webshop-real-human`, from items_human_ins).
 */
export function createWebshopReal(kind: GoalKind = "synthetic"): Environment {
  const env = createWebshopEnv(
    kind === "synthetic" ? "webshop-real" : "webshop-real-human",
    kind === "synthetic"
      ? "WebShop text mode over imported WebShop products and synthetic goals from items_ins_v2."
      : "WebShop text mode over imported WebShop products and human-written goals from items_human_ins.",
    importedSource(kind),
    DEFAULT_WEBSHOP_CONFIG,
  );
  return requireDataset(env, {
    dataset: IMPORTED_DATASET,
    splits: ["train", "test"],
    importHint: IMPORT_HINT[kind],
  });
}

export const webshop = createWebshop();
/** The lower levels, served as `webshop-l1` and `webshop-l2` (level 3 is `webshop`). */
export const webshopLevels = lowerLevels(WEBSHOP_LEVELS, (level) => createWebshop({ level }));
/**
 * webshop-l1 as it was up to 1.8.0 (300 products), kept so that runs recorded at 1.5.0–1.8.0 can still
 * be grouped by task and replayed in process (`local:webshop-l1@1.8.0`). Not served by the hosts.
 */
export const webshopL1Catalog300 = createWebshop(
  { level: 1, catalogSize: 300 },
  { version: "1.8.0", sameTasksAs: ["1.5.0", "1.6.0", "1.7.0"], wording: "query" },
);
/**
 * Each level as it was before its instructions named the product's type (webshop-l1 2.0.0, webshop-l2
 * and webshop 1.6.0), kept so that runs recorded against them can still be grouped by task and
 * replayed in process. Not served by the hosts.
 */
export const webshopQueryWorded = [
  createWebshop({ level: 1 }, { version: "2.0.0", wording: "query" }),
  createWebshop({ level: 2 }, { version: "1.6.0", sameTasksAs: ["1.5.0"], wording: "query" }),
  createWebshop({}, { version: "1.6.0", sameTasksAs: ["1.5.0"], wording: "query" }),
];
export const webshopReal = createWebshopReal();
export const webshopRealHuman = createWebshopReal("human");
