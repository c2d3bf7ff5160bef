// @ts-check
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore, formal, Formal, encode } from '../src/index.js';

const core = await loadCore();

/** A space with known contents, and a way to prove they did not change. */
function fixture() {
  const s = core.createSpace();
  for (let i = 0; i < 50; i++) s.out(['keep', i, `value ${i}`]);
  const digest = s.digest();
  const live = s.liveBytes;
  return {
    s,
    /** The store is unchanged, consistent, and still works. */
    intact() {
      assert.equal(s.digest(), digest, 'contents unchanged');
      assert.equal(s.liveBytes, live, 'live bytes unchanged');
      s.check();
      core.check();
      s.out(['after', 1]);
      assert.deepEqual(s.inp(['after', formal.integer]), ['after', 1]);
      assert.equal(s.count(['keep', formal.integer, formal.string]), 50);
    },
  };
}

test('malformed CBOR is a MalformedCborError naming the byte, and changes nothing', () => {
  const f = fixture();
  const bad = [
    [Uint8Array.of(0x82, 0x01), /array of 2 items declared/],
    [Uint8Array.of(0x82, 0x01, 0x62, 0xc3, 0x28), /at byte 4 \(field 1\): invalid UTF-8/],
    [Uint8Array.of(0x81, 0x1c), /reserved additional information/],
    [Uint8Array.of(0xff), /unexpected break code/],
    [Uint8Array.of(0x81, 0x01, 0x02), /trailing bytes/],
    [new Uint8Array(0), /empty/],
  ];
  for (const [bytes, msg] of bad) {
    assert.throws(() => f.s.outBytes(/** @type {Uint8Array} */ (bytes)), (e) => {
      assert.equal(/** @type {Error} */ (e).name, 'MalformedCborError');
      assert.match(/** @type {Error} */ (e).message, /** @type {RegExp} */ (msg));
      return true;
    });
    assert.throws(() => f.s.inpBytes(/** @type {Uint8Array} */ (bytes)), { name: 'MalformedCborError' });
  }
  f.intact();
  f.s.destroy();
});

test('a template that is not an array is a TemplateError', () => {
  const f = fixture();
  assert.throws(() => f.s.inp(/** @type {any} */ ('keep')), { name: 'TemplateError', message: /must be a CBOR array/ });
  assert.throws(() => f.s.out(/** @type {any} */ ({ keep: 1 })), { name: 'TemplateError' });
  assert.throws(() => f.s.out([]), { name: 'TemplateError', message: /at least one field/ });
  assert.throws(() => f.s.out(['keep', new Formal(12)]), { name: 'UnknownFormalError', message: /field 1: code 12/ });
  f.intact();
  f.s.destroy();
});

test('an unknown formal type is an UnknownFormalError', () => {
  const f = fixture();
  assert.throws(() => f.s.inp(['keep', new Formal(12), formal.any]), {
    name: 'UnknownFormalError', message: /field 1: code 12/,
  });
  assert.throws(() => f.s.count(['keep', new Formal(11), formal.any]), { name: 'UnknownFormalError' });
  const p = core.spawn();
  assert.equal(core.next(), p);
  assert.throws(() => f.s.in(p, [new Formal(99)]), { name: 'UnknownFormalError' });
  assert.equal(core.state(p), 'running', 'the process did not block');
  core.exit(p);
  f.intact();
  f.s.destroy();
});

test('a space that does not exist is a NoSuchSpaceError', () => {
  const s = core.createSpace();
  const id = s.id;
  s.destroy();
  s.destroy(); // idempotent
  const stale = core.space(id);
  assert.throws(() => stale.out(['x']), { name: 'NoSuchSpaceError', message: /no such space/ });
  assert.throws(() => core.space(0).inp(['x']), { name: 'NoSuchSpaceError' });
  assert.throws(() => core.space(987654).count(['x']), { name: 'NoSuchSpaceError' });
  core.check();
});

test('a process that does not exist is a NoSuchProcessError', () => {
  const p = core.spawn();
  core.exit(p);
  assert.equal(core.state(p), 'exited');
  assert.throws(() => core.send(p, 'hi'), { name: 'NoSuchProcessError', message: /has exited/ });
  assert.throws(() => core.exit(p), { name: 'NoSuchProcessError' });
  assert.throws(() => core.state(0), { name: 'NoSuchProcessError', message: /never issued/ });
  assert.throws(() => core.receive(p), { name: 'NoSuchProcessError' });
  assert.equal(core.values.filter((v) => v !== undefined).length, 0, 'no message value leaked');
  core.check();
});

test('an invalid scheduler transition is an InvalidTransitionError and changes nothing', () => {
  const a = core.spawn(), b = core.spawn();
  const before = core.schedulerDigest();
  assert.throws(() => core.yield(a), { name: 'InvalidTransitionError', message: /is ready, not running/ });
  assert.throws(() => core.interrupt(a), { name: 'InvalidTransitionError' });
  assert.equal(core.schedulerDigest(), before);
  assert.equal(core.next(), a);
  assert.throws(() => core.next(), { name: 'InvalidTransitionError', message: /still running/ });
  assert.throws(() => core.spawn({ priority: 9 }), { name: 'InvalidArgumentError' });
  assert.throws(() => core.advance(7, 1), { name: 'InvalidArgumentError' });
  core.exit(a);
  core.exit(b);
  core.check();
});

test('exhausting a small memory limit is an OutOfMemoryError and the core keeps working', async () => {
  const small = await loadCore({ memoryLimit: 256 * 1024 });
  const s = small.createSpace();
  let stored = 0, digest = 0n, error;
  for (let i = 0; i < 100_000; i++) {
    digest = s.digest();
    try {
      s.out(['fill', i, 'a payload that takes some room']);
      stored++;
    } catch (e) {
      error = e;
      break;
    }
  }
  assert.equal(/** @type {Error} */ (error)?.name, 'OutOfMemoryError');
  assert.match(/** @type {Error} */ (error).message, /out of memory while .* limit 262144/);
  assert.equal(s.digest(), digest, 'the failed out changed nothing');
  assert.equal(s.size, stored);
  assert.ok(small.liveBytes <= 256 * 1024);
  small.check();
  for (let i = 0; i < 100; i++) assert.ok(s.inp(['fill', formal.integer, formal.any]));
  s.out(['fits', 'again']);
  assert.deepEqual(s.rdp(['fits', formal.string]), ['fits', 'again']);
  small.check();
  small.destroy();
});

test('a destroyed core refuses every call with CoreDestroyedError', async () => {
  const c = await loadCore();
  const s = c.createSpace();
  c.destroy();
  c.destroy(); // idempotent
  assert.equal(c.destroyed, true);
  assert.throws(() => s.out(['x']), { name: 'CoreDestroyedError' });
  assert.throws(() => c.spawn(), { name: 'CoreDestroyedError' });
  s.destroy(); // a no-op once the core is gone
});

test('errors carry the core status and a name to branch on', () => {
  try {
    core.space(0).outBytes(encode(['x']));
    assert.fail('expected an error');
  } catch (e) {
    const err = /** @type {import('../src/index.js').TermiteCoreError} */ (e);
    assert.equal(err.name, 'NoSuchSpaceError');
    assert.equal(err.status, -5);
    assert.ok(err instanceof Error);
  }
});

test('nesting is limited: deep items are refused, and the deepest allowed one is handled', async () => {
  /** @param {number} n @returns {Uint8Array} n nested one-element arrays around 0 */
  const nested = (n) => Uint8Array.from([...new Array(n).fill(0x81), 0x00]);
  const f = fixture();
  assert.throws(() => f.s.outBytes(nested(65)), { name: 'LimitError', message: /nesting deeper than 64/ });
  f.intact();
  f.s.destroy();
  const deep = await loadCore({ maxDepth: 1024 });
  const s = deep.createSpace();
  s.outBytes(Uint8Array.from([0x82, 0x01, ...nested(1022)]));
  assert.equal(s.size, 1, 'a 1024-deep tuple fits the wasm stack');
  assert.throws(() => s.outBytes(Uint8Array.from([0x81, ...nested(1024)])), { name: 'LimitError' });
  /* every recursive shape, through the canonicaliser's slow path too */
  const rep = (/** @type {number} */ n, /** @type {number[]} */ xs) => Array.from({ length: n }, () => xs).flat();
  for (const bytes of [
    [...rep(1024, [0x9f]), 0x01, ...rep(1024, [0xff])],
    [...rep(1023, [0xa1, 0x01]), 0x01],
    [...rep(1023, [0xd8, 0x64]), 0x01],
    [...rep(1023, [0xbf, 0x18, 0x01]), 0x01, ...rep(1023, [0xff])],
    [...rep(1023, [0xa1, 0xc2, 0x41, 0x05]), 0x01],
  ]) assert.ok(deep.canonicalize(Uint8Array.from(bytes)).length > 1000);
  deep.check();
  deep.destroy();
  await assert.rejects(loadCore({ maxDepth: 1025 }), { name: 'InvalidArgumentError' });
});
