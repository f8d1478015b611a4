// Adds real token counts to a benchmark dataset so that `infergrid bench` need not estimate
// them from characters (InferGrid has no tokenizer in C++).
//
//   node pretokenize.mjs --family=llama3|llama2|mistral|qwen2 [--max-turns=N] IN OUT
//
// IN is either a ShareGPT JSON array ([{"conversations": [{"from", "value"}, ...]}, ...]):
// every turn gets "num_tokens"; or a JSONL file of {"prompt": ...} objects: every line gets
// "prompt_len". N counts like len(tokenizer(text).input_ids) in HF transformers, BOS included
// (Llama 2/3, Mistral: one; Qwen2: none), as vLLM's benchmark datasets count prompt and output.
// --max-turns=N counts only the first N turns of each conversation (vLLM uses 2); the others
// are copied unchanged. Existing counts are recomputed. Blank JSONL lines are dropped.
//
// On any error: one line "pretokenize: FILE[:LINE]: what", exit status 1, and no OUT (the
// output is written to a temporary file beside OUT and renamed only when complete).
import fs from 'node:fs';
import path from 'node:path';
import { countTokens, familyNames } from './families.mjs';

class InputError extends Error {}
const fail = (msg) => { throw new InputError(msg); };

// ShareGPT dumps reach 650 MB, past V8's largest string (~512 MB), so the file stays a Buffer
// and each top-level array element is cut out and parsed on its own. Scanning bytes is safe in
// UTF-8: the bytes of '"', '\\', '{', '}', '[', ']' and ',' never occur inside a multi-byte character.
const isWs = (c) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
function* arrayElements(buf, file, i) {
  const skipWs = () => { while (i < buf.length && isWs(buf[i])) i++; };
  skipWs();
  if (buf[i] !== 0x5b) fail(`${file}: expected a JSON array of conversations ('[' at byte ${i})`);
  i++; skipWs();
  if (buf[i] === 0x5d) i++;
  else {
    for (let n = 1; ; n++) {
      const start = i, open = [];  // open brackets; a mismatched closer ends the element early
      let inStr = false;
      for (; i < buf.length; i++) {
        const c = buf[i];
        if (inStr) { if (c === 0x5c) i++; else if (c === 0x22) inStr = false; continue; }
        if (c === 0x22) inStr = true;
        else if (c === 0x7b || c === 0x5b) open.push(c + 2);  // '{'+2 = '}', '['+2 = ']'
        else if (c === 0x7d || c === 0x5d) { if (!open.length) break; if (open.pop() !== c) { i++; break; } }
        else if (c === 0x2c && !open.length) break;
      }
      if (i >= buf.length && !open.length && !inStr) {
        try { JSON.parse(buf.toString('utf8', start, i)); } catch (e) { fail(`${file}: entry ${n} (byte ${start}): ${e.message}`); }
      }
      if (i >= buf.length) fail(`${file}: entry ${n} (byte ${start}): the file ends before the array is closed`);
      let value;
      try { value = JSON.parse(buf.toString('utf8', start, i)); } catch (e) { fail(`${file}: entry ${n} (byte ${start}): ${e.message}`); }
      yield [n, value];
      if (buf[i++] === 0x5d) break;  // ']' closes the array, ',' goes on
    }
  }
  skipWs();
  if (i < buf.length) fail(`${file}: unexpected data after the array at byte ${i}`);
}

function isObject(v) { return v !== null && typeof v === 'object' && !Array.isArray(v); }

function main() {
  const opts = {}, files = [];
  for (const a of process.argv.slice(2)) {
    const m = /^--(family|max-turns)=(.*)$/.exec(a);
    if (m) opts[m[1]] = m[2]; else if (a.startsWith('--')) fail(`unknown option ${a}`); else files.push(a);
  }
  const family = opts.family;
  if (!family || !familyNames().includes(family)) fail(`--family must be one of ${familyNames().join(', ')}`);
  const maxTurns = opts['max-turns'] === undefined ? Infinity : Number(opts['max-turns']);
  if (maxTurns !== Infinity && !(Number.isInteger(maxTurns) && maxTurns >= 1)) fail('--max-turns must be a positive integer');
  if (files.length !== 2) fail('usage: node pretokenize.mjs --family=FAMILY [--max-turns=N] IN OUT');
  const [inPath, outPath] = files;

  let buf;
  try { buf = fs.readFileSync(inPath); } catch (e) { fail(`${inPath}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`); }
  const tmp = path.join(path.dirname(outPath), `.${path.basename(outPath)}.tmp-${process.pid}`);
  let fd;
  try { fd = fs.openSync(tmp, 'w'); } catch (e) { fail(`${outPath}: cannot create (${e.code ?? e.message})`); }
  try {
    const bom = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;  // a UTF-8 BOM is skipped
    let first = bom;
    while (first < buf.length && isWs(buf[first])) first++;
    if (buf[first] === 0x5b) {
      // ShareGPT: vLLM skips entries without two turns, so they are copied, not rejected.
      fs.writeSync(fd, '[');
      let turns = 0;
      for (const [n, entry] of arrayElements(buf, inPath, bom)) {
        if (!isObject(entry)) fail(`${inPath}: entry ${n}: not an object`);
        const conv = entry.conversations;
        if (conv !== undefined && !Array.isArray(conv)) fail(`${inPath}: entry ${n}: "conversations" is not an array`);
        (conv ?? []).slice(0, maxTurns).forEach((turn, t) => {
          if (!isObject(turn) || typeof turn.value !== 'string') fail(`${inPath}: entry ${n}, turn ${t + 1}: no string "value"`);
          turn.num_tokens = countTokens(family, turn.value);
          turns++;
        });
        fs.writeSync(fd, `${n === 1 ? '' : ','}\n${JSON.stringify(entry)}`);
        if (n % 10000 === 0) process.stderr.write(`pretokenize: ${n} conversations, ${turns} turns\n`);
      }
      fs.writeSync(fd, '\n]\n');
    } else {
      // JSONL: one {"prompt": ...} object per line; a line's number is its 1-based line in IN.
      let lineNo = 0, start = bom;
      while (start < buf.length) {
        let end = buf.indexOf(0x0a, start);
        if (end < 0) end = buf.length;
        lineNo++;
        const line = buf.toString('utf8', start, end);
        start = end + 1;
        if (!line.trim()) continue;
        let obj;
        try { obj = JSON.parse(line); } catch (e) { fail(`${inPath}:${lineNo}: ${e.message}`); }
        if (!isObject(obj)) fail(`${inPath}:${lineNo}: not a JSON object`);
        if (typeof obj.prompt !== 'string') fail(`${inPath}:${lineNo}: no string "prompt"`);
        obj.prompt_len = countTokens(family, obj.prompt);
        fs.writeSync(fd, JSON.stringify(obj) + '\n');
      }
    }
    fs.closeSync(fd);
    fs.renameSync(tmp, outPath);
  } catch (e) {
    try { fs.closeSync(fd); } catch {}
    fs.rmSync(tmp, { force: true });
    if (e.code && !(e instanceof InputError)) fail(`${outPath}: ${e.message}`);  // e.g. disk full
    throw e;
  }
}

try {
  main();
} catch (e) {
  // Input problems are one line; anything else is a bug and keeps its stack.
  if (e instanceof InputError) { console.error(`pretokenize: ${e.message.replace(/\s*\n\s*/g, ' ')}`); process.exit(1); }
  throw e;
}
