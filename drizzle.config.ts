import { defineConfig } from "drizzle-kit";

/** One schema for D1 on Workers and the local SQLite file on Node; `npm run db:generate` writes migrations/. */
export default defineConfig({
  dialect: "sqlite",
  schema: "./shared/db/schema.ts",
  out: "./migrations",
});
