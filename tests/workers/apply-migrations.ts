import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";

// Every workers test file starts from a database built by the project's own migrations.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
