/** A tiny hub client for tests and the benchmark: any `fetch`-like function, JSON in and out. */
export type Fetcher = (request: Request) => Promise<Response>;

// biome-ignore lint/suspicious/noExplicitAny: tests read response fields directly and assert on them
export type Reply<T = any> = { status: number; body: T; headers: Headers };

export const BOOTSTRAP = "hub-test-bootstrap-secret";
export const ALL_SCOPES = ["read", "publish", "eval", "admin"] as const;

export function hubClient(fetcher: Fetcher, base = "http://hub.test") {
  // biome-ignore lint/suspicious/noExplicitAny: as above
  async function call<T = any>(method: string, path: string, opts: { token?: string; body?: unknown } = {}) {
    const headers: Record<string, string> = {};
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.body !== undefined) headers["content-type"] = "application/json";
    const res = await fetcher(
      new Request(base + path, {
        method,
        headers,
        ...(opts.body === undefined
          ? {}
          : { body: typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body) }),
      }),
    );
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // non-JSON bodies (the reference page) stay text
    }
    return { status: res.status, body: body as T, headers: res.headers } satisfies Reply<T>;
  }
  return { call };
}

export type HubClient = ReturnType<typeof hubClient>;

/** A unique lowercase name, so tests sharing one database never collide. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
}

/** Creates a team through the bootstrap secret and returns a token with `scopes`. */
export async function newTeam(
  hub: HubClient,
  scopes: readonly string[] = ALL_SCOPES,
  extra: { expiresAt?: string } = {},
): Promise<{ team: string; token: string; tokenId: string }> {
  const team = uniqueName("team");
  const t = await hub.call("POST", "/v1/teams", { token: BOOTSTRAP, body: { name: team } });
  if (t.status !== 201) throw new Error(`team: ${t.status} ${JSON.stringify(t.body)}`);
  const tok = await newToken(hub, team, scopes, extra);
  return { team, ...tok };
}

export async function newToken(
  hub: HubClient,
  team: string,
  scopes: readonly string[],
  extra: { expiresAt?: string } = {},
): Promise<{ token: string; tokenId: string }> {
  const r = await hub.call("POST", `/v1/teams/${team}/tokens`, {
    token: BOOTSTRAP,
    body: { scopes, ...extra },
  });
  if (r.status !== 201) throw new Error(`token: ${r.status} ${JSON.stringify(r.body)}`);
  return { token: r.body.token, tokenId: r.body.id };
}

/** An env with a built-in calculator version published, owned by `owner`. */
export async function newEnv(
  hub: HubClient,
  owner: { team: string; token: string },
  opts: {
    visibility?: "public" | "private";
    name?: string;
    version?: string;
    description?: string;
    tags?: string[];
  } = {},
): Promise<{ name: string; ref: string }> {
  const name = opts.name ?? uniqueName("env");
  const e = await hub.call("POST", "/v1/envs", {
    token: owner.token,
    body: {
      owner: owner.team,
      name,
      visibility: opts.visibility ?? "public",
      description: opts.description ?? "arithmetic word problems",
      tags: opts.tags ?? ["math"],
    },
  });
  if (e.status !== 201) throw new Error(`env: ${e.status} ${JSON.stringify(e.body)}`);
  const version = opts.version ?? "1.0.0";
  const v = await hub.call("POST", `/v1/envs/${owner.team}/${name}/versions`, {
    token: owner.token,
    body: { version, builtin: "calculator" },
  });
  if (v.status !== 201) throw new Error(`version: ${v.status} ${JSON.stringify(v.body)}`);
  return { name, ref: `${owner.team}/${name}@${version}` };
}

/**
 * Plays one episode through the gateway at `base` (`/v1/envs/owner/name@version`): the expert's actions
 * when `solve`, else a wrong final answer at once. Returns the last step result (with its receipt).
 * `envSession` maps a hub evaluation handle to the env token inside it (tests hold the hub's secret),
 * since the expert only takes env tokens.
 */
export async function playEpisode(
  hub: HubClient,
  token: string | undefined,
  base: string,
  session: string,
  solve: boolean,
  envSession: (session: string) => Promise<string> = async (s) => s,
): Promise<{ receipt: string; reward: number; steps: number; return: number }> {
  let current = session;
  let total = 0;
  for (let steps = 1; steps <= 20; steps++) {
    const expert = async () =>
      (await hub.call("POST", `${base}/v1/expert`, { token, body: { session: await envSession(current) } }))
        .body.action;
    const action = solve ? await expert() : { content: "#### -987654321" };
    const r = await hub.call("POST", `${base}/v1/step`, { token, body: { session: current, action } });
    if (r.status !== 200) throw new Error(`step: ${r.status} ${JSON.stringify(r.body)}`);
    total += r.body.reward;
    if (r.body.done) return { receipt: r.body.receipt, reward: r.body.reward, steps, return: total };
    current = r.body.session;
  }
  throw new Error("episode did not finish in 20 steps");
}
