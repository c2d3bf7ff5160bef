// @ts-check
/**
 * Tab churn under a running computation (bench/scale/tab-churn.js, bounded): six worker
 * tabs in Chromium on a daemon, one replaced every 10 s for 45 s, while the Linda
 * matrix multiplication runs on them from a program joined to the daemon (the tabs reach
 * its space only through the daemon). The product is right, no row is lost, tabs were
 * replaced while it ran, and the workers on the closed tabs were seen to die (their rows
 * put back). The full size is `npm run bench -- scale.tab_churn`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runTabChurn } from '../bench/scale/tab-churn.js';

test('with a tab of six replaced every 10 s, the Linda matrix multiplication on the tabs finishes with the right product and no row lost', { timeout: 240_000 }, async () => {
  const r = await runTabChurn({ tabs: 6, seconds: 45, periodS: 10, timeoutS: 150 });
  assert.equal(r.correct, true, r.stdout);
  assert.equal(r.lost, 0);
  assert.ok(r.replaced >= 2, `tabs replaced while it ran: ${r.replaced} (${r.ms} ms)`);
  assert.ok(r.deaths >= 1, `workers on closed tabs died and were seen to: ${r.deaths}`);
  assert.ok(r.workers > 6, `workers spawned on the new tabs too: ${r.workers}`);
});
