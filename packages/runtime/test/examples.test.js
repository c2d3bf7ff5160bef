// @ts-check
/**
 * Every program in examples/ runs with the real CLI (`termite-node run FILE.scm`, in a
 * child process, with a time limit) and must exit 0 with exactly the text of its
 * .expected file on stdout. The Linda matrix programs also run with 1 and 7 workers
 * (WORKERS=n), and must print the same.
 */
import { test, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, existsSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const examples = path.join(root, 'examples');
const cli = path.join(root, 'node-daemon/bin/termite-node.js');
/** Time limit for one program (the supervisor example alone takes about 3 s). */
const LIMIT_MS = 30_000;

/**
 * Run `termite-node run file` and collect its output.
 * @param {string} file @param {Record<string, string>} [env]
 * @returns {Promise<{code: number|null, signal: string|null, stdout: string, stderr: string}>}
 */
function run(file, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'run', file], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s) => (stderr += s));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${path.basename(file)} did not finish within ${LIMIT_MS} ms\nstdout so far:\n${stdout}\nstderr so far:\n${stderr}`));
    }, LIMIT_MS);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** @param {string} file @param {Record<string, string>} [env] */
async function check(file, env) {
  const base = file.slice(0, -'.scm'.length);
  const expected = readFileSync(path.join(examples, base + '.expected'), 'utf8');
  const r = await run(path.join('examples', file), env);
  assert.equal(r.code, 0, `${file} exited with ${r.code ?? r.signal}; stderr:\n${r.stderr}`);
  assert.equal(r.stdout, expected, `${file}: stdout differs from ${base}.expected; stderr:\n${r.stderr}`);
  return r;
}

const programs = readdirSync(examples)
  .filter((f) => f.endsWith('.scm'))
  .sort();

test('every example has an expected output', () => {
  assert.ok(programs.length >= 14, `only ${programs.length} examples`);
  for (const f of programs) assert.ok(existsSync(path.join(examples, f.replace(/\.scm$/, '.expected'))), `${f} has no .expected file`);
});

// The programs are independent processes: run four at a time.
describe('examples', { concurrency: 4 }, () => {
  for (const file of programs) {
    it(`examples/${file}`, { timeout: LIMIT_MS + 5000 }, async () => {
      await check(file);
    });
  }
  for (const file of ['linda-matrix-element.scm', 'linda-matrix-row.scm']) {
    for (const workers of ['1', '7']) {
      it(`examples/${file} with WORKERS=${workers}`, { timeout: LIMIT_MS + 5000 }, async () => {
        await check(file, { WORKERS: workers });
      });
    }
  }
});

test('examples/supervised-pong.scm logs the paper’s trace on stderr, not stdout', { timeout: LIMIT_MS + 5000 }, async () => {
  const r = await check('supervised-pong.scm');
  const info = r.stderr
    .split('\n')
    .filter((l) => l.startsWith('termite: (info:'))
    .map((l) => l.slice('termite: '.length));
  assert.deepEqual(info, [
    '(info: starting up supervised process)',
    '(info: process failed)',
    '(info: restarting...)',
    '(info: starting up supervised process)',
    '(info: had to terminate the process)',
    '(info: halting supervisor)',
  ]);
});

// BUG (reported to the lead): under `termite-node run`, what a program writes to
// (current-error-port) is discarded — the Scheme console's stderr sink
// (consoleSinks.stderr in packages/scheme/src/engine/boot.js) is never connected.
test('termite-node run: (current-error-port) writes to stderr', { timeout: LIMIT_MS + 5000 }, async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'termite-stderr-'));
  try {
    const file = path.join(dir, 'err.scm');
    writeFileSync(file, '(display "to stderr" (current-error-port)) (display "to stdout")');
    const r = await run(file);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, 'to stdout');
    assert.match(r.stderr, /to stderr/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
