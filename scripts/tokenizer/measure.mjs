// Measures characters per token for each tokenizer family on several kinds of text, and the
// token numbers that vLLM's sonnet benchmark derives from its tokenizer. The results back the
// per-family constants that `infergrid bench` uses when a dataset carries no token counts.
//
//   node measure.mjs [--sonnet=PATH [--sonnet-lines=OUT.json]] [--max-chars=300000] [--max-chat-chars=3000000] [--chat-kind=chat] CORPUS_DIR
//
// CORPUS_DIR holds one folder per kind of text (its name is the kind). In it, a .json or
// .jsonl file contributes every string found under the keys in TEXT_KEYS (ShareGPT turns,
// {"prompt"} lines, Alpaca records, MT-bench "turns", {"text"} lines); any other file is one
// document (its first --max-chars characters). "Characters" are Unicode code points (Python's len()); token counts exclude BOS
// for the ratio and include it, as tokenizer(text).input_ids does, for the error of an estimate.
import fs from 'node:fs';
import path from 'node:path';
import { FAMILIES, familyNames, countTokens, codePoints } from './families.mjs';

const args = Object.fromEntries(process.argv.slice(2).filter((a) => a.startsWith('--')).map((a) => {
  const [k, v] = a.slice(2).split('='); return [k, v ?? 'true'];
}));
const [corpusDir] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const CHAT_KIND = args['chat-kind'] ?? 'chat';  // the kind whose ratio becomes the constant
// Characters tokenized per kind (documents are thinned to about this much): bounds the run to a
// few minutes on one core. The chat kind, which sets the constants, is taken whole by default.
const MAX_CHARS = Number(args['max-chars'] ?? 300000);
const MAX_CHAT_CHARS = Number(args['max-chat-chars'] ?? 3000000);
const FAMS = familyNames();

// Deterministic PRNG so that chunk cuts and bootstrap draws are the same on every run.
function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function pct(sorted, p) {  // linear interpolation between closest ranks
  if (!sorted.length) return NaN;
  const i = (sorted.length - 1) * p, lo = Math.floor(i), hi = Math.ceil(i);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (i - lo);
}
const sortNum = (a) => [...a].sort((x, y) => x - y);
const f2 = (x) => x.toFixed(2);
const pc = (x) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}%`;

const TEXT_KEYS = new Set(['value', 'content', 'text', 'prompt', 'instruction', 'input', 'output', 'turns']);
function collectStrings(node, key, out) {
  if (typeof node === 'string') { if (TEXT_KEYS.has(key) && node.length) out.push(node); return; }
  if (Array.isArray(node)) { for (const x of node) collectStrings(x, key, out); return; }
  if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) collectStrings(v, k, out);
}
function loadKind(dir, maxChars) {
  const docs = [];
  for (const name of fs.readdirSync(dir).sort()) {
    const text = fs.readFileSync(path.join(dir, name), 'utf8');
    if (name.endsWith('.jsonl')) text.split('\n').filter((l) => l.trim()).forEach((l) => collectStrings(JSON.parse(l), '', docs));
    else if (name.endsWith('.json')) collectStrings(JSON.parse(text), '', docs);
    else docs.push(text.length > maxChars ? text.slice(0, text.lastIndexOf('\n', maxChars) + 1 || maxChars) : text);
  }
  // Keep every k-th document so that each kind costs about maxChars of tokenizing.
  const total = docs.reduce((s, d) => s + d.length, 0);
  const k = Math.max(1, Math.ceil(total / maxChars));
  return docs.filter((_, i) => i % k === 0);
}

// Cuts a document into pieces of 200..2000 characters (length drawn at random, cut at the
// next newline or space), the size range of typical prompts; a tail under 200 is dropped.
function chunks(doc, rnd) {
  const out = [];
  let pos = 0;
  while (doc.length - pos >= 200) {
    let end = pos + 200 + Math.floor(rnd() * 1801);
    if (end >= doc.length) end = doc.length;
    else { const nl = doc.indexOf('\n', end), sp = doc.indexOf(' ', end); const c = [nl, sp].filter((x) => x >= 0 && x - pos <= 2000); end = c.length ? Math.min(...c) : end; }
    if (end - pos >= 200) out.push(doc.slice(pos, end));
    pos = end;
  }
  return out;
}

// ---- per kind and family -------------------------------------------------------------------
const kinds = fs.readdirSync(corpusDir).filter((k) => fs.statSync(path.join(corpusDir, k)).isDirectory()).sort();
const res = {};  // res[kind][family] = { ratio, docs: [{chars, tokens}], chunks: [{chars, tokens}] }
for (const kind of kinds) {
  const docs = loadKind(path.join(corpusDir, kind), kind === CHAT_KIND ? MAX_CHAT_CHARS : MAX_CHARS);
  const rnd = mulberry32(1);
  const pieces = docs.flatMap((d) => chunks(d, rnd));
  res[kind] = {};
  for (const fam of FAMS) {
    const bos = FAMILIES[fam].bos;
    const d = docs.map((t) => ({ chars: codePoints(t), tokens: countTokens(fam, t) }));
    const c = pieces.map((t) => ({ chars: codePoints(t), tokens: countTokens(fam, t) }));
    const chars = d.reduce((s, x) => s + x.chars, 0), toks = d.reduce((s, x) => s + x.tokens - bos, 0);
    res[kind][fam] = { ratio: chars / toks, chars, toks, docs: d, chunks: c };
  }
  process.stderr.write(`measured ${kind}: ${docs.length} documents, ${pieces.length} chunks\n`);
}

// Relative error of estimating tokenizer(text).input_ids as chars / ratio + BOS.
const relErr = (x, ratio, bos) => (x.chars / ratio + bos - x.tokens) / x.tokens;
const chatRatio = (fam) => res[CHAT_KIND]?.[fam]?.ratio;

console.log('## Characters per token (total code points / total tokens without BOS)\n');
console.log(`| kind | documents | characters | ${FAMS.join(' | ')} |`);
console.log(`|---|---:|---:|${FAMS.map(() => '---:').join('|')}|`);
for (const kind of kinds) {
  const r0 = res[kind][FAMS[0]];
  console.log(`| ${kind} | ${r0.docs.length} | ${r0.chars} | ${FAMS.map((f) => f2(res[kind][f].ratio)).join(' | ')} |`);
}

console.log('\n## 200-2000 character chunks: ratio median [p10, p90]; error of chars/ratio+BOS with the kind\'s own ratio p10..p90; with the chat ratio, median [p10, p90]\n');
console.log('| kind | family | chunks | chars/token median [p10, p90] | error, own ratio p10..p90 | error, chat ratio median [p10, p90] |');
console.log('|---|---|---:|---|---|---|');
for (const kind of kinds) for (const fam of FAMS) {
  const r = res[kind][fam], bos = FAMILIES[fam].bos;
  if (!r.chunks.length) continue;
  const ratios = sortNum(r.chunks.map((x) => x.chars / (x.tokens - bos)));
  const own = sortNum(r.chunks.map((x) => relErr(x, r.ratio, bos)));
  const chat = chatRatio(fam) ? sortNum(r.chunks.map((x) => relErr(x, chatRatio(fam), bos))) : null;
  console.log(`| ${kind} | ${fam} | ${r.chunks.length} | ${f2(pct(ratios, 0.5))} [${f2(pct(ratios, 0.1))}, ${f2(pct(ratios, 0.9))}] | ${pc(pct(own, 0.1))}..${pc(pct(own, 0.9))} | ${chat ? `${pc(pct(chat, 0.5))} [${pc(pct(chat, 0.1))}, ${pc(pct(chat, 0.9))}]` : '-'} |`);
}

// Per request: each chat string (a turn, an instruction, an answer) is one request's text.
if (res[CHAT_KIND]) {
  console.log(`\n## Per request (each "${CHAT_KIND}" string of >= 20 characters), estimate chars/chat ratio + BOS\n`);
  console.log('| family | length (chars) | requests | error median [p10, p90] | median abs error |');
  console.log('|---|---|---:|---|---:|');
  const bins = [[20, 200], [200, 2000], [2000, Infinity], [20, Infinity]];
  for (const fam of FAMS) for (const [lo, hi] of bins) {
    const r = res[CHAT_KIND][fam], bos = FAMILIES[fam].bos;
    const e = sortNum(r.docs.filter((x) => x.chars >= lo && x.chars < hi).map((x) => relErr(x, r.ratio, bos)));
    const a = sortNum(e.map(Math.abs));
    console.log(`| ${fam} | ${lo}-${hi === Infinity ? '' : hi} | ${e.length} | ${pc(pct(e, 0.5))} [${pc(pct(e, 0.1))}, ${pc(pct(e, 0.9))}] | ${(100 * pct(a, 0.5)).toFixed(1)}% |`);
  }
  // Sum over N requests drawn at random (bootstrap): the error of a benchmark's total tokens.
  console.log('\n## Total over N requests drawn from the chat strings (2000 draws each): error p5 / p10 / p90 / p95\n');
  console.log('| family | N=200 | N=1000 |');
  console.log('|---|---|---|');
  for (const fam of FAMS) {
    const r = res[CHAT_KIND][fam], bos = FAMILIES[fam].bos, pool = r.docs.filter((x) => x.chars >= 20);
    const cell = (n) => {
      const rnd = mulberry32(7), errs = [];
      for (let t = 0; t < 2000; t++) {
        let est = 0, act = 0;
        for (let i = 0; i < n; i++) { const x = pool[Math.floor(rnd() * pool.length)]; est += x.chars / r.ratio + bos; act += x.tokens; }
        errs.push((est - act) / act);
      }
      const s = sortNum(errs);
      return [0.05, 0.1, 0.9, 0.95].map((p) => pc(pct(s, p))).join(' / ');
    };
    console.log(`| ${fam} | ${cell(200)} | ${cell(1000)} |`);
  }
}

// ---- vLLM's sonnet dataset --------------------------------------------------------------------
// vLLM reads sonnet.txt with readlines() (each line keeps its "\n"), takes the mean of
// len(tokenizer(line).input_ids) (BOS included), and measures the base prompt as
// len(tokenizer(apply_chat_template(...)).input_ids): the template's BOS text plus the
// tokenizer's own BOS, i.e. two BOS tokens for the Llama and Mistral families.
if (args.sonnet) {
  const BASE = 'Pick as many lines as you can from these poem lines:\n';
  // [family, label, template prefix, suffix, trims content]. The BOS text is left out of
  // the prefix: count() adds BOS as the tokenizer does, and the packages for Llama 2 and
  // Mistral cannot read "<s>" in a template (families.mjs emulates it, but not needed here).
  const TEMPLATES = [
    ['llama3', 'Llama 3 Instruct', '<|start_header_id|>user<|end_header_id|>\n\n', '<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n', true],
    ['llama3', 'Llama 3.1 Instruct (default system header)', '<|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n', '<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n', true],
    ['llama2', 'Llama 2 chat', '[INST] ', ' [/INST]', true],
    ['mistral', 'Mistral Instruct v0.1/v0.2', '[INST] ', ' [/INST]', false],
    ['qwen2', 'Qwen2.5 Instruct', '<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n<|im_start|>user\n', '<|im_end|>\n<|im_start|>assistant\n', false],
  ];
  const text = fs.readFileSync(args.sonnet, 'utf8');
  const lines = text.split(/(?<=\n)/);
  console.log(`\n## vLLM sonnet dataset (${lines.length} lines, ${f2(codePoints(text) / lines.length)} characters per line)\n`);
  console.log('| family | tokens per line, with BOS (vLLM\'s avg) | without BOS |');
  console.log('|---|---:|---:|');
  const avg = {}, perLine = {};
  for (const fam of FAMS) {
    const bos = FAMILIES[fam].bos;
    perLine[fam] = lines.map((l) => countTokens(fam, l));
    avg[fam] = perLine[fam].reduce((a, b) => a + b, 0) / lines.length;
    console.log(`| ${fam} | ${avg[fam].toFixed(3)} | ${(avg[fam] - bos).toFixed(3)} |`);
  }
  // --sonnet-lines=PATH: every line's count (BOS included), for a simulator to embed.
  if (args['sonnet-lines']) fs.writeFileSync(args['sonnet-lines'], JSON.stringify(perLine) + '\n');
  console.log('\nTemplate overhead = tokens of the wrapped base prompt (as the model sees it, one BOS) minus tokens of the base prompt alone (no BOS), content inserted as is. vLLM base_prompt_offset = len(tokenizer(apply_chat_template(base)).input_ids) with the real template (Llama templates trim the content, dropping its final "\\n") and the tokenizer\'s extra BOS.\n');
  console.log('| template | family | base prompt tokens (no BOS) | template overhead | vLLM base_prompt_offset | vLLM lines for input 550 / prefix 200 | simulated vLLM prompt_len mean [p10, p90], share > 550 | join effect median [min, max] |');
  console.log('|---|---|---:|---:|---:|---|---|---|');
  for (const [fam, label, pre, suf, trims] of TEMPLATES) {
    const bos = FAMILIES[fam].bos;
    const content = countTokens(fam, BASE) - bos;
    const overhead = countTokens(fam, pre + BASE + suf) - content;
    const wrap = (c) => pre + (trims ? c.trim() : c) + suf;
    const offset = countTokens(fam, wrap(BASE)) + bos;
    // vLLM's arithmetic, then 200 prompts built as vLLM builds them (own PRNG, so the lines
    // drawn differ from Python's random.choices but follow the same distribution).
    const nIn = Math.round((550 - offset) / avg[fam]), nPre = Math.max(Math.round((200 - offset) / avg[fam]), 0);
    // join: prompt_len minus (base_offset + the lines' own counts without BOS), per request.
    const rnd = mulberry32(3), lens = [], join = [];
    for (let r = 0; r < 200; r++) {
      const idx = [...Array(nPre).keys()].concat(Array.from({ length: nIn - nPre }, () => Math.floor(rnd() * lines.length)));
      const len = countTokens(fam, wrap(BASE + idx.map((i) => lines[i]).join(''))) + bos;
      lens.push(len);
      join.push(len - offset - idx.reduce((a, i) => a + perLine[fam][i] - bos, 0));
    }
    const s = sortNum(lens), mean = lens.reduce((a, b) => a + b, 0) / lens.length, j = sortNum(join);
    console.log(`| ${label} | ${fam} | ${content} | ${overhead} | ${offset} | ${nIn} (${nPre} fixed) | ${mean.toFixed(1)} [${pct(s, 0.1)}, ${pct(s, 0.9)}], ${(100 * lens.filter((x) => x > 550).length / lens.length).toFixed(0)}% | ${pct(j, 0.5)} [${pct(j, 0)}, ${pct(j, 1)}] |`);
  }
}
