import type { Context } from "hono";
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { WebEnv } from "./session.js";
import { CSS_PATH } from "./style.js";

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/**
 * The page shell: header with the hub's links and who is signed in, then the page's body. Every
 * value reaches the markup through `html`, which escapes strings, so user text can't become markup.
 */
export function layout(c: Context<WebEnv>, title: string, body: Html): Html {
  const { principal, csrf } = c.get("web");
  const who =
    principal.kind === "token"
      ? html`<a href="/account">${principal.team}</a>
          <form class="inline" method="post" action="/sign-out">
            <input type="hidden" name="_csrf" value="${csrf ?? ""}" />
            <button class="secondary" type="submit">Sign out</button>
          </form>`
      : html`<a href="/sign-in">Sign in</a>`;
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title} · edgegym hub</title>
    <link rel="stylesheet" href="${CSS_PATH}" />
  </head>
  <body>
    <header class="top">
      <nav>
        <a class="brand" href="/">edgegym hub</a>
        <a href="/v1/reference">API</a>
        ${who}
      </nav>
    </header>
    <main>${body}</main>
    <footer>Environments speak <code>edgegym/v1</code>; every score here comes from receipts the environments signed.</footer>
  </body>
</html>`;
}

/** A number with `digits` decimals; integers stay integers. */
export function num(x: number, digits = 3): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(digits);
}

/** A date as `YYYY-MM-DD HH:MM UTC`: one format for every page, readable at phone width. */
export function when(iso: string | Date): string {
  const d = typeof iso === "string" ? new Date(iso) : iso;
  return `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** `sha256:abcdef…` shortened for tables, the full hash in the title attribute. */
export function shortHash(hash: string): Html {
  return html`<code title="${hash}">${hash.replace(/^sha256:/, "").slice(0, 12)}</code>`;
}
