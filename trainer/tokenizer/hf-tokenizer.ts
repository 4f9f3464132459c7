import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Template } from "@huggingface/jinja";
import { Tokenizer as HfCore } from "@huggingface/tokenizers";
import type { ChatMessage } from "../../shared/protocol.js";
import { err, ok, type Result } from "../../shared/result.js";
import type { RenderChatOptions, SpecialIds, Tokenizer } from "../policy/types.js";

/** A prior turn pair rendered before continuation messages and then cut off, so templates see history. */
const CONTEXT: ChatMessage[] = [
  { role: "user", content: "·" },
  { role: "assistant", content: "·" },
];

interface TokenizerConfig {
  chat_template?: string | { name: string; template: string }[];
  bos_token?: string | { content: string } | null;
  eos_token?: string | { content: string } | null;
  pad_token?: string | { content: string } | null;
}

const tokenText = (t: TokenizerConfig["eos_token"]): string | undefined =>
  typeof t === "string" ? t : (t?.content ?? undefined);

/** A Hugging Face `tokenizer.json` with the model's jinja chat template (ChatML for Qwen2). */
export class HfTokenizer implements Tokenizer {
  readonly kind = "hf";
  readonly vocabSize: number;
  readonly special: SpecialIds;
  readonly specialTokens: ReadonlyMap<string, number>;
  readonly stopIds: readonly number[];
  private readonly suffix: number[];

  constructor(
    private readonly core: HfCore,
    private readonly template: Template,
    private readonly config: TokenizerConfig,
    /** The source files, written back into checkpoints. */
    readonly files: { "tokenizer.json": unknown; "tokenizer_config.json": unknown },
  ) {
    const vocab = core.get_vocab(true);
    this.vocabSize = Math.max(...vocab.values()) + 1;
    this.specialTokens = new Map([...core.get_added_tokens_decoder()].map(([id, t]) => [t.content, id]));
    const idOf = (text: string | undefined) => (text === undefined ? undefined : core.token_to_id(text));
    const eos = idOf(tokenText(config.eos_token)) ?? 0;
    const endOfTurn = idOf("<|im_end|>") ?? idOf("<|eot_id|>") ?? eos;
    this.special = {
      eos,
      bos: idOf(tokenText(config.bos_token)) ?? eos,
      pad: idOf(tokenText(config.pad_token)) ?? eos,
      endOfTurn,
    };
    this.stopIds = [...new Set([endOfTurn, eos])];
    // What the template writes after an assistant's text: the end-of-turn token and any newline.
    const marker = "\u2063";
    const closed = this.renderText([{ role: "assistant", content: marker }], { addGenerationPrompt: false });
    this.suffix = this.encode(closed.slice(closed.lastIndexOf(marker) + marker.length));
  }

  encode(text: string): number[] {
    return this.core.encode(text, { add_special_tokens: false }).ids;
  }

  decode(ids: readonly number[], opts: { keepControl?: boolean } = {}): string {
    return this.core.decode([...ids], { skip_special_tokens: !opts.keepControl });
  }

  renderChat(messages: readonly ChatMessage[], opts: RenderChatOptions): number[] {
    if (!opts.continuation) return this.encode(this.renderText(messages, opts));
    const before = this.renderText(CONTEXT, { addGenerationPrompt: false });
    const after = this.renderText([...CONTEXT, ...messages], opts);
    return this.encode(after.startsWith(before) ? after.slice(before.length) : after);
  }

  renderAssistantSuffix(): number[] {
    return this.suffix;
  }

  private renderText(messages: readonly ChatMessage[], opts: RenderChatOptions): string {
    return this.template.render({
      messages,
      tools: opts.tools,
      add_generation_prompt: opts.addGenerationPrompt,
      bos_token: tokenText(this.config.bos_token) ?? "",
      eos_token: tokenText(this.config.eos_token) ?? "",
    });
  }
}

async function readJson(path: string): Promise<Result<Record<string, unknown>>> {
  try {
    return ok(JSON.parse(await readFile(path, "utf8")));
  } catch (e) {
    return err(`cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Loads `tokenizer.json` and `tokenizer_config.json` (chat template inline or in `chat_template.jinja`). */
export async function loadHfTokenizer(dir: string): Promise<Result<HfTokenizer>> {
  const json = await readJson(join(dir, "tokenizer.json"));
  if (!json.ok) return json;
  const cfg = await readJson(join(dir, "tokenizer_config.json"));
  if (!cfg.ok) return cfg;
  const config = cfg.value as TokenizerConfig;
  let source = Array.isArray(config.chat_template)
    ? config.chat_template.find((t) => t.name === "default")?.template
    : config.chat_template;
  if (source === undefined)
    source = await readFile(join(dir, "chat_template.jinja"), "utf8").catch(() => undefined);
  if (source === undefined) return err(`${dir} has a tokenizer.json but no chat template`);
  try {
    const files = {
      "tokenizer.json": json.value,
      "tokenizer_config.json": { ...config, chat_template: source },
    };
    return ok(new HfTokenizer(new HfCore(json.value, config), new Template(source), config, files));
  } catch (e) {
    return err(`cannot build the tokenizer in ${dir}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
