import model from "wink-eng-lite-web-model";
import winkNLP from "wink-nlp";

/**
 * WebShop's type reward keeps the tokens spaCy (`en_core_web_sm`) tags NOUN or PROPN. spaCy does not
 * run on Workers, so this uses wink-nlp's light English model, which tags with the same Universal
 * Dependencies tag set. The two taggers disagree on some tokens (wink tags capitalised title words
 * PROPN more readily, splits `Sofa-Tables` into three tokens as spaCy does, and has its own lexicon
 * for product jargon), so a title score can differ from WebShop's; docs/environments.md says more.
 */
const NOUN_TAGS = new Set(["NOUN", "PROPN"]);

let tagger: ReturnType<typeof winkNLP> | undefined;

/** The lowercased nouns and proper nouns of a title, in order (duplicates kept, as WebShop's list does). */
export function titleNouns(title: string): string[] {
  // Built on first use, so an isolate that never scores a purchase never pays for loading the model.
  tagger ??= winkNLP(model, ["pos"]);
  const its = tagger.its;
  const tokens = tagger.readDoc(title).tokens();
  const words = tokens.out(its.value) as string[];
  const tags = tokens.out(its.pos) as string[];
  return words.filter((_, i) => NOUN_TAGS.has(tags[i] ?? "")).map((w) => w.toLowerCase());
}
