#!/usr/bin/env node
// @ts-check
/**
 * check-exports.mjs — every public function of include/termite_core.h
 * (marked TM_API) must be exported to wasm (wasm/exports.txt) or excluded
 * with a written reason (wasm/exports-excluded.txt); every exported name
 * must exist (in the header or in wasm/glue.c); and, when the built .wasm is
 * present, it must export every listed name. Exits 1 on any violation.
 * Modelled on tree-sitter's check_wasm_exports.
 */
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const read = (/** @type {string} */ p) => readFileSync(join(root, p), 'utf8');

/** Names declared after `marker` in C text (declarations or definitions). */
function declared(/** @type {string} */ text, /** @type {string} */ marker) {
  const re = new RegExp(`${marker}\\s+[^;(]*?\\b(tm_[a-z0-9_]+)\\s*\\(`, 'g');
  return new Set([...text.matchAll(re)].map((m) => m[1]));
}

/** Non-comment, non-empty lines of a list file. */
function lines(/** @type {string} */ text) {
  return text.split('\n').map((l) => l.replace(/#.*/, '').trim()).filter(Boolean);
}

const publicFns = declared(read('include/termite_core.h'), 'TM_API');
const glueFns = declared(read('wasm/glue.c'), 'TM_WASM');
const exported = lines(read('wasm/exports.txt'));
const excluded = new Map(lines(read('wasm/exports-excluded.txt')).map((l) => {
  const at = l.indexOf(':');
  return at < 0 ? [l, ''] : [l.slice(0, at).trim(), l.slice(at + 1).trim()];
}));

const problems = [];
const exportSet = new Set(exported);
if (exportSet.size !== exported.length) problems.push('exports.txt lists a name twice');
for (const fn of publicFns) {
  if (exportSet.has(fn) && excluded.has(fn)) problems.push(`${fn} is both exported and excluded`);
  if (!exportSet.has(fn) && !excluded.has(fn))
    problems.push(`${fn} is public but neither exported (wasm/exports.txt) nor excluded (wasm/exports-excluded.txt)`);
}
for (const [fn, reason] of excluded) {
  if (!publicFns.has(fn)) problems.push(`exports-excluded.txt names ${fn}, which is not a TM_API function`);
  if (reason.length < 10) problems.push(`exports-excluded.txt gives no reason for ${fn}`);
}
for (const fn of exported)
  if (!publicFns.has(fn) && !glueFns.has(fn)) problems.push(`exports.txt names ${fn}, found in neither the header nor glue.c`);
for (const fn of glueFns)
  if (!exportSet.has(fn)) problems.push(`glue.c defines ${fn} but exports.txt does not list it`);

const wasmPath = join(root, '../packages/core/wasm/termite_core.wasm');
if (existsSync(wasmPath)) {
  const mod = new WebAssembly.Module(readFileSync(wasmPath));
  const have = new Set(WebAssembly.Module.exports(mod).map((e) => e.name));
  for (const fn of exported)
    if (!have.has(fn)) problems.push(`termite_core.wasm does not export ${fn} (run make -C wasm-core wasm)`);
}

if (problems.length > 0) {
  for (const p of problems) console.error(`check-exports: ${p}`);
  process.exit(1);
}
console.log(`check-exports: ${publicFns.size} public functions: ${exported.length - glueFns.size} exported, ` +
  `${excluded.size} excluded with reasons; ${glueFns.size} glue functions exported`);
