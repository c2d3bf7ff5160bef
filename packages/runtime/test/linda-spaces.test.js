// @ts-check
/**
 * Space references and the holder's side of the SPACE frames, on one node
 * (node-daemon/test/linda-central.test.js runs them between real daemons): kinds, the
 * reference's codec, hostile references and frames refused with their reason (the
 * node keeps serving), the acknowledgement that makes a remote withdrawal final or
 * puts the tuple back, remote waits kept as waiter records answered by the matching
 * out, a distributed in whose ownership request is lost or whose owner left unannounced,
 * and a SpaceStore replayed into the core. The mesh here is a
 * stand-in that records the frames Distribution gives it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeValue, decodeValue, writeString } from '@termite/scheme/internal';
import { withNode } from './harness.js';
import { Distribution } from '../src/distribution.js';
import { SpaceRef, Formal } from '../src/termite-values.js';
import { attachSpaceStore, coreSpace } from '../src/linda/space-table.js';

const TAG_SPACE = 40983;

/** A stand-in for a started MeshNode that keeps what is sent. */
function recordingMesh() {
  /** @type {{to: string, frame: any}[]} */
  const sent = [];
  /** @type {Set<string>} */
  const unreachable = new Set();
  return {
    sent,
    unreachable,
    mesh: { id: 'stand-in', onMessage() {}, onRequest() {}, on() {}, isReachable: (/** @type {string} */ id) => !unreachable.has(id), send: (/** @type {string} */ to, /** @type {Uint8Array} */ bytes) => (sent.push({ to, frame: decodeValue(bytes) }), true) },
  };
}

test('make-space kinds, space-kind, space-home, space-count, and a reference that goes through the codec unchanged', () =>
  withNode(async ({ run }) => {
    const r = await run(`
(define l (make-space 'l))
(define c (make-space 'c 'central))
(out c 'a 1) (out c 'a 2) (out c 'b 3)
(list (space-kind l) (space-kind c) (space-kind (make-space 'c)) (equal? (space-home c) (space-home l))
      (space-count c 'a ?integer) (space-count c ?symbol ?integer)
      (equal? c (make-space 'c 'central)) (equal? l c))`);
    assert.ok(r.ok, r.message);
    assert.equal(writeString(r.value), '(local central central #t 2 3 #t #f)');
    for (const ref of [new SpaceRef('node-a', 'jobs', 'central'), new SpaceRef('node-a', 'jobs')]) {
      const back = /** @type {any} */ (decodeValue(encodeValue(ref)));
      assert.ok(back instanceof SpaceRef);
      assert.deepEqual([back.node, back.name, back.kind], [ref.node, ref.name, ref.kind]);
    }
  }));

test('malformed space references are refused by the codec with a clear error', () => {
  /** @param {any} fields */
  const tagged = (fields) => {
    const inner = encodeValue(fields);
    return Uint8Array.from([0xd9, TAG_SPACE >> 8, TAG_SPACE & 0xff, ...inner]);
  };
  assert.throws(() => decodeValue(tagged(['node-a'])), /a space reference is \[home, name\] or \[home, name, kind\]/);
  assert.throws(() => decodeValue(tagged(['node-a', 'x', 'replicated'])), /unknown space kind "replicated"/);
  assert.throws(() => decodeValue(tagged(['node-a', 7])), /space name must be a string/);
  assert.throws(() => decodeValue(tagged(['node-a', 'x'.repeat(300)])), /at most 256 characters/);
});

test('hostile SPACE frames are refused with their reason, and the holder keeps serving', () =>
  withNode(async ({ node, log }) => {
    const { sent, unreachable, mesh } = recordingMesh();
    const dist = new Distribution(node, /** @type {any} */ (mesh), { log: (s) => log.push(s) });
    try {
      const tpl = encodeValue(['job', 1]);
      const dropped = dist.stats.dropped;
      dist.onSpaceFrame('peer', [30, 1, 99, 'q', 'central', tpl, false, []]);
      dist.onSpaceFrame('peer', [30, 2, 1, '', 'central', tpl, false, []]);
      dist.onSpaceFrame('peer', [30, 3, 1, 'q', 'replicated', tpl, false, []]);
      dist.onSpaceFrame('peer', [30, 4, 1, 'q', 'central', 'not bytes', false, []]);
      dist.onSpaceFrame('peer', [30, 5, 4, 'q', 'central', tpl, -5, []]);
      dist.onSpaceFrame('peer', [30, 6, 1, 'q', 'central', new Uint8Array([0x82, 0xff]), false, []]);
      dist.onSpaceFrame('peer', [31, 'x', 0, 0, []]);
      dist.onSpaceFrame('peer', [32, 77, true, []]);
      const replies = sent.filter((s) => s.frame[0] === 31).map((s) => [s.frame[1], s.frame[2], String(s.frame[3])]);
      assert.deepEqual(replies.map((r) => r[0]), [1, 2, 3, 4, 5, 6]);
      assert.ok(replies.every((r) => r[1] === 4), 'every one answered with an error');
      assert.match(replies[0][2], /unknown operation 99/);
      assert.match(replies[1][2], /the space name must be a string of 1 to 256 characters/);
      assert.match(replies[2][2], /the space kind must be local or central/);
      assert.match(replies[3][2], /the tuple or template must be a bytevector/);
      assert.match(replies[4][2], /the timeout must be #f or a non-negative number/);
      assert.match(replies[5][2], /^out: /);
      // refusals are logged at most once a second (a flood costs a line a second), each counted
      assert.ok(log.some((l) => /frame from peer refused: malformed SPACE_OP frame: unknown operation 99/.test(l)), log.join('\n'));
      assert.equal(dist.stats.dropped - dropped, 7, 'five malformed requests, the bad request number, the stray ACK');
      assert.equal(log.filter((l) => /refused/.test(l)).length, 2, 'one frame refusal and one request refusal logged in this second');
      // still serving: an out and an inp, the withdrawn tuple held until its ACK
      sent.length = 0;
      dist.onSpaceFrame('peer', [30, 7, 1, 'q', 'central', tpl, false, []]);
      dist.onSpaceFrame('peer', [30, 8, 2, 'q', 'central', tpl, false, []]);
      assert.deepEqual(sent.map((s) => [s.frame[1], s.frame[2]]), [[7, 0], [8, 1]]);
      const q = coreSpace(node, 'q');
      assert.equal(q.size, 0, 'withdrawn, waiting for the acknowledgement');
      dist.onSpaceFrame('peer', [32, 8, false, []]);
      assert.equal(q.size, 1, 'ACK #f puts it back');
      dist.onSpaceFrame('peer', [30, 9, 2, 'q', 'central', tpl, false, []]);
      dist.onSpaceFrame('peer', [32, 9, true, []]);
      assert.equal(q.size, 0, 'ACK #t makes the withdrawal final');
      dist.onSpaceFrame('peer', [30, 10, 2, 'q', 'central', tpl, false, []]);
      assert.deepEqual(sent.at(-1)?.frame.slice(1, 4), [10, 0, false], 'nothing left: inp answers #f');
      // a withdrawn tuple not yet acknowledged goes back when its requester's node goes away
      dist.onSpaceFrame('peer', [30, 11, 1, 'q', 'central', tpl, false, []]);
      dist.onSpaceFrame('peer', [30, 12, 2, 'q', 'central', tpl, false, []]);
      assert.equal(q.size, 0);
      dist.spacesPeerDown('peer', 'test');
      assert.equal(q.size, 1);
      // the same when a peer reached through others loses its last route
      dist.onSpaceFrame('peer', [30, 13, 2, 'q', 'central', tpl, false, []]);
      assert.equal(q.size, 0);
      dist.spacesRoutesChanged();
      assert.equal(q.size, 0, 'still reachable: still held for it');
      unreachable.add('peer');
      dist.spacesRoutesChanged();
      assert.equal(q.size, 1, 'no route to it any more: put back');
      // a blocked in whose requesting process ended: CANCEL drops the holder's waiter record
      unreachable.clear();
      const never = encodeValue(['never', 0]);
      dist.onSpaceFrame('peer', [30, 14, 4, 'q', 'central', never, false, []]);
      assert.equal(dist.spaceState.jobs.size, 1, 'a waiter record waits for it');
      const job = [...dist.spaceState.jobs.values()][0];
      assert.ok(job.record !== null && job.timer === null, 'a record, no timer, for a wait with no timeout');
      assert.equal(coreSpace(node, 'q').waiters, 1);
      dist.onSpaceFrame('peer', [33, 14, []]);
      assert.equal(dist.spaceState.jobs.size, 0);
      assert.equal(coreSpace(node, 'q').waiters, 0, 'the record is dropped');
      dist.onSpaceFrame('peer', [33, 'x', []]);
      dist.onSpaceFrame('peer', [33, 15, 'extra', []]);
      assert.equal(dist.stats.dropped - dropped, 9, 'the two malformed CANCELs refused too');
    } finally {
      node.remote = null;
    }
  }));

test('a SpaceStore is replayed into the core, oldest first; outs and withdrawals of its spaces are logged', () =>
  withNode(async ({ node, run }) => {
    /** @type {Map<string, Uint8Array[]>} */
    const rows = new Map([['kept', [encodeValue(['t', 1]), encodeValue(['t', 2])]]]);
    const key = (/** @type {Uint8Array} */ b) => Buffer.from(b).toString('hex');
    const store = {
      declare: (/** @type {string} */ s) => void (rows.has(s) || rows.set(s, [])),
      append: (/** @type {string} */ s, /** @type {Uint8Array} */ b) => void rows.get(s)?.push(b),
      remove: (/** @type {string} */ s, /** @type {Uint8Array} */ b) => {
        const list = rows.get(s) ?? [];
        const i = list.findIndex((x) => key(x) === key(b));
        if (i >= 0) list.splice(i, 1);
        return i >= 0;
      },
      load: () => [...rows].map(([space, tuples]) => ({ space, tuples: [...tuples] })),
    };
    assert.equal(attachSpaceStore(node, store), 2);
    const r = await run(`
(define k (make-space 'kept))
(define n (make-space 'new 'central))
(out n "x" 1) (out n "x" 2) (out (make-space 'loc) 'y 1)
(list (space-kind k) (in k "t" ?integer) (inp n "x" 1))`);
    assert.ok(r.ok, r.message);
    assert.equal(writeString(r.value), '(central ("t" 1) ("x" 1))');
    assert.deepEqual([...rows.keys()].sort(), ['kept', 'new'], 'a local space is not logged');
    assert.deepEqual(rows.get('kept')?.map((b) => decodeValue(b)), [['t', 2]]);
    assert.deepEqual(rows.get('new')?.map((b) => String(decodeValue(b))), ['x,2']);
  }));

test('space-bridge moves every matching tuple from one space to another as they come, and refuses nonsense', () =>
  withNode(async ({ run }) => {
    const r = await run(`
(define a (make-space 'bridge-a))
(define b (make-space 'bridge-b 'central))
(out a 'job 1) (out a 'other 2)
(define agent (space-bridge a b 'job ?integer))
(out a 'job 3)
(define got (list (in b 'job 1) (in b 'job 3)))
(terminate! agent)
(list got (space-count a ?any ?any) (space-count b ?any ?any)
      (catch (lambda (e) (error-object-message e)) (space-bridge a a 'x))
      (catch (lambda (e) (error-object-message e)) (space-bridge a 'b 'x)))`);
    assert.ok(r.ok, r.message);
    assert.equal(writeString(r.value), '(((job 1) (job 3)) 1 0 "space-bridge: the two spaces are the same space" "space-bridge: expected two spaces")');
  }));

test('with-qos: an operation past its deadline fails with a clear error; earliest deadline first within a priority, higher priorities first', () =>
  withNode(async ({ run }) => {
    const r = await run(`
(define s (make-space 'qos))
(define (message-of thunk) (catch (lambda (e) (error-object-message e)) (thunk)))
(define late (message-of (lambda () (with-qos 2 0.05 (lambda () (in s 'never))))))
(define own-first (with-qos 2 5 (lambda () (in-timeout 0.02 'own-timeout s 'never))))
(define after (in-timeout 0.02 'plain-default s 'never))
(define (reader name prio secs)
  (spawn (lambda () (with-qos prio secs (lambda () (out s 'ready name) (rd s 'go) (out s 'ran name))))))
(reader 'a 2 10) (reader 'b 2 1) (reader 'c 1 #f)
;; each reader announces itself and blocks in its rd in the same slice
(in s 'ready ?symbol) (in s 'ready ?symbol) (in s 'ready ?symbol)
(out s 'go)
(define order (list (cadr (in s 'ran ?symbol)) (cadr (in s 'ran ?symbol)) (cadr (in s 'ran ?symbol))))
(list late own-first after order
      (message-of (lambda () (with-qos 7 1 (lambda () 1))))
      (message-of (lambda () (with-qos 1 -1 (lambda () 1)))))`);
    assert.ok(r.ok, r.message);
    assert.equal(writeString(r.value), '("in: the operation passed its deadline (with-qos) before a tuple matched" own-timeout plain-default (c b a) "a priority is 0 (first), 1, 2 or 3 (last)" "expected a non-negative timeout in seconds")');
  }));

test('remote waits with no timeout are waiter records, answered by the matching out itself: every rd a copy, one in by priority then arrival; timed ones too, with a timer', () =>
  withNode(async ({ node, run }) => {
    const { sent, mesh } = recordingMesh();
    const dist = new Distribution(node, /** @type {any} */ (mesh), { log: () => {} });
    try {
      const sym = (await run(`'r`)).value;
      const tpl = encodeValue([sym, 7]);
      const any = encodeValue([sym, new Formal(1)]);
      dist.onSpaceFrame('a', [30, 1, 4, 'w', 'central', any, false, 3, []]);  // in, priority 3
      dist.onSpaceFrame('b', [30, 2, 4, 'w', 'central', any, false, 1, []]);  // in, priority 1: served first
      dist.onSpaceFrame('c', [30, 3, 5, 'w', 'central', tpl, false, []]);     // rd of (r 7)
      dist.onSpaceFrame('c', [30, 4, 5, 'w', 'central', any, false, []]);     // rd of (r ?integer)
      assert.equal(dist.spaceState.jobs.size, 4);
      assert.ok([...dist.spaceState.jobs.values()].every((j) => j.record !== null && !('proc' in j)), 'records, no helper process');
      sent.length = 0;
      const r = await run(`(out (make-space 'w 'central) 'r 7) 'done`);
      assert.ok(r.ok, r.message);
      const replies = sent.filter((s) => s.frame[0] === 31).map((s) => [s.to, s.frame[1], s.frame[2], writeString(decodeValue(s.frame[3]))]);
      assert.deepEqual(replies.sort(), [['b', 2, 1, '#(r 7)'], ['c', 3, 2, '#(r 7)'], ['c', 4, 2, '#(r 7)']].sort(), 'both readers and the priority-1 taker');
      assert.equal(coreSpace(node, 'w').size, 0, 'withdrawn for b (until its ACK)');
      assert.equal(dist.spaceState.jobs.size, 1, 'a still waits');
      dist.onSpaceFrame('b', [32, 2, false, []]); // b gives it back: it goes to the next taker
      const again = sent.filter((s) => s.frame[0] === 31 && s.to === 'a');
      assert.equal(again.length, 1, 'a put-back tuple is offered to the records');
      assert.equal(dist.spaceState.jobs.size, 0);
      // with a timeout it is a record with a timer (no process), which CANCEL drops
      const procs = node.core.processStats().live;
      dist.onSpaceFrame('peer', [30, 16, 4, 'q', 'central', tpl, 60000, []]);
      const timed = [...dist.spaceState.jobs.values()][0];
      assert.ok(timed.record !== null && timed.timer !== null, 'a record and a timer wait for it');
      assert.equal(node.core.processStats().live, procs, 'no helper process');
      dist.onSpaceFrame('peer', [33, 16, []]);
      assert.equal(dist.spaceState.jobs.size, 0);
      assert.equal(timed.timer, null, 'the timer is cleared');
      assert.equal(coreSpace(node, 'q').waiters, 0, 'the record is dropped');
      // the timer ends it: "timed out" answered, the record dropped, a later tuple stays
      sent.length = 0;
      dist.onSpaceFrame('peer', [30, 17, 5, 'q', 'central', tpl, 20, 0, []]);
      const until = Date.now() + 5000;
      while (dist.spaceState.jobs.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      assert.deepEqual(sent.map((x) => x.frame.slice(0, 4)), [[31, 17, 3, false]], 'timed out');
      assert.equal(coreSpace(node, 'q').waiters, 0, 'the record is dropped');
    } finally {
      node.remote = null;
    }
  }));

test("a remote waiting in and the home's own waiting processes are served in one order: priority, then arrival, whatever the kind", () =>
  withNode(async ({ node, run }) => {
    const { sent, mesh } = recordingMesh();
    const dist = new Distribution(node, /** @type {any} */ (mesh), { log: () => {} });
    try {
      // a local process waits first, at the default priority (2)
      const r0 = await run(`(define w (make-space 'one 'central))
        (define me (self))
        (spawn (lambda () (! me 'waiting) (out w 'local (in w 'job ?integer))))
        (?) 'ok`);
      assert.ok(r0.ok, r0.message);
      const sym = (await run(`'job`)).value;
      const any = encodeValue([sym, new Formal(1)]);
      dist.onSpaceFrame('far', [30, 1, 4, 'one', 'central', any, false, 1, []]); // then a remote in at priority 1
      dist.onSpaceFrame('late', [30, 2, 4, 'one', 'central', any, false, 3, []]); // and one at priority 3
      assert.equal(coreSpace(node, 'one').waiters, 3, 'all three wait in the core');
      sent.length = 0;
      const r1 = await run(`(out (make-space 'one 'central) 'job 1) 'done`);
      assert.ok(r1.ok, r1.message);
      const first = sent.filter((s) => s.frame[0] === 31).map((s) => [s.to, writeString(decodeValue(s.frame[3]))]);
      assert.deepEqual(first, [['far', '#(job 1)']], 'the remote in of priority 1 before the local process of priority 2');
      sent.length = 0;
      const r2 = await run(`(define w (make-space 'one 'central)) (out w 'job 2) (in w 'local ?any)`);
      assert.ok(r2.ok, r2.message);
      assert.equal(writeString(r2.value), '(local (job 2))', 'then the local process, before the remote in of priority 3');
      assert.equal(sent.filter((s) => s.frame[0] === 31).length, 0);
      dist.onSpaceFrame('late', [33, 2, []]);
      assert.equal(coreSpace(node, 'one').waiters, 0);
    } finally {
      node.remote = null;
    }
  }));

/** Wait (bounded) until `pred` holds. @param {() => boolean} pred @param {string} what */
async function until(pred, what, ms = 8000) {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('a distributed in whose ownership request is lost asks again, and one whose owner left unannounced gets the tuple from its heir', () =>
  withNode(async ({ node, run }) => {
    const { sent, unreachable, mesh } = recordingMesh();
    const dist = new Distribution(node, /** @type {any} */ (mesh), { log: () => {} });
    try {
      const r0 = await run(`(space-count (make-space 'dd 'distributed) ?any)`); // home here: ready
      assert.ok(r0.ok, r0.message);
      const sym = (await run(`'job`)).value;
      dist.onSpaceFrame('x', [34, 1, 'dd', 'x/b/1', 'x', encodeValue([sym, 1]), []]); // x made (job 1), owns it
      dist.onSpaceFrame('y', [34, 1, 'dd', 'y/b/1', 'y', encodeValue([sym, 2]), []]); // y made (job 2)
      sent.length = 0;
      const chownsTo = (/** @type {string} */ to) => sent.filter((s) => s.to === to && s.frame[0] === 34 && s.frame[1] === 4).length;
      // x stays reachable but its answer never comes: the request goes again
      const p1 = run(`(in (make-space 'dd 'distributed) 'job 1)`);
      await until(() => chownsTo('x') >= 2, 'the ownership request sent again');
      dist.onSpaceFrame('x', [34, 5, 'dd', 'x/b/1', node.id, []]); // CHOWN_ACK: it is ours
      const r1 = await p1;
      assert.ok(r1.ok, r1.message);
      assert.equal(writeString(r1.value), '(job 1)');
      // y leaves with no peer-down heard here: the request is looked at again, y is gone,
      // and its tuple passes to its heir, the space's home — this node
      const p2 = run(`(in (make-space 'dd 'distributed) 'job 2)`);
      await until(() => chownsTo('y') >= 1, 'the ownership request to y');
      unreachable.add('y');
      const r2 = await p2;
      assert.ok(r2.ok, r2.message);
      assert.equal(writeString(r2.value), '(job 2)');
      assert.equal(chownsTo('y'), 1, 'not asked again of a node that is gone');
      const left = await run(`(space-count (make-space 'dd 'distributed) ?any ?any)`);
      assert.equal(left.value, 0, 'each tuple withdrawn once');
    } finally {
      node.remote = null;
    }
  }));

test('an acknowledgement carrying the next SPACE_OP (and an out held back before it): the ACK first, then the operations in order; a carrier of anything else is refused with its reason', () =>
  withNode(async ({ node, log }) => {
    const { sent, mesh } = recordingMesh();
    const dist = new Distribution(node, /** @type {any} */ (mesh), { log: (s) => log.push(s) });
    try {
      const tpl = encodeValue(['job', 1]);
      const q = coreSpace(node, 'q');
      dist.onSpaceFrame('peer', [30, 1, 1, 'q', 'central', tpl, false, []]);
      dist.onSpaceFrame('peer', [30, 2, 2, 'q', 'central', tpl, false, []]);
      assert.equal(q.size, 0, 'withdrawn, waiting for its acknowledgement');
      // ACK #f puts the tuple back before the carried inp runs, so the inp finds it
      dist.onSpaceFrame('peer', [32, 2, false, [30, 3, 2, 'q', 'central', tpl, false], []]);
      assert.deepEqual(sent.at(-1)?.frame.slice(1, 3), [3, 1], 'the carried inp took the tuple put back');
      dist.onSpaceFrame('peer', [32, 3, true, [30, 4, 2, 'q', 'central', tpl, false], []]);
      assert.deepEqual(sent.at(-1)?.frame.slice(1, 4), [4, 0, false], 'ACK #t made the withdrawal final: nothing left');
      // a carried operation keeps its own checks, and its priority
      dist.onSpaceFrame('peer', [32, 77, true, [30, 5, 99, 'q', 'central', tpl, false], []]);
      assert.deepEqual(sent.at(-1)?.frame.slice(1, 3), [5, 4]);
      assert.match(String(sent.at(-1)?.frame[3]), /unknown operation 99/);
      const dropped = dist.stats.dropped;
      dist.onSpaceFrame('peer', [32, 6, true, [31, 6, 0, 0], []]);
      dist.onSpaceFrame('peer', [32, 7, true, 'out', []]);
      dist.onSpaceFrame('peer', [32, 8, true, [32, 9, true, [30, 10, 1, 'q', 'central', tpl, false]], []]);
      dist.onSpaceFrame('peer', [32, 11, 'yes', [30, 12, 1, 'q', 'central', tpl, false], []]);
      assert.ok(dist.stats.dropped - dropped >= 4, 'the four carriers refused');
      assert.equal(q.size, 0, 'no operation they carried ran');
      dist.onSpaceFrame('peer', [30, 13, 1, 'q', 'central', tpl, false, []]);
      assert.equal(q.size, 1, 'still serving');
      // no acknowledgement (0), an out held back and the request after it: the out first
      dist.onSpaceFrame('peer', [32, 0, true, [30, 0, 1, 'q', 'central', tpl, false], [30, 14, 3, 'q', 'central', tpl, false], []]);
      assert.deepEqual(sent.at(-1)?.frame.slice(1, 3), [14, 2], 'the carried rdp read the carried out');
      assert.equal(q.size, 2);
      // with an acknowledgement: ACK, then out, then inp
      dist.onSpaceFrame('peer', [30, 15, 2, 'q', 'central', tpl, false, []]);
      assert.equal(q.size, 1);
      dist.onSpaceFrame('peer', [32, 15, false, [30, 0, 1, 'q', 'central', tpl, false], [30, 16, 6, 'q', 'central', tpl, false], []]);
      assert.deepEqual(sent.at(-1)?.frame.slice(1, 4), [16, 0, 3], 'the tuple given back, the out, then the count');
      const before = dist.stats.dropped;
      dist.onSpaceFrame('peer', [32, 0, true, []]); // nothing to acknowledge, nothing carried
      dist.onSpaceFrame('peer', [32, 0, true, [30, 0, 1, 'q', 'central', tpl, false], [30, 0, 1, 'q', 'central', tpl, false], [30, 0, 1, 'q', 'central', tpl, false], []]);
      dist.onSpaceFrame('peer', [32, 0, true, [30, 0, 1, 'q', 'central', tpl, false], 'inp', []]);
      assert.ok(dist.stats.dropped - before >= 3, 'refused: empty, three carried, a carried non-operation');
      assert.equal(q.size, 3, 'none of what they carried ran');
    } finally {
      node.remote = null;
    }
  }));

test('in-async on another node\'s space is a pending request (no process); its owner ends: the request is cancelled, and a tuple that arrives anyway is refused, so the home puts it back', () =>
  withNode(async ({ node, run }) => {
    const { sent, mesh } = recordingMesh();
    const dist = new Distribution(node, /** @type {any} */ (mesh), { log: () => {} });
    try {
      /** @param {(f: any[]) => boolean} pred */
      const frameSent = async (pred) => {
        for (let i = 0; i < 500; i++) {
          const hit = sent.find((s) => pred(s.frame));
          if (hit !== undefined) return hit.frame;
          await new Promise((r) => setTimeout(r, 10));
        }
        throw new Error(`the frame was not sent: ${JSON.stringify(sent.map((s) => s.frame.slice(0, 3)))}`);
      };
      const x = (await run(`'x`)).value;
      const live = node.core.processStats().live;
      const done = run(`(define me (self))
(define s (?))
(define w (spawn (lambda () (in-async s 'x ?integer) (! me 'pending) (?))))
(?)
w`);
      // the reference of a space on 'peer' is handed to the program in a message
      let main = null;
      for (let i = 0; i < 500 && main === null; i++) {
        main = [...node.bySlot].filter((p) => p !== undefined && p.alive && p !== node.stdoutProcess).sort((a, b) => b.pid.n - a.pid.n)[0] ?? null;
        if (main === null) await new Promise((r) => setTimeout(r, 10));
      }
      node.deliver(main, new SpaceRef('peer', 'jobs', 'central'));
      node.poke();
      const probe = await frameSent((f) => f[0] === 30 && f[2] === 2); // the inp it tries first
      dist.onSpaceFrame('peer', [31, probe[1], 0, false, []]);
      const req = await frameSent((f) => f[0] === 30 && f[2] === 4); // then the in, left waiting
      const r = await done;
      assert.ok(r.ok, r.message);
      assert.equal(node.core.processStats().live, live + 1, 'only its owner: no helper process');
      assert.equal(dist.spaceState.requests.get(req[1])?.deliver !== undefined, true, 'a pending request of this node');
      node.terminate(r.value);
      await frameSent((f) => f[0] === 33 && f[1] === req[1]); // CANCEL: the home drops its record
      assert.equal(dist.spaceState.requests.has(req[1]), false);
      // the home had withdrawn a tuple for it before the CANCEL arrived: refused, it goes back
      dist.onSpaceFrame('peer', [31, req[1], 1, encodeValue([x, 5]), []]);
      assert.deepEqual(sent.at(-1)?.frame.slice(0, 3), [32, req[1], false]);
    } finally {
      node.remote = null;
    }
  }));

test('the hand-over of an arriving out to a waiting in keeps each tuple exactly once when the waiter died just before: a remote requester that gives it back, a local process killed while waiting', () =>
  withNode(async ({ node, run }) => {
    const { sent, mesh } = recordingMesh();
    const dist = new Distribution(node, /** @type {any} */ (mesh), { log: () => {} });
    try {
      const sym = (await run(`'resp`)).value;
      const any = encodeValue([sym, new Formal(1)]);
      const h = coreSpace(node, 'h');
      // the RPC client's in waits at the home as a record; the server's out is handed to it, not stored
      dist.onSpaceFrame('peer', [30, 1, 4, 'h', 'central', any, false, []]);
      assert.equal(dist.spaceState.jobs.size, 1);
      const r = await run(`(out (make-space 'h 'central) 'resp 7) 'done`);
      assert.ok(r.ok, r.message);
      assert.deepEqual(sent.at(-1)?.frame.slice(0, 3), [31, 1, 1], 'handed to the waiting requester');
      assert.equal(writeString(decodeValue(sent.at(-1)?.frame[3])), '#(resp 7)');
      assert.equal(h.size, 0, 'not stored while it waits for its acknowledgement');
      // the requester's process died just before the reply came: its node gives the tuple back
      dist.onSpaceFrame('peer', [32, 1, false, []]);
      assert.equal(h.size, 1, 'back in the space, once');
      const dropped = dist.stats.dropped;
      dist.onSpaceFrame('peer', [32, 1, true, []]); // a second acknowledgement of the same hand-over
      assert.equal(dist.stats.dropped, dropped + 1, 'refused');
      assert.equal(h.size, 1, 'neither withdrawn nor added by it');
      dist.onSpaceFrame('peer', [30, 2, 2, 'h', 'central', any, false, []]);
      assert.deepEqual(sent.at(-1)?.frame.slice(0, 3), [31, 2, 1], 'the next in takes it');
      dist.onSpaceFrame('peer', [32, 2, true, []]);
      assert.equal(h.size, 0, 'withdrawn for good, once');
      // a local process waiting in `in` is killed just before the out: the out stores the tuple, once
      const w = await run(`(define me (self))
(define w (spawn (lambda () (! me 'waiting) (in (make-space 'h 'central) 'resp ?integer) (! me 'took))))
(?)
w`);
      assert.ok(w.ok, w.message);
      for (let i = 0; i < 200 && h.waiters === 0; i++) await new Promise((res) => setTimeout(res, 5));
      assert.equal(h.waiters, 1, 'it waits in the core');
      node.terminate(w.value);
      assert.equal(h.waiters, 0, 'its wait ended with it');
      const o = await run(`(out (make-space 'h 'central) 'resp 8) (space-count (make-space 'h 'central) 'resp ?integer)`);
      assert.ok(o.ok, o.message);
      assert.equal(o.value, 1, 'the dead waiter took nothing');
      assert.equal(h.size, 1);
    } finally {
      node.remote = null;
    }
  }));
