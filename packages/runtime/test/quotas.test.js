// @ts-check
/**
 * Process and mailbox limits (docs/security.md, "Limits"): a fork bomb meets the
 * node's process limit with a `resource-limit` error, the node keeps serving, and once
 * the bomb's processes are gone their memory and slots are back; a mailbox flood meets
 * the mailbox limit with a `resource-limit` error in the sender, and the mailbox takes
 * messages again once it has room; a peer's processes count against that peer.
 * Waits are bounded; programs wait for what they need (a tuple, a message).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { createNode } from '../src/index.js';

/** @param {import('../src/termite-node/process-table.js').Limits} limits */
async function nodeWith(limits) {
  /** @type {string[]} */
  const log = [];
  /** @type {string[]} */
  const out = [];
  const node = /** @type {any} */ (await createNode({ stdout: (s) => out.push(s), log: (s) => log.push(s), limits }));
  return { node, log, out };
}

/** @param {() => boolean} cond @param {string} what @param {number} [ms] */
async function until(cond, what, ms = 10_000) {
  const deadline = performance.now() + ms;
  while (!cond()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A garbage collection on demand (without --expose-gc on the command line). */
function getGc() {
  v8.setFlagsFromString('--expose-gc');
  return /** @type {() => void} */ (vm.runInNewContext('gc'));
}

test('a fork bomb meets the process limit with resource-limit; the node survives and gets its processes and memory back', { timeout: 90_000 }, async () => {
  const gc = getGc();
  const { node, log } = await nodeWith({ maxProcesses: 5000 });
  try {
    const base = node.live;
    gc();
    const heap0 = process.memoryUsage().heapUsed;
    // each bomb process holds 2,000 pairs and spawns two more, forever
    const r = await node.runProgram(`
      (define (bomb) (let ((ballast (make-list 2000 1))) (spawn bomb) (spawn bomb) (?) ballast))
      (spawn bomb)
      'lit`);
    assert.ok(r.ok, r.message);
    // 10,000,000 pairs to build first: bounded, and long enough for a loaded machine
    await until(() => log.some((l) => /too many processes on this node \(limit 5000\)/.test(l)), 'a refused spawn', 40_000);
    assert.ok(node.live <= 5000, `live processes: ${node.live}`);
    const held = process.memoryUsage().heapUsed - heap0;
    assert.ok(held > 64 * 2 ** 20, `the bomb held ${(held / 2 ** 20).toFixed(0)} MiB (so that its return below means something)`);
    assert.ok(node.stats.refused > 0);
    // the node still answers: a new program runs (a bomb process that was refused died,
    // freeing its slot), or is refused cleanly, its main process being one too many
    const next = await node.runProgram(`'hello`).then((/** @type {any} */ x) => x, (/** @type {any} */ e) => ({ ok: false, message: String(e?.message ?? e) }));
    if (next.ok) assert.equal(String(next.value.name), 'hello');
    else assert.match(next.message, /too many processes on this node/);
    // end the bomb: every process but the stdout process
    for (const p of [...node.byCore]) if (p !== undefined && p !== node.stdoutProcess && p.alive) node.terminate(p.pid);
    assert.equal(node.live, base, 'every bomb process is gone from the tables');
    assert.equal(node.core.processStats().live, base, 'and from the core');
    await new Promise((r) => setTimeout(r, 10));
    gc();
    const heapAfter = process.memoryUsage().heapUsed;
    assert.ok(heapAfter - heap0 < 32 * 2 ** 20, `heap kept ${((heapAfter - heap0) / 2 ** 20).toFixed(1)} MiB after the bomb's end`);
    // and runs programs again
    const again = await node.runProgram(`(let ((p (spawn (lambda () (! (?) 'pong))))) (! p (self)) (?))`);
    assert.ok(again.ok, again.message);
    assert.equal(String(again.value.name ?? again.value), 'pong');
  } finally {
    node.stop();
  }
});

test('a fork bomb whose processes die at the limit runs on without flooding the log: deaths are logged 20 a second, the rest counted', { timeout: 30_000 }, async () => {
  const { node, log } = await nodeWith({ maxProcesses: 300 });
  try {
    const t0 = performance.now();
    // each process spawns two; the second spawn at the limit kills it, freeing a slot
    // for the next one: a chain that never ends
    const r = await node.runProgram(`(define (bomb) (spawn bomb) (spawn bomb) (?)) (spawn bomb) 'lit`);
    assert.ok(r.ok, r.message);
    await until(() => log.some((l) => /^\d+ more processes died in the last second/.test(l)), 'a count of unlogged deaths', 10_000);
    const seconds = (performance.now() - t0) / 1000;
    const lines = log.filter((l) => /^process \d+ died: spawn: too many processes on this node/.test(l)).length;
    assert.ok(lines <= 20 * (Math.ceil(seconds) + 1), `${lines} death lines in ${seconds.toFixed(1)} s`);
    assert.ok(node.live <= 300);
    // and the node still runs other work meanwhile
    assert.ok(node.stats.exited > lines, 'processes kept dying (more than were logged)');
  } finally {
    node.stop();
  }
});

test('the spawn refused at the limit raises resource-limit in the spawning process', { timeout: 30_000 }, async () => {
  const { node } = await nodeWith({ maxProcesses: 50 });
  try {
    const r = await node.runProgram(`
      (catch (lambda (e) e)
        (let loop ((i 0)) (spawn (lambda () (?))) (loop (+ i 1))))`);
    assert.ok(r.ok, r.message);
    assert.equal(r.value.kind, 'resource-limit');
    assert.equal(r.value.who, 'spawn');
    assert.match(r.value.message, /too many processes on this node \(limit 50\)/);
  } finally {
    node.stop();
  }
});

test('processes descending from a peer\'s remote spawn count against that peer, and are released when they end', { timeout: 30_000 }, async () => {
  const { node } = await nodeWith({ maxProcessesPerPeer: 20 });
  try {
    // what the distribution layer does for a SPAWN from peer "p1": a thunk that spawns
    // until refused, then waits (it and its children stay alive)
    const made = await node.runProgram(`(lambda () (catch (lambda (e) (?)) (let loop () (spawn (lambda () (?))) (loop))))`);
    assert.ok(made.ok, made.message);
    const proc = node.spawn(made.value, { peer: 'p1' });
    await until(() => (node.byPeer.get('p1') ?? 0) === 20, 'the peer at its limit');
    // p1's spawner caught the refusal; a process with no peer is not limited by p1's count
    const other = await node.runProgram(`(let ((p (spawn (lambda () (?))))) (terminate! p) 'ok)`);
    assert.ok(other.ok, other.message);
    assert.equal(String(other.value.name ?? other.value), 'ok');
    assert.equal(node.byPeer.get('p1'), 20);
    node.terminate(proc.pid);
    for (const p of [...node.byCore]) if (p !== undefined && p.peer === 'p1' && p.alive) node.terminate(p.pid);
    assert.equal(node.byPeer.has('p1'), false, 'the peer has no process left');
  } finally {
    node.stop();
  }
});

test('a mailbox flood meets the mailbox limit: the sender gets resource-limit, nothing is lost, and the mailbox takes messages again once it has room', { timeout: 30_000 }, async () => {
  const { node, log } = await nodeWith({ maxMailbox: 1000 });
  try {
    const r = await node.runProgram(`
      (define me (self))
      ;; a receiver that reads nothing until told by a tuple, then counts what it got
      (define r (spawn (lambda ()
                         (in '(go))
                         (let loop ((n 0) (last -1))
                           (let ((m (? 0 #f)))
                             (if m (loop (+ n 1) (if (= m (+ last 1)) m (list 'gap last m))) (! me (list n last))))))))
      (define sent
        (catch (lambda (e) (list 'refused e))
          (let loop ((i 0)) (! r i) (loop (+ i 1)))))
      (out '(go))
      (list sent (?))`);
    assert.ok(r.ok, r.message);
    const [sent, counted] = [r.value.car, r.value.cdr.car];
    assert.equal(String(sent.car.name), 'refused');
    const err = sent.cdr.car;
    assert.equal(err.kind, 'resource-limit');
    assert.match(err.message, /mailbox of process \d+ is full \(limit 1000 messages\)/);
    // every message the sender was not told about arrived, in order, without a gap
    const n = counted.car;
    assert.ok(n >= 1000 && n < 1000 + 64, `the mailbox held ${n} messages`);
    assert.equal(counted.cdr.car, n - 1, 'messages 0..n-1 arrived in order');
    assert.ok(log.some((l) => /mailbox of process \d+ is full/.test(l)), 'the node logged the full mailbox');
    // once drained, the same mailbox takes messages again
    const again = await node.runProgram(`
      (define r (spawn (lambda () (let loop ((i 0)) (if (< i 2000) (begin (?) (loop (+ i 1))))) 'done)))
      (let loop ((i 0)) (if (< i 2000) (begin (! r i) (if (= 0 (modulo i 500)) (sleep 0)) (loop (+ i 1)))))
      'sent`);
    assert.ok(again.ok, again.message);
  } finally {
    node.stop();
  }
});

test('limits are checked: unknown names and values that are not positive integers are refused', async () => {
  await assert.rejects(createNode({ limits: /** @type {any} */ ({ maxProcesses: 0 }) }), /maxProcesses must be a positive integer/);
  await assert.rejects(createNode({ limits: /** @type {any} */ ({ maxThreads: 5 }) }), /unknown limit maxThreads/);
});
