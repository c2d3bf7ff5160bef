// @ts-check
/**
 * Requests between nodes, seen from the node that answers them: a request whose code
 * is at hand is answered in the task its frame arrived in, and what it started runs
 * after the answer in that same task. The mesh is a stand-in that only records the
 * handlers (these tests call them as the mesh would); node-daemon/test/mesh.test.js
 * runs the same requests between real daemons.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeValue } from '@termite/scheme/internal';
import { withNode } from './harness.js';
import { Distribution } from '../src/distribution.js';
import { Pid } from '../src/termite-values.js';

const R_SPAWN = 20;
const R_EVAL = 26;

/** A stand-in for a started MeshNode: the handlers Distribution registers, nothing sent. */
function standInMesh() {
  return { id: 'stand-in', onMessage() {}, onRequest() {}, on() {}, isReachable: () => true };
}

test('a spawn request whose code is at hand is answered in the same task, and the process runs before the next task', () =>
  withNode(async ({ node, run }) => {
    const dist = new Distribution(node, standInMesh());
    try {
      const r = await run('(lambda () (let loop ((i 0)) (if (< i 100) (loop (+ i 1)) i)))');
      assert.ok(r.ok, r.message);
      const bytes = dist.encode([R_SPAWN, r.value, null, false]);
      /** @type {any} */
      let ok;
      /** @type {any} */
      let pid = null;
      /** @type {boolean | null} */
      let endedBeforeNextTask = null;
      // queued before the request: it sees whether the process ran in the request's task
      setImmediate(() => { endedBeforeNextTask = node.bySerialNumber(pid.n) === null; });
      const answer = dist.onRequest('peer', bytes);
      assert.ok(answer instanceof Uint8Array, 'answered synchronously, not with a promise');
      [ok, pid] = /** @type {any[]} */ (decodeValue(answer));
      assert.equal(ok, true);
      assert.ok(pid instanceof Pid && pid.node === node.id);
      assert.ok(node.bySerialNumber(pid.n) !== null, 'not run before the answer was written');
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(endedBeforeNextTask, true, 'the spawned process ran (and ended) in the task of its request');
    } finally {
      node.remote = null;
    }
  }));

test('a request that needs waiting goes the asynchronous way, and a malformed one is refused with its reason', () =>
  withNode(async ({ node }) => {
    const logs = /** @type {string[]} */ ([]);
    const dist = new Distribution(node, standInMesh(), { log: (s) => logs.push(s) });
    try {
      const evalAnswer = dist.onRequest('peer', dist.encode([R_EVAL, '(+ 1 2)']));
      assert.ok(evalAnswer instanceof Promise, 'EVAL is answered later');
      const [ok, reason] = /** @type {any[]} */ (decodeValue(await evalAnswer));
      assert.equal(ok, false);
      assert.match(String(reason), /does not evaluate code for that peer/);
      const bad = dist.onRequest('peer', new Uint8Array([0xff, 0x00]));
      assert.ok(bad instanceof Uint8Array, 'a value that cannot be decoded is refused at once');
      assert.equal(/** @type {any[]} */ (decodeValue(bad))[0], false);
      assert.ok(logs.some((l) => /request from peer refused/.test(l)), logs.join('\n'));
    } finally {
      node.remote = null;
    }
  }));
