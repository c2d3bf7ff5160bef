// @ts-check
/**
 * The runtime's Scheme sources for browsers: the bundler embeds the .scm files as text
 * (esbuild's 'text' loader for .scm). The twin of runtime-sources.js, which reads the same
 * files in Node; package.json "browser" maps one to the other.
 */
import termiteText from './termite.scm';
import jsSupportText from './js-support.scm';
import replText from './repl.scm';
import distributionText from './distribution.scm';
import messengersText from './messengers.scm';

export const termiteSource = termiteText;
export const jsSupportSource = jsSupportText;
export const replSource = replText;
export const distributionSource = distributionText;
export const messengersSource = messengersText;
