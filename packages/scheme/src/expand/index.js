// @ts-check
/**
 * The macro expander: from datums (as the reader returns them) to Core IR units
 * (src/ir/core.js) for the compiler.
 *
 *   expandProgram(datums, opts)          → { units }   user libraries, then the program
 *   createEnvironment(importSpecs, opts) → env          for the REPL, `eval`, `environment`
 *   expandInEnvironment(datum, env)      → { units }   one REPL input (plus libraries it loaded)
 *
 * opts: { file, libraryPath, readFile(path) → string|null, features }.
 * A host package adds a library of its own (special forms, procedure names) through
 * extension.js before programs are expanded; the process runtime defines (termite)'s so.
 * User mistakes throw SchemeSyntaxError ("file:line:col: form: what is wrong"); a broken
 * expander invariant throws ExpanderBug.
 *
 * @example
 *   import { readAll } from '../reader.js';
 *   const { units } = expandProgram(readAll('(define (f x) (* x 2)) (f 21)', { file: 'a.scm' }), { file: 'a.scm' });
 *   // units[0]: { kind: 'program', body: (begin (define .::f (lambda:f (x.1) (rt::* x.1 '2))) (.::f '21)) }
 */
export { expandProgram, createEnvironment, expandInEnvironment } from './toplevel.js';
export { SchemeSyntaxError, ExpanderBug } from './errors.js';
export { STANDARD_LIBRARIES, DEFAULT_IMPORTS, BASE_FEATURES } from './stdlib.js';
export { libraryKey, libraryNamespace } from './library-names.js';
