// @ts-check
/**
 * Real programs with known outputs (test/programs/NAME.scm, NAME.expected, and the
 * standard input NAME.input when the program reads one): each is compiled and run to
 * completion, and what it prints must be exactly the expected text. The expected
 * outputs were checked independently of this implementation (by hand, and mbrotz's
 * counts against Python's complex arithmetic).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProgramText, boot } from '../src/index.js';
import { consolePorts } from '../src/primitives/port-codec.js';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'programs');

for (const name of readdirSync(dir).filter((f) => f.endsWith('.scm')).sort()) {
  test(`${name} prints its expected output`, () => {
    const base = path.join(dir, name.slice(0, -4));
    const source = readFileSync(`${base}.scm`, 'utf8');
    const expected = readFileSync(`${base}.expected`, 'utf8');
    boot();
    const stdin = /** @type {any} */ (consolePorts.get('rt:stdin'));
    stdin.text = existsSync(`${base}.input`) ? readFileSync(`${base}.input`, 'utf8') : '';
    stdin.pos = 0;
    stdin.reader = null;
    /** @type {string[]} */
    const out = [];
    try {
      const r = runProgramText(source, { file: `${base}.scm`, stdout: (s) => out.push(s) });
      assert.ok(r.ok, r.ok ? '' : r.message);
      assert.equal(out.join(''), expected);
    } finally {
      stdin.text = '';
      stdin.pos = 0;
    }
  });
}
