import { z } from "@hono/zod-openapi";
import { EvalAggregate, EvalRun as EvalRunShape } from "../../shared/evals.js";
import { SessionResponse } from "../../shared/protocol.js";

/** Trajectories are kept for inspection but bounded, so a client can't fill the database. */
export { MAX_TRAJECTORY_BYTES } from "../../shared/transcript.js";

export const AggregateSchema = EvalAggregate.openapi("Aggregate");
export const EvalRun = EvalRunShape.openapi("EvalRun");

export const EvalSessionRequest = z.object({ index: z.number().int().nonnegative() });
export const EvalSession = SessionResponse.openapi("EvalSession");

export const ListEvalsQuery = z.object({
  env: z.string().regex(/^[a-z0-9-]{1,64}\/[a-z0-9-]{1,64}(@[0-9A-Za-z.+-]{1,128})?$/),
  cursor: z.string().max(64).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
export const EvalList = z.object({ runs: z.array(EvalRun), nextCursor: z.string().nullable() });
