import { z } from "zod";
import { formatHermesCall } from "../../shared/tool-calls.js";
import { requireDataset } from "../data/dataset-source.js";
import { defineEnvironment, type Environment } from "../kit/index.js";
import { checkLevel, levelName, lowerLevels, withLevel } from "../kit/levels.js";
import { corpusRetriever } from "./corpus-retriever.js";
import { nextExpertQuery, retrieverProbe, supportingTitles } from "./expert.js";
import { type AnswerMetric, extractAnswer, scoreAnswer } from "./normalize.js";
import { renderHits } from "./observation.js";
import { SEARCH_LEVELS, type TestWorld } from "./questions.js";
import { datasetSource, type SearchSource, worldSource, worldSourceAt } from "./sources.js";
import type { SearchTask } from "./task.js";

export type SearchConfig = {
  /** Outcome reward: HotpotQA exact match, or token F1 (both after the official normalization). */
  reward: "em" | "f1";
  /**
   * Whose official script scores answers: HotpotQA's (yes/no/noanswer score 0 unless equal) or
   * MuSiQue's (no such rule, so "no answer" against the alias "no" has F1 2/3).
   */
  metric: AnswerMetric;
  /** Process reward: a search whose results hold a supporting passage not seen before earns `processRewardPerHit`. */
  processReward: boolean;
  /** Reward per such search. */
  processRewardPerHit: number;
  /** Most process reward one episode can earn. */
  processRewardCap: number;
  /** Passages returned per search. */
  topK: number;
  /**
   * Longest tool observation in characters. Passages are fitted best first, each keeping room for the
   * titles and openings of those below it; a cut passage ends with ` […]` (see `observation.ts`).
   */
  maxObservationChars: number;
  /**
   * Difficulty level of the built-in world's questions, 1 to `SEARCH_LEVELS` (see `questions.ts`);
   * absent: the top. Only `search` and its `search-l<k>` variants set it.
   */
  level?: number;
};

export const DEFAULT_SEARCH_CONFIG: SearchConfig = {
  reward: "em",
  metric: "hotpotqa",
  processReward: false,
  processRewardPerHit: 0.1,
  processRewardCap: 0.3,
  topK: 5,
  maxObservationChars: 2000,
};

/** Supporting titles shown whole so far, and process reward paid (so the cap holds across steps). */
const SearchState = z.object({ found: z.array(z.string()), bonus: z.number() });
type SearchState = z.infer<typeof SearchState>;

const MAX_STEPS = 6;

/** The expert's answer when the tool cannot show it every supporting passage. */
export const EXPERT_NOT_FOUND = "not found";

const SYSTEM =
  'Answer the question. Search with <tool_call>{"name":"search","arguments":{"query":"..."}}</tool_call>; it returns the 5 best passages. Most questions need two searches. End with <answer>short answer</answer>.';

/** The system prompt: the one `search` has always had, or the lower level's (its top-k and hops). */
function systemPrompt(config: SearchConfig): string {
  if (config.level === undefined) return SYSTEM;
  const hops = config.level <= 1 ? "One search finds the answer." : "Most questions need two searches.";
  return `Answer the question. Search with <tool_call>{"name":"search","arguments":{"query":"..."}}</tool_call>; it returns ${bestPassages(config.topK)}. ${hops} End with <answer>short answer</answer>.`;
}

/** "the best passage" or "the k best passages". */
const bestPassages = (k: number): string => (k === 1 ? "the best passage" : `the ${k} best passages`);

export type SearchEnvironmentOptions = {
  name: string;
  description: string;
  source: SearchSource;
  config?: Partial<SearchConfig>;
  /** Bumped when the tasks change (default 1.0.0). */
  version?: string;
};

/** A multi-hop QA environment (Agent-R1's HotpotQA recipe) over any question source and corpus. */
export function createSearchEnvironment(options: SearchEnvironmentOptions): Environment {
  const config = withLevel(
    { ...DEFAULT_SEARCH_CONFIG, ...options.config },
    checkLevel(options.config?.level, SEARCH_LEVELS),
    SEARCH_LEVELS,
  );
  const system = systemPrompt(config);
  const { source } = options;
  return defineEnvironment<SearchTask, SearchState, SearchConfig>({
    name: options.name,
    version: options.version ?? "1.0.0",
    description: options.description,
    tools: {
      search: {
        description: `Search the corpus (BM25); returns ${bestPassages(config.topK)}, each with its title.`,
        parameters: z.object({ query: z.string().describe("keywords, e.g. an entity's name") }),
        run: async ({ query }, ctx) => {
          const retriever = await corpusRetriever(source, ctx.ref.split, ctx.runtime);
          const result = await retriever.search(query, config.topK);
          if (!result.ok) return { content: `Error: ${result.error}`, error: true };
          const { text: content, whole } = renderHits(query, result.value, config.maxObservationChars);
          const supporting = new Set(supportingTitles(ctx.task));
          // Only passages shown whole count as seen: process reward never pays for one cut off.
          const fresh = result.value
            .filter((h, i) => whole[i] && supporting.has(h.title) && !ctx.state.found.includes(h.title))
            .map((h) => h.title);
          if (fresh.length === 0) return content;
          const state = { ...ctx.state, found: [...ctx.state.found, ...new Set(fresh)] };
          const bonus = config.processReward
            ? Math.max(0, Math.min(config.processRewardPerHit, config.processRewardCap - ctx.state.bonus))
            : 0;
          if (bonus <= 0) return { content, state };
          return { content, state: { ...state, bonus: state.bonus + bonus }, rewards: { process: bonus } };
        },
      },
    },
    tasks: source.tasks,
    limits: { maxSteps: MAX_STEPS, maxActionChars: 4096, stepTimeoutMs: 10_000 },
    reward: { min: 0, max: 1 + (config.processReward ? config.processRewardCap : 0) },
    config,
    stateSchema: SearchState,
    initialState: async (_task, ctx) => {
      // Load the corpus when the episode starts, so the first search step doesn't pay for it.
      await corpusRetriever(source, ctx.ref.split, ctx.runtime);
      return { found: [], bonus: 0 };
    },
    firstObservation: ({ task }) => [
      { role: "system", content: system },
      { role: "user", content: task.question },
    ],
    finish: (text, { task }) => {
      const answer = extractAnswer(text);
      const { em, f1 } =
        answer === undefined ? { em: 0, f1: 0 } : scoreAnswer(answer, task.answers, config.metric);
      const outcome = config.reward === "f1" ? f1 : em;
      return {
        reward: outcome,
        components: { outcome },
        // Solved means an exact match with a gold answer, whichever metric the reward uses.
        success: em > 0,
        info: { answer: answer ?? null, expected: task.answers, em, f1 },
      };
    },
    // Answers only after every supporting passage was shown whole; a query is sent only when it
    // would show a missing one, so no search repeats. When none can, it says it could not find the
    // answer rather than teach answering without the evidence.
    expert: async ({ task, state, step, ref, runtime }) => {
      const missing = supportingTitles(task).some((t) => !state.found.includes(t));
      if (!missing) return { content: `<answer>${task.answers[0]}</answer>` };
      if (step < MAX_STEPS - 1) {
        const retriever = await corpusRetriever(source, ref.split, runtime);
        const probe = retrieverProbe(retriever, config.topK, config.maxObservationChars);
        const query = await nextExpertQuery(task, state.found, probe);
        if (query !== undefined) return { content: formatHermesCall("search", { query }) };
      }
      return { content: `<answer>${EXPERT_NOT_FOUND}</answer>` };
    },
  });
}

/** The built-in environment: questions about a generated fictional world. */
export const search = createSearchEnvironment({
  name: "search",
  description:
    "Multi-hop QA over a generated fictional world: search a passage corpus (BM25), answer in <answer>…</answer>; exact-match reward.",
  source: worldSource,
});

const LEVEL_TEXT: Record<number, string> = {
  1: "one-hop questions over a small world (train 9,440 passages, validation 944, test 4,720), 1 passage a search",
  2: "two-hop questions over the small world, 3 passages a search",
};

/**
 * Passages a search returns below the top level. Level 1 shows only the best one: with three, a
 * 2-layer byte-level policy answered a year or a name from the wrong passage (see docs/results.md).
 */
const LEVEL_TOP_K: Record<number, number> = { 1: 1, 2: 3 };

/**
 * Task versions below the top: search-l1 1.3.0 has a test world of its own, 1.2.0 shows one passage a
 * search; 1.1.0 grew the worlds.
 */
const LEVEL_VERSION: Record<number, string> = { 1: "1.3.0", 2: "1.1.0" };

/**
 * The built-in world at a difficulty level: `search` at the top (`SEARCH_LEVELS`), `search-l<level>`
 * below, where a search returns fewer passages than 5 (`LEVEL_TOP_K`: shorter observations).
 */
export function searchAtLevel(level: number): Environment {
  if (checkLevel(level, SEARCH_LEVELS) >= SEARCH_LEVELS) return search;
  return lowerLevel(level, LEVEL_VERSION[level] ?? "1.1.0", "own");
}

function lowerLevel(level: number, version: string, test: TestWorld): Environment {
  return createSearchEnvironment({
    name: levelName("search", level, SEARCH_LEVELS),
    description: `Multi-hop QA over a generated fictional world; level ${level} of ${SEARCH_LEVELS}: ${LEVEL_TEXT[level] ?? ""}. Answer in <answer>…</answer>; exact-match reward.`,
    source: worldSourceAt(level, test),
    config: { level, topK: LEVEL_TOP_K[level] ?? 3 },
    version,
  });
}

/**
 * search-l1 1.2.0, whose test split was the shared small world's 1,000 tasks: archived (not served) so
 * that runs recorded against it can still be grouped by task.
 */
export const searchL1SharedTest: Environment = lowerLevel(1, "1.2.0", "shared");

/** The lower levels, served as `search-l1` and `search-l2` (level 3 is `search`). */
export const searchLevels = lowerLevels(SEARCH_LEVELS, searchAtLevel);

const hotpotHint =
  "npm run data -- import hotpotqa ../shared/data/hotpotqa/hotpot_dev_distractor_v1_first53.json";

/** HotpotQA, once imported (official or Hugging Face layout); its corpus is the union of the context paragraphs. */
export const searchHotpotqa: Environment = requireDataset(
  createSearchEnvironment({
    name: "search-hotpotqa",
    description: "HotpotQA multi-hop QA with a BM25 search tool over the imported context paragraphs.",
    source: datasetSource("hotpotqa", hotpotHint),
  }),
  { dataset: "hotpotqa", splits: ["train", "test"], importHint: hotpotHint },
);

const musiqueHint = "npm run data -- import musique musique_ans_v1.0_dev.jsonl";

/** MuSiQue, once imported; aliases count as correct answers. */
export const searchMusique: Environment = requireDataset(
  createSearchEnvironment({
    name: "search-musique",
    description: "MuSiQue multi-hop QA with a BM25 search tool over the imported paragraphs.",
    source: datasetSource("musique", musiqueHint),
    config: { metric: "musique" },
  }),
  { dataset: "musique", splits: ["train", "test"], importHint: musiqueHint },
);
