// @ts-check
/**
 * The documentation's complete programs run and print what the documentation says.
 *
 * A code block marked ```scheme run is a complete program; the block that follows it,
 * marked ```output, is exactly what it prints (standard output), or, marked
 * ```error, the line it reports when it fails (`Error: …`, as `termite-node run` prints it;
 * the program's file is prog.scm). A program's last newline is not significant.
 * Every such pair in docs/*.md, the README and the package and example READMEs is run
 * on a fresh node and compared. A `scheme run` block without its output block fails
 * the test (so a marked program always says what it prints). And examples/README.md
 * shows, for every program of examples/, how to run it and exactly its .expected output.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createNode } from '../src/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The Markdown files whose programs are checked. */
function documents() {
  const docs = readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f));
  const readmes = ['README.md', 'examples/README.md', ...readdirSync(path.join(root, 'packages')).map((p) => `packages/${p}/README.md`)];
  return [...docs, ...readmes.filter((f) => { try { readFileSync(path.join(root, f)); return true; } catch { return false; } })];
}

/**
 * The fenced blocks of a Markdown text, in order: info string, text, line.
 * @param {string} text
 */
export function fencedBlocks(text) {
  /** @type {{info: string, body: string, line: number}[]} */
  const blocks = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(.*)$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    blocks.push({ info: open[1].trim(), body: body.join('\n') + '\n', line: start + 1 });
  }
  return blocks;
}

/**
 * The marked programs of a document with what they must print.
 * @param {string} file
 */
function programsOf(file) {
  const blocks = fencedBlocks(readFileSync(path.join(root, file), 'utf8'));
  /** @type {{line: number, program: string, expect: {kind: string, text: string}|null}[]} */
  const out = [];
  blocks.forEach((b, i) => {
    if (b.info !== 'scheme run') return;
    const next = blocks[i + 1];
    const expect = next && (next.info === 'output' || next.info === 'error') ? { kind: next.info, text: next.body } : null;
    out.push({ line: b.line, program: b.body, expect });
  });
  return out;
}

/**
 * Run a program as `termite-node run prog.scm` would, on a fresh node (bounded).
 * @param {string} text
 */
async function runProgram(text) {
  /** @type {string[]} */
  const out = [];
  const node = /** @type {any} */ (await createNode({ stdout: (s) => out.push(s), log: () => {} }));
  /** @type {any} */
  let timer;
  try {
    const limit = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('the program did not end within 15 s')), 15_000)));
    const r = await Promise.race([node.runProgram(text, { file: 'prog.scm' }), limit]);
    node.flushStdout();
    return { ok: r.ok, message: r.ok ? '' : r.message, out: out.join('') };
  } finally {
    clearTimeout(timer);
    node.stop();
  }
}

const all = documents().flatMap((file) => programsOf(file).map((p) => ({ file, ...p })));

test('the documentation has marked programs', () => {
  assert.ok(all.length >= 10, `only ${all.length} programs marked`);
});

describe('every marked program prints what its document says', () => {
  for (const p of all) {
    test(`${p.file}:${p.line}`, async () => {
      assert.ok(p.expect !== null, 'a ```scheme run block must be followed by an ```output or ```error block');
      const r = await runProgram(p.program);
      if (p.expect.kind === 'output') {
        assert.ok(r.ok, `the program failed: ${r.message}`);
        // the block ends with a newline whether or not the program's output does
        assert.equal(r.out.replace(/\n$/, ''), p.expect.text.replace(/\n$/, ''));
      } else {
        assert.equal(r.ok, false, 'the program was expected to fail');
        assert.equal(`Error: ${r.message}\n`, p.expect.text);
      }
    });
  }
});

test('examples/README.md shows how to run every example and exactly what it prints', () => {
  const blocks = fencedBlocks(readFileSync(path.join(root, 'examples/README.md'), 'utf8'));
  /** @type {Map<string, string>} example → the output block after its command */
  const shown = new Map();
  blocks.forEach((b, i) => {
    const m = /termite-node run examples\/([\w/-]+\.scm)/.exec(b.info === 'sh' ? b.body : '');
    const next = blocks.slice(i + 1).find((x) => x.info === 'output' || /termite-node run/.test(x.body));
    if (m && next?.info === 'output') shown.set(m[1], next.body);
  });
  const programs = [
    ...readdirSync(path.join(root, 'examples')).filter((f) => f.endsWith('.scm')),
    ...readdirSync(path.join(root, 'examples/mesh')).filter((f) => f.endsWith('.scm')).map((f) => `mesh/${f}`),
    ...readdirSync(path.join(root, 'examples/messengers')).filter((f) => f.endsWith('.scm')).map((f) => `messengers/${f}`),
  ];
  for (const p of programs) {
    assert.ok(shown.has(p), `examples/README.md does not show how to run ${p} and its output`);
    if (p.startsWith('mesh/')) continue; // their output depends on the mesh they join
    const expected = readFileSync(path.join(root, 'examples', p.replace(/\.scm$/, '.expected')), 'utf8');
    assert.equal(shown.get(p), expected, `${p}: the output shown differs from its .expected`);
  }
});
