// @ts-check
/**
 * The start-up bundle of `termite-node run` (src/run-bundle.js): the first standalone run
 * writes it, the next runs load it (shown by replacing it with a module that says so),
 * a manifest that no longer matches the files means the modules as installed and a
 * rebuilt bundle, a bundle that fails to load is not a failure, a mesh run never uses
 * it, and TERMITE_RUN_BUNDLE=off writes none; the runtime library's generated JavaScript,
 * V8's code of it, its units and V8's code cache of the bundle are kept beside it, and a
 * broken file of any is replaced, not a failure. A run from the real bundle keeps run's
 * semantics: standard input, exit statuses, error messages. Real CLI runs in child
 * processes with a time limit, each test with its own cache directory.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, readdirSync, rmSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.resolve(here, '..', 'bin', 'termite-node.js');
// a bundle that says so, through either way in: the command's own (runStandalone) and cli.js's (runFile)
const FAKE = "exports.runFile = async () => { process.stdout.write('from the bundle\\n'); return 0; };\nexports.runStandalone = () => exports.runFile();\n";

/** A scratch directory with a program and a cache, removed afterwards. @param {(dir: string, prog: string, env: NodeJS.ProcessEnv) => void} f */
function withDir(f) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'termite-bundle-'));
  const prog = path.join(dir, 'hello.scm');
  writeFileSync(prog, '(display (string-append "hello " (number->string (+ 1 2)))) (newline)\n');
  try {
    f(dir, prog, { TERMITE_CACHE_DIR: path.join(dir, 'cache'), TERMITE_RUN_BUNDLE: '' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** @param {string[]} args @param {NodeJS.ProcessEnv} env @param {string} [input] */
function cli(args, env, input) {
  return spawnSync(process.execPath, [bin, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60000, input });
}

/** @param {string} prog @param {NodeJS.ProcessEnv} env @param {string} [expect] */
function run(prog, env, expect = 'hello 3\n') {
  const r = cli(['run', prog], env);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, expect);
  return r;
}

/** The manifest and the bundle it names. @param {NodeJS.ProcessEnv} env */
function bundleOf(env) {
  const dir = /** @type {string} */ (env.TERMITE_CACHE_DIR);
  const manifests = existsSync(dir) ? readdirSync(dir).filter((f) => /^run-bundle-[0-9a-f]+\.json$/.test(f)) : [];
  if (manifests.length === 0) return null;
  assert.equal(manifests.length, 1, 'one manifest per installation');
  const manifest = path.join(dir, manifests[0]);
  const data = JSON.parse(readFileSync(manifest, 'utf8'));
  return { manifest, data, bundle: path.join(dir, data.bundle) };
}

test('the first standalone run writes the bundle; the next run loads it', () => {
  withDir((dir, prog, env) => {
    run(prog, env);
    const b = bundleOf(env);
    assert.ok(b, 'a manifest was written');
    assert.ok(statSync(b.bundle).size > 100000, 'the run path is in the bundle');
    assert.equal(statSync(b.bundle).mode & 0o777, 0o600, 'private to the user');
    assert.ok(b.data.inputs.some((/** @type {any[]} */ i) => i[0].endsWith(path.join('scheme', 'src', 'engine', 'driver.js'))), 'the engine is an input');
    assert.ok(!b.data.inputs.some((/** @type {any[]} */ i) => i[0].includes(`${path.sep}mesh${path.sep}src`)), 'the mesh is not in it');
    assert.ok(b.data.inputs.some((/** @type {any[]} */ i) => i[0].endsWith(path.join('node-daemon', 'src', 'run-bundle.js'))), 'how it is built is an input');
    run(prog, env); // from the real bundle: the same output
    writeFileSync(b.bundle, FAKE);
    run(prog, env, 'from the bundle\n');
  });
});

test('a file changed since the build: the modules as installed, and the bundle rebuilt', () => {
  withDir((dir, prog, env) => {
    run(prog, env);
    const b = /** @type {NonNullable<ReturnType<typeof bundleOf>>} */ (bundleOf(env));
    writeFileSync(b.bundle, FAKE);
    const stale = { ...b.data, inputs: b.data.inputs.map((/** @type {any[]} */ i, /** @type {number} */ k) => (k === 0 ? [i[0], i[1] + 1, i[2]] : i)) };
    writeFileSync(b.manifest, JSON.stringify(stale));
    run(prog, env); // not the fake
    const again = /** @type {NonNullable<ReturnType<typeof bundleOf>>} */ (bundleOf(env));
    assert.deepEqual(again.data.inputs[0], b.data.inputs[0], 'the manifest records the file as it is');
    assert.notEqual(readFileSync(again.bundle, 'utf8'), FAKE, 'the bundle was rebuilt');
  });
});

test('a bundle that fails to load is not a failure; a mesh run never uses the bundle', () => {
  withDir((dir, prog, env) => {
    run(prog, env);
    const b = /** @type {NonNullable<ReturnType<typeof bundleOf>>} */ (bundleOf(env));
    writeFileSync(b.bundle, "throw new Error('broken bundle');\n");
    run(prog, env);
    writeFileSync(b.bundle, FAKE);
    const r = cli(['run', '--port', '0', prog], env);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'hello 3\n');
  });
});

test('TERMITE_RUN_BUNDLE=off and TERMITE_CACHE=off: no bundle is read or written', () => {
  withDir((dir, prog, env) => {
    run(prog, { ...env, TERMITE_RUN_BUNDLE: 'off' });
    assert.equal(bundleOf(env), null);
    run(prog, { ...env, TERMITE_CACHE: 'off' });
    assert.equal(bundleOf(env), null);
  });
});

test('a run from the bundle keeps standard input, exit statuses and error messages', () => {
  withDir((dir, prog, env) => {
    run(prog, env); // writes the bundle
    const sum = path.join(dir, 'sum.scm');
    writeFileSync(sum, '(let loop ((x (read)) (s 0)) (if (eof-object? x) (begin (display s) (newline)) (loop (read) (+ s x))))\n');
    const r1 = cli(['run', sum], env, '1 2 39\n');
    assert.equal(r1.status, 0, r1.stderr);
    assert.equal(r1.stdout, '42\n');
    const bad = path.join(dir, 'bad.scm');
    writeFileSync(bad, '(define (f x) (car x))\n(f 5)\n');
    const r2 = cli(['run', bad], env);
    assert.equal(r2.status, 1);
    assert.match(r2.stderr, /car/);
    const ex = path.join(dir, 'exit.scm');
    writeFileSync(ex, '(display "bye") (exit 3)\n');
    const r3 = cli(['run', ex], env);
    assert.equal(r3.status, 3, r3.stderr);
    assert.equal(r3.stdout, 'bye');
    assert.ok(bundleOf(env), 'the bundle was there throughout');
  });
});

test('the generated JavaScript and the code cache are kept beside the bundle; broken files are replaced', () => {
  withDir((dir, prog, env) => {
    run(prog, env); // writes the bundle
    run(prog, env); // runs from it, generates the runtime library's JavaScript and keeps it
    const b = /** @type {NonNullable<ReturnType<typeof bundleOf>>} */ (bundleOf(env));
    const jsFile = `${b.bundle}.js.json`;
    const kept = JSON.parse(readFileSync(jsFile, 'utf8'));
    assert.ok(Object.keys(kept).length >= 5, 'one entry per runtime unit');
    assert.ok(Object.values(kept).every((s) => typeof s === 'string' && s.includes('function L0(')), 'fast forms');
    assert.equal(statSync(jsFile).mode & 0o777, 0o600, 'private to the user');
    const before = statSync(jsFile).mtimeMs;
    run(prog, env); // uses it and leaves it as it was
    assert.equal(statSync(jsFile).mtimeMs, before);
    writeFileSync(jsFile, 'not json');
    run(prog, env);
    assert.deepEqual(JSON.parse(readFileSync(jsFile, 'utf8')), kept, 'regenerated whole');
    const v8 = `${b.bundle}.v8`;
    assert.ok(statSync(v8).size > 10000, 'V8 code cache written');
    assert.equal(statSync(v8).mode & 0o777, 0o600, 'private to the user');
    writeFileSync(v8, Buffer.alloc(5000, 7)); // V8 rejects it
    run(prog, env);
    assert.ok(statSync(v8).size > 10000 && readFileSync(v8)[0] !== 7, 'rejected code cache replaced');
    // V8's code of the runtime library's generated JavaScript (runtime-code-cache.js)
    const jsV8 = `${b.bundle}.js.v8`;
    const code = readFileSync(jsV8);
    assert.ok(code.length > 10000, 'code of the runtime library kept');
    assert.equal(statSync(jsV8).mode & 0o777, 0o600, 'private to the user');
    run(prog, env);
    assert.deepEqual(readFileSync(jsV8), code, 'used, and left as it was');
    const index = code.readUInt32LE(0);
    const broken = Buffer.from(code);
    broken.fill(7, 4 + index); // every unit's cached code: V8 rejects it
    for (const bad of [broken, Buffer.from('junk')]) {
      writeFileSync(jsV8, bad);
      run(prog, env);
      const again = readFileSync(jsV8);
      assert.ok(again.length > 10000 && !again.equals(bad), 'a rejected or malformed file replaced');
    }
  });
});

test('the runtime units are kept beside the bundle, which holds their sources: used instead of the installation\'s file; a broken one is replaced', () => {
  withDir((dir, prog, env) => {
    run(prog, env); // writes the bundle and the installation's units
    const b = /** @type {NonNullable<ReturnType<typeof bundleOf>>} */ (bundleOf(env));
    for (const src of ['prelude.scm', 'termite.scm', 'messengers.scm']) {
      assert.ok(b.data.inputs.some((/** @type {any[]} */ i) => i[0].endsWith(src)), `${src} is in the bundle`);
    }
    const units = `${b.bundle}.units.json`;
    assert.ok(!existsSync(units));
    run(prog, env); // the first run from the bundle keeps its units beside it
    const good = readFileSync(units);
    assert.ok(good.length > 1000, 'the units are in it');
    assert.equal(statSync(units).mode & 0o777, 0o600, 'private to the user');
    const dirOf = /** @type {string} */ (env.TERMITE_CACHE_DIR);
    const installation = path.join(dirOf, /** @type {string} */ (readdirSync(dirOf).find((f) => f.startsWith('runtime-units-'))));
    writeFileSync(installation, 'junk');
    run(prog, env); // from the bundle: its own units, the installation's file not even read
    assert.equal(readFileSync(installation, 'utf8'), 'junk');
    assert.deepEqual(readFileSync(units), good, 'left as it was');
    writeFileSync(units, good.subarray(0, good.length >> 1));
    run(prog, env);
    assert.deepEqual(readFileSync(units), good, 'a broken one rewritten whole');
  });
});

test('TERMITE_TRACE_STARTUP=1 prints the start-up stages on stderr, in order, and changes nothing else', () => {
  withDir((dir, prog, env) => {
    run(prog, env); // writes the bundle
    for (const [loaded, extra] of /** @type {const} */ ([['bundle', {}], ['modules', { TERMITE_RUN_BUNDLE: 'off' }]])) {
      const r = run(prog, { ...env, ...extra, TERMITE_TRACE_STARTUP: '1' });
      const stages = [...r.stderr.matchAll(/^;; start-up: (.+?) +([\d.]+) ms/gm)].map((m) => [m[1], Number(m[2])]);
      assert.deepEqual(stages.map((st) => st[0]), ['node ready', 'command line read', `run path loaded (${loaded})`, 'caches read', 'runtime library loaded', 'node created', 'program compiled and run', 'node stopped', 'exit']);
      for (let i = 1; i < stages.length; i++) assert.ok(stages[i][1] >= stages[i - 1][1], `${stages[i][0]} after ${stages[i - 1][0]}`);
    }
  });
});
