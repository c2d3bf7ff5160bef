// @ts-check
/**
 * The Scheme prelude's text (prelude.scm), read in Node when this module is imported.
 * In browsers, package.json's "browser" field replaces this file with
 * prelude-source.browser.js, which has the text embedded by the bundler.
 */
import { readFileSync } from 'node:fs';

export const preludeSource = readFileSync(new URL('./prelude.scm', import.meta.url), 'utf8');
