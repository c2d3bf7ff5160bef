// @ts-check
/**
 * Identity: node ids derived from public keys, signatures, and the file
 * store (mode 0600, refusal of unsafe or inconsistent files).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIdentity, exportIdentity, importIdentity, isNodeId, loadOrCreateIdentity, nodeIdFromPublicKey, verifySignature } from '../src/index.js';
import { base32 } from '../src/bytes.js';

test('a node id is the lowercase base32 of the first 20 bytes of SHA-256 of the public key', async () => {
  const id = await createIdentity();
  const expected = base32(createHash('sha256').update(id.publicKey).digest().subarray(0, 20));
  assert.equal(id.id, expected);
  assert.equal(id.id.length, 32);
  assert.ok(isNodeId(id.id));
  assert.equal(await nodeIdFromPublicKey(id.publicKey), id.id);
  assert.ok(!isNodeId('A'.repeat(32)) && !isNodeId('a'.repeat(31)) && !isNodeId(42));
});

test('base32 matches RFC 4648 test vectors (lowercase, no padding)', () => {
  const enc = (/** @type {string} */ s) => base32(new TextEncoder().encode(s));
  assert.equal(enc(''), '');
  assert.equal(enc('f'), 'my');
  assert.equal(enc('fo'), 'mzxq');
  assert.equal(enc('foo'), 'mzxw6');
  assert.equal(enc('foob'), 'mzxw6yq');
  assert.equal(enc('fooba'), 'mzxw6ytb');
  assert.equal(enc('foobar'), 'mzxw6ytboi');
});

test('a signature verifies with the signer key only, and a bad key or signature gives false, not an exception', async () => {
  const a = await createIdentity();
  const b = await createIdentity();
  const data = new TextEncoder().encode('transcript');
  const sig = await a.sign(data);
  assert.equal(sig.length, 64);
  assert.equal(await verifySignature(a.publicKey, sig, data), true);
  assert.equal(await verifySignature(b.publicKey, sig, data), false);
  assert.equal(await verifySignature(a.publicKey, sig, new TextEncoder().encode('other')), false);
  assert.equal(await verifySignature(new Uint8Array(3), sig, data), false);
  assert.equal(await verifySignature(a.publicKey, new Uint8Array(10), data), false);
});

test('an exported identity imports back to the same node id', async () => {
  const a = await createIdentity();
  const b = await importIdentity(await exportIdentity(a));
  assert.equal(b.id, a.id);
  await assert.rejects(importIdentity(/** @type {any} */ ({ kty: 'RSA' })), { name: 'IdentityError' });
});

test('loadOrCreateIdentity persists the key with mode 0600 and loads the same id again', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'termite-mesh-id-'));
  try {
    const data = join(dir, 'data');
    const first = await loadOrCreateIdentity(data);
    const file = join(data, 'identity.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(data).mode & 0o777, 0o700);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(doc.id, first.id);
    assert.equal(doc.format, 'termite-mesh identity');
    const again = await loadOrCreateIdentity(data);
    assert.equal(again.id, first.id);
    const sig = await again.sign(new Uint8Array([1]));
    assert.ok(await verifySignature(first.publicKey, sig, new Uint8Array([1])));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('two processes-worth of concurrent loadOrCreateIdentity calls agree on one identity', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'termite-mesh-id-'));
  try {
    const ids = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateIdentity(dir)));
    assert.equal(new Set(ids.map((i) => i.id)).size, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an identity file readable by others, or whose id does not match its key, is refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'termite-mesh-id-'));
  try {
    await loadOrCreateIdentity(dir);
    const file = join(dir, 'identity.json');
    chmodSync(file, 0o644);
    await assert.rejects(loadOrCreateIdentity(dir), (/** @type {any} */ e) => e.name === 'IdentityError' && /readable by others \(mode 644\)/.test(e.message));
    chmodSync(file, 0o600);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...doc, id: 'a'.repeat(32) }), { mode: 0o600 });
    await assert.rejects(loadOrCreateIdentity(dir), (/** @type {any} */ e) => e.name === 'IdentityError' && /names node a{32} but its key is node/.test(e.message));
    writeFileSync(file, '{not json', { mode: 0o600 });
    await assert.rejects(loadOrCreateIdentity(dir), { name: 'IdentityError' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
