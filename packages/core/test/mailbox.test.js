// @ts-check
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore } from '../src/index.js';

test('messages are received in the order they were sent', async () => {
  const core = await loadCore();
  const p = core.spawn();
  const sent = [{ a: 1 }, 'two', [3], 4n];
  for (const m of sent) core.send(p, m);
  assert.equal(core.mailboxSize(p), 4);
  for (const m of sent) assert.equal(core.receive(p), m, 'the same value, passed by reference');
  assert.equal(core.receive(p), undefined);
  assert.throws(() => core.send(p, undefined), { name: 'InvalidArgumentError' });
  core.destroy();
});

test('a process waiting for mail is woken by a send', async () => {
  const core = await loadCore();
  const p = core.spawn();
  core.next();
  assert.equal(core.waitMessage(p), 'blocked');
  assert.equal(core.state(p), 'waiting-message');
  core.send(p, 'wake up');
  assert.equal(core.next(), p);
  assert.equal(core.wakeReason, 'message');
  assert.equal(core.waitMessage(p), 'ready', 'mail is already there');
  assert.equal(core.receive(p), 'wake up');
  core.destroy();
});

test('selective receive walks the mailbox with a cursor', async () => {
  const core = await loadCore();
  const p = core.spawn();
  core.next();
  for (const m of ['a', 'b', 'c']) core.send(p, m);
  const first = /** @type {{seq: number, value: unknown}} */ (core.peek(p));
  assert.equal(first.value, 'a');
  const second = /** @type {{seq: number, value: unknown}} */ (core.peek(p, first.seq + 1));
  assert.equal(second.value, 'b');
  assert.equal(core.take(p, second.seq), 'b');
  assert.equal(core.take(p, second.seq), undefined);
  const third = /** @type {{seq: number, value: unknown}} */ (core.peek(p, first.seq + 1));
  assert.equal(third.value, 'c');
  assert.equal(core.peek(p, third.seq + 1), undefined);
  assert.equal(core.waitMessage(p, { cursor: third.seq + 1 }), 'blocked', 'waits for something newer');
  core.send(p, 'd');
  assert.equal(core.next(), p);
  assert.equal(/** @type {{value: unknown}} */ (core.peek(p, third.seq + 1)).value, 'd');
  assert.deepEqual([core.receive(p), core.receive(p), core.receive(p)], ['a', 'c', 'd']);
  core.destroy();
});

test('a receive with a timeout wakes with the reason timeout', async () => {
  const core = await loadCore();
  const p = core.spawn();
  core.next();
  assert.equal(core.waitMessage(p, { clock: 3, timeoutAt: 5 }), 'blocked');
  core.advance(3, 5);
  assert.equal(core.next(), p);
  assert.equal(core.wakeReason, 'timeout');
  assert.equal(core.waitMessage(p, { clock: 3, timeoutAt: 5 }), 'timeout');
  core.destroy();
});

test('sendAfter delivers when its clock arrives and can be cancelled', async () => {
  const core = await loadCore();
  const p = core.spawn();
  const t1 = core.sendAfter(p, 'later', 100, { clock: 1 });
  const t2 = core.sendAfter(p, 'never', 200, { clock: 1 });
  assert.equal(core.cancelTimer(t2), 'never');
  assert.equal(core.cancelTimer(t2), undefined);
  assert.equal(core.advance(1, 150), 1);
  assert.equal(core.cancelTimer(t1), undefined, 'it has fired');
  assert.equal(core.receive(p), 'later');
  assert.equal(core.advance(1, 1000), 0);
  core.destroy();
});

test('exit releases the message values the core still holds', async () => {
  const core = await loadCore();
  const p = core.spawn();
  core.send(p, { big: 'x'.repeat(1000) });
  core.send(p, 'second');
  core.sendAfter(p, 'timer value', 10);
  assert.deepEqual(core.drain(p).length, 3);
  core.send(p, 'again');
  core.exit(p);
  assert.equal(core.values.filter((v) => v !== undefined).length, 0);
  core.check();
  core.destroy();
});

test('same-node ping-pong makes no core allocation per message', async () => {
  const core = await loadCore();
  const a = core.spawn(), b = core.spawn();
  const live = () => core.liveBytes;
  let before = 0;
  for (let i = 0; i < 10_000; i++) {
    if (i === 100) before = live();
    const p = core.next();
    core.send(p === a ? b : a, i);
    core.receive(p);
    core.yield(p);
  }
  assert.equal(live(), before);
  core.destroy();
});
