import { type AnswerFormat, boxedAnswer, extractAnswer } from "../calculator/answer.js";

/**
 * The final answer: `\boxed{n}` inside the last `<answer>…</answer>`, else the number after the last
 * `####` (GSM8K style, as in calculator). `flexible` also takes the forms calculator's flexible format
 * takes (a `\boxed{n}` anywhere, "The answer is n", the last number). One parser: calculator's.
 */
export function finalAnswer(text: string, format: AnswerFormat = "strict"): number | undefined {
  const block = [...text.matchAll(/<answer>([\s\S]*?)<\/answer>/g)].at(-1)?.[1];
  return (block === undefined ? undefined : boxedAnswer(block)) ?? extractAnswer(text, format);
}
