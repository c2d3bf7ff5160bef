// @ts-check
/**
 * The install policy of versioned libraries (src/code-libraries/library-registry.js):
 * a record is admitted only when it names the key asked for, its Ed25519 signature
 * verifies over its key, unit hash and requirements, and its publisher is trusted; a
 * malformed record is refused before any check; the node's own publisher is trusted;
 * records kept are found again through the store. An untrusted publisher is listed as
 * waiting for approval; an install waits (bounded) for an operator's approval or the
 * persisted trust naming it, and goes on once approved.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createIdentity, verifySignature, nodeIdFromPublicKey, base64url, fromBase64url } from '@termite/mesh';
import { LibraryRegistry, LibraryRefused, signedBytes, libraryStoreIn } from '../src/index.js';
import { recordFromData, recordData, versioned } from '../src/code-libraries/library-registry.js';

const UNIT = 'ab'.repeat(32);
const OTHER = 'cd'.repeat(32);

/** @param {any} identity @param {string} key @param {string} unit @param {string[]} [requires] @param {string} [signedUnit] */
async function record(identity, key, unit, requires = [], signedUnit = unit) {
  return { key, unit, requires, publicKey: base64url(identity.publicKey), signature: base64url(await identity.sign(signedBytes(key, signedUnit, requires))) };
}

/** @param {Iterable<string>} trusted @param {any} [store] @param {import('../src/code-libraries/library-registry.js').LibraryOptions} [more] */
const registry = (trusted, store = null, more = {}) => new LibraryRegistry({
  ...more,
  trusted,
  verify: (pk, sig, data) => verifySignature(fromBase64url(pk), fromBase64url(sig), data),
  publisherIdOf: (pk) => nodeIdFromPublicKey(fromBase64url(pk)),
  store,
});

test('a record signed by a trusted publisher is admitted; the publisher id is returned', async () => {
  const pub = await createIdentity();
  const r = await record(pub, '(foo bar)@1.2', UNIT, ['lib:(base)@1']);
  assert.equal(await registry([pub.id]).admit(r, '(foo bar)@1.2'), pub.id);
});

test('refusals name library, version and publisher', async () => {
  const pub = await createIdentity();
  const good = await record(pub, '(foo bar)@1.2', UNIT);
  await assert.rejects(registry([]).admit(good, '(foo bar)@1.2'), (e) => e instanceof LibraryRefused && e.message === `library (foo bar) version 1.2 is published by ${pub.id}, whom this node does not trust (start it with --trust ${pub.id} to install it, or approve the publisher: \`termite-node trust add ${pub.id}\` or the dashboard's approve button)`);
  await assert.rejects(registry([pub.id]).admit(good, '(foo bar)@1.3'), /asked for library \(foo bar\) version 1\.3, was given \(foo bar\)@1\.2/);
  const forOther = await record(pub, '(foo bar)@1.2', UNIT, [], OTHER);
  await assert.rejects(registry([pub.id]).admit(forOther, '(foo bar)@1.2'), new RegExp(`library \\(foo bar\\) version 1\\.2: the signature of publisher ${pub.id} does not match its content`));
  const moreRequires = { ...good, requires: ['lib:(evil)@1'] };
  await assert.rejects(registry([pub.id]).admit(moreRequires, '(foo bar)@1.2'), /does not match its content/);
  await assert.rejects(new LibraryRegistry({ trusted: [pub.id] }).admit(good, '(foo bar)@1.2'), /this node installs no libraries from other nodes/);
});

test('malformed records are refused before any check', () => {
  assert.throws(() => recordFromData(['(a)@1', 'not-a-hash', [], 'k', 's']), /bad unit hash/);
  assert.throws(() => recordFromData(['(a)@1', UNIT, 'x', 'k', 's']), /malformed library record/);
  assert.throws(() => recordFromData(42), /malformed library record/);
  const r = recordFromData(['(a)@1', UNIT, ['lib:(b)@2'], 'k', 's']);
  assert.deepEqual(recordData(r), ['(a)@1', UNIT, ['lib:(b)@2'], 'k', 's']);
});

test('only versioned keys travel', () => {
  assert.equal(versioned('(foo bar)@1.2'), true);
  assert.equal(versioned('(foo bar)'), false);
});

test('the node publishes with its own key, which it trusts; kept records come back from the store', async () => {
  const pub = await createIdentity();
  /** @type {Map<string, Uint8Array>} */
  const cache = new Map();
  const store = libraryStoreIn({ get: async (h) => cache.get(h) ?? null, put: async (h, b) => void cache.set(h, b) });
  const reg = new LibraryRegistry({
    publisher: { id: pub.id, publicKey: base64url(pub.publicKey), sign: (d) => pub.sign(d) },
    verify: (pk, sig, data) => verifySignature(fromBase64url(pk), fromBase64url(sig), data),
    publisherIdOf: (pk) => nodeIdFromPublicKey(fromBase64url(pk)),
    store,
  });
  reg.publish('(mine)@2.0', UNIT, []);
  reg.publish('(local)', UNIT, []); // no version: not published
  assert.equal(reg.record('(local)'), null);
  const mine = await /** @type {Promise<any>} */ (reg.record('(mine)@2.0'));
  assert.equal(await reg.admit(mine, '(mine)@2.0'), pub.id, 'its own publisher is trusted');
  await reg.keep(mine, pub.id, 'peer', false);
  assert.equal(cache.size, 1);
  assert.deepEqual(await reg.stored('(mine)@2.0'), mine);
  assert.equal(await reg.stored('(other)@1'), null);
  assert.deepEqual(reg.list().map((l) => `${l.name} ${l.version} ${l.origin}`), ['(mine) 2.0 installed']);
});

test('an untrusted publisher is listed as waiting; refused at once by default, installed once approved', async () => {
  const pub = await createIdentity();
  const r = await record(pub, '(foo bar)@1.2', UNIT);
  const reg = registry([]);
  await assert.rejects(reg.admit(r, '(foo bar)@1.2'), /whom this node does not trust/);
  assert.deepEqual(reg.pendingList().map((p) => [p.publisher, p.libraries, p.waiting]), [[pub.id, ['(foo bar)@1.2'], 0]]);
  await reg.approve(pub.id);
  assert.deepEqual(reg.pendingList(), [], 'approved: no longer waiting');
  assert.equal(await reg.admit(r, '(foo bar)@1.2'), pub.id);
});

test('an install waits for an approval (bounded), and goes on when the operator approves; the approval is persisted', async () => {
  const pub = await createIdentity();
  const r = await record(pub, '(foo bar)@1.2', UNIT);
  /** @type {string[]} */
  const persisted = [];
  const reg = registry([], null, { approvalWaitMs: 20_000, persistTrust: async (id) => void persisted.push(id) });
  /** @type {string[]} */
  const waiting = [];
  reg.onWaiting = (p, key) => waiting.push(`${p} ${key}`);
  const started = Date.now();
  const admitted = reg.admit(r, '(foo bar)@1.2');
  for (let i = 0; i < 200 && waiting.length === 0; i++) await new Promise((res) => setTimeout(res, 5));
  assert.deepEqual(waiting, [`${pub.id} (foo bar)@1.2`]);
  assert.equal(reg.pendingList()[0].waiting, 1);
  await reg.approve(pub.id);
  assert.equal(await admitted, pub.id);
  assert.ok(Date.now() - started < 10_000, 'went on at the approval, not at the end of the wait');
  assert.deepEqual(persisted, [pub.id]);
  // not approved: refused when the wait ends
  const other = await createIdentity();
  const short = registry([], null, { approvalWaitMs: 300 });
  const t0 = Date.now();
  await assert.rejects(short.admit(await record(other, '(x)@1', UNIT), '(x)@1'), /whom this node does not trust/);
  assert.ok(Date.now() - t0 >= 290, 'it waited');
});

test('an install waiting for approval goes on when the persisted trust names the publisher (an operator ran trust add)', async () => {
  const pub = await createIdentity();
  const r = await record(pub, '(foo bar)@1.2', UNIT);
  /** @type {string[]} */
  const file = [];
  const reg = registry([], null, { approvalWaitMs: 20_000, reloadTrusted: async () => file.slice() });
  const admitted = reg.admit(r, '(foo bar)@1.2');
  await new Promise((res) => setTimeout(res, 50));
  file.push(pub.id);
  assert.equal(await admitted, pub.id);
  assert.deepEqual(reg.pendingList(), []);
});
