// @ts-check
// R7RS §6.14 System interface (exit, emergency-exit and load are the driver's), through
// host.js in Node; host.browser.js is checked directly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Flonum, Pair, Sym, SchemeError, listToArray } from '../src/values.js';
import { primitives } from '../src/engine/registry.js';
import * as host from '../src/engine/host.js';
import * as browser from '../src/engine/host.browser.js';
import '../src/primitives/prims-system.js';

/** @param {string} name @param {...any} args */
function call(name, ...args) {
  const p = primitives.get(name);
  assert.ok(p, `${name} is registered`);
  return p.fn(...args);
}

test('command-line is a list of strings that the driver can set', () => {
  const args = listToArray(call('command-line'));
  assert.ok(args.length >= 1);
  for (const a of args) assert.equal(typeof a, 'string');
  const saved = host.commandLine();
  try {
    host.setCommandLine(['prog.scm', 'a', 'b c']);
    assert.deepEqual(listToArray(call('command-line')), ['prog.scm', 'a', 'b c']);
    const l = call('command-line');
    l.car = 'changed';
    assert.deepEqual(listToArray(call('command-line')), ['prog.scm', 'a', 'b c'], 'each call returns a fresh list');
  } finally {
    host.setCommandLine(saved);
  }
});

test('get-environment-variable returns the value or #f, get-environment-variables an alist', () => {
  process.env.TERMITE_TEST_VARIABLE = 'value with spaces';
  try {
    assert.equal(call('get-environment-variable', 'TERMITE_TEST_VARIABLE'), 'value with spaces');
    assert.equal(call('get-environment-variable', 'TERMITE_SURELY_UNSET_VARIABLE'), false);
    const all = listToArray(call('get-environment-variables'));
    const entry = all.find((p) => p instanceof Pair && p.car === 'TERMITE_TEST_VARIABLE');
    assert.ok(entry, 'the variable is in the alist');
    assert.equal(entry.cdr, 'value with spaces');
    for (const p of all) assert.ok(p instanceof Pair && typeof p.car === 'string' && typeof p.cdr === 'string');
  } finally {
    delete process.env.TERMITE_TEST_VARIABLE;
  }
  assert.throws(() => call('get-environment-variable', Sym.intern('PATH')), (e) => e instanceof SchemeError && e.payload.who === 'get-environment-variable');
});

test('current-second is an inexact number of seconds since the epoch', () => {
  const t = call('current-second');
  assert.ok(t instanceof Flonum);
  assert.ok(Math.abs(t.v - Date.now() / 1000) < 5);
});

test('current-jiffy is an exact, non-decreasing integer counted in jiffies-per-second', () => {
  const per = call('jiffies-per-second');
  assert.equal(per, 1_000_000);
  assert.equal(primitives.get('jiffies-per-second')?.pure, true);
  const a = call('current-jiffy');
  const started = Date.now();
  while (Date.now() - started < 20);
  const b = call('current-jiffy');
  assert.ok(Number.isSafeInteger(a) && Number.isSafeInteger(b));
  assert.ok(b - a >= 15_000, `about 20 ms elapsed, got ${b - a} jiffies`);
});

test('features lists the language features and the host as symbols', () => {
  const fs = listToArray(call('features'));
  for (const f of fs) assert.ok(f instanceof Sym);
  const names = fs.map((f) => f.name);
  for (const n of ['r7rs', 'exact-closed', 'ratios', 'ieee-float', 'full-unicode', 'termite', 'node']) assert.ok(names.includes(n), n);
  assert.equal(names.includes('browser'), false);
});

test('the browser host has no files and no environment, with the same exports as the Node host', () => {
  assert.deepEqual(Object.keys(browser).sort(), Object.keys(host).sort());
  assert.equal(browser.hasFiles, false);
  assert.throws(() => browser.readFile('x'), (e) => e instanceof browser.HostError && e.message === 'files are not available in a browser tab');
  assert.throws(() => browser.openOutputFile('x'), /files are not available in a browser tab/);
  assert.throws(() => browser.deleteFile('x'), /files are not available in a browser tab/);
  assert.equal(browser.fileExists('x'), false);
  assert.equal(browser.getEnv('PATH'), undefined);
  assert.deepEqual(browser.environment(), []);
  assert.deepEqual(browser.commandLine(), []);
  assert.ok(browser.hostFeatures.includes('browser'));
  assert.ok(Number.isSafeInteger(browser.currentJiffy()));
});
