// @ts-check
/**
 * V8's code cache of the runtime library's JavaScript, for a run from the start-up bundle
 * (run-bundle.js). The runtime library's fast forms are generated JavaScript (kept beside
 * the bundle, runtime-cache.js), compiled at every start with `new Function`: here they
 * are compiled as scripts instead, each with the code V8 cached for it at the end of an
 * earlier run (lazily compiled functions included), so a start does not parse and
 * compile them again. Only while the runtime library loads: every other unit (programs,
 * libraries, code from peers) is compiled with `new Function` as always.
 *
 * Invariants:
 *  - a script compiles exactly the text `new Function('$', source + sourceURL)` compiles,
 *    line for line, under the same name: backtraces and source locations are unchanged;
 *  - the cache is an optimisation only: V8 checks that cached code belongs to the same
 *    source and the same V8 and rejects it otherwise (then it compiles, and the file is
 *    rewritten); a missing or malformed file compiles as before; a failed write is ignored;
 *  - the file is this installation's own V8 output, kept beside the bundle whose name
 *    carries a digest of its code, private to the user (0600), written whole.
 */
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { setFastCompiler, runtimeUnits } from '@termite/scheme/internal';
import { writePrivately } from './runtime-cache.js';

/** Cached code offered by the file, by unit hash. @type {Map<string, Buffer>} */
const offered = new Map();
/** The runtime library's scripts compiled here, by unit hash. @type {Map<string, vm.Script>} */
const compiled = new Map();
let rejected = false;

/**
 * Compile the runtime library's fast forms as scripts with the code cache in `file`;
 * call before the runtime library is loaded, and runtimeLibraryLoaded after.
 * @param {string|null} file
 */
export function useRuntimeCodeCache(file) {
  if (file === null) return;
  try {
    const bytes = readFileSync(file);
    const headerLength = bytes.readUInt32LE(0);
    /** @type {[string, number, number][]} */
    const index = JSON.parse(bytes.toString('utf8', 4, 4 + headerLength));
    for (const [hash, at, length] of index) offered.set(hash, bytes.subarray(4 + headerLength + at, 4 + headerLength + at + length));
  } catch {
    offered.clear(); // none yet, or malformed: compiled, and the file written after the run
  }
  setFastCompiler((source, sourceName, hash) => {
    const cachedData = offered.get(hash);
    const script = new vm.Script(`(function anonymous($\n) {\n${source}\n//# sourceURL=${sourceName}\n})`, { filename: sourceName, cachedData });
    if (cachedData !== undefined && script.cachedDataRejected) rejected = true;
    compiled.set(hash, script);
    return script.runInThisContext();
  });
}

/** The runtime library is loaded: every later unit is compiled with `new Function`. */
export function runtimeLibraryLoaded() {
  setFastCompiler(null);
}

/**
 * At the end of the run: keep the code V8 compiled for the runtime library's scripts,
 * unless all of it came from the file and was accepted.
 * @param {string|null} file
 * @returns {boolean} whether the file was written
 */
export function saveRuntimeCodeCache(file) {
  const hashes = [...runtimeUnits.keys()].filter((h) => compiled.has(h));
  if (file === null || hashes.length === 0 || (!rejected && hashes.every((h) => offered.has(h)))) return false;
  /** @type {[string, number, number][]} */
  const index = [];
  /** @type {Buffer[]} */
  const blobs = [];
  let at = 0;
  for (const h of hashes) {
    const data = /** @type {vm.Script} */ (compiled.get(h)).createCachedData();
    index.push([h, at, data.length]);
    blobs.push(data);
    at += data.length;
  }
  const header = Buffer.from(JSON.stringify(index), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length, 0);
  return writePrivately(file, () => Buffer.concat([length, header, ...blobs]));
}
