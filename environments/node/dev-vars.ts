import { DEV_VARS_PATH, localSecrets } from "./local-keys.js";

await localSecrets();
console.log(`edgegym: local secrets ready in ${DEV_VARS_PATH}`);
