// @ts-check
/**
 * The runtime library cache of `termite-node run` (src/runtime-cache.js): the first run
 * writes the compiled units, a later run uses them instead of compiling (and prints the
 * same thing), a corrupt or foreign file costs a compilation and is replaced, never a
 * failure, and TERMITE_CACHE=off writes nothing. Real CLI runs in child processes with
 * a time limit, each with its own cache directory.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.resolve(here, '..', 'bin', 'termite-node.js');

/** A scratch directory with a program, removed afterwards. @param {(dir: string, prog: string) => void} f */
function withDir(f) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'termite-cache-'));
  const prog = path.join(dir, 'hello.scm');
  writeFileSync(prog, '(display (string-append "hello " (number->string (+ 1 2)))) (newline)\n');
  try {
    f(dir, prog);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** @param {string} prog @param {NodeJS.ProcessEnv} env */
function run(prog, env) {
  const r = spawnSync(process.execPath, [bin, 'run', prog], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60000 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'hello 3\n');
  return r;
}

/**
 * How a process that offers the cache file to boot came by its runtime units: the
 * precompiledStats of @termite/scheme after the runtime library is loaded.
 * @param {NodeJS.ProcessEnv} env
 */
function statsWith(env) {
  const script = `
    import { runtimeCacheFile, offerCachedRuntime } from './src/runtime-cache.js';
    import { createNode } from '@termite/runtime';
    import { precompiledStats } from '@termite/scheme/internal';
    offerCachedRuntime(runtimeCacheFile());
    const node = await createNode({});
    node.stop();
    console.log(JSON.stringify(precompiledStats));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: path.resolve(here, '..'), env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}');
}

/** @param {string} dir */
function cacheFiles(dir) {
  try {
    // the installation's file (a run from the start-up bundle keeps its own beside it: run-bundle.test.js)
    return readdirSync(dir).filter((f) => f.startsWith('runtime-units-') && f.endsWith('.cbor'));
  } catch {
    return [];
  }
}

test('the first run writes the cache; the next one uses every unit of it instead of compiling', () => {
  withDir((dir, prog) => {
    const cache = path.join(dir, 'cache');
    const env = { TERMITE_CACHE_DIR: cache };
    run(prog, env);
    const files = cacheFiles(cache);
    assert.equal(files.length, 1, 'one cache file');
    const file = path.join(cache, files[0]);
    assert.ok(statSync(file).size > 1000, 'the units are in it');
    assert.equal(statSync(file).mode & 0o777, 0o600, 'private to the user');
    const before = readFileSync(file);
    const stats = statsWith(env);
    assert.ok(stats.used >= 1, `units used: ${JSON.stringify(stats)}`);
    assert.equal(stats.compiled, 0, `nothing compiled: ${JSON.stringify(stats)}`);
    assert.deepEqual(stats.rejected, []);
    run(prog, env); // a run from the cache prints the same and leaves the file as it was
    assert.deepEqual(readFileSync(file), before);
  });
});

test('a corrupt cache file means compiling and a rewritten file, not a failure', () => {
  withDir((dir, prog) => {
    const cache = path.join(dir, 'cache');
    const env = { TERMITE_CACHE_DIR: cache, TERMITE_RUN_BUNDLE: 'off' }; // runs that read this file
    run(prog, env);
    const file = path.join(cache, cacheFiles(cache)[0]);
    const good = readFileSync(file);
    // truncated: undecodable
    writeFileSync(file, good.subarray(0, good.length >> 1));
    run(prog, env);
    assert.deepEqual(readFileSync(file), good, 'rewritten whole');
    // decodable, but a unit whose IR is not what it claims: checkWire or the context rejects it
    const stats = (() => {
      writeFileSync(file, Buffer.from([0x81, 0x84, 0x67, ...Buffer.from('prelude'), 0x61, 0x78, 0x61, 0x79, 0x80]));
      return statsWith(env);
    })();
    assert.ok(stats.compiled >= 1, JSON.stringify(stats));
    assert.equal(stats.used, 0, JSON.stringify(stats));
    run(prog, env);
    assert.deepEqual(readFileSync(file), good, 'replaced by the good units');
  });
});

test('TERMITE_CACHE=off: nothing is read or written', () => {
  withDir((dir, prog) => {
    const cache = path.join(dir, 'cache');
    run(prog, { TERMITE_CACHE_DIR: cache, TERMITE_CACHE: 'off' });
    assert.deepEqual(cacheFiles(cache), []);
  });
});
