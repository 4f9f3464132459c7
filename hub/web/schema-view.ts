import { html } from "hono/html";
import type { Html } from "./layout.js";

type Schema = Record<string, unknown>;

const MAX_DEPTH = 5;

const isObject = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/** `string`, `integer ≥ 0`, `array of string`, `"a" | "b"`: the type as one short phrase. */
export function typeOf(s: Schema): string {
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  if ("const" in s) return JSON.stringify(s.const);
  const union = (s.anyOf ?? s.oneOf) as unknown;
  if (Array.isArray(union)) return union.filter(isObject).map(typeOf).join(" | ");
  const t = Array.isArray(s.type) ? s.type.join(" | ") : typeof s.type === "string" ? s.type : "any";
  if (t === "array" && isObject(s.items)) return `array of ${typeOf(s.items)}`;
  const bounds: string[] = [];
  if (typeof s.minimum === "number") bounds.push(`≥ ${s.minimum}`);
  if (typeof s.maximum === "number") bounds.push(`≤ ${s.maximum}`);
  if (typeof s.minLength === "number") bounds.push(`length ≥ ${s.minLength}`);
  if (typeof s.maxLength === "number") bounds.push(`length ≤ ${s.maxLength}`);
  if (typeof s.pattern === "string") bounds.push(`matching /${s.pattern}/`);
  return [t, ...bounds].join(", ");
}

/**
 * A JSON Schema as a nested list of its properties (name, type, required, description, default),
 * readable without knowing JSON Schema; the raw schema is one click away.
 */
export function schemaView(schema: unknown): Html {
  return html`${isObject(schema) ? properties(schema, 0) : html`<p class="muted">no parameters</p>`}
    <details><summary class="small muted">JSON Schema</summary><pre>${JSON.stringify(schema, null, 2)}</pre></details>`;
}

function properties(s: Schema, depth: number): Html {
  const props = isObject(s.properties) ? Object.entries(s.properties) : [];
  const items = isObject(s.items) ? s.items : null;
  if (props.length === 0 && items && depth < MAX_DEPTH && isObject(items.properties)) {
    return html`<div class="small muted">each item:</div>${properties(items, depth + 1)}`;
  }
  if (props.length === 0) return html`<p class="muted small">takes no named parameters (${typeOf(s)})</p>`;
  const required = new Set(Array.isArray(s.required) ? s.required.map(String) : []);
  return html`<div class="schema">
    ${props.map(([name, raw]) => {
      const p = isObject(raw) ? raw : {};
      const nested =
        depth < MAX_DEPTH && (isObject(p.properties) || (isObject(p.items) && isObject(p.items.properties)))
          ? properties(p, depth + 1)
          : "";
      return html`<div class="prop">
        <code>${name}</code> <span class="type">${typeOf(p)}</span>
        ${required.has(name) ? html`<span class="req">required</span>` : ""}
        ${"default" in p ? html`<span class="small muted">default <code>${JSON.stringify(p.default)}</code></span>` : ""}
        ${typeof p.description === "string" ? html`<div class="small">${p.description}</div>` : ""}
        ${nested}
      </div>`;
    })}
  </div>`;
}
