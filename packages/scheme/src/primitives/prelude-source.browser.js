// @ts-check
/**
 * The Scheme prelude's text (prelude.scm) in browsers: embedded at build time by the
 * bundler (esbuild's text loader for .scm files, web/src/build.js). Node reads the
 * file instead (prelude-source.js).
 */
import preludeText from './prelude.scm';

export const preludeSource = preludeText;
