// @ts-check
/**
 * The receiving side of a one-way hop (HOP, distribution/one-way-migration.js), with
 * hostile and broken frames: a HOP whose state does not decode is refused (a log line,
 * an ERROR to the sender) and its notice is sent to the notice pid — unless the sender
 * is a restricted peer that was not given that pid; a malformed HOP is refused with no
 * notice; the node keeps working. The mesh is a stand-in recording what is sent; real
 * daemons hop messengers in node-daemon/test/messengers.test.js.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withNode } from './harness.js';
import { Distribution } from '../src/distribution.js';

const F_HOP = 13;

/** A stand-in for a started MeshNode: the handlers Distribution registers; frames sent are kept. */
function standInMesh() {
  /** @type {{to: string, bytes: Uint8Array}[]} */
  const sent = [];
  return { id: 'stand-in', sent, onMessage() {}, onRequest() {}, on() {}, isReachable: () => true, send: (/** @type {string} */ to, /** @type {Uint8Array} */ bytes) => { sent.push({ to, bytes }); return true; } };
}

/** The messages in a local process's mailbox. @param {any} node @param {any} pid */
function mailbox(node, pid) {
  const proc = node.local(pid);
  const out = [];
  for (let c = 0, n = 0; n < 100; n++) {
    const m = node.peekMessage(proc, c);
    if (m === undefined) break;
    out.push(m.value);
    c = m.seq + 1;
  }
  return out;
}

test('a HOP whose state cannot be taken is refused and its notice sent; from a restricted peer, only a notice naming what it was given', () =>
  withNode(async ({ node, run }) => {
    const logs = /** @type {string[]} */ ([]);
    const mesh = standInMesh();
    const dist = new Distribution(node, mesh, { log: (s) => logs.push(s) });
    try {
      // a local process whose mailbox keeps what it is sent (it waits for a message that never comes)
      const r = await run(`(spawn (lambda () (recv (('never-sent) #t))))`);
      assert.ok(r.ok, r.message);
      const pid = r.value;
      const garbage = new Uint8Array([0xff, 0x00, 0x13]); // not a value the codec reads
      // from an unrestricted peer: refused, logged, an ERROR back, and the notice delivered
      dist.onFrame('peer-a', dist.encode([F_HOP, pid, 'credit-back', garbage]));
      assert.ok(logs.some((l) => /\(HOP\) was lost/.test(l)), logs.join('\n'));
      assert.ok(mesh.sent.some((s) => s.to === 'peer-a'), 'an ERROR frame went back to the sender');
      assert.deepEqual(mailbox(node, pid), ['credit-back']);
      // from a restricted peer never given that pid: refused, and no notice
      dist.restrictBrowserPeer('tab-b');
      const before = logs.length;
      dist.onFrame('tab-b', dist.encode([F_HOP, pid, 'forged', garbage]));
      // a restricted peer's HOP is handled in its chain (asynchronously): wait for the refusal, bounded
      for (let i = 0; i < 500 && !logs.slice(before).some((l) => /\(HOP\) was lost/.test(l)); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.ok(logs.slice(before).some((l) => /\(HOP\) was lost/.test(l)), logs.join('\n'));
      assert.deepEqual(mailbox(node, pid), ['credit-back'], 'the forged notice was not sent');
      // malformed: refused with its reason, no notice
      dist.onFrame('peer-a', dist.encode([F_HOP, 'not a pid', 'x', garbage]));
      assert.ok(logs.some((l) => /malformed HOP frame/.test(l)), logs.join('\n'));
      // the node keeps working
      const after = await run('(+ 1 2)');
      assert.equal(after.value, 3);
    } finally {
      node.remote = null;
    }
  }));
