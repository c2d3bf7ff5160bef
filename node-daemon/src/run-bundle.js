// @ts-check
/**
 * Building the start-up bundle of `termite-node run` (run-bundle-load.cjs finds and loads
 * it): the modules a standalone run loads (its entry run-standalone.js: the command line's
 * parser, the run command, @termite/runtime, @termite/scheme, @termite/core: about 180 ES modules),
 * joined by esbuild into one CommonJS script in the user's cache, so that a later run
 * reads and compiles one file instead of resolving, reading and linking 180 modules (a
 * third of a run's start-up). V8's code cache of that script, taken at the end of the
 * run that first uses it, is kept beside it (`.v8`): a later run does not compile again
 * the functions that run compiled. Beside it too: the runtime library's units compiled
 * by its code (`.units.json`), their generated JavaScript (`.js.json`, runtime-cache.js)
 * and V8's code of that (`.js.v8`, runtime-code-cache.js).
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
 *  - the runtime library's Scheme sources are inside the bundle (embedded as the browser
 *    build embeds them) and among its inputs, so the units kept beside it were compiled
 *    by its own code from its own sources; other files the modules read beside
 *    themselves (the .wasm core) are read from where they are installed (each bundled
 *    module keeps its own import.meta.url), so they are never stale;
 *  - the files beside a bundle carry its name, which carries a digest of its code: a
 *    rebuilt bundle never meets the code caches, units or generated JavaScript of another;
 *  - written whole (temporary name, then rename; the bundle before the manifest that
 *    names it), private to the user (0600 in a 0700 directory), in the same directory
 *    as the runtime units' cache; TERMITE_CACHE=off or TERMITE_RUN_BUNDLE=off: no bundle.
 */
import { readFileSync, statSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import loader from './run-bundle-load.cjs';

const { writeWhole, removeQuietly, fnv1a } = loader;
export const { runBundleManifest, loadRunBundle } = loader;

const here = path.dirname(fileURLToPath(import.meta.url));
const ENTRY = path.join(here, 'run-standalone.js');

/**
 * Build the bundle and its manifest (after a run that could not use one). Never throws.
 * @param {string|null} manifestFile
 * @returns {Promise<boolean>} whether a bundle was written
 */
export async function buildRunBundle(manifestFile) {
  if (manifestFile === null) return false;
  const dir = path.dirname(manifestFile);
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
      loader: { '.scm': 'text' },
      plugins: [embeddedSources(), keepModuleUrls(), noMesh(), plainCbor()],
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
    if (!writeWhole(path.join(dir, bundle), code)) return false;
    const previous = previousBundle(manifestFile);
    if (!writeWhole(manifestFile, JSON.stringify({ bundle, inputs }))) return false;
    if (previous !== null && previous !== bundle) {
      removeQuietly(path.join(dir, previous));
      removeQuietly(path.join(dir, `${previous}.js.json`));
      removeQuietly(path.join(dir, `${previous}.v8`));
      removeQuietly(path.join(dir, `${previous}.units.json`));
      removeQuietly(path.join(dir, `${previous}.js.v8`));
    }
    return true;
  } catch {
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
    if (EMBEDDED.test(file)) files.add(twinOf(file)); // what the bundle holds instead
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
  const left = { [path.join(here, 'run.js')]: ['./host.js'], [path.join(here, 'cli.js')]: ['./repl.js', './ps.js', './daemon.js', './run-bundle.js', './library-store.js'] };
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



/**
 * cbor-x as its plain JavaScript entry: its Node entry first tries to load a native
 * addon (cbor-extract, through node-gyp-build and detect-libc), a tenth of the bundle's
 * start, for a faster decoder of its own that nothing on the run path uses (the value
 * codec decodes by itself; only cbor-x's Encoder and Tag are used).
 * @returns {import('esbuild').Plugin}
 */
function plainCbor() {
  const entry = path.join(path.dirname(createRequire(import.meta.url).resolve('cbor-x/package.json')), 'index.js');
  return {
    name: 'plain-cbor',
    setup(b) {
      b.onResolve({ filter: /^cbor-x$/ }, () => ({ path: entry }));
    },
  };
}

/** The modules that read Scheme sources beside themselves. */
const EMBEDDED = /[\\/](runtime-sources|prelude-source)\.js$/;
/** @param {string} file */
const twinOf = (file) => file.replace(/\.js$/, '.browser.js');

/**
 * The runtime library's Scheme sources inside the bundle, as the browser build has them
 * (the modules' browser twins, which import the .scm files as text), not read beside the
 * modules at each start: so they are among the bundle's inputs, and the units compiled
 * from them by the bundle's own code can be kept beside it and used without digesting
 * their context again (runtime-cache.js).
 * @returns {import('esbuild').Plugin}
 */
function embeddedSources() {
  return {
    name: 'embedded-sources',
    setup(b) {
      b.onLoad({ filter: EMBEDDED, namespace: 'file' }, (args) => ({
        contents: readFileSync(twinOf(args.path), 'utf8'),
        resolveDir: path.dirname(args.path),
        loader: 'js',
      }));
    },
  };
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


