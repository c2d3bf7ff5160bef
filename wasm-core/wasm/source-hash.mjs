#!/usr/bin/env node
// @ts-check
/**
 * source-hash.mjs — ties the committed termite_core.wasm to its sources.
 *
 * The hash covers every file that shapes the .wasm (the public header, the
 * C sources and internal headers, the glue, the export list and the wasm
 * build rules), by path and content, so it is stable across clones (mtimes
 * are not). `make wasm` records it in
 * packages/core/wasm/termite_core.wasm.json together with the hash of the
 * .wasm itself; `--check` (make check-fresh, and a packages/core test)
 * fails when either no longer matches.
 *
 *   node source-hash.mjs --write   record after a build
 *   node source-hash.mjs --check   exit 1 if the .wasm is stale
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const coreRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
export const wasmPath = join(coreRoot, '../packages/core/wasm/termite_core.wasm');
export const recordPath = `${wasmPath}.json`;

/** Relative paths of the files that shape the .wasm, sorted. */
export function sourceFiles() {
  const list = (/** @type {string} */ dir, /** @type {RegExp} */ re) =>
    readdirSync(join(coreRoot, dir)).filter((f) => re.test(f)).map((f) => `${dir}/${f}`);
  return [
    ...list('include', /\.h$/),
    ...list('src', /\.[ch]$/),
    'wasm/glue.c',
    'wasm/exports.txt',
    'wasm/wasm.mk',
  ].sort();
}

/** sha256 over (path, content) of every source file, CRLF folded to LF. */
export function sourceHash() {
  const h = createHash('sha256');
  for (const f of sourceFiles()) {
    h.update(`${f}\0`);
    h.update(readFileSync(join(coreRoot, f), 'utf8').replace(/\r\n/g, '\n'));
    h.update('\0');
  }
  return h.digest('hex');
}

/** sha256 of the built .wasm. */
export function wasmHash() {
  return createHash('sha256').update(readFileSync(wasmPath)).digest('hex');
}

/** A description of why the .wasm is stale, or null if it is fresh. */
export function staleness() {
  if (!existsSync(wasmPath)) return 'termite_core.wasm is missing';
  if (!existsSync(recordPath)) return 'termite_core.wasm.json (the source record) is missing';
  const rec = JSON.parse(readFileSync(recordPath, 'utf8'));
  if (rec.sources_sha256 !== sourceHash())
    return 'the C sources changed since termite_core.wasm was built';
  if (rec.wasm_sha256 !== wasmHash())
    return 'termite_core.wasm was modified after it was built';
  return null;
}

function emccVersion() {
  try {
    const out = execFileSync('emcc', ['--version'], {
      encoding: 'utf8', env: { ...process.env, NODE_PATH: '/usr/share/nodejs' },
    });
    return out.split('\n')[0].trim();
  } catch {
    return 'unknown';
  }
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const mode = process.argv[2];
  if (mode === '--write') {
    const rec = {
      sources_sha256: sourceHash(),
      wasm_sha256: wasmHash(),
      files: sourceFiles(),
      emcc: emccVersion(),
    };
    writeFileSync(recordPath, `${JSON.stringify(rec, null, 2)}\n`);
    console.log(`source-hash: recorded ${rec.sources_sha256.slice(0, 16)}… for ${rec.files.length} files`);
  } else if (mode === '--check') {
    const why = staleness();
    if (why) {
      console.error(`source-hash: ${why}; run make -C wasm-core wasm`);
      process.exit(1);
    }
    console.log('source-hash: termite_core.wasm is fresh');
  } else {
    console.log(sourceHash());
  }
}
