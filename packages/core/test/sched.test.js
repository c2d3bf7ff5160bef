// @ts-check
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore, formal, BLOCKED } from '../src/index.js';

test('processes run in FIFO order and report why they became ready', async () => {
  const core = await loadCore();
  const a = core.spawn(), b = core.spawn();
  assert.equal(core.state(a), 'ready');
  assert.equal(core.next(), a);
  assert.equal(core.wakeReason, 'spawn');
  assert.equal(core.state(a), 'running');
  core.yield(a);
  assert.equal(core.next(), b);
  core.yield(b);
  assert.equal(core.next(), a);
  assert.equal(core.wakeReason, 'yield');
  core.yield(a);
  assert.deepEqual(core.processStats(), { live: 2, ready: 2 });
  core.destroy();
});

test('lower priority numbers run first and deadlines order a priority', async () => {
  const core = await loadCore();
  const low = core.spawn({ priority: 3 });
  const plain = core.spawn({ priority: 1 });
  const late = core.spawn({ priority: 1, deadline: 500 });
  const early = core.spawn({ priority: 1, deadline: 100 });
  const urgent = core.spawn({ priority: 0 });
  const order = [];
  for (let pid = core.next(); pid !== 0; pid = core.next()) {
    order.push(pid);
    core.exit(pid);
  }
  assert.deepEqual(order, [urgent, early, late, plain, low]);
  core.destroy();
});

test('a blocked in is woken by a matching out and collects the tuple', async () => {
  const core = await loadCore();
  const s = core.createSpace();
  const p = core.spawn();
  core.next();
  assert.equal(s.in(p, ['job', formal.integer]), BLOCKED);
  assert.equal(core.state(p), 'waiting-tuple');
  assert.equal(s.waiters, 1);
  s.out(['job', 'not an integer']);
  assert.equal(core.state(p), 'waiting-tuple');
  s.out(['job', 7]);
  assert.equal(core.state(p), 'ready');
  assert.equal(s.size, 1, 'the in took the matching tuple; the other stays');
  assert.ok(core.processLiveBytes(p) > 0, 'the delivered tuple is held for the process');
  assert.equal(core.next(), p);
  assert.equal(core.wakeReason, 'tuple');
  assert.deepEqual(core.takeTuple(p), ['job', 7]);
  assert.equal(core.takeTuple(p), undefined);
  assert.equal(core.processLiveBytes(p), 0);
  core.check();
  core.destroy();
});

test('every waiting rd gets a copy and the first waiting in takes the tuple', async () => {
  const core = await loadCore();
  const s = core.createSpace();
  const pids = [];
  for (const op of ['rd', 'in', 'rd', 'in']) {
    const p = core.spawn();
    assert.equal(core.next(), p);
    assert.equal(op === 'rd' ? s.rd(p, ['x', formal.any]) : s.in(p, ['x', formal.any]), BLOCKED);
    pids.push(p);
  }
  s.out(['x', 1]);
  assert.deepEqual(pids.map((p) => core.state(p)), ['ready', 'ready', 'ready', 'waiting-tuple']);
  assert.equal(s.size, 0);
  for (const p of pids.slice(0, 3)) {
    assert.equal(core.next(), p, 'woken in arrival order');
    assert.deepEqual(core.takeTuple(p), ['x', 1]);
    core.exit(p);
  }
  core.exit(pids[3]);
  assert.equal(s.waiters, 0);
  core.check();
  core.destroy();
});

test('a wait times out on a virtual clock and the timeout is reported', async () => {
  const core = await loadCore();
  const s = core.createSpace();
  const p = core.spawn();
  core.next();
  assert.equal(s.in(p, ['never'], { clock: 1, timeoutAt: 30 }), BLOCKED);
  assert.equal(core.nextTimer(1), 30);
  assert.equal(core.nextTimer(0), Infinity);
  assert.equal(core.advance(1, 29), 0);
  assert.equal(core.advance(1, 30), 1);
  assert.equal(core.now(1), 30);
  assert.equal(core.next(), p);
  assert.equal(core.wakeReason, 'timeout');
  assert.equal(s.waiters, 0);
  assert.equal(s.in(p, ['never'], { clock: 1, timeoutAt: 30 }), undefined, 'a passed timeout polls');
  assert.throws(() => core.advance(1, 10), { name: 'InvalidArgumentError', message: /cannot move/ });
  core.destroy();
});

test('sleeping and interrupting change state as documented', async () => {
  const core = await loadCore();
  const p = core.spawn();
  core.next();
  assert.equal(core.sleep(p, 50, { clock: 2 }), true);
  assert.equal(core.state(p), 'waiting-timer');
  core.interrupt(p);
  assert.equal(core.state(p), 'ready');
  assert.equal(core.next(), p);
  assert.equal(core.wakeReason, 'interrupt');
  assert.equal(core.advance(2, 100), 0, 'the interrupted sleep left no timer');
  assert.equal(core.sleep(p, 100, { clock: 2 }), false, 'a time already reached does not block');
  core.destroy();
});

test('destroying a space interrupts the processes waiting on it', async () => {
  const core = await loadCore();
  const s = core.createSpace();
  const p = core.spawn();
  core.next();
  s.rd(p, ['anything', formal.any]);
  s.destroy();
  assert.equal(core.next(), p);
  assert.equal(core.wakeReason, 'interrupt');
  core.check();
  core.destroy();
});

test('a ring of 250,000 processes is created and torn down', async () => {
  const core = await loadCore();
  const n = 250_000;
  const t0 = performance.now();
  const pids = new Uint32Array(n);
  for (let i = 0; i < n; i++) pids[i] = core.spawn();
  for (let i = 0; i < n; i++) {
    const p = core.next();
    assert.equal(p, pids[i]);
    if (i + 1 < n) core.send(pids[i + 1], i);
    if (i > 0) assert.equal(core.receive(p), i - 1);
    core.exit(p);
  }
  assert.deepEqual(core.processStats(), { live: 0, ready: 0 });
  core.check();
  assert.ok(performance.now() - t0 < 30_000);
  core.destroy();
});
