// @ts-check
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore, formal, float, encode, decode, Sym } from '../src/index.js';

const core = await loadCore();

test('out then inp returns the tuple and removes it', () => {
  const s = core.createSpace();
  s.out(['ping', 42]);
  assert.equal(s.size, 1);
  assert.deepEqual(s.inp(['ping', formal.integer]), ['ping', 42]);
  assert.equal(s.size, 0);
  assert.equal(s.inp(['ping', formal.integer]), undefined);
  s.destroy();
});

test('rdp returns a copy and leaves the tuple in place', () => {
  const s = core.createSpace();
  const t = ['cfg', { depth: 3 }, [1, 2]];
  s.out(t);
  const a = s.rdp(['cfg', formal.map, formal.array]);
  const b = s.rdp(['cfg', formal.any, formal.any]);
  assert.deepEqual(a, ['cfg', new Map([['depth', 3]]), [1, 2]]);
  assert.notEqual(a, b, 'each read decodes a fresh value');
  assert.equal(s.count(['cfg', formal.any, formal.any]), 1);
  s.destroy();
});

test('the oldest matching tuple comes first', () => {
  const s = core.createSpace();
  for (let i = 0; i < 6; i++) s.out(['job', i % 3, i]);
  assert.deepEqual(s.inp(['job', 2, formal.integer]), ['job', 2, 2]);
  assert.deepEqual(s.inp(['job', 2, formal.integer]), ['job', 2, 5]);
  assert.deepEqual(s.inp(['job', formal.integer, formal.integer]), ['job', 0, 0]);
  s.destroy();
});

test('actuals compare canonical values, so 1 never equals 1.0', () => {
  const s = core.createSpace();
  s.out(['n', 1]);
  s.out(['n', float(1)]);
  assert.equal(s.count(['n', 1]), 1);
  assert.equal(s.count(['n', float(1)]), 1);
  assert.equal(s.count(['n', formal.float]), 1);
  assert.equal(s.count(['n', formal.number]), 2);
  s.out(['m', new Map([['b', 1], ['a', 2]])]);
  assert.equal(s.count(['m', { a: 2, b: 1 }]), 1, 'maps compare regardless of key order');
  s.destroy();
});

test('each formal matches its type', () => {
  const s = core.createSpace();
  const row = [7, 2.5, 'txt', Sym.for('sym'), new Uint8Array([1]), true, [1], new Map(), null];
  s.out(row);
  const formals = [formal.integer, formal.float, formal.string, formal.symbol, formal.bytes,
    formal.boolean, formal.array, formal.map, formal.null];
  assert.equal(s.count(formals), 1);
  for (let i = 0; i < formals.length; i++) {
    const wrong = [...formals];
    wrong[i] = formals[(i + 1) % formals.length];
    assert.equal(s.count(wrong), 0, `field ${i} with the wrong formal`);
  }
  s.destroy();
});

test('a selective template finds its tuple among 100,000 quickly', () => {
  const s = core.createSpace();
  for (let i = 0; i < 100_000; i++) s.out(['A', i, i * 2, 'v']);
  const t0 = performance.now();
  for (let k = 0; k < 1000; k++) {
    const i = (k * 7919) % 100_000;
    assert.deepEqual(s.rdp(['A', i, formal.integer, formal.any]), ['A', i, i * 2, 'v']);
  }
  const perOp = (performance.now() - t0) / 1000;
  assert.ok(perOp < 1, `an indexed lookup took ${perOp} ms; a scan of 100,000 would take far longer`);
  assert.equal(s.size, 100_000);
  s.destroy();
});

test('spaces are independent and report their own counters', () => {
  const a = core.createSpace(), b = core.createSpace();
  a.out(['x', 'a payload of some size']);
  assert.equal(b.rdp(['x', formal.any]), undefined);
  assert.equal(a.size, 1);
  assert.equal(b.size, 0);
  assert.ok(a.liveBytes > b.liveBytes);
  assert.deepEqual(a.stats().waiters, 0);
  a.destroy();
  b.destroy();
});

test('byte-level variants take encoded CBOR and return canonical bytes', () => {
  const s = core.createSpace();
  s.outBytes(Uint8Array.from([0x9f, 0x18, 0x01, 0xfb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 0xff]));
  const tmpl = encode([formal.integer, formal.float]);
  assert.equal(s.countBytes(tmpl), 1);
  const bytes = s.rdpBytes(tmpl);
  assert.deepEqual(bytes, Uint8Array.from([0x82, 0x01, 0xf9, 0x3e, 0x00]));
  assert.deepEqual(decode(/** @type {Uint8Array} */ (s.inpBytes(tmpl))), [1, 1.5]);
  assert.equal(s.inpBytes(tmpl), undefined);
  s.destroy();
});

test('large tuples grow the transfer area and come back intact', () => {
  const s = core.createSpace();
  const big = new Uint8Array(300_000).map((_, i) => i & 0xff);
  s.out(['blob', big, 'x'.repeat(100_000)]);
  const back = /** @type {unknown[]} */ (s.inp(['blob', formal.bytes, formal.string]));
  assert.deepEqual(back[1], big);
  assert.equal(/** @type {string} */ (back[2]).length, 100_000);
  s.destroy();
  core.check();
});

test('a template used again is matched as it is now, across memory growth and more templates than the cache holds', () => {
  const s = core.createSpace();
  const t = ['job', formal.integer];
  for (let i = 0; i < 3; i++) s.out(['job', i]);
  assert.deepEqual(s.inp(t), ['job', 0]);
  assert.deepEqual(s.inp(t), ['job', 1], 'the remembered encoding');
  // a changed element is a different template, not the remembered one
  t[1] = 2;
  assert.deepEqual(s.rdp(t), ['job', 2]);
  t[1] = formal.string;
  assert.equal(s.rdp(t), undefined);
  t[1] = formal.integer;
  // more distinct templates than the cache remembers, each used twice
  const others = Array.from({ length: 10 }, (_, i) => [`k${i}`, formal.any]);
  for (const o of others) s.out([o[0], 'v']);
  for (const o of others) assert.equal(s.rdp(o)?.[0], o[0]);
  for (const o of others) assert.deepEqual(s.inp(o), [o[0], 'v']);
  // the memory grows (the data area moves); the remembered template still works
  const memoryBytes = core.memory.buffer.byteLength;
  s.out(['big', new Uint8Array(4 << 20)]);
  assert.ok(core.memory.buffer.byteLength > memoryBytes, 'the memory grew');
  assert.deepEqual(s.inp(t), ['job', 2]);
  assert.equal(s.inp(t), undefined);
  s.destroy();
  core.check();
});
