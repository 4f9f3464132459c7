import { SELF } from "cloudflare:test";
import { expect, it } from "vitest";

it("serves the calculator manifest inside workerd", async () => {
  const res = await SELF.fetch("http://edgegym.test/envs/calculator/v1/manifest");
  expect(res.status).toBe(200);
  const body = (await res.json()) as { protocol: string; name: string };
  expect(body).toMatchObject({ protocol: "edgegym/v1", name: "calculator" });
});
