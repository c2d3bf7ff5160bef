// @ts-check
/**
 * The precompiled runtime library (@termite/scheme boot.js): a process that is handed
 * the units another process compiled instantiates them instead of compiling, ends up
 * with the same unit hashes, and compiles from source whatever it is handed that does
 * not fit (another context, malformed bytes, IR that fails the check); a unit whose
 * JavaScript the host gives (presetFastSources) is used as given, and only it. The library
 * loads once per process, so each case runs in a child process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import os from 'node:os';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Run `body` (an async module body with `internal`, `runtime`, `input` in scope) in a
 * fresh Node process and return what it prints as JSON.
 * @param {string} body @param {string} [input] base64 handed to the child
 */
function child(body, input = '') {
  const script = `
    const internal = await import('@termite/scheme/internal');
    const scheme = await import('@termite/scheme');
    const input = ${JSON.stringify(input)};
    ${body}
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: here, encoding: 'utf8', timeout: 60000 });
  return JSON.parse(out);
}

const LOAD_AND_REPORT = `
  const runtime = await import('@termite/runtime');
  runtime.loadTermiteLibrary();
  const node = await runtime.createNode({});
  const r = await node.runProgram('(display (map (lambda (x) (* x x)) (list 1 2 3)))');
  node.stop();
  console.log(JSON.stringify({
    stats: internal.precompiledStats,
    hashes: [...internal.runtimeUnits.keys()],
    ok: r.ok,
    units: Buffer.from(internal.precompiledRuntime()).toString('base64'),
  }));
`;

const fresh = child(LOAD_AND_REPORT);

test('a process that compiled the runtime library reports every unit it compiled', () => {
  assert.equal(fresh.stats.used, 0);
  assert.equal(fresh.stats.compiled, 6, 'prelude, termite, js-support, repl, distribution, messengers');
  assert.equal(fresh.hashes.length, 6);
  assert.ok(fresh.ok);
});

test('handed those units, another process instantiates them all, with the same hashes, and runs programs', () => {
  const r = child(`internal.supplyPrecompiledRuntime(Buffer.from(input, 'base64'));\n${LOAD_AND_REPORT}`, fresh.units);
  assert.deepEqual(r.stats, { used: 6, compiled: 0, rejected: [] });
  assert.deepEqual(r.hashes, fresh.hashes);
  assert.ok(r.ok);
});

test('units compiled in another context (here: one more primitive) are compiled from source instead', () => {
  const r = child(`
    const { definePrimitive } = internal;
    definePrimitive('precompiled-test-extra', 0, 0, () => 1);
    internal.supplyPrecompiledRuntime(Buffer.from(input, 'base64'));
    ${LOAD_AND_REPORT}`, fresh.units);
  assert.equal(r.stats.used, 0);
  assert.equal(r.stats.compiled, 6);
  assert.equal(r.stats.rejected.length, 6);
  assert.match(r.stats.rejected[0], /prelude: compiled in another context/);
  assert.ok(r.ok);
});

test('bytes that do not decode are ignored: everything is compiled', () => {
  const r = child(`internal.supplyPrecompiledRuntime(new Uint8Array([0xff, 0x00, 0x13]));\n${LOAD_AND_REPORT}`);
  assert.equal(r.stats.used, 0);
  assert.equal(r.stats.compiled, 6);
  assert.match(r.stats.rejected[0], /undecodable/);
  assert.deepEqual(r.hashes, fresh.hashes);
});

test('a unit whose IR fails the check (a primitive this process lacks) is compiled from source; the others are used', () => {
  const r = child(`
    const list = scheme.decodeValue(Buffer.from(input, 'base64'));
    const termite = list.find((e) => e[0] === 'termite');
    termite[3][3] = [...termite[3][3], 'no-such-primitive'];
    internal.supplyPrecompiledRuntime(scheme.encodeValue(list));
    ${LOAD_AND_REPORT}`, fresh.units);
  assert.equal(r.stats.used, 5);
  assert.equal(r.stats.compiled, 1);
  assert.match(r.stats.rejected.join('\n'), /termite: .*no-such-primitive/);
  assert.deepEqual(r.hashes, fresh.hashes);
  assert.ok(r.ok);
});

test('the JavaScript of some units given (presetFastSources): those are used as given, the others are still checked', () => {
  const sources = child(`${LOAD_AND_REPORT.replace('console.log(JSON.stringify({', 'console.log(JSON.stringify({ js: internal.fastSourcesOf(internal.runtimeUnits.keys()),')}`).js;
  assert.equal(Object.keys(sources).length, 6, 'one fast form per unit');
  const preludeHash = fresh.hashes[0];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'termite-preset-'));
  try {
    const some = path.join(dir, 'some.json');
    const every = path.join(dir, 'every.json');
    writeFileSync(some, JSON.stringify({ [preludeHash]: sources[preludeHash] }));
    writeFileSync(every, JSON.stringify(sources));
    const preset = (/** @type {string} */ file) => `internal.presetFastSources(JSON.parse((await import('node:fs')).readFileSync(${JSON.stringify(file)}, 'utf8')));`;
    const r = child(`
      const list = scheme.decodeValue(Buffer.from(input, 'base64'));
      const termite = list.find((e) => e[0] === 'termite');
      termite[3][3] = [...termite[3][3], 'no-such-primitive'];
      internal.supplyPrecompiledRuntime(scheme.encodeValue(list));
      ${preset(some)}
      ${LOAD_AND_REPORT}`, fresh.units);
    assert.equal(r.stats.used, 5);
    assert.equal(r.stats.compiled, 1);
    assert.match(r.stats.rejected.join('\n'), /termite: .*no-such-primitive/, 'a unit without given JavaScript is checked');
    assert.deepEqual(r.hashes, fresh.hashes);
    assert.ok(r.ok);
    const all = child(`internal.supplyPrecompiledRuntime(Buffer.from(input, 'base64'));\n${preset(every)}\n${LOAD_AND_REPORT}`, fresh.units);
    assert.deepEqual(all.stats, { used: 6, compiled: 0, rejected: [] });
    assert.deepEqual(all.hashes, fresh.hashes);
    assert.ok(all.ok);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
