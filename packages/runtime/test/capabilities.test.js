// @ts-check
/**
 * What a restricted peer is given (distribution/capabilities.js), seen from the node
 * that gives: a Linda space counts as given to a restricted peer once this node wrote a
 * reference to it in a frame to that peer (`maySpace`, what a Linda request handler
 * asks), a program environment once this node sent it one of its procedures; a peer
 * that joins from a browser becomes restricted when the distribution layer is told to
 * restrict such peers. The mesh is a stand-in that records what is sent and emits the
 * events a MeshNode emits; node-daemon/test/restricted-*.test.js and
 * e2e/tab-capabilities.test.js run the same rules between real nodes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withNode } from './harness.js';
import { Distribution } from '../src/distribution.js';
import { Pid, SpaceRef } from '../src/termite-values.js';

/** A stand-in for a started MeshNode: records sends, lets a test emit events. */
function standInMesh() {
  /** @type {Map<string, Array<(e: any) => void>>} */
  const handlers = new Map();
  /** @type {Array<[string, Uint8Array]>} */
  const sent = [];
  return {
    id: 'stand-in', sent, onMessage() {}, onRequest() {}, isReachable: () => true,
    /** @param {string} ev @param {(e: any) => void} h */
    on(ev, h) { handlers.set(ev, [...(handlers.get(ev) ?? []), h]); return () => {}; },
    /** @param {string} ev @param {any} e */
    emit(ev, e) { for (const h of handlers.get(ev) ?? []) h(e); },
    /** @param {string} to @param {Uint8Array} bytes */
    send(to, bytes) { sent.push([to, bytes]); return true; },
  };
}

test('a space is given to a restricted peer when a reference to it is sent there; other peers use any', () =>
  withNode(async ({ node }) => {
    const mesh = standInMesh();
    const dist = new Distribution(node, /** @type {any} */ (mesh), { restrictedPeers: ['tab'] });
    try {
      assert.equal(dist.maySpace('tab', 'jobs'), false, 'not given yet');
      assert.equal(dist.maySpace('daemon', 'jobs'), true, 'an unrestricted peer');
      dist.send(new Pid('tab', 1), ['here', new SpaceRef(node.id, 'jobs'), new SpaceRef('elsewhere', 'results')]);
      assert.equal(mesh.sent.length, 1);
      assert.equal(dist.maySpace('tab', 'jobs'), true, 'given by the message');
      assert.equal(dist.maySpace('tab', 'results'), false, 'a space of another node is not this node\'s to give');
      assert.equal(dist.maySpace('tab', 'other'), false);
      // a frame from the tab that names a space it was given passes; one it was not, not
      assert.equal(dist.checkMentions('tab', [new SpaceRef(node.id, 'jobs')], 'SEND'), null);
      assert.match(String(dist.checkMentions('tab', [new SpaceRef(node.id, 'other')], 'SEND')), /names space other, which it was not given/);
    } finally {
      node.remote = null;
    }
  }));

test('a program environment is given to a restricted peer with a procedure of it', () =>
  withNode(async ({ node, run }) => {
    const mesh = standInMesh();
    const dist = new Distribution(node, /** @type {any} */ (mesh), { restrictedPeers: ['tab'] });
    try {
      const r = await run('(define secret 42) (lambda () secret)');
      assert.ok(r.ok, r.message);
      const envId = r.value.lam.unit.env.id;
      assert.throws(() => dist.checkRequest('tab', [23, envId]), /ENV .* refused: tab is a restricted peer and this node sent it nothing from that environment/);
      dist.send(new Pid('tab', 1), r.value);
      assert.doesNotThrow(() => dist.checkRequest('tab', [23, envId]));
      assert.doesNotThrow(() => dist.checkRequest('daemon', [23, envId]), 'an unrestricted peer');
    } finally {
      node.remote = null;
    }
  }));

test('a peer that joins from a browser is restricted when browser peers are, and stays so', () =>
  withNode(async ({ node }) => {
    const mesh = standInMesh();
    const dist = new Distribution(node, /** @type {any} */ (mesh), { restrictBrowserPeers: true });
    const trusting = standInMesh();
    try {
      mesh.emit('link:up', { id: 'daemon', transport: 'websocket', address: 'x', browser: false });
      mesh.emit('link:up', { id: 'tab', transport: 'websocket', address: 'y', browser: true });
      assert.equal(dist.restricted.has('daemon'), false);
      assert.equal(dist.restricted.has('tab'), true);
      // gone and back (over WebRTC, say): still restricted, what it was given kept
      dist.send(new Pid('tab', 1), new Pid(node.id, 77));
      mesh.emit('peer:down', { id: 'tab', reason: 'closed' });
      mesh.emit('link:up', { id: 'tab', transport: 'webrtc', address: 'z', browser: true });
      assert.equal(dist.restricted.get('tab')?.has(77), true);
    } finally {
      node.remote = null;
    }
    const dist2 = new Distribution(node, /** @type {any} */ (trusting));
    try {
      trusting.emit('link:up', { id: 'tab', transport: 'websocket', address: 'y', browser: true });
      assert.equal(dist2.restricted.has('tab'), false, 'not unless asked (--trust-tabs leaves it off)');
    } finally {
      node.remote = null;
    }
  }));
