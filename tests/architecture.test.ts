import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "@babel/parser";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SOURCE = /\.[cm]?[jt]s$/;
const NOT_PRODUCT = /\.test\.ts$|\.d\.ts$/;

/**
 * The module specifiers a file names: static imports (`import type` too, since a type is a
 * dependency of the design), re-exports, `import("…")` calls and `typeof import("…")` types.
 * Parsed, not matched, so comments and strings that look like imports are not imports.
 */
function importsOf(text: string): string[] {
  const ast = parse(text, { sourceType: "module", plugins: ["typescript"] });
  const specs: string[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (typeof node !== "object" || node === null) return;
    const n = node as Record<string, unknown> & { type?: string };
    const literal = (v: unknown) => {
      const s = v as { type?: string; value?: unknown; literal?: { value?: unknown } } | null;
      const value = s?.type === "TSLiteralType" ? s.literal?.value : s?.value;
      if (typeof value === "string") specs.push(value);
    };
    if (n.type === "ImportDeclaration" || n.type === "ExportAllDeclaration") literal(n.source);
    else if (n.type === "ExportNamedDeclaration" && n.source) literal(n.source);
    else if (n.type === "CallExpression" && (n.callee as { type?: string }).type === "Import")
      literal((n.arguments as unknown[])[0]);
    else if (n.type === "TSImportType") literal(n.argument);
    for (const [key, value] of Object.entries(n))
      if (key !== "loc" && key !== "leadingComments" && key !== "trailingComments") visit(value);
  };
  visit(ast.program);
  return specs;
}

/** The product source files under `dir` (tests and declarations aside), relative to it. */
function productFiles(dir: string, under = ""): string[] {
  return readdirSync(join(dir, under), { withFileTypes: true }).flatMap((entry) => {
    const path = join(under, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : productFiles(dir, path);
    return SOURCE.test(entry.name) && !NOT_PRODUCT.test(entry.name) ? [path] : [];
  });
}

/** Unit → units it imports → one `file imports spec` that shows the edge. */
type Graph = Map<string, Map<string, string>>;

/**
 * The import graph of `root`'s product files (tests aside) between its units: each first-level
 * folder is one unit (`data`), and each file directly in `root` is a unit of its own (`builtin.ts`).
 * Imports that leave `root` are not edges.
 */
function unitGraph(root: string): Graph {
  const dir = resolve(ROOT, root);
  const unitOf = (path: string): string | undefined => {
    const parts = relative(dir, path).split(sep);
    if (parts[0] === ".." || parts[0] === undefined) return undefined;
    return parts.length > 1 ? parts[0] : parts[0].replace(SOURCE, ".ts");
  };
  const graph: Graph = new Map();
  for (const file of productFiles(dir)) {
    const path = join(dir, file);
    const from = unitOf(path) as string;
    const edges = graph.get(from) ?? new Map<string, string>();
    graph.set(from, edges);
    for (const spec of importsOf(readFileSync(path, "utf8"))) {
      if (!spec.startsWith(".")) continue;
      const to = unitOf(resolve(dirname(path), spec));
      if (to !== undefined && to !== from && !edges.has(to)) edges.set(to, `${root}/${file} imports ${spec}`);
    }
  }
  return graph;
}

/** Each unit the order leaves out, and each edge to a unit the order puts above (or leaves out). */
function orderViolations(graph: Graph, order: readonly string[]): string[] {
  const rank = new Map(order.map((u, i) => [u, i]));
  const out: string[] = [];
  for (const [from, edges] of graph) {
    const above = rank.get(from);
    if (above === undefined) {
      out.push(`${from} is not in the order`);
      continue;
    }
    for (const [to, why] of edges)
      if ((rank.get(to) ?? -1) <= above) out.push(`${from} → ${to} goes against the order (${why})`);
  }
  return out;
}

/** The graph's cycles: each strongly connected component of two or more units (Tarjan), sorted. */
function cycles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const connect = (u: string): void => {
    index.set(u, index.size);
    low.set(u, index.get(u) as number);
    stack.push(u);
    for (const v of graph.get(u)?.keys() ?? []) {
      if (!index.has(v)) {
        connect(v);
        low.set(u, Math.min(low.get(u) as number, low.get(v) as number));
      } else if (stack.includes(v)) low.set(u, Math.min(low.get(u) as number, index.get(v) as number));
    }
    if (low.get(u) !== index.get(u)) return;
    const component = stack.splice(stack.indexOf(u));
    if (component.length > 1) found.push(component.sort());
  };
  for (const u of graph.keys()) if (!index.has(u)) connect(u);
  return found;
}

/** The trainer's folder order as docs/architecture.md states it, top first. */
function documentedOrder(): string[] {
  const doc = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
  const list = /each from those after it:\s*((?:`[\w-]+`[,\s]*)+)/.exec(doc)?.[1] ?? "";
  return [...list.matchAll(/`([\w-]+)`/g)].map((m) => m[1] as string);
}

const graphOf = (edges: Record<string, string[]>): Graph =>
  new Map(Object.entries(edges).map(([u, vs]) => [u, new Map(vs.map((v) => [v, `${u} imports ${v}`]))]));

describe("the import checks", () => {
  it("read every kind of import and nothing that only looks like one", () => {
    const text = `
      import type { A } from "./a.js";
      import "./side-effect.js";
      export * from "../b/c.js";
      export { d } from "./d.js";
      export const e = () => import("../e.js");
      type F = typeof import("./f.js");
      // import { g } from "./comment.js";
      const usage = 'import { h } from "./string.js"';`;
    expect(importsOf(text)).toEqual([
      "./a.js",
      "./side-effect.js",
      "../b/c.js",
      "./d.js",
      "../e.js",
      "./f.js",
    ]);
  });

  it("find an import against the order, an unlisted unit and a cycle", () => {
    const graph = graphOf({ top: ["low"], low: ["top"], stray: ["low"] });
    expect(orderViolations(graph, ["top", "low"])).toEqual([
      "low → top goes against the order (low imports top)",
      "stray is not in the order",
    ]);
    expect(cycles(graph)).toEqual([["low", "top"]]);
    expect(cycles(graphOf({ a: ["b"], b: ["c"], c: ["a"], d: ["a"] }))).toEqual([["a", "b", "c"]]);
    expect(orderViolations(graphOf({ top: ["low"], low: [] }), ["top", "low"])).toEqual([]);
  });
});

describe("the architecture docs/architecture.md states", () => {
  it("lists each trainer folder with product files once, in an order the imports keep", () => {
    const order = documentedOrder();
    const graph = unitGraph("trainer");
    expect(new Set(order).size).toBe(order.length);
    expect([...order].sort()).toEqual([...graph.keys()].sort());
    // The graph is real: the RL update reads the maths (a known edge), so an empty parse cannot pass.
    expect(graph.get("rl")?.has("algos")).toBe(true);
    expect(orderViolations(graph, order)).toEqual([]);
  });

  it.each(["environments", "hub"])("has no folder cycle in %s/", (root) => {
    const graph = unitGraph(root);
    expect(graph.size).toBeGreaterThan(1);
    expect(cycles(graph)).toEqual([]);
  });

  it("has shared/ import nothing else in the repo", () => {
    const dir = join(ROOT, "shared");
    const leaving = productFiles(dir).flatMap((file) =>
      importsOf(readFileSync(join(dir, file), "utf8"))
        .filter(
          (spec) => spec.startsWith(".") && relative(dir, resolve(dir, dirname(file), spec)).startsWith(".."),
        )
        .map((spec) => `shared/${file} imports ${spec}`),
    );
    expect(leaving).toEqual([]);
  });
});
