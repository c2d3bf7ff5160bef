// @ts-check
/**
 * bundles.js: the pre-built bundles an installed @termite/web reads are the ones the
 * build makes, byte for byte; a bundle index naming a file that is not there is an error
 * (a broken package must show, never fall back silently); in a git checkout the
 * default (web/dist/bundles) is never read, so an interrupted pack cannot leave stale
 * bundles to be served.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, rmdirSync, unlinkSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeBundles, webAssets, dashboardBundle, distDir } from '../src/bundles.js';
import { buildWebAssets } from '../src/build.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'termite-bundles-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('the bundles written at pack time are read back as the daemon serves them', async () => {
  const index = await writeBundles(dir);
  assert.deepEqual(index.assets.filter((n) => !n.endsWith('.map')), ['js/worker-page.js', 'js/worker.js']);
  const read = await webAssets({ dir });
  assert.equal(read.prebuilt, true);
  const worker = /** @type {import('../src/build.js').Asset} */ (read.files.get('js/worker.js'));
  assert.ok(worker.body.length > 100_000, 'the worker bundle');
  assert.match(worker.type, /^text\/javascript/);
  const wasm = /** @type {import('../src/build.js').Asset} */ (read.files.get('wasm/termite_core.wasm'));
  assert.equal(wasm.type, 'application/wasm');
  assert.deepEqual([...wasm.body.subarray(0, 4)], [0, 0x61, 0x73, 0x6d]);
  // the same bytes as a build from these sources
  const fresh = await buildWebAssets();
  for (const name of index.assets) {
    const a = /** @type {import('../src/build.js').Asset} */ (read.files.get(name));
    assert.equal(a.etag, fresh.files.get(name)?.etag, `${name} is what the build makes`);
  }
  const dash = await dashboardBundle({ dir });
  assert.ok(dash.script.length > 10_000 && dash.style.length > 1000, 'the dashboard script and stylesheet');
});

test('in a git checkout, pre-built bundles at the default place are ignored: bundles are built from the sources', { skip: !existsSync(path.join(distDir, '..', '..', '..', '.git')) && 'not a git checkout' }, async () => {
  assert.ok(!existsSync(distDir), 'no pack is running in this checkout');
  cpSync(dir, distDir, { recursive: true });
  try {
    const built = await webAssets();
    assert.equal(built.prebuilt, false);
  } finally {
    rmSync(distDir, { recursive: true, force: true });
    try { rmdirSync(path.dirname(distDir)); } catch { /* other content: the declarations of a pack */ }
  }
});

test('a bundle index that names a missing file is an error, not a silent rebuild', async () => {
  unlinkSync(path.join(dir, 'assets', 'js', 'worker-page.js'));
  await assert.rejects(webAssets({ dir }), /ENOENT.*worker-page\.js/);
});
