// @ts-check
/**
 * The system interface for a browser tab (the same exports as host.js). A tab has no
 * files and no environment variables: file operations throw a HostError
 * "files are not available in a browser tab", which ports.js reports as a Scheme file
 * error; get-environment-variable answers #f.
 */

/** A failed host operation; `message` is the reason, without the file name. */
export class HostError extends Error {
  /** @param {string} reason @param {string} [code] */
  constructor(reason, code) {
    super(reason);
    this.name = 'HostError';
    this.code = code ?? null;
  }
}

const NO_FILES = 'files are not available in a browser tab';

/** Whether files exist in this host. */
export const hasFiles = false;

/**
 * @param {string} _path
 * @returns {Uint8Array}
 */
export function readFile(_path) {
  throw new HostError(NO_FILES, 'ENOTSUP');
}

/**
 * @typedef {object} FileSink
 * @property {(chunk: string|Uint8Array) => void} write
 * @property {() => void} close
 */

/**
 * @param {string} _path
 * @returns {FileSink}
 */
export function openOutputFile(_path) {
  throw new HostError(NO_FILES, 'ENOTSUP');
}

/** @param {string} _path */
export function fileExists(_path) {
  return false;
}

/** @param {string} _path */
export function deleteFile(_path) {
  throw new HostError(NO_FILES, 'ENOTSUP');
}

/** @type {string[]} */
let commandLineArgs = [];

/** The command line; empty in a tab unless the page's driver sets it. */
export function commandLine() {
  return commandLineArgs.slice();
}

/** @param {string[]} args */
export function setCommandLine(args) {
  commandLineArgs = args.slice();
}

/**
 * @param {string} _name
 * @returns {string|undefined}
 */
export function getEnv(_name) {
  return undefined;
}

/** @returns {[string, string][]} */
export function environment() {
  return [];
}

/** Seconds since the POSIX epoch. */
export function currentSecond() {
  return (performance.timeOrigin + performance.now()) / 1000;
}

/** Microseconds since the page started (an exact integer; browsers may coarsen it). */
export function currentJiffy() {
  return Math.floor(performance.now() * 1000);
}

export const jiffiesPerSecond = 1_000_000;

/** Feature identifiers this host adds to the language's own. */
export const hostFeatures = ['browser'];
