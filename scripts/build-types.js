#!/usr/bin/env node
// @ts-check
/**
 * The packages' TypeScript declarations, generated from their JSDoc at pack time (each
 * workspace's `prepack`): `node scripts/build-types.js DIR` writes DIR/dist/types/ (one
 * `.d.ts` per source file of DIR/src, plus the package's ambient declarations from
 * DIR/types/), which the package's `types` and `exports` entries name;
 * `node scripts/build-types.js --clean DIR` (its `postpack`) removes it again.
 *
 * Invariants: one tsc run (tsconfig.types.json) declares every package at once, so an
 * import of another package stays an import of that package by name (`@termite/core`),
 * never a path into the repository; the run is kept in node_modules/.cache/termite-types
 * with a fingerprint of the sources (paths, sizes, modification times), so packing six
 * workspaces runs tsc once, and a changed source runs it again. A tsc error fails the
 * pack: declarations are never shipped from sources that do not type-check.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cache = path.join(root, 'node_modules', '.cache', 'termite-types');
/** The folders whose sources the declarations come from (tsconfig.types.json's include). */
const SOURCE_DIRS = ['packages/core', 'packages/scheme', 'packages/runtime', 'packages/mesh', 'node-daemon', 'web'];

/** Every file under dir (bounded by the tree; node_modules and dist skipped). @param {string} dir @param {string[]} out */
function walk(dir, out) {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist') continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (/\.(js|d\.ts)$/.test(e.name)) out.push(p);
  }
  return out;
}

/** A fingerprint of everything the declarations depend on. */
function fingerprint() {
  const h = createHash('sha256');
  const files = [path.join(root, 'tsconfig.json'), path.join(root, 'tsconfig.types.json')];
  for (const d of SOURCE_DIRS) walk(path.join(root, d, 'src'), files), walk(path.join(root, d, 'types'), files);
  for (const f of files.sort()) {
    const s = statSync(f);
    h.update(`${path.relative(root, f)} ${s.size} ${s.mtimeMs}\n`);
  }
  return h.digest('hex');
}

/** Run tsc once for every package, unless the cache is of these very sources. */
function declareAll() {
  const stamp = path.join(cache, '.fingerprint');
  const want = fingerprint();
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want) return;
  rmSync(cache, { recursive: true, force: true });
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.types.json')], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error('build-types: tsc failed; no declarations written');
    process.exit(1);
  }
  mkdirSync(cache, { recursive: true });
  writeFileSync(stamp, want);
}

const args = process.argv.slice(2);
const clean = args[0] === '--clean';
const dir = clean ? args[1] : args[0];
if (!dir || !SOURCE_DIRS.includes(dir)) {
  console.error(`usage: node scripts/build-types.js [--clean] ${SOURCE_DIRS.join('|')}`);
  process.exit(2);
}
const out = path.join(root, dir, 'dist', 'types');
rmSync(out, { recursive: true, force: true });
if (!clean) {
  declareAll();
  cpSync(path.join(cache, dir, 'src'), out, { recursive: true });
  const ambient = path.join(root, dir, 'types');
  if (existsSync(ambient)) cpSync(ambient, path.join(out, 'ambient'), { recursive: true });
  console.log(`build-types: ${path.relative(root, out)} written`);
} else {
  removeIfEmpty(path.dirname(out));
}

/** Remove dist/ once nothing is left in it (its other part, web's bundles, may still be there). @param {string} d */
function removeIfEmpty(d) {
  if (existsSync(d) && readdirSync(d).length === 0) rmSync(d, { recursive: true, force: true });
}
