// @ts-check
/**
 * DTS batching (docs/linda.md, "Distributed spaces", batching): the DTS messages a node
 * sends one member during one task leave as one BATCH frame, in order, and nothing the
 * node sends that member afterwards overtakes them.
 *  - a raw peer (helpers/peer.js) joined as a member counts the frames a burst of 40
 *    `out`s on the daemon arrives in, and checks the OUTs' order;
 *  - two real daemons: the home makes 50 tuples and then sends `!` to a process on the
 *    member, which counts the tuples in its replica as the message arrives: all 50.
 * Daemons are OS processes on free loopback ports, stopped by PID; every wait is bounded.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { decodeValue, writeString } from '@termite/scheme';
import { startDaemon, runProgram, newToken } from './helpers/daemons.js';
import { hostilePeer } from './helpers/peer.js';

const DTS = 34;
const D = { OUT: 1, REPAIR_REQ: 8, REPAIR_ACK: 9, BATCH: 11 };
/** @type {import('./helpers/daemons.js').Daemon[]} */
const started = [];
/** @type {Array<Awaited<ReturnType<typeof hostilePeer>>>} */
const peers = [];

after(async () => {
  await Promise.all(peers.map((p) => p.stop()));
  await Promise.all(started.map((d) => d.stop('SIGKILL')));
});

/** @param {Parameters<typeof startDaemon>[0]} opts */
async function daemon(opts) {
  const d = await startDaemon(opts);
  started.push(d);
  return d;
}

/** Run Scheme through a node joined to `d`; its printed lines. @param {any} d @param {string} token @param {string} body */
async function program(d, token, body) {
  const r = await runProgram(`(define (show . xs) (write xs) (newline))
${body}`, { token, join: [d.url], timeoutMs: 30000 });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  return r.stdout;
}

test('a burst of outs reaches a member in a few frames, in order', async () => {
  const token = newToken();
  const d = await daemon({ token });
  await program(d, token, `(define d (make-node "127.0.0.1" ${d.port}))
(on d (lambda () (make-space 'burst 'distributed) #t))`);
  const p = await hostilePeer(d, token);
  peers.push(p);
  const join = p.frames.length;
  p.send([DTS, D.REPAIR_REQ, 'burst', true, []]);
  await p.frame((f) => p.frames.indexOf(f) >= join && f[0] === DTS && f[1] === D.REPAIR_ACK && f[6] === true, 'the join');
  const mark = p.frames.length, batchMark = p.dtsBatches.length;
  await program(d, token, `(define d (make-node "127.0.0.1" ${d.port}))
(on d (lambda () (define s (make-space 'burst 'distributed)) (do ((k 1 (+ k 1))) ((> k 40)) (out s "task" k)) #t))`);
  const outs = () => p.frames.slice(mark).filter((f) => f[0] === DTS && f[1] === D.OUT && f[2] === 'burst');
  await p.frame(() => outs().length === 40, 'the 40 OUTs');
  assert.deepEqual(outs().map((f) => writeString(decodeValue(f[5]))), Array.from({ length: 40 }, (_, k) => `#("task" ${k + 1})`), 'in the order made');
  const serials = outs().map((f) => Number(String(f[3]).split('/').pop()));
  assert.ok(serials.every((n, i) => i === 0 || n > serials[i - 1]), 'ids in the order made');
  const batches = p.dtsBatches.slice(batchMark);
  const plain = p.frames.slice(mark).length - batches.reduce((n, b) => n + b[3].length, 0);
  assert.ok(batches.length >= 1, 'at least one BATCH frame');
  assert.ok(batches.length + plain <= 4, `40 OUTs in at most 4 frames (${batches.length} batches, ${plain} single frames); one each before`);
});

test('a message sent after a burst of outs does not overtake them', async () => {
  const token = newToken();
  const h = await daemon({ token });
  const q = await daemon({ token, join: [h.url] });
  const out = await program(h, token, `(define h (make-node "127.0.0.1" ${h.port}))
(define q (make-node "127.0.0.1" ${q.port}))
(define s (on h (lambda () (make-space 'ordered 'distributed))))
(on q (lambda () (space-count s "t" ?integer))) ; q joins
(define counter (on q (lambda () (spawn (lambda () (let ((m (?))) (! m (space-count s "t" ?integer))))))))
(show 'counted (on h (lambda () (do ((k 1 (+ k 1))) ((> k 50)) (out s "t" k)) (! counter (self)) (? 10 'no-answer))))`);
  assert.match(out, /\(counted 50\)/, out);
});
