// @ts-check
/**
 * The core in headless Chromium, inside a Web Worker: the package is
 * bundled for the browser with esbuild (its "browser" field swaps in
 * wasm-module.browser.js, which fetches the .wasm), served from a local
 * HTTP server on 127.0.0.1 port 0, and driven with playwright-core.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CHROMIUM = '/usr/lib/chromium/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1'];

const page = `<!doctype html><meta charset="utf-8"><title>core in a worker</title>
<script type="module">
  const w = new Worker('/dist/worker.js', { type: 'module' });
  w.onmessage = (e) => { window.result = e.data; };
  w.onerror = (e) => { window.result = { ok: false, error: e.message }; };
</script>`;

/** Bundle the worker for the browser. */
async function bundle() {
  const esbuild = await import('esbuild');
  const out = await esbuild.build({
    entryPoints: [fileURLToPath(new URL('../fixtures/browser-worker.js', import.meta.url))],
    bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent',
  });
  return out.outputFiles[0].contents;
}

/** @param {Uint8Array} workerJs @returns {Promise<import('node:http').Server>} */
function serve(workerJs) {
  const wasm = readFileSync(new URL('../wasm/termite_core.wasm', import.meta.url));
  const server = createServer((req, res) => {
    /** @type {Record<string, [string, string | Uint8Array]>} */
    const routes = {
      '/': ['text/html', page],
      '/dist/worker.js': ['text/javascript', workerJs],
      '/wasm/termite_core.wasm': ['application/wasm', wasm],
    };
    const hit = routes[req.url ?? ''];
    if (!hit) { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'content-type': hit[0] }).end(hit[1]);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

test('the core runs in a Web Worker in headless Chromium', { skip: !existsSync(CHROMIUM) && 'chromium is not installed', timeout: 120_000 }, async () => {
  const { chromium } = await import('playwright-core');
  const server = await serve(await bundle());
  const profile = mkdtempSync(join(tmpdir(), 'termite-core-chromium-'));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM, headless: true, args: ARGS,
    });
    const tab = await context.newPage();
    await tab.goto(`http://127.0.0.1:${address.port}/`);
    await tab.waitForFunction(() => /** @type {any} */ (window).result !== undefined, null, { timeout: 60_000 });
    const r = await tab.evaluate(() => /** @type {any} */ (window).result);
    assert.equal(r.ok, true, r.error);
    assert.equal(r.inWorker, true);
    assert.deepEqual(r.got, ['ping', 42]);
    assert.equal(r.blocked, true);
    assert.equal(r.woke, true);
    assert.deepEqual(r.job, ['job', 'from the worker']);
    assert.equal(r.mail, 'mail');
    assert.equal(r.error, 'TemplateError');
    assert.deepEqual(r.found, ['A', 4321, 8642]);
    assert.equal(r.size, 10_000);
  } finally {
    await context?.close();
    await new Promise((resolve) => server.close(resolve));
    rmSync(profile, { recursive: true, force: true });
  }
});
