// @ts-check
/**
 * Several nodes in one JavaScript realm (the JS API lets a program start more than one;
 * tests and benchmarks do): a pid decoded by one of them that names a process of
 * another is that other node's, never taken for a local process of the first — even
 * though the codec caches, on the pid, the process it names when any node of the realm
 * hosts it (realm-nodes.js). Two real mesh nodes on loopback, each with a Termite node
 * and its Distribution: a process of node B sends its pid to an echo server on node A,
 * whose answer must reach B.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMeshNode, createIdentity, createMemoryLogger } from '@termite/mesh';
import { createNode } from '../src/index.js';
import { Distribution } from '../src/distribution.js';
import { Pid } from '../src/termite-values.js';

const TOKEN = 'realm-pids-test-token';

/**
 * Await `p` for at most `ms`. @template T @param {Promise<T>} p @param {number} ms @param {string} what
 * @returns {Promise<T>}
 */
function within(p, ms, what) {
  /** @type {any} */
  let t;
  return Promise.race([p, new Promise((_, reject) => { t = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms); })])
    .finally(() => clearTimeout(t));
}

test('a pid decoded by one node of the realm, naming another\'s process, reaches that process over the mesh', async () => {
  const meshB = createMeshNode({ identity: await createIdentity(), token: TOKEN, listen: { host: '127.0.0.1', port: 0 }, webrtc: false, logger: createMemoryLogger() });
  await meshB.start();
  const meshA = createMeshNode({ identity: await createIdentity(), token: TOKEN, webrtc: false, logger: createMemoryLogger(), join: [meshB.addresses()[0]] });
  await meshA.start();
  const a = /** @type {any} */ (await createNode({ id: meshA.id }));
  const b = /** @type {any} */ (await createNode({ id: meshB.id }));
  new Distribution(a, meshA, {});
  new Distribution(b, meshB, {});
  try {
    /** @type {(v: any) => void} */
    let answered = () => {};
    const answer = new Promise((resolve) => (answered = resolve));
    const receiver = b.spawnHandler((/** @type {any} */ msg) => answered(msg));
    // on A: answers [from x] with x, to `from` as decoded from the message
    const r = await a.runProgram('(lambda () (let loop () (let ((m (?))) (! (vector-ref m 0) (vector-ref m 1))) (loop)))', { file: 'echo.scm' });
    assert.ok(r.ok, r.message);
    const echo = a.spawnCall(r.value, []);
    b.send(new Pid(echo.pid.node, echo.pid.n), [new Pid(receiver.pid.node, receiver.pid.n), 'hello']);
    assert.equal(await within(answer, 10_000, 'the echo reaching the process on B'), 'hello');
  } finally {
    a.stop();
    b.stop();
    await Promise.all([meshA.stop(), meshB.stop()]);
  }
});
