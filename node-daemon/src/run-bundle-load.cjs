// @ts-check
'use strict';
/**
 * Loading the start-up bundle of `termite-node run` (run-bundle.js builds it): where its
 * manifest is, whether it is fresh, and the bundled run path compiled with V8's code
 * cache. A CommonJS script, so that the command (bin/termite-node.js, CommonJS too) can
 * start a standalone run from the bundle without Node's ES module loader: a run from
 * the bundle loads no ES module at all (the loader's own start and its reading and
 * linking of the command's modules were about a tenth of such a run).
 *
 * Invariants:
 *  - an optimisation only: a missing, stale, unreadable or failing bundle gives null
 *    (the caller loads the modules as installed), never an exception;
 *  - the bundle is used only when every file it was built from still has the size and
 *    modification time the manifest gives (one stat per file);
 *  - files are written whole (a temporary name, then renamed), private to the user
 *    (0600); a failed write leaves no temporary file behind;
 *  - the manifest's name carries a digest of where this module is installed (one per
 *    installation); TERMITE_CACHE=off or TERMITE_RUN_BUNDLE=off: no bundle.
 */
const { readFileSync, writeFileSync, statSync, renameSync, unlinkSync } = require('node:fs');
const { createRequire } = require('node:module');
const vm = require('node:vm');
const { homedir } = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');

/**
 * Where the bundle's manifest is for this installation, or null when bundles are off.
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {string|null}
 */
function runBundleManifest(env = process.env) {
  if (env.TERMITE_CACHE === 'off' || env.TERMITE_RUN_BUNDLE === 'off') return null;
  const dir = env.TERMITE_CACHE_DIR || path.join(env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'termite-mesh');
  return path.join(dir, `run-bundle-${fnv1a(__dirname)}.json`);
}

/**
 * @typedef {{bundle: string, inputs: [string, number, number][]}} Manifest
 *   bundle: the bundle's file name (beside the manifest); inputs: [path, size, mtimeMs]
 */

/**
 * What the bundle exports (its entry is run-standalone.js).
 * @typedef {object} BundledRun
 * @property {(argv: string[], startup: {generatedJs: string, units: string, jsCodeCache: string, marks?: [string, number, number?][]}) => Promise<number>|null} runStandalone
 *   run the command line if it is a standalone run, else null
 * @property {(file: string, options: any, startup: {generatedJs: string, units: string, jsCodeCache: string, marks?: [string, number, number?][]}) => Promise<number>} runFile
 */

/**
 * @typedef {object} LoadedBundle
 * @property {BundledRun} run the bundled run path
 * @property {string} generatedJs the file for the runtime library's generated JavaScript,
 *   kept beside this bundle (runtime-cache.js)
 * @property {string} units the file for the runtime library's units compiled by this
 *   bundle's code from the sources in it (runtime-cache.js), kept beside it
 * @property {string} jsCodeCache the file for V8's code of the runtime library's generated
 *   JavaScript (runtime-code-cache.js), kept beside it
 * @property {() => void} saveCodeCache after the run: keep V8's compiled code of the
 *   bundle beside it if there was none, or V8 rejected it
 */

/**
 * The bundled run path if the manifest names a bundle built from the files as they are
 * now, else null (then build it after the run: run-bundle.js buildRunBundle). The bundle
 * is a CommonJS script compiled with V8's code cache from an earlier run (Node 20 has no
 * code cache for ES modules): what that run compiled, lazily compiled functions
 * included, is not compiled again.
 * @param {string|null} manifestFile
 * @returns {LoadedBundle | null}
 */
function loadRunBundle(manifestFile) {
  if (manifestFile === null) return null;
  /** @type {Manifest} */
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    for (const [file, size, mtime] of manifest.inputs) {
      const st = statSync(file);
      if (st.size !== size || st.mtimeMs !== mtime) return null;
    }
  } catch {
    return null; // none yet, or unreadable: the modules as installed
  }
  const bundle = path.join(path.dirname(manifestFile), path.basename(manifest.bundle));
  const codeCache = `${bundle}.v8`;
  try {
    const source = readFileSync(bundle, 'utf8');
    const cachedData = readOrNull(codeCache);
    const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: bundle, cachedData: cachedData ?? undefined });
    const module = { exports: {} };
    script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, path.dirname(bundle));
    const saveCodeCache = () => {
      if (cachedData !== null && !script.cachedDataRejected) return;
      writeWhole(codeCache, script.createCachedData());
    };
    return { run: /** @type {any} */ (module.exports), generatedJs: `${bundle}.js.json`, units: `${bundle}.units.json`, jsCodeCache: `${bundle}.js.v8`, saveCodeCache };
  } catch {
    return null;
  }
}

/**
 * A standalone run (`run FILE` without --port or --join) from a fresh bundle: the
 * command's fast path, taken before any ES module is loaded. Null when this command line
 * is not one, or there is no fresh bundle: then the command line is handled as usual
 * (cli.js), which loads the modules and builds the bundle.
 * @param {string[]} argv the command line after `termite-node`
 * @returns {Promise<number>|null} the exit status
 */
function runFromBundle(argv) {
  // a cheap look first: the bundle is not even read for any other command
  if (argv[0] !== 'run' || argv.some((a) => /^--(port|join|help)(=|$)/.test(a))) return null;
  /** @type {[string, number, number?][] | undefined} */
  const marks = process.env.TERMITE_TRACE_STARTUP ? [['node ready', performance.nodeTiming.bootstrapComplete], ['command line read', performance.now(), cpuMs()]] : undefined;
  const bundled = loadRunBundle(runBundleManifest());
  if (bundled === null || typeof bundled.run.runStandalone !== 'function') return null;
  marks?.push(['run path loaded (bundle)', performance.now(), cpuMs()]);
  const started = bundled.run.runStandalone(argv, { generatedJs: bundled.generatedJs, units: bundled.units, jsCodeCache: bundled.jsCodeCache, marks });
  if (started === null) return null; // the whole command line decides (a usage error, --help ...)
  return started.then((status) => {
    bundled.saveCodeCache();
    return status;
  });
}

/** CPU time this process has used so far (all its threads), ms: for TERMITE_TRACE_STARTUP. */
function cpuMs() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** @param {string} file @returns {Buffer|null} */
function readOrNull(file) {
  try {
    return readFileSync(file);
  } catch {
    return null;
  }
}

/**
 * Write a file whole and private to the user. Never throws.
 * @param {string} file @param {string|Uint8Array} contents @returns {boolean} whether it was written
 */
function writeWhole(file, contents) {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, contents, { mode: 0o600 });
    renameSync(tmp, file);
    return true;
  } catch {
    removeQuietly(tmp);
    return false;
  }
}

/** @param {string} file */
function removeQuietly(file) {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

/** FNV-1a of a string's code units, as 8 hex digits (a file name, not a security check). @param {string} s */
function fnv1a(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

module.exports = { runBundleManifest, loadRunBundle, runFromBundle, writeWhole, removeQuietly, fnv1a, cpuMs };
