// @ts-check
/**
 * The on-disk cache of the compiled runtime library, for `termite-node run`.
 *
 * Compiling the runtime library's Scheme sources (the prelude, the Termite library, ...)
 * to wire IR is most of a node's start-up. The first run of a checkout compiles them
 * and writes the units (engine/boot.js precompiledRuntime: CBOR of the wire IR, never
 * JavaScript) to a file; later runs offer that file to boot (supplyPrecompiledRuntime),
 * which uses a unit only if it was compiled in the same context — the same source, the
 * same primitives, procedures and syntax — and passes checkWire (not checked when its
 * generated JavaScript, below, is given: that is what runs); any other unit is compiled
 * again, and the file is rewritten.
 *
 * Invariants:
 *  - the cache is an optimisation only: a missing, unreadable, stale or corrupt file
 *    means compiling, never a failure; a failed write is ignored;
 *  - one file per installation (its name carries a digest of where this module is
 *    installed), so two checkouts on one machine do not overwrite each other's file;
 *  - the file is written whole (to a temporary name, then renamed), private to the user
 *    (mode 0600 in a 0700 directory): it is trusted as the installed code is, and the
 *    unit hashes in it are taken as they are (recomputing them costs most of the gain);
 *  - where: $TERMITE_CACHE_DIR, else $XDG_CACHE_HOME/termite-mesh, else
 *    ~/.cache/termite-mesh; TERMITE_CACHE=off turns the cache off.
 *
 * Beside it, for a run from the start-up bundle (run-bundle.js), the JavaScript this
 * installation generated from those units (their fast forms; half of loading the runtime
 * library is generating it). It is kept per bundle, whose file name carries a digest of
 * the bundled code, generator included: the same unit hash and the same generator give
 * the same JavaScript. It is this installation's own output, never a peer's, trusted as
 * the bundle is; a unit whose hash is not in it is generated as usual, and the file is
 * then rewritten. A run from the bundle keeps the units beside it as well (JSON, which
 * decodes natively, instead of the installation's CBOR): the bundle holds the runtime
 * sources, so units written by a run of it were compiled by its own code from its own
 * sources, and their context is not digested again; while they are there, such a run
 * does not read the installation's file.
 */
import { readFileSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import startupFiles from './run-bundle-load.cjs';
import { precompiledRuntime, supplyPrecompiledRuntime, supplyPrecompiledUnits, precompiledStats, runtimeUnits, fastSourcesOf, presetFastSources, encodeValue, decodeValue } from '@termite/scheme/internal';

const { writeWhole, fnv1a } = startupFiles;

/**
 * The cache file for this installation, or null when the cache is off.
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {string|null}
 */
export function runtimeCacheFile(env = process.env) {
  if (env.TERMITE_CACHE === 'off') return null;
  const dir = env.TERMITE_CACHE_DIR || path.join(env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'termite-mesh');
  // this module's own URL (also inside the start-up bundle, run-bundle.js, which keeps it)
  return path.join(dir, `runtime-units-${fnv1a(import.meta.url)}.cbor`);
}

/**
 * Offer the cached units to boot; call before the runtime library is loaded.
 * @param {string|null} file
 * @returns {number} how many units were offered (0: none, or no usable file)
 */
export function offerCachedRuntime(file) {
  if (file === null) return 0;
  let bytes;
  try {
    bytes = readFileSync(file);
  } catch {
    return 0; // no cache yet
  }
  return supplyPrecompiledRuntime(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

/**
 * After the runtime library is loaded: write the units to the cache if any of them had
 * to be compiled (no file yet, or a stale one).
 * @param {string|null} file
 * @returns {boolean} whether the file was written
 */
export function saveRuntimeCache(file) {
  if (file === null || precompiledStats.compiled === 0) return false;
  return writePrivately(file, () => precompiledRuntime());
}

/**
 * Offer the units kept beside the start-up bundle (a run of that very bundle wrote them;
 * it holds the runtime sources too, run-bundle.js): their context is not digested again
 * (sameCode), and they are kept as JSON, which Node parses natively, the few values JSON
 * cannot carry exactly (symbols, pairs, -0 ...) apart in the value codec's CBOR: decoding
 * all of the units with the value codec was a twentieth of a run's start.
 * @param {string|null} file
 * @returns {number} how many units were offered (0: none, or no usable file)
 */
export function offerUnitsBesideBundle(file) {
  if (file === null) return 0;
  try {
    return supplyPrecompiledUnits(unitsFromJson(readFileSync(file, 'utf8')), { sameCode: true });
  } catch {
    return 0; // none yet, or unreadable: the installation's file
  }
}

/**
 * After the runtime library is loaded from the start-up bundle: keep its units beside it
 * when they were not all taken from there.
 * @param {string|null} file @param {boolean} offered whether offerUnitsBesideBundle offered any
 * @returns {boolean} whether the file was written
 */
export function saveUnitsBesideBundle(file, offered) {
  if (file === null || (offered && precompiledStats.compiled === 0)) return false;
  return writePrivately(file, () => unitsToJson(decodeValue(precompiledRuntime())));
}

/**
 * The units as JSON: `units` with a null for each value JSON cannot carry exactly, and
 * `leaves`, each such value as [its path of indices, its value-codec CBOR in base64].
 * @param {any} list @returns {string}
 */
function unitsToJson(list) {
  /** @type {[number[], string][]} */
  const leaves = [];
  /** @param {any} v @param {number[]} at @returns {any} */
  const plain = (v, at) => {
    if (Array.isArray(v)) {
      const out = [];
      for (let i = 0; i < v.length; i++) out.push(plain(v[i], [...at, i]));
      return out;
    }
    if (typeof v === 'string' || typeof v === 'boolean' || v === null || (typeof v === 'number' && Number.isFinite(v) && !Object.is(v, -0))) return v;
    leaves.push([at, Buffer.from(encodeValue(v)).toString('base64')]);
    return null;
  };
  return JSON.stringify({ units: plain(list, []), leaves });
}

/** The inverse of unitsToJson. @param {string} text @returns {any} */
function unitsFromJson(text) {
  const { units, leaves } = JSON.parse(text);
  for (const [at, cbor] of leaves) {
    let into = units;
    for (let i = 0; i < at.length - 1; i++) into = into[at[i]];
    const bytes = Buffer.from(cbor, 'base64');
    into[at[at.length - 1]] = decodeValue(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  }
  return units;
}

/**
 * Write a cache file whole and private to the user (run-bundle-load.cjs writeWhole: a
 * temporary name, then renamed over it, so a reader never sees half a file), its
 * directory created private if need be. Never throws.
 * @param {string} file @param {() => string|Uint8Array} contents computed only once the
 *   directory is there
 * @returns {boolean} whether the file was written
 */
export function writePrivately(file, contents) {
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    return writeWhole(file, contents());
  } catch {
    return false;
  }
}

/** The unit hashes whose JavaScript the cache file offered. @type {Set<string>} */
const offeredJs = new Set();

/**
 * Offer the generated JavaScript kept beside the bundle; call before the runtime library
 * is loaded.
 * @param {string|null} file
 */
export function offerGeneratedJs(file) {
  if (file === null) return;
  try {
    const sources = JSON.parse(readFileSync(file, 'utf8'));
    // only what was taken counts as offered: a file kept under another calling
    // convention is refused, and then written again after this run
    for (const h of presetFastSources(sources)) offeredJs.add(h);
  } catch {
    // none yet, or unreadable: generated as usual
  }
}

/**
 * After the runtime library is loaded: keep its generated JavaScript if some of it was
 * not offered.
 * @param {string|null} file
 * @returns {boolean} whether the file was written
 */
export function saveGeneratedJs(file) {
  if (file === null || [...runtimeUnits.keys()].every((h) => offeredJs.has(h))) return false;
  return writePrivately(file, () => JSON.stringify(fastSourcesOf(runtimeUnits.keys())));
}
