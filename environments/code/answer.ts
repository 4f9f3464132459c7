import { extractAnswer } from "../calculator/answer.js";

/** The number inside the last `\boxed{...}` of `text`, with `$`, commas and spaces ignored. */
function boxed(text: string): number | undefined {
  const inner = [...text.matchAll(/\\boxed\{([^{}]*)\}/g)].at(-1)?.[1];
  if (inner === undefined) return undefined;
  const cleaned = inner.replace(/[$,\s]/g, "");
  const n = Number(cleaned);
  return /^[-+]?(\d+\.?\d*|\.\d+)$/.test(cleaned) && Number.isFinite(n) ? n : undefined;
}

/**
 * The final answer: `\boxed{n}` inside the last `<answer>…</answer>`, else the number after the last
 * `####` (GSM8K style, as in calculator).
 */
export function finalAnswer(text: string): number | undefined {
  const block = [...text.matchAll(/<answer>([\s\S]*?)<\/answer>/g)].at(-1)?.[1];
  return (block === undefined ? undefined : boxed(block)) ?? extractAnswer(text);
}
