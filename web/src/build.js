// @ts-check
/**
 * The one bundler: every browser bundle the daemon serves is built here, in memory, with
 * esbuild. Nothing else in the repository calls esbuild for the daemon. The daemon gets
 * the bundles through bundles.js, which reads them pre-built in an installed package
 * (made by this file at pack time) and calls this file only in a repository checkout.
 *
 *   buildWebAssets()   the compute worker and its page's script, served under /assets/
 *                      (node-daemon/src/http/browser-assets.js), built when the daemon starts
 *                      in a checkout (well under a second):
 *     /assets/js/worker.js         the compute worker: core, Scheme runtime, runtime, mesh,
 *                                  and the runtime library precompiled to wire IR
 *     /assets/js/worker-page.js    the worker page's script
 *     /assets/wasm/termite_core.wasm   the C core (application/wasm)
 *     /assets/js/*.js.map          source maps
 *   bundleDashboard()  the dashboard's script and stylesheet (web/src/dashboard/), which
 *                      pages.js inlines into the dashboard page
 *
 * The layout is not arbitrary: the core finds its .wasm at
 * `new URL('../wasm/termite_core.wasm', import.meta.url)`, and import.meta.url of the
 * worker bundle is /assets/js/worker.js.
 *
 * Invariants: every build uses platform 'browser', so every package's `browser` map
 * applies (WebSocket, WebRTC, identity store, wasm loading and the Scheme host have
 * browser variants); a Node built-in that still reaches a bundle fails the build, naming
 * the importer — that is a bug to fix at its source with a `.browser.js` variant. Every
 * build loads `.scm` files as text: the `*-source.browser.js` twins import the Scheme
 * sources that Node reads from disk.
 */
import { build } from 'esbuild';
import { loadTermiteLibrary } from '@termite/runtime';
import { precompiledRuntime } from '@termite/scheme/internal';
import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** Where the dashboard's browser sources (its script, stylesheet and page template) live. */
export const dashboardDir = path.join(here, 'dashboard');

/** What every build shares (see the invariants above). */
const COMMON = {
  bundle: true,
  platform: /** @type {const} */ ('browser'),
  write: /** @type {const} */ (false),
  logLevel: /** @type {const} */ ('silent'),
  legalComments: /** @type {const} */ ('none'),
  loader: { '.scm': /** @type {const} */ ('text') },
  // Node built-ins must never be in a browser bundle: fail loudly with the importer
  external: /** @type {string[]} */ ([]),
};

/**
 * @typedef {object} Asset
 * @property {Uint8Array} body
 * @property {string} type content type
 * @property {string} etag
 */

/**
 * @typedef {object} WebAssets
 * @property {Map<string, Asset>} files by path under /assets/ (e.g. 'js/worker.js')
 * @property {number} ms build time
 * @property {string[]} warnings
 */

/** The entry points of the /assets/ bundles: output name → source file. (The dashboard is bundleDashboard's.) */
export function entryPoints() {
  return {
    worker: path.join(here, 'worker', 'worker.js'),
    'worker-page': path.join(here, 'page', 'worker-page.js'),
  };
}

/**
 * Build every /assets/ bundle in memory.
 * @param {{minify?: boolean, sourcemap?: boolean}} [opts] defaults: minified, with source maps
 * @returns {Promise<WebAssets>}
 */
export async function buildWebAssets(opts = {}) {
  const t0 = performance.now();
  // The runtime library as this process compiled it (wire IR, not JavaScript): the
  // worker instantiates these units instead of compiling the sources at start-up
  // (@termite/scheme's boot.js, "precompiled runtime library"). The daemon loads the
  // library anyway; this only makes it happen now.
  loadTermiteLibrary();
  const runtimeUnits = Buffer.from(precompiledRuntime()).toString('base64url');
  const result = await build({
    ...COMMON,
    define: { TERMITE_PRECOMPILED_RUNTIME: JSON.stringify(runtimeUnits) },
    entryPoints: entryPoints(),
    format: 'esm',
    target: ['chrome120', 'firefox121', 'safari17'],
    minify: opts.minify ?? true,
    // the runtime and the printer look at constructor names (an unbound global, #<Name>)
    keepNames: true,
    sourcemap: (opts.sourcemap ?? true) ? 'linked' : false,
    outdir: '/assets/js',
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    splitting: false,
  });
  /** @type {Map<string, Asset>} */
  const files = new Map();
  for (const f of result.outputFiles) {
    const name = `js/${path.basename(f.path)}`;
    files.set(name, asset(f.contents, name.endsWith('.map') ? 'application/json' : 'text/javascript; charset=utf-8'));
  }
  const coreDir = path.dirname(require.resolve('@termite/core/package.json'));
  const wasm = await readFile(path.join(coreDir, 'wasm', 'termite_core.wasm'));
  files.set('wasm/termite_core.wasm', asset(new Uint8Array(wasm), 'application/wasm'));
  return {
    files,
    ms: performance.now() - t0,
    warnings: result.warnings.map((w) => `${w.location?.file ?? ''}:${w.location?.line ?? ''} ${w.text}`),
  };
}

/**
 * Bundle the dashboard: web/src/dashboard/main.js and the CSS it imports, as one classic
 * script (it is inlined into the page, so no module loading) and one stylesheet.
 * @returns {Promise<{script: string, style: string}>}
 */
export async function bundleDashboard() {
  const out = await build({
    ...COMMON,
    entryPoints: [path.join(dashboardDir, 'main.js')],
    format: 'iife',
    minify: true,
    target: ['chrome100', 'firefox100', 'safari15'],
    outdir: path.join(dashboardDir, 'out'),
  });
  const script = out.outputFiles.find((f) => f.path.endsWith('.js'))?.text ?? '';
  const style = out.outputFiles.find((f) => f.path.endsWith('.css'))?.text ?? '';
  return { script, style };
}

/** @param {Uint8Array} body @param {string} type @returns {Asset} */
function asset(body, type) {
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}
