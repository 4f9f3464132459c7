import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalHub } from "../../trainer/pipeline/local-hub.js";
import { startTestHub } from "../../trainer/testing/test-hub.js";
import { launchChromium, type TestBrowser } from "./chromium.js";

/**
 * The web hub in a real Chromium against the real local hub (workerd through `wrangler dev`, local
 * D1), as `npm run dev` starts it. One hub and one browser for the whole file; each test reads what
 * the page shows. Screenshots go to runs/test-artifacts/web-hub/ (git-ignored).
 */
const SHOTS = resolve(import.meta.dirname, "../../runs/test-artifacts/web-hub");
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1200, height: 900 };
const MODEL = "browser-test-model <b>bold?</b>";
const EXPERT = "the env's expert";

let hub: LocalHub;
let browser: TestBrowser;
let page: Page;
let runId = "";
let question = "";
const privateEnv = `secret-${Date.now().toString(36)}`;
const otherTeam = `friends-${Date.now().toString(36)}`;

async function api(method: string, path: string, body?: unknown, token = hub.token) {
  const res = await fetch(hub.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function shot(name: string, viewport = DESKTOP) {
  await page.setViewportSize(viewport);
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);
}

/**
 * The expert's actions for one train task (it does not act on the held-out test split). The expert
 * only takes env tokens, so a gateway session of the same task is played beside the hub's evaluation
 * session: the expert's actions depend only on the task and the step.
 */
async function expertPlayer(version: string, index: number) {
  const base = `/v1/envs/edgegym/calculator@${version}/v1`;
  let token = (await api("POST", `${base}/sessions`, { split: "train", index })).body.session as string;
  return async () => {
    const action = (await api("POST", `${base}/expert`, { session: token })).body.action;
    token = (await api("POST", `${base}/step`, { session: token, action })).body.session;
    return action as { content?: string };
  };
}

/**
 * A public evaluation run of edgegym/calculator with tasks 0 and 1 stepped through the hub and
 * uploaded with their transcripts (the env's own messages): by the expert when `solve`, else one
 * calculator call and a wrong answer.
 */
async function seedRun(version: string, model: string, solve: boolean): Promise<string> {
  const run = await api("POST", "/v1/evals", {
    env: `edgegym/calculator@${version}`,
    split: "train",
    tasks: { count: 10 },
    model: { name: model },
    public: true,
  });
  expect(run.status).toBe(201);
  const id = run.body.id as string;
  const episodes = [];
  for (const index of [0, 1]) {
    const s = await api("POST", `/v1/evals/${id}/sessions`, { index });
    expect(s.status).toBe(201);
    if (index === 0) question = s.body.observation.messages.at(-1).content;
    const fixed = [
      { content: '<tool_call>{"name":"calculator","arguments":{"expression":"6*7"}}</tool_call>' },
      { content: "#### 42" },
    ];
    const expert = solve ? await expertPlayer(version, index) : null;
    let session = s.body.session;
    const steps = [];
    let receipt = "";
    for (let k = 0; k < 10 && !receipt; k++) {
      const action = expert ? await expert() : (fixed[k] ?? { content: "#### 42" });
      const r = await api("POST", `/v1/evals/${id}/step`, { session, action });
      expect(r.status).toBe(200);
      steps.push({
        action,
        reward: r.body.reward,
        observation: r.body.observation.messages,
        done: r.body.done,
      });
      session = r.body.session;
      receipt = r.body.receipt ?? "";
    }
    episodes.push({
      episodeId: s.body.episodeId,
      receipt,
      trajectory: { messages: s.body.observation.messages, steps },
    });
  }
  const up = await api("POST", `/v1/evals/${id}/episodes`, { episodes });
  expect(
    up.body.results.every((r: { ok: boolean }) => r.ok),
    JSON.stringify(up.body),
  ).toBe(true);
  expect((await api("POST", `/v1/evals/${id}/finish`)).status).toBe(200);
  return id;
}

beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
  const t0 = Date.now();
  [hub, browser] = await Promise.all([startTestHub("web"), launchChromium()]);
  console.log(`web-hub: hub and browser up in ${Date.now() - t0} ms (${browser.executable})`);
  page = await browser.context.newPage();
  page.setDefaultTimeout(15_000);
  const calc = await api("GET", "/v1/envs/edgegym/calculator");
  runId = await seedRun(calc.body.latest, MODEL, false);
  await seedRun(calc.body.latest, EXPERT, true);
  expect(
    (
      await api("POST", "/v1/envs", {
        owner: "edgegym",
        name: privateEnv,
        visibility: "private",
        description: "a private calculator",
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await api("POST", `/v1/envs/edgegym/${privateEnv}/versions`, {
        version: "1.0.0",
        builtin: "calculator",
      })
    ).status,
  ).toBe(201);
  expect((await api("POST", "/v1/teams", { name: otherTeam })).status).toBe(201);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await hub?.stop();
});

describe("the web hub in Chromium", () => {
  it("browses from / to an env and reads its tools and how to use it", async () => {
    await page.goto(`${hub.url}/`);
    await expect(page.locator("h1").textContent()).resolves.toContain("Environments for training");
    await expect(page.locator("ul.cards").textContent()).resolves.toContain("edgegym/calculator");
    await shot("home");
    await shot("home-phone", PHONE);
    await page.fill('input[name="q"]', "calculator");
    await page.click('button:has-text("Search")');
    await expect(page.locator("h2").first().textContent()).resolves.toContain("Results for");
    await page.click('a.name:text-is("edgegym/calculator")');
    await page.waitForURL(`${hub.url}/edgegym/calculator`);
    await expect(page.locator("h1").textContent()).resolves.toContain("edgegym/calculator");
    const tool = page.locator("section.tool#tool-calculator");
    await expect(tool.locator("h3").textContent()).resolves.toBe("calculator");
    await expect(tool.locator(".schema .prop").first().textContent()).resolves.toContain("expression");
    await expect(page.locator("code.mcp-url").textContent()).resolves.toMatch(
      /^http:\/\/localhost:\d+\/v1\/envs\/edgegym\/calculator@[\d.]+\/mcp$/,
    );
    await expect(page.locator("table.splits").textContent()).resolves.toContain("test");
    await shot("env-card");
    await shot("env-card-phone", PHONE);
  });

  it("opens the leaderboard, with the run's row and its chart", async () => {
    // The card shows the test split's board; the runs here are on train (the expert's split).
    await page.click('p.small:has-text("Split:") a:text-is("train")');
    await expect(page.locator("h1").textContent()).resolves.toMatch(
      /Leaderboard · calculator@[\d.]+ · train/,
    );
    const row = page.locator("table.leaderboard tbody tr").filter({ hasText: "browser-test-model" });
    // Tasks 0 and 1 solved or not by "42"; n = 10 either way, with 2 verified episodes.
    await expect(row.locator("td").nth(4).textContent()).resolves.toBe("10");
    await expect(row.locator("td").nth(5).textContent()).resolves.toBe("2");
    // The model name is text, its markup shown, not applied.
    await expect(row.locator("td").nth(1).textContent()).resolves.toBe(MODEL);
    // The expert solves tasks 0 and 1 and nothing else is uploaded: 2 of 10 tasks succeed.
    const expert = page.locator("table.leaderboard tbody tr").filter({ hasText: EXPERT });
    await expect(expert.locator("td").nth(0).textContent()).resolves.toBe("1");
    await expect(expert.locator("td").nth(2).textContent()).resolves.toBe("20.0%");
    // One dot with its error bar per model in the chart.
    await expect(page.locator("svg.chart circle").count()).resolves.toBe(2);
    await shot("leaderboard");
  });

  it("opens a run and reads an episode's transcript", async () => {
    await page.click(`table.leaderboard a:text-is("${MODEL}")`);
    await page.waitForURL(`${hub.url}/runs/${runId}`);
    await expect(page.locator(".model-name").textContent()).resolves.toBe(MODEL);
    await expect(page.locator("dl.aggregate").textContent()).resolves.toContain("2 of 10");
    const first = page.locator("details.episode").first();
    await expect(first.locator(".receipt-status").textContent()).resolves.toBe("receipt verified");
    await expect(first.locator(".turn.system .body").textContent()).resolves.toContain("Call the calculator");
    await expect(first.locator(".turn.user .body").first().textContent()).resolves.toBe(question);
    await expect(first.locator("mark.toolcall").first().textContent()).resolves.toContain(
      '"expression":"6*7"',
    );
    // The calculator's answer comes back as a Hermes <tool_response> in a user turn, set apart like the call.
    await expect(first.locator("mark.toolresponse").first().textContent()).resolves.toContain("42");
    await expect(first.locator(".turn.assistant .who").first().textContent()).resolves.toContain(
      "step 1 · reward",
    );
    await shot("run");
    await shot("run-phone", PHONE);
  });

  it("gives 404 for a private env when signed out", async () => {
    const res = await page.goto(`${hub.url}/edgegym/${privateEnv}`);
    expect(res?.status()).toBe(404);
    await expect(page.locator("h1").textContent()).resolves.toBe("Not found");
    await expect(page.content()).resolves.not.toContain("a private calculator");
    await shot("private-404");
  });

  it("signs in, creates and revokes a token, and shares the private env", async () => {
    await page.goto(`${hub.url}/sign-in`);
    await page.fill('input[name="token"]', hub.token);
    await page.click('button:has-text("Sign in")');
    await page.waitForURL(`${hub.url}/account`);
    await expect(page.locator("h1").textContent()).resolves.toBe("Team edgegym");
    await expect(page.locator("ul.cards").textContent()).resolves.toContain(`edgegym/${privateEnv}`);

    await page.check('input[name="scope"][value="eval"]');
    await page.click('button:has-text("Create token")');
    const secret = (await page.locator(".new-token code.secret").textContent()) ?? "";
    expect(secret).toMatch(/^egh_/);
    expect((await api("GET", "/v1/envs?limit=1", undefined, secret)).status).toBe(200);
    await shot("account-new-token");
    const newId =
      /New token (tok_[\w-]+)/.exec((await page.locator(".new-token").textContent()) ?? "")?.[1] ?? "";
    const row = page.locator(`tr[data-token-id="${newId}"]`);
    // The form posts, the hub answers 303, and the browser loads /account again.
    await Promise.all([
      page.waitForResponse((r) => r.url() === `${hub.url}/account` && r.request().method() === "GET"),
      row.locator('button:has-text("Revoke")').click(),
    ]);
    await expect(row.locator(".badge").last().textContent()).resolves.toBe("revoked");
    expect((await api("GET", "/v1/envs?limit=1", undefined, secret)).status).toBe(401);

    await page.goto(`${hub.url}/edgegym/${privateEnv}`);
    await expect(page.locator("p.description").textContent()).resolves.toBe("a private calculator");
    await page.fill('form[action$="/shares"] input[name="team"]', otherTeam);
    await page.selectOption('form[action$="/shares"] select[name="role"]', "read");
    await page.click('button:has-text("Share")');
    await expect(page.locator("table.shares").textContent()).resolves.toContain(otherTeam);
    await shot("env-shares");
    await expect(page.locator("table.shares td").nth(1).textContent()).resolves.toBe("read");
    // Re-sharing changes the role; revoking removes the share.
    await page.fill('form[action$="/shares"] input[name="team"]', otherTeam);
    await page.selectOption('form[action$="/shares"] select[name="role"]', "publish");
    await page.click('button:has-text("Share")');
    await expect(page.locator("table.shares td").nth(1).textContent()).resolves.toBe("publish");
    await page.locator("table.shares").locator('button:has-text("Revoke")').click();
    await expect(page.getByText("Not shared with any team.").textContent()).resolves.toBe(
      "Not shared with any team.",
    );
  });

  it("renders the API reference from the hub's own Scalar bundle", async () => {
    const outside: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(hub.url) && !r.url().startsWith("data:")) outside.push(r.url());
    });
    // The page's CSP (script by hash, no eval) must leave Scalar nothing to be refused.
    const refused: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
    });
    const res = await page.goto(`${hub.url}/v1/reference`);
    expect(res?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    // Scalar draws the operations from /v1/openapi.json in the page; waiting for one proves the script ran.
    await page
      .getByText("Create a team (bootstrap secret or an admin token)")
      .first()
      .waitFor({ state: "visible" });
    await expect(page.locator("h1").first().textContent()).resolves.toContain("edgegym hub");
    expect(outside).toEqual([]);
    expect(refused).toEqual([]);
    await shot("reference");
  });
});
