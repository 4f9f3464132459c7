// search-l1's tasks of a split as the env generates them (question, answers, supporting titles), for
// failures.py. Usage: npx tsx world-tasks.ts <split> <n> > <split>-tasks.json
import { worldTask } from "../../../../environments/search/questions.js";

const split = process.argv[2] ?? "validation";
const n = Number(process.argv[3] ?? 500);
console.log(JSON.stringify(Array.from({ length: n }, (_, i) => worldTask(split, i, 1))));
