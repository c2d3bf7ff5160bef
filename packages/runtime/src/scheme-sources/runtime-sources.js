// @ts-check
/**
 * The runtime's Scheme sources, read from the .scm files beside this module when it is
 * imported (Node). Browsers get runtime-sources.browser.js instead (package.json
 * "browser"), where the bundler embeds the same files as text; both export the same
 * strings, so a daemon and a tab compile the same units (same hashes).
 *
 *   termite.scm       the Termite library in Scheme: selective receive, ??, !?, supervisors,
 *                     the generic server, Linda's eval and asynchronous operations
 *   js-support.scm    %js-tuple-op, for the JavaScript API's tuple operations (../js-api.js)
 *   repl.scm          the REPL's long-lived process (../repl.js)
 *   distribution.scm  `on`, remote tuple operations (../prims-distribution.js)
 *   messengers.scm    the (termite messengers) library (../messengers/)
 *
 * loadTermiteLibrary (../index.js) compiles them into the runtime namespace 'rt', in
 * that order, after the runtime's primitives are registered.
 */
import { readFileSync } from 'node:fs';

/** @param {string} name */
const read = (name) => readFileSync(new URL(`./${name}.scm`, import.meta.url), 'utf8');

export const termiteSource = read('termite');
export const jsSupportSource = read('js-support');
export const replSource = read('repl');
export const distributionSource = read('distribution');
export const messengersSource = read('messengers');
