/** The number after the last `####`, GSM8K style: commas and `$` stripped. */
export function extractAnswer(text: string): number | undefined {
  const matches = [...text.matchAll(/####\s*([-+]?[$\d.,\s]*\d[\d,]*(?:\.\d+)?)/g)];
  const last = matches.at(-1)?.[1];
  if (last === undefined) return undefined;
  const cleaned = last.replace(/[$,\s]/g, "");
  const n = Number(cleaned);
  return cleaned === "" || Number.isNaN(n) ? undefined : n;
}

/** GSM8K's numeric equality, tolerant to float noise from the calculator. */
export function sameNumber(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));
}
