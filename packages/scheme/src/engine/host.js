// @ts-check
/**
 * The system interface for Node: files, environment variables, command line, clocks.
 * host.browser.js has the same exports for a browser tab; package.json's "browser" field
 * maps "./src/engine/host.js" to "./src/engine/host.browser.js".
 *
 * File functions throw a JS `HostError` whose message is a short reason ("no such file or
 * directory"); ports.js turns it into a Scheme file error naming the procedure and file.
 * Nothing here touches Scheme values (ports.js and the primitives do the conversion).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';

/** A failed host operation; `message` is the reason, without the file name. */
export class HostError extends Error {
  /** @param {string} reason @param {string} [code] the Node error code, e.g. 'ENOENT' */
  constructor(reason, code) {
    super(reason);
    this.name = 'HostError';
    this.code = code ?? null;
  }
}

/**
 * Turn a Node fs error ("ENOENT: no such file or directory, open 'x'") into a HostError
 * with the reason only.
 * @param {any} e
 * @returns {never}
 */
function rethrow(e) {
  if (e && typeof e.code === 'string') {
    const m = /^[A-Z0-9_]+: ([^,]+)/.exec(String(e.message));
    throw new HostError(m ? m[1] : e.code, e.code);
  }
  throw e;
}

/** Whether files exist in this host (false in a browser tab). */
export const hasFiles = true;

/**
 * The whole content of a file.
 * @param {string} path
 * @returns {Uint8Array}
 */
export function readFile(path) {
  try {
    const b = fs.readFileSync(path);
    return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  } catch (e) {
    return rethrow(e);
  }
}

/**
 * @typedef {object} FileSink
 * @property {(chunk: string|Uint8Array) => void} write  append (a string is written as UTF-8)
 * @property {() => void} close
 */

/**
 * Create (or truncate) a file for writing.
 * @param {string} path
 * @returns {FileSink}
 */
export function openOutputFile(path) {
  let fd;
  try {
    fd = fs.openSync(path, 'w');
  } catch (e) {
    return rethrow(e);
  }
  const handle = fd;
  return {
    write(chunk) {
      try {
        if (typeof chunk === 'string') fs.writeSync(handle, chunk, null, 'utf8');
        else fs.writeSync(handle, chunk);
      } catch (e) {
        rethrow(e);
      }
    },
    close() {
      try {
        fs.closeSync(handle);
      } catch (e) {
        rethrow(e);
      }
    },
  };
}

/** @param {string} path */
export function fileExists(path) {
  return fs.existsSync(path);
}

/** @param {string} path */
export function deleteFile(path) {
  try {
    fs.unlinkSync(path);
  } catch (e) {
    rethrow(e);
  }
}

/** @type {string[]} */
let commandLineArgs = process.argv.slice(1);

/**
 * The command line as R7RS `command-line` returns it: the program name, then its arguments.
 * Defaults to process.argv without the node executable; the driver sets it to
 * ["FILE.scm", ...args] for `termite-node run FILE.scm args`.
 */
export function commandLine() {
  return commandLineArgs.slice();
}

/** @param {string[]} args */
export function setCommandLine(args) {
  commandLineArgs = args.slice();
}

/**
 * @param {string} name
 * @returns {string|undefined}
 */
export function getEnv(name) {
  return process.env[name];
}

/** @returns {[string, string][]} */
export function environment() {
  return Object.entries(process.env).filter(/** @returns {e is [string, string]} */ (e) => typeof e[1] === 'string');
}

/** Seconds since the POSIX epoch, with sub-millisecond precision. */
export function currentSecond() {
  return (performance.timeOrigin + performance.now()) / 1000;
}

/** Microseconds since the start of this JS realm (an exact integer). */
export function currentJiffy() {
  return Math.floor(performance.now() * 1000);
}

export const jiffiesPerSecond = 1_000_000;

/** Feature identifiers this host adds to the language's own (see prims-system.js `features`). */
export const hostFeatures = ['node', ...(os.platform() === 'win32' ? ['windows'] : ['posix', os.platform()])];
