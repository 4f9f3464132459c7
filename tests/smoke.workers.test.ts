import { SELF } from "cloudflare:test";
import { expect, it } from "vitest";

it("serves the calculator manifest inside workerd", async () => {
  const res = await SELF.fetch("http://edgegym.test/envs/calculator/v1/manifest");
  expect(res.status).toBe(200);
  const body = (await res.json()) as { protocol: string; name: string };
  expect(body).toMatchObject({ protocol: "edgegym/v1", name: "calculator" });
});

it("has the project's migrations applied to the local D1", async () => {
  const { env } = await import("cloudflare:workers");
  const row = await env.DB.prepare("select count(*) as n from datasets").first<{ n: number }>();
  expect(row?.n).toBe(0);
});
