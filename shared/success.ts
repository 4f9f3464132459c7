import type { ReceiptClaims, StepInfo } from "./protocol.js";

/**
 * Success is defined once, by the env (edgegym/v1): the step that ends an episode carries
 * `info.success`, and its receipt the claim `success`. This module holds the rules around that one
 * value, so that the kit, the trainer and the hub cannot drift apart.
 */

/**
 * The kit's default for an env whose scorer does not say: the `outcome` reward component when
 * there is one, else the final step's reward, is positive. It is the rule the trainer used before
 * envs reported success, so built-in envs that keep it kept their success rates.
 */
export function defaultSuccess(reward: number, components: Readonly<Record<string, number>>): boolean {
  return (components.outcome ?? reward) > 0;
}

/**
 * Whether a step ended its episode successfully, read from the env's `info.success`. A step from
 * an env that predates the field (an old published version, a foreign server) falls back to the
 * trainer's earlier rule: a final step, not truncated, whose outcome (or reward) is positive.
 */
export function stepSuccess(step: {
  done: boolean;
  truncated: boolean;
  reward: number;
  info: StepInfo;
}): boolean {
  if (!step.done) return false;
  if (typeof step.info.success === "boolean") return step.info.success;
  return !step.truncated && defaultSuccess(step.reward, step.info.reward_components);
}

/**
 * A verified receipt's success claim. Receipts signed before the claim existed fall back to the
 * hub's earlier rule, a positive final reward, so old runs keep the rates they were given.
 */
export function claimedSuccess(claims: Pick<ReceiptClaims, "success" | "finalReward">): boolean {
  return claims.success ?? claims.finalReward > 0;
}
