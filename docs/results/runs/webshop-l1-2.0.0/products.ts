// The product behind each of webshop-l1's tasks 0..n-1 of a split, for a catalog of `size` products
// (300 up to 1.8.0, 3,000 since 2.0.0). Usage: npx tsx products.ts <split> <n> <size> > products.json
import { builtinCatalog, builtinGoal } from "../../../../environments/webshop/generator.js";

const [split = "test", n = "500", size = "300"] = process.argv.slice(2);
const catalog = builtinCatalog(Number(size), 0, 1, "word");
const products = Array.from({ length: Number(n) }, (_, i) => builtinGoal(catalog, split, i, 1).asin);
console.log(JSON.stringify(products));
