import { html } from "hono/html";
import type { Html } from "./layout.js";
import { when } from "./layout.js";

export type EnvSummaryView = {
  owner: string;
  name: string;
  visibility: "public" | "private";
  description: string;
  tags: string[];
  latest: string | null;
  updatedAt: string;
};

/** Envs as cards linking to their pages; `empty` is what an empty list says. */
export function envCards(envs: readonly EnvSummaryView[], empty: string): Html {
  if (envs.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<ul class="cards">
    ${envs.map(
      (e) => html`<li>
        <a class="name" href="/${e.owner}/${e.name}">${e.owner}/${e.name}</a>
        ${e.visibility === "private" ? html` <span class="badge">private</span>` : ""}
        <div class="small muted">${e.latest ? `v${e.latest}` : "no stable version"} · updated ${when(e.updatedAt)}</div>
        <div>${e.description}</div>
        <div>${e.tags.map((t) => html`<span class="tag">${t}</span>`)}</div>
      </li>`,
    )}
  </ul>`;
}
