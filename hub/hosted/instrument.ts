import { type Function as AcornFunction, type Node, parse } from "acorn";
import { simple } from "acorn-walk";
import type { Result } from "../../shared/result.js";

/**
 * Module names and identifiers under this prefix are the hub's: a pushed module may not name them, so
 * it can neither shadow the guard's tick nor import the guard to reset its count.
 */
export const RESERVED_PREFIX = "__edgegym";
/** The guard module the hub adds to every hosted bundle (hub/hosted/guard.ts). */
export const GUARD_MODULE = `${RESERVED_PREFIX}/guard.js`;
const TICK = `${RESERVED_PREFIX}_tick`;

type Edit = { at: number; text: string };

/**
 * One ES module's source with a guard call (`__edgegym_tick()`) at the head of every function body
 * and every loop body, and the import of that guard. The guard counts calls and throws past a budget
 * (hub/hosted/guard.ts), so a synchronous loop or runaway recursion ends even where the runtime
 * enforces no CPU limit (local workerd runs the hub and every loaded isolate on one thread: one
 * `for(;;){}` would freeze the whole hub). Counting, not timing: `Date.now()` stands still during
 * synchronous execution in workerd.
 *
 * Refused: dynamic `import()` (it could reach the guard module by a computed name), and any name or
 * string under the reserved prefix. `moduleName` is the module's path in the bundle, for
 * the guard's import specifier.
 */
export function instrumentModule(source: string, moduleName: string): Result<string, string> {
  let refused: string | undefined;
  const refuse = (why: string) => {
    refused ??= `${moduleName}: ${why}`;
  };
  let ast: Node;
  try {
    ast = parse(source, {
      ecmaVersion: "latest",
      sourceType: "module",
      // Every name, string and template piece, escapes decoded (`\u005f_edgegym_tick` is caught too):
      // no binding can shadow the tick and no import can name the guard.
      onToken: (token) => {
        // acorn's typings omit the token's (cooked) value, which it always sets.
        const { value } = token as typeof token & { value?: unknown };
        if (typeof value === "string" && value.includes(RESERVED_PREFIX)) {
          refuse(`names ${value.slice(0, 80)}, reserved for the hub`);
        }
      },
    });
  } catch (e) {
    return { ok: false, error: `${moduleName} is not an ES module: ${(e as Error).message}` };
  }
  const edits: Edit[] = [];
  const guardBody = (body: Node) => {
    if (body.type === "BlockStatement") edits.push({ at: body.start + 1, text: `${TICK}();` });
    else {
      edits.push({ at: body.start, text: `{${TICK}();` });
      edits.push({ at: body.end, text: "}" });
    }
  };
  const guardFunction = (fn: AcornFunction) => {
    if (fn.body.type === "BlockStatement") guardBody(fn.body);
    else {
      // An arrow's expression body: `x => (tick(), x)` keeps its value.
      edits.push({ at: fn.body.start, text: `(${TICK}(),` });
      edits.push({ at: fn.body.end, text: ")" });
    }
  };
  const loop = (n: { body: Node }) => guardBody(n.body);
  simple(ast, {
    ForStatement: loop,
    ForInStatement: loop,
    ForOfStatement: loop,
    WhileStatement: loop,
    DoWhileStatement: loop,
    FunctionDeclaration: guardFunction,
    FunctionExpression: guardFunction,
    ArrowFunctionExpression: guardFunction,
    ImportExpression: () => refuse("dynamic import() is not allowed in a hosted environment"),
  });
  if (refused !== undefined) return { ok: false, error: refused };
  // Pieces in source order, joined once: splicing into the string per edit is quadratic.
  edits.sort((a, b) => a.at - b.at);
  const pieces = [`import { ${TICK} } from "${guardSpecifier(moduleName)}";\n`];
  let from = 0;
  for (const e of edits) {
    pieces.push(source.slice(from, e.at), e.text);
    from = e.at;
  }
  pieces.push(source.slice(from));
  return { ok: true, value: pieces.join("") };
}

/** The guard's path relative to `moduleName`, as workerd resolves a module's imports against its own path. */
function guardSpecifier(moduleName: string): string {
  const depth = moduleName.split("/").length - 1;
  return `${depth === 0 ? "./" : "../".repeat(depth)}${GUARD_MODULE}`;
}
