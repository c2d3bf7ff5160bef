// @ts-check
/**
 * Frames held back for a node leave before anything else sent to it
 * (distribution/destination-holds.js): a DTS batch (linda/dts-batch.js) and an `out`
 * to another node's space held until the next frame (linda/remote-spaces.js). Node A
 * (a Termite node with its Distribution and a real mesh node) is joined over loopback
 * to node B, a bare mesh node that records, in arrival order, the frames and requests
 * A sends it. For each path A sends by — `emit`, `send`, `call`, a request's answer,
 * and a Scheme process's `!` after an `out` — the held frames must arrive first. Every
 * wait is bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMeshNode, createIdentity, createMemoryLogger } from '@termite/mesh';
import { encodeValue, decodeValue } from '@termite/scheme/internal';
import { Pair } from '@termite/scheme';
import { createNode } from '../src/index.js';
import { Distribution } from '../src/distribution.js';
import { Pid, SpaceRef } from '../src/termite-values.js';
import { dtsSend } from '../src/linda/dts-batch.js';

const TOKEN = 'destination-holds-test-token';
const F_SEND = 1, F_KILL = 5, F_SPACE_OP = 30, F_DTS = 34, D_BATCH = 11;
const R_SERVICE = 24, R_STATS = 25;

/**
 * Await `p` for at most `ms`.
 * @template T @param {Promise<T>} p @param {number} ms @param {string} what @returns {Promise<T>}
 */
function within(p, ms, what) {
  /** @type {any} */
  let t;
  return Promise.race([p, new Promise((_, reject) => { t = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms); })])
    .finally(() => clearTimeout(t));
}

/** What B saw, by kind: a DTS batch or message, another frame by its type, a request. @param {any} f */
function kindOf(f) {
  if (!Array.isArray(f)) return `? ${String(f)}`;
  if (f[0] === F_DTS && f[1] === D_BATCH) return `dts batch of ${f[3].length}`;
  if (f[0] === F_DTS) return 'dts';
  return `frame ${f[0]}`;
}

/**
 * A joined to B. B's `seen` lists what arrived, in order; `arrivals(n)` waits until n
 * have. `seeLater` records a frame from a microtask instead (queued as the frame is
 * handled: so it orders with a request's answer, whose reaction is queued as that is).
 */
async function pair() {
  const meshB = createMeshNode({ identity: await createIdentity(), token: TOKEN, listen: { host: '127.0.0.1', port: 0 }, webrtc: false, logger: createMemoryLogger() });
  await meshB.start();
  /** @type {string[]} */
  const seen = [];
  /** @type {Array<() => void>} */
  let wake = [];
  const note = (/** @type {string} */ s) => {
    seen.push(s);
    for (const w of wake.splice(0)) w();
  };
  const box = { seeLater: false };
  meshB.onMessage((_from, bytes) => {
    const k = kindOf(decodeValue(bytes));
    if (box.seeLater) queueMicrotask(() => note(k));
    else note(k);
  });
  meshB.onRequest((_from, bytes) => {
    note(`request ${decodeValue(bytes)[0]}`);
    return encodeValue([true, 'ok', []]);
  });
  const meshA = createMeshNode({ identity: await createIdentity(), token: TOKEN, webrtc: false, logger: createMemoryLogger(), join: [meshB.addresses()[0]] });
  const joined = await meshA.start();
  assert.equal(joined.joined.length, 1, 'A joined B');
  if (!meshB.isReachable(meshA.id)) {
    await within(new Promise((r) => meshB.on('peer:up', (e) => { if (e.id === meshA.id) r(undefined); })), 5000, 'B seeing A');
  }
  /** @type {string[]} */
  const logA = [];
  const a = /** @type {any} */ (await createNode({ id: meshA.id, log: (s) => logA.push(s) }));
  const distA = /** @type {any} */ (new Distribution(a, meshA, { log: (s) => logA.push(s) }));
  /** Resolve once B has seen `n` things. @param {number} n */
  const arrivals = async (n) => {
    const until = Date.now() + 5000;
    while (seen.length < n) {
      const left = until - Date.now();
      if (left <= 0) throw new Error(`B saw ${seen.length} of ${n}: ${seen.join(', ')}`);
      await within(new Promise((r) => wake.push(() => r(undefined))), left, `B seeing ${n} frames`);
    }
    return seen.slice(0, n);
  };
  const stop = async () => {
    a.stop();
    await meshA.stop();
    await meshB.stop();
  };
  return { a, distA, meshA, meshB, seen, box, arrivals, stop, b: meshB.id, logA };
}

/** Two DTS messages to `to` in this task: a batch held for it. @param {any} d @param {string} to */
function holdBatch(d, to) {
  dtsSend(d, to, [F_DTS, 1, 'held', 'first']);
  dtsSend(d, to, [F_DTS, 1, 'held', 'second']);
  assert.equal(d.holdCount, 1, 'one batch is held for B');
}

/** Each way A sends to B, and what B sees of it. */
const PATHS = [
  { path: 'a frame emitted to it', seen: `frame ${F_KILL}`, go: (/** @type {any} */ p) => p.distA.emit(p.b, [F_KILL, p.b, 7]) },
  { path: 'a `!` to a process there', seen: `frame ${F_SEND}`, go: (/** @type {any} */ p) => p.distA.send(new Pid(p.b, 7), 'after the batch') },
  { path: 'a request to it', seen: `request ${R_SERVICE}`, go: (/** @type {any} */ p) => p.distA.call(p.b, [R_SERVICE, 'anything']) },
];

for (const { path, seen, go } of PATHS) {
  test(`a DTS batch held for a node leaves before ${path}`, async () => {
    const p = await pair();
    try {
      holdBatch(p.distA, p.b);
      const answer = go(p);
      assert.equal(p.distA.holdCount, 0, 'the hold was released');
      assert.deepEqual(await p.arrivals(2), ['dts batch of 2', seen]);
      if (answer instanceof Promise) assert.equal(await within(answer, 5000, 'the answer'), 'ok');
      // nothing held now: a lone DTS message leaves as itself at the end of the task
      dtsSend(p.distA, p.b, [F_DTS, 1, 'held', 'alone']);
      assert.deepEqual((await p.arrivals(3)).slice(2), ['dts']);
    } finally {
      await p.stop();
    }
  });
}

test("a request's answer written in the task that batched DTS messages to the asking node arrives after them", async () => {
  const p = await pair();
  try {
    // while A answers B's request, A's node sends B two DTS messages (in the same task, before the answer is written)
    const answerNow = p.distA.answerNow;
    p.distA.answerNow = function (/** @type {string} */ from, /** @type {any[]} */ req) {
      if (req[0] === R_STATS) holdBatch(this, from);
      return answerNow.call(this, from, req);
    };
    p.box.seeLater = true; // B's record of a frame is queued as the answer's reaction is: both in arrival order
    const answer = p.meshB.request(p.distA.mesh.id, encodeValue([R_STATS])).then((bytes) => {
      p.seen.push('answer');
      return decodeValue(bytes);
    });
    const [ok] = /** @type {any[]} */ (await within(answer, 5000, 'the answer to STATS'));
    assert.equal(ok, true);
    assert.deepEqual(await p.arrivals(2), ['dts batch of 2', 'answer'], 'the batch first, then the answer');
  } finally {
    await p.stop();
  }
});

test("an `out` to another node's space held by a process leaves before its next `!` to that node, and by the run loop's end when nothing follows", async () => {
  const p = await pair();
  try {
    const ref = new SpaceRef(p.b, 'held', 'central');
    const proc = p.a.spawnScheme(`(lambda () (let ((m (?))) (out (car m) '(job 1)) (! (cdr m) 'after-the-out) (out (car m) '(job 2))))`);
    p.a.send(proc, new Pair(ref, new Pid(p.b, 9)));
    assert.deepEqual(await p.arrivals(3), [`frame ${F_SPACE_OP}`, `frame ${F_SEND}`, `frame ${F_SPACE_OP}`]);
    assert.equal(p.distA.holdCount, 0, 'nothing is left held once the loop ended');
  } finally {
    await p.stop();
  }
});

test('a DTS batch held for a node leaves before a frame this node forwards to it (for a process that moved there)', async () => {
  const p = await pair();
  try {
    // a process of A's moved to B: A forwards its frames there; a batch for B is made in the task that forwards one
    p.distA.forwarding.set(`${p.distA.mesh.id}/99`, p.b);
    const handleFrame = p.distA.handleFrame;
    p.distA.handleFrame = function (/** @type {string} */ from, /** @type {any} */ f, /** @type {Uint8Array} */ bytes) {
      if (f[0] === F_SEND && f[2] === 99) holdBatch(this, p.b);
      return handleFrame.call(this, from, f, bytes);
    };
    assert.equal(p.meshB.send(p.distA.mesh.id, encodeValue([F_SEND, p.distA.mesh.id, 99, 'forwarded', []])), true);
    assert.deepEqual(await p.arrivals(2), ['dts batch of 2', `frame ${F_SEND}`]);
    assert.equal(p.distA.stats.forwarded, 1);
  } finally {
    await p.stop();
  }
});
