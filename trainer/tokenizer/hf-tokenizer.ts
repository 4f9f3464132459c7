import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Template } from "@huggingface/jinja";
import { Tokenizer as HfCore } from "@huggingface/tokenizers";
import type { ChatMessage, ToolSpec } from "../../shared/protocol.js";
import { err, ok, type Result } from "../../shared/result.js";
import type { RenderChatOptions, SpecialIds, Tokenizer } from "./types.js";

/**
 * Stands for the model's response `i` when the template renders a conversation: the sampled ids go
 * where it lands, so a response's text is never rendered (nor re-tokenized). It has no whitespace,
 * no `<think>` and no tool-call markup, so templates that trim or rewrite assistant text leave it be.
 */
const responseMark = (i: number) => `\u2063edgegym-response-${i}\u2063`;

interface TokenizerConfig {
  chat_template?: string | { name: string; template: string }[];
  bos_token?: string | { content: string } | null;
  eos_token?: string | { content: string } | null;
  pad_token?: string | { content: string } | null;
  clean_up_tokenization_spaces?: boolean;
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

  constructor(
    private readonly core: HfCore,
    private readonly template: Template,
    private readonly config: TokenizerConfig,
    /** The source files, written back into checkpoints. */
    readonly files: { "tokenizer.json": unknown; "tokenizer_config.json": unknown },
  ) {
    const vocab = core.get_vocab(true);
    this.vocabSize = maxId(vocab.values()) + 1;
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
  }

  encode(text: string): number[] {
    return this.core.encode(text, { add_special_tokens: false }).ids;
  }

  decode(ids: readonly number[], opts: { keepControl?: boolean } = {}): string {
    // @huggingface/tokenizers throws on an empty list; an empty response decodes to "".
    if (ids.length === 0) return "";
    return this.core.decode([...ids], {
      skip_special_tokens: !opts.keepControl,
      // transformers 5 leaves " ." and " 's" alone unless the config says otherwise;
      // @huggingface/tokenizers would clean them up by default.
      clean_up_tokenization_spaces: this.config.clean_up_tokenization_spaces ?? false,
    });
  }

  renderChat(messages: readonly ChatMessage[], opts: RenderChatOptions): number[] {
    return this.encode(this.renderText(messages, opts));
  }

  /**
   * The template renders the whole conversation twice, with a mark for each model response: once as
   * the previous prompt saw it and once with the new response and `next`. The second must extend the
   * first by the mark of the new response; what follows that mark (the turn's close, `next`, the
   * generation prompt) is the only text tokenized. A sampled stop id that is the close's first token
   * is not repeated.
   */
  renderNextTurn(
    history: readonly ChatMessage[],
    responseIds: readonly number[],
    next: readonly ChatMessage[],
    opts: { tools?: readonly ToolSpec[] } = {},
  ): number[] {
    const marked = history.map(
      (m, i): ChatMessage => (m.role === "assistant" ? { role: "assistant", content: responseMark(i) } : m),
    );
    const mark = responseMark(history.length);
    const render = (messages: readonly ChatMessage[]) =>
      this.renderText(messages, { addGenerationPrompt: true, ...opts });
    const before = render(marked);
    let rest: string;
    if (next.length > 0) {
      const after = render([...marked, { role: "assistant", content: mark }, ...next]);
      if (!after.startsWith(before + mark))
        throw new Error(
          "the chat template rewrites earlier turns when a response is added, so the prompt cannot keep the sampled ids; edgegym supports templates whose rendering of a conversation extends its rendering of every prefix",
        );
      rest = after.slice(before.length + mark.length);
    } else {
      // Nothing follows: templates render the response as the final turn (Qwen3 puts an empty <think>
      // block before it), so the close and the generation prompt are measured on a probe conversation.
      rest = this.closeAndGenerationPrompt(opts);
    }
    const last = responseIds.at(-1);
    if (last !== undefined && this.stopIds.includes(last)) {
      const stop = this.core.decode([last], { skip_special_tokens: false });
      if (rest.startsWith(stop)) rest = rest.slice(stop.length);
    }
    return this.encode(rest);
  }

  /** What the template writes after an assistant's text, then the generation prompt. */
  private closeAndGenerationPrompt(opts: { tools?: readonly ToolSpec[] }): string {
    const mark = responseMark(-1);
    const probe: ChatMessage[] = [{ role: "user", content: "?" }];
    const closed = this.renderText([...probe, { role: "assistant", content: mark }], {
      addGenerationPrompt: false,
      ...opts,
    });
    const open = this.renderText(probe, { addGenerationPrompt: false, ...opts });
    const prompt = this.renderText(probe, { addGenerationPrompt: true, ...opts });
    return closed.slice(closed.lastIndexOf(mark) + mark.length) + prompt.slice(open.length);
  }

  /** The template's text for a conversation (what `renderChat` tokenizes). */
  renderText(messages: readonly ChatMessage[], opts: RenderChatOptions): string {
    return this.template.render({
      messages,
      // transformers passes None when there are no tools; templates test `tools is not none`.
      tools: opts.tools ?? null,
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

/** The largest id, without spreading 150k values onto the call stack as `Math.max(...ids)` would. */
function maxId(ids: Iterable<number>): number {
  let max = -1;
  for (const id of ids) if (id > max) max = id;
  return max;
}
