// @ts-check
/**
 * The browser bundles as the daemon gets them: made at pack time and shipped in the
 * package, or, in the repository, built now by build.js (esbuild).
 *
 *   writeBundles(dir)   `npm pack` (the package's `prepack` script) writes every bundle
 *                       into web/dist/bundles/: assets/js/*.js and their source maps (the worker
 *                       and the worker page's script), dashboard/script.js and
 *                       dashboard/style.css, and bundles.json (what was written). The
 *                       `postpack` script deletes the folder again.
 *   webAssets()         the /assets/ files: read from dist/ when the package has it,
 *                       else built in memory (build.js's buildWebAssets)
 *   dashboardBundle()   the dashboard's script and stylesheet, the same way
 *
 * Invariants: the pre-built bundles are used only in an installed package — dist/ is
 * written by `prepack`, deleted by `postpack` and ignored by git, and a package inside a
 * git checkout builds anyway — so a developer's checkout always serves bundles built from
 * its sources, never stale ones left by an interrupted pack; an installed package never
 * loads esbuild (build.js imports it only when it builds). A dist/ that lacks a file its
 * bundles.json names is an error, never a silent fallback: a broken package must show.
 * The core's .wasm is read from @termite/core, the one copy of it.
 */
import { readFile, writeFile, mkdir, rm, rmdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** Where `npm pack` puts the pre-built bundles (web/dist/bundles). */
export const distDir = path.join(here, '..', 'dist', 'bundles');

/**
 * @typedef {import('./build.js').Asset} Asset
 * @typedef {import('./build.js').WebAssets} WebAssets
 */

/**
 * @typedef {object} BundleIndex what dist/bundles.json records
 * @property {number} version 1
 * @property {string[]} assets paths under assets/ (e.g. 'js/worker.js')
 * @property {string[]} warnings the build's warnings
 * @property {number} buildMs
 */

/** Content type of a file under /assets/, by its name. @param {string} name */
function contentType(name) {
  if (name.endsWith('.map')) return 'application/json';
  if (name.endsWith('.wasm')) return 'application/wasm';
  return 'text/javascript; charset=utf-8';
}

/** @param {Uint8Array} body @param {string} type @returns {Asset} */
function asset(body, type) {
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

/** Whether this package carries pre-built bundles. @param {string} [dir] */
export function hasPrebuiltBundles(dir = distDir) {
  return existsSync(path.join(dir, 'bundles.json'));
}

/** Whether this package is a workspace of a git checkout (web/../.git), not an installed copy. */
const inCheckout = () => existsSync(path.join(here, '..', '..', '.git'));

/** Whether to read the bundles from `dir` rather than build them. @param {string | undefined} dir */
function usePrebuilt(dir) {
  return dir === undefined ? hasPrebuiltBundles(distDir) && !inCheckout() : hasPrebuiltBundles(dir);
}

/** @param {string} dir @returns {Promise<BundleIndex>} */
async function readIndex(dir) {
  const index = JSON.parse(await readFile(path.join(dir, 'bundles.json'), 'utf8'));
  if (index?.version !== 1 || !Array.isArray(index.assets)) throw new Error(`${path.join(dir, 'bundles.json')} is not a bundle index this package reads`);
  return index;
}

/** The core's .wasm, as /assets/wasm/termite_core.wasm serves it. */
async function coreWasm() {
  const coreDir = path.dirname(require.resolve('@termite/core/package.json'));
  return new Uint8Array(await readFile(path.join(coreDir, 'wasm', 'termite_core.wasm')));
}

/**
 * The /assets/ files: the pre-built ones when the package has them, else built now.
 * @param {{dir?: string}} [opts] dir: read the pre-built bundles from there (default: web/dist/bundles
 *   when this is an installed package)
 * @returns {Promise<WebAssets & {prebuilt: boolean}>}
 */
export async function webAssets(opts = {}) {
  const dir = opts.dir ?? distDir;
  if (!usePrebuilt(opts.dir)) {
    const { buildWebAssets } = await import('./build.js');
    return { ...(await buildWebAssets()), prebuilt: false };
  }
  const t0 = performance.now();
  const index = await readIndex(dir);
  /** @type {Map<string, Asset>} */
  const files = new Map();
  for (const name of index.assets) {
    files.set(name, asset(new Uint8Array(await readFile(path.join(dir, 'assets', name))), contentType(name)));
  }
  files.set('wasm/termite_core.wasm', asset(await coreWasm(), 'application/wasm'));
  return { files, ms: performance.now() - t0, warnings: index.warnings ?? [], prebuilt: true };
}

/**
 * The dashboard's script and stylesheet: the pre-built ones when the package has them,
 * else bundled now.
 * @param {{dir?: string}} [opts]
 * @returns {Promise<{script: string, style: string}>}
 */
export async function dashboardBundle(opts = {}) {
  const dir = opts.dir ?? distDir;
  if (!usePrebuilt(opts.dir)) {
    const { bundleDashboard } = await import('./build.js');
    return bundleDashboard();
  }
  const [script, style] = await Promise.all([
    readFile(path.join(dir, 'dashboard', 'script.js'), 'utf8'),
    readFile(path.join(dir, 'dashboard', 'style.css'), 'utf8'),
  ]);
  return { script, style };
}

/**
 * Build every bundle and write it under `dir` (what `npm pack` ships).
 * @param {string} [dir] default web/dist/bundles
 * @returns {Promise<BundleIndex>}
 */
export async function writeBundles(dir = distDir) {
  const { buildWebAssets, bundleDashboard } = await import('./build.js');
  await rm(dir, { recursive: true, force: true });
  const built = await buildWebAssets();
  const dashboard = await bundleDashboard();
  /** @type {string[]} */
  const names = [];
  for (const [name, a] of built.files) {
    if (name.startsWith('wasm/')) continue; // served from @termite/core
    const file = path.join(dir, 'assets', name);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, a.body);
    names.push(name);
  }
  await mkdir(path.join(dir, 'dashboard'), { recursive: true });
  await writeFile(path.join(dir, 'dashboard', 'script.js'), dashboard.script);
  await writeFile(path.join(dir, 'dashboard', 'style.css'), dashboard.style);
  /** @type {BundleIndex} */
  const index = { version: 1, assets: names.sort(), warnings: built.warnings, buildMs: Math.round(built.ms) };
  await writeFile(path.join(dir, 'bundles.json'), `${JSON.stringify(index, null, 2)}\n`);
  return index;
}

// `node src/bundles.js write [DIR]` (the package's prepack) and `node src/bundles.js clean [DIR]` (its postpack)
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [command, dir = distDir] = process.argv.slice(2);
  if (command === 'write') {
    const index = await writeBundles(dir);
    console.log(`web bundles: ${index.assets.length} asset files and the dashboard written to ${dir} in ${index.buildMs} ms`);
  } else if (command === 'clean') {
    await rm(dir, { recursive: true, force: true });
    // web/dist itself, once its other part (the declarations) is gone too (rmdir: only if empty)
    if (dir === distDir) await rmdir(path.dirname(dir)).catch(() => {});
  } else {
    console.error('usage: node src/bundles.js write|clean [DIR]');
    process.exit(2);
  }
}
