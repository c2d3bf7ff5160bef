// @ts-check
/**
 * Work across a daemon and worker tabs in Chromium (docs/browser.md): the Linda
 * matrix multiplication with the tabs as the workers (examples/mesh/matrix-tabs.scm),
 * the same with a tab closed in the middle of the work (the coordinator, linked to its
 * workers, issues the lost rows again and the product is still right), and work
 * dispatch (examples/mesh/dispatch.scm) over the daemon and the tabs. The programs run
 * with `termite-node run --join` on the daemon; they reach the tabs through it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { newToken, runProgram } from '../node-daemon/test/helpers/daemons.js';
import { startDaemonWithTabs, stopDaemonWithTabs } from './helpers/daemon-with-tabs.js';

const examples = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'examples', 'mesh');
const token = newToken();
/** @type {import('../node-daemon/test/helpers/daemons.js').Daemon} */
let daemon;
/** @type {import('./helpers/browser.js').Chromium} */
let chromium;
/** @type {import('./helpers/mesh.js').Tab[]} */
let tabs = [];

before(async () => {
  ({ daemon, chromium, tabs } = await startDaemonWithTabs('work', 3, { token }));
});

after(async () => {
  await stopDaemonWithTabs('work', { daemon, chromium, tabs });
});

/** @param {string} example @param {Record<string, string>} env @param {(out: string) => void} [onStdout] */
async function run(example, env, onStdout) {
  const r = await runProgram({ file: path.join(examples, example) }, { token, join: [daemon.url], env, timeoutMs: 90_000, onStdout });
  assert.equal(r.status, 0, `exit status; stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return r.stdout;
}

test('Linda matrix multiplication with three tabs as the workers gives the right product', async () => {
  const out = await run('matrix-tabs.scm', { MATRIX_N: '24', MATRIX_WORKERS: '3' });
  assert.match(out, /\(rows 24 workers 3 reissued 0 product-correct #t\)/);
});

test('work dispatch over the daemon and three tabs: meters report load, jobs run on tabs, every result is right', async () => {
  const out = await run('dispatch.scm', { DISPATCH_NODES: '4' });
  const m = /\(jobs 24 correct #t nodes-used (\d+) tabs-used (\d+) nodes 5\)/.exec(out);
  assert.ok(m, `unexpected output:\n${out}`);
  assert.ok(Number(m[2]) >= 1, `jobs ran on ${m[2]} tabs`);
});

// last: it closes a tab
test('a tab closed in the middle of the matrix work: its rows are issued again and the product is still right', async () => {
  let closed = false;
  const out = await run('matrix-tabs.scm', { MATRIX_N: '12', MATRIX_WORKERS: '3', MATRIX_ROW_DELAY: '0.3' }, (sofar) => {
    if (!closed && sofar.includes('(rows-done ')) {
      closed = true;
      void tabs[2].page.close();
    }
  });
  assert.ok(closed, 'a tab was closed during the work');
  const m = /\(rows 12 workers 3 reissued (\d+) product-correct #t\)/.exec(out);
  assert.ok(m, `unexpected output:\n${out}`);
  assert.ok(Number(m[1]) >= 1, 'the closed tab\'s rows were issued again');
});
