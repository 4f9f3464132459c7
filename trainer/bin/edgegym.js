#!/usr/bin/env node
// The `edgegym` command: loads the TypeScript CLI through tsx so the package ships no build step.
import { register } from "tsx/esm/api";

register();
await import("../cli/main.ts");
