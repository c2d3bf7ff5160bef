// @ts-check
/**
 * The expander's view of source text: where a form was read (for Core `loc` and error
 * messages) and how an included or imported file becomes data. Both go through the
 * reader (src/reader.js); this file is the one place that knows its API.
 */
import { readAll, locationOf } from '../reader.js';

/** @typedef {import('../ir/core.js').Loc} Loc */

/**
 * Where `form` (a list or vector read from source) was read, or null.
 * @param {any} form @returns {Loc|null}
 */
export function locOf(form) {
  return locationOf(form) ?? null;
}

/**
 * Read every datum of a source text.
 * @param {string} text @param {string} file for locations @param {boolean} foldCase include-ci
 * @returns {any[]}
 */
export function readSource(text, file, foldCase) {
  return readAll(text, { file, foldCase });
}
