import { createMiddleware } from "hono/factory";
import { EdgegymError } from "../shared/errors.js";
import type { AppEnv } from "./env.js";

/**
 * Marks every request the hub sends to an endpoint, or lets out of a hosted env's sandbox. The hub
 * refuses requests that carry it (`508 loop_detected`), so one that leads back into a hub's gateway
 * ends after one hop.
 */
export const HOP_HEADER = "x-edgegym-hop";

/**
 * Refuses a request that a hub sent to an endpoint (it carries the hop header) with `508
 * loop_detected`, before authentication and the rate limit: an endpoint that leads back into a hub's
 * gateway (`<hub>/v1/envs/A/loop@latest`, or this hub under another name) then costs one hop, not a
 * chain of nested requests that spends the caller's rate budget. The price is that one hub's gateway
 * cannot be published as another hub's endpoint.
 */
export const refuseLoops = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.header(HOP_HEADER) !== undefined) {
    throw new EdgegymError(
      "loop_detected",
      "the request came from an edgegym hub; hubs do not forward to hubs",
    );
  }
  await next();
});
