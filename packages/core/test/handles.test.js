// @ts-check
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { loadCore } from '../src/index.js';

v8.setFlagsFromString('--expose-gc');
const gc = /** @type {() => void} */ (vm.runInNewContext('gc'));

test('a space handle has an idempotent free', async () => {
  const core = await loadCore();
  const s = core.createSpace();
  s.out(['x', 1]);
  s.free();
  s.free();
  s.destroy();
  assert.equal(core.spaces.size, 0);
  assert.throws(() => s.out(['x']), { name: 'NoSuchSpaceError' });
  core.check();
  core.destroy();
});

test('one handle exists per space id while it is reachable', async () => {
  const core = await loadCore();
  const s = core.createSpace();
  assert.equal(core.space(s.id), s);
  s.destroy();
  core.destroy();
});

test('a space dropped without free is destroyed once it is collected', async () => {
  const core = await loadCore();
  const baseline = core.liveBytes;
  (() => {
    const s = core.createSpace();
    for (let i = 0; i < 2000; i++) s.out(['garbage', i, 'payload']);
  })();
  assert.ok(core.liveBytes > baseline + 2000 * 10);
  /* wait on the event (the registry's callback), bounded, no sleeps */
  for (let round = 0; round < 200 && core.spaces.size > 0; round++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  assert.equal(core.spaces.size, 0, 'the finalizer ran');
  assert.ok(core.liveBytes < baseline + 64 * 1024, `live bytes back near the baseline (${core.liveBytes} vs ${baseline})`);
  core.check();
  core.destroy();
});
