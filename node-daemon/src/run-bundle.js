// @ts-check
/**
 * The start-up bundle of `termite-node run`: the modules a standalone run loads (the
 * run command, @termite/runtime, @termite/scheme, @termite/core: about 180 ES modules),
 * joined by esbuild into one CommonJS script in the user's cache, so that a later run
 * reads and compiles one file instead of resolving, reading and linking 180 modules (a
 * third of a run's start-up). V8's code cache of that script, taken at the end of the
 * run that first uses it, is kept beside it (`.v8`): a later run does not compile again
 * the functions that run compiled. The runtime library's generated JavaScript is kept
 * beside it too (`.js.json`, runtime-cache.js).
 *
 * The first standalone run of an installation, or the first one after any of the bundled
 * files changed, runs from the modules as installed and then writes the bundle with
 * esbuild (a development dependency: where it is not installed there is no bundle and
 * every run loads the modules, as before). A run uses the bundle only when every file it
 * was built from still has the size and modification time it had then (a manifest beside
 * the bundle lists them: one stat per file, about 2 ms for all). The bundle is built from
 * the installed sources, never from anything received: it is trusted as they are.
 *
 * Invariants:
 *  - the bundle is an optimisation only: a missing, stale or unreadable bundle, or one
 *    that fails to load, means loading the modules, never a failure of the run; a failed
 *    build is ignored; a code cache V8 rejects (another Node version) is replaced;
 *  - only a standalone run uses it (no --port, no --join): the mesh, its transports and
 *    the HTTP server are not in it (run.js imports them only for a mesh node, and the
 *    bundle replaces that import by one that throws);
 *  - files the modules read beside themselves (the .scm sources, the .wasm core) are read
 *    from where they are installed (each bundled module keeps its own import.meta.url),
 *    so they are never stale; the runtime units' cache (runtime-cache.js) is unchanged;
 *  - the files beside a bundle carry its name, which carries a digest of its code: a
 *    rebuilt bundle never meets the code cache or generated JavaScript of another;
 *  - written whole (temporary name, then rename; the bundle before the manifest that
 *    names it), private to the user (0600 in a 0700 directory), in the same directory
 *    as the runtime units' cache; TERMITE_CACHE=off or TERMITE_RUN_BUNDLE=off: no bundle.
 */
import { readFileSync, writeFileSync, statSync, mkdirSync, renameSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import vm from 'node:vm';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const ENTRY = path.join(here, 'run.js');

/**
 * Where the bundle's manifest is for this installation, or null when bundles are off.
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {string|null}
 */
export function runBundleManifest(env = process.env) {
  if (env.TERMITE_CACHE === 'off' || env.TERMITE_RUN_BUNDLE === 'off') return null;
  const dir = env.TERMITE_CACHE_DIR || path.join(env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'termite-mesh');
  return path.join(dir, `run-bundle-${fnv1a(here)}.json`);
}

/**
 * @typedef {{bundle: string, inputs: [string, number, number][]}} Manifest
 *   bundle: the bundle's file name (beside the manifest); inputs: [path, size, mtimeMs]
 */

/**
 * @typedef {object} LoadedBundle
 * @property {typeof import('./run.js')} run the bundled run.js
 * @property {string} generatedJs the file for the runtime library's generated JavaScript,
 *   kept beside this bundle (runtime-cache.js)
 * @property {() => void} saveCodeCache after the run: keep V8's compiled code of the
 *   bundle beside it if there was none, or V8 rejected it
 */

/**
 * The bundled run.js if the manifest names a bundle built from the files as they are
 * now, else null (then build it after the run: buildRunBundle). The bundle is a
 * CommonJS script compiled with V8's code cache from an earlier run (Node 20 has no code
 * cache for ES modules): what that run compiled, lazily compiled functions included, is
 * not compiled again.
 * @param {string|null} manifestFile
 * @returns {LoadedBundle | null}
 */
export function loadRunBundle(manifestFile) {
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
      try {
        writeWhole(codeCache, script.createCachedData(), []);
      } catch {
        removeQuietly(`${codeCache}.${process.pid}.tmp`);
      }
    };
    return { run: /** @type {any} */ (module.exports), generatedJs: `${bundle}.js.json`, saveCodeCache };
  } catch {
    return null;
  }
}

/**
 * Build the bundle and its manifest (after a run that could not use one). Never throws.
 * @param {string|null} manifestFile
 * @returns {Promise<boolean>} whether a bundle was written
 */
export async function buildRunBundle(manifestFile) {
  if (manifestFile === null) return false;
  const dir = path.dirname(manifestFile);
  const tmps = /** @type {string[]} */ ([]);
  try {
    const { build } = await import('esbuild');
    const result = await build({
      entryPoints: [ENTRY],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      write: false,
      metafile: true,
      logLevel: 'silent',
      absWorkingDir: here,
      plugins: [keepModuleUrls(), noMesh()],
    });
    const code = result.outputFiles[0].text;
    /** @type {[string, number, number][]} */
    const inputs = [];
    // this file too: how the bundle is built is part of what it is
    for (const file of inputFiles([...Object.keys(result.metafile.inputs), fileURLToPath(import.meta.url)])) {
      const st = statSync(file);
      inputs.push([file, st.size, st.mtimeMs]);
    }
    const bundle = `run-bundle-${fnv1a(here)}-${fnv1a(code)}.cjs`;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeWhole(path.join(dir, bundle), code, tmps);
    const previous = previousBundle(manifestFile);
    writeWhole(manifestFile, JSON.stringify({ bundle, inputs }), tmps);
    if (previous !== null && previous !== bundle) {
      removeQuietly(path.join(dir, previous));
      removeQuietly(path.join(dir, `${previous}.js.json`));
      removeQuietly(path.join(dir, `${previous}.v8`));
    }
    return true;
  } catch {
    for (const t of tmps) removeQuietly(t);
    return false;
  }
}

/**
 * Absolute paths of the bundled files (esbuild names them relative to the working
 * directory), with the package.json of each package they come from (its "exports"
 * decide what the bundle resolved).
 * @param {string[]} names
 */
function inputFiles(names) {
  const files = new Set();
  for (const name of names) {
    if (name.startsWith('no-mesh:')) continue; // the stand-in for the mesh host, not a file
    const file = path.resolve(here, name);
    files.add(file);
    for (let d = path.dirname(file), i = 0; i < 20 && d !== path.dirname(d); d = path.dirname(d), i++) {
      const pkg = path.join(d, 'package.json');
      try {
        statSync(pkg);
        files.add(pkg);
        break;
      } catch {
        // not a package root
      }
    }
  }
  return [...files];
}

/** Each bundled module keeps its own URL, so it finds the files beside it. @returns {import('esbuild').Plugin} */
function keepModuleUrls() {
  return {
    name: 'keep-module-urls',
    setup(b) {
      b.onLoad({ filter: /\.js$/, namespace: 'file' }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        return { contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'js' };
      });
    },
  };
}

/**
 * What a standalone run never loads stays out: run.js's import of the mesh host (for
 * --port and --join, which never use the bundle) and cli.js's imports of the other
 * commands (repl, ps, daemon, trust's library store) are replaced by a module that throws.
 * @returns {import('esbuild').Plugin}
 */
function noMesh() {
  /** @type {Record<string, string[]>} */
  const left = { [ENTRY]: ['./host.js'], [path.join(here, 'cli.js')]: ['./repl.js', './ps.js', './daemon.js', './run-bundle.js', './library-store.js'] };
  return {
    name: 'no-mesh',
    setup(b) {
      b.onResolve({ filter: /^\.\/[a-z-]+\.js$/ }, (args) => (left[args.importer]?.includes(args.path) ? { path: args.path, namespace: 'no-mesh' } : undefined));
      b.onLoad({ filter: /.*/, namespace: 'no-mesh' }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`${args.path} is not in the start-up bundle of a standalone run`)});`,
        loader: 'js',
      }));
    },
  };
}

/** @param {string} file @returns {Buffer|null} */
function readOrNull(file) {
  try {
    return readFileSync(file);
  } catch {
    return null;
  }
}

/** @param {string} file @param {string|Uint8Array} text @param {string[]} tmps */
function writeWhole(file, text, tmps) {
  const tmp = `${file}.${process.pid}.tmp`;
  tmps.push(tmp);
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, file);
}

/** @param {string} manifestFile */
function previousBundle(manifestFile) {
  try {
    const b = JSON.parse(readFileSync(manifestFile, 'utf8')).bundle;
    return typeof b === 'string' ? path.basename(b) : null;
  } catch {
    return null;
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
