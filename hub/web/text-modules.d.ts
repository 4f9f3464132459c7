/** Files wrangler.toml's `Text` rule imports as their text (the API reference's bundle). */
declare module "*/standalone.js" {
  const text: string;
  export default text;
}
