// @ts-check
// Libraries: define-library files, import sets, the order of units, and the standard
// library table. Fixtures are in test/fixtures/expand/.
import test from 'node:test';
import assert from 'node:assert/strict';
import { FIXTURES, diskReadFile, memoryReadFile, read, show, core, expand, syntaxErrorOf } from './fixtures/expand/helpers.js';
import { expandProgram, STANDARD_LIBRARIES, libraryKey } from '../src/expand/index.js';
import { isKeywordName } from '../src/expand/special-forms.js';

/** Expand the program in fixtures/expand/app/main.scm (or `src` in its place). @param {string} [src] */
function expandFixture(src) {
  const file = `${FIXTURES}/app/main.scm`;
  const text = src ?? /** @type {string} */ (diskReadFile(file));
  return expandProgram(read(text, file), { file, libraryPath: [`${FIXTURES}/libs`], readFile: diskReadFile });
}

test('a program gets every library it imports, transitively, once each, dependencies first', () => {
  const { units } = expandFixture();
  assert.deepEqual(units.map((u) => `${u.kind} ${u.kind === 'program' ? 'main' : u.name}`), ['library (mesh counter)', 'library (util)', 'program main']);
  assert.deepEqual(units[1].requires, ['lib:(mesh counter)']);
  assert.equal(/** @type {any} */ (units[1]).ns, 'lib:(util)', 'a library unit also states its namespace');
  assert.deepEqual(units[2].requires, ['lib:(mesh counter)', 'lib:(util)']);
});

test('library globals live in the library namespace and included files are read next to the library', () => {
  const { units } = expandFixture();
  assert.equal(show(units[0].body), '(begin (define lib:(mesh counter)::count (quote 0)) (define lib:(mesh counter)::get (lambda:get () lib:(mesh counter)::count)))');
  assert.equal(show(units[1].body), '(begin (define lib:(util)::twice (lambda:twice (f.1 x.2) (f.1 (f.1 x.2)))) (define lib:(util)::start-value (lib:(mesh counter)::get)))');
});

test('an exported macro reaches the library\'s private global and its own cond/else, whatever the use site binds', () => {
  const { units } = expandFixture();
  assert.equal(
    show(units[2].body),
    '(begin (define .::bump (lambda:bump () (begin (set! lib:(mesh counter)::count (rt::+ lib:(mesh counter)::count (quote 1))) lib:(mesh counter)::count)))' +
      ' (let ((count.1 (quote 100)) (else.2 (quote #f))) (if (quote #f) (.::bump) (lib:(util)::twice (lambda (x.3) x.3) count.1))))',
  );
});

test('only, except, prefix and rename shape what an import brings in', () => {
  const files = {
    'm/lib.sld': '(define-library (m lib) (export a b c) (import (scheme base)) (begin (define a 1) (define b 2) (define c 3)))',
  };
  const opts = { file: 'main.scm', libraryPath: ['m/..'], readFile: memoryReadFile(files) };
  assert.equal(core('(import (only (m lib) a)) a', opts), 'lib:(m lib)::a');
  assert.equal(core('(import (except (m lib) a) (scheme base)) (list b c)', opts), '(rt::list lib:(m lib)::b lib:(m lib)::c)');
  assert.equal(core('(import (prefix (m lib) m:)) m:c', opts), 'lib:(m lib)::c');
  assert.equal(core('(import (scheme base) (rename (m lib) (a first) (b second))) (begin first second c)', opts), '(begin lib:(m lib)::a lib:(m lib)::b lib:(m lib)::c)');
  assert.equal(core('(import (rename (prefix (only (scheme base) car) s:) (s:car head))) (head 1)', opts), '(rt::car (quote 1))');
  assert.match(syntaxErrorOf(() => expand('(import (prefix (m lib) m:)) a', opts)).message, /a: unbound variable/);
  assert.match(syntaxErrorOf(() => expand('(import (only (m lib) zzz)) 1', opts)).message, /only: zzz is not exported by the import set/);
  assert.match(syntaxErrorOf(() => expand('(import (except (m lib) zzz)) 1', opts)).message, /except: zzz is not exported/);
});

test('importing special forms through an import set renames them too', () => {
  assert.equal(core('(import (rename (scheme base) (if when?) (quote q))) (when? 1 (q a) (q b))'), '(if (quote 1) (quote a) (quote b))');
  assert.match(syntaxErrorOf(() => expand('(import (only (scheme base) quote)) (if 1 2 3)')).message, /if: unbound variable/);
});

// With the runtime, (termite) has the Termite API too: packages/runtime/test/termite-syntax.test.js.
test('a program without an import form sees every standard library and (termite) as the language declares it', () => {
  assert.equal(core('(list (string-upcase "a") (sqrt 4) (force (delay 1)) (list-sort < (list 2 1)))'), '(rt::list (rt::string-upcase (quote "a")) (rt::sqrt (quote 4)) (rt::force (rt::%delay (lambda () (quote 1)))) (rt::list-sort rt::< (rt::list (quote 2) (quote 1))))');
});

test('a program that imports only (scheme base) does not see (scheme write)', () => {
  assert.match(syntaxErrorOf(() => expand('(import (scheme base)) (display 1)')).message, /display: unbound variable/);
});

test('one name imported from two libraries with different meanings is an error', () => {
  const files = {
    'x.sld': '(define-library (x) (export car) (import (only (scheme base) define)) (begin (define car 1)))',
    'y.sld': '(define-library (y) (export car) (import (scheme base)) (begin (define car 1)))',
  };
  const e = syntaxErrorOf(() => expand('(import (scheme base) (x)) 1', { readFile: memoryReadFile(files) }));
  assert.match(e.message, /^test\.scm:1:1: import: car is imported twice with different meanings/);
  assert.match(syntaxErrorOf(() => expand('(import (y)) 1', { readFile: memoryReadFile(files) })).message, /^y\.sld:1:64: define: cannot define car: library \(y\) imports it/);
});

test('the same standard name imported from two standard libraries is the same binding', () => {
  assert.equal(core('(import (scheme base) (scheme r5rs)) (car (quote (1)))'), '(rt::car (quote (1)))');
});

test('include-library-declarations and cond-expand declarations', () => {
  const { units } = expandFixture('(import (scheme base) (decls lib)) (list flavour (shout "x"))');
  assert.equal(show(units[0].body), "(begin (define lib:(decls lib)::shout (lambda:shout (s.1) (rt::string-upcase s.1))) (define lib:(decls lib)::flavour (quote termite)))");
  assert.equal(show(units[1].body), '(rt::list lib:(decls lib)::flavour (lib:(decls lib)::shout (quote "x")))');
});

test('a library file may end in .scm when there is no .sld', () => {
  const { units } = expandFixture('(import (plain only-scm)) answer');
  assert.equal(units[0].name, '(plain only-scm)');
  assert.equal(show(units[1].body), 'lib:(plain only-scm)::answer');
});

test('cond-expand (library ...) finds library files without loading them', () => {
  const { units } = expandFixture("(import (scheme base)) (cond-expand ((library (plain only-scm)) 'yes) (else 'no)) (cond-expand ((library (plain nothing)) 'yes) (else 'no))");
  assert.equal(units.length, 1);
  assert.equal(show(units[0].body), '(begin (quote yes) (quote no))');
});

test('an import cycle is reported', () => {
  assert.match(syntaxErrorOf(() => expandFixture('(import (cyc a)) a')).message, /library \(cyc a\) imports itself \(cycle: \(cyc a\) → \(cyc b\) → \(cyc a\)\)/);
});

test('exporting a name the library does not define is an error at the export', () => {
  const e = syntaxErrorOf(() => expandFixture('(import (bad export)) present'));
  assert.match(e.message, /^.*libs\/bad\/export\.sld:2:3: export: missing is exported but neither defined nor imported by library \(bad export\)/);
});

test('a missing library names the files and directories searched', () => {
  const e = syntaxErrorOf(() => expandFixture('(import (no such lib)) 1'));
  assert.match(e.message, /app\/main\.scm:1:1: import: library \(no such lib\) not found \(looked for no\/such\/lib\.sld and no\/such\/lib\.scm in .*app, .*libs\)/);
});

test('a library may not assign an imported binding, even one of another user library', () => {
  const files = {
    'a.sld': '(define-library (a) (export v) (import (scheme base)) (begin (define v 1)))',
    'b.sld': '(define-library (b) (import (scheme base) (a)) (begin (set! v 2)))',
  };
  assert.match(syntaxErrorOf(() => expand('(import (b)) 1', { readFile: memoryReadFile(files) })).message, /set!: cannot assign v: it is imported \(from library \(a\)\)/);
});

test('define-library forms at the start of a program file define libraries for it', () => {
  const { units } = expand('(define-library (inline) (export x) (import (scheme base)) (begin (define x 7))) (import (scheme base) (inline)) (+ x 1)');
  assert.deepEqual(units.map((u) => u.kind), ['library', 'program']);
  assert.equal(show(units[1].body), '(rt::+ lib:(inline)::x (quote 1))');
});

test('import after other program forms is a syntax error', () => {
  assert.match(syntaxErrorOf(() => expand('(import (scheme base)) 1 (import (scheme write))')).message, /import declarations must come before/);
});

test('library keys are the spelled-out name, ready for a version suffix', () => {
  assert.equal(libraryKey(['foo', 'bar', 2]), '(foo bar 2)');
  assert.equal(libraryKey(['foo', 'bar'], '1.2'), '(foo bar)@1.2');
});

test('every syntax name of the standard library table is a form the expander implements', () => {
  for (const [name, lib] of Object.entries(STANDARD_LIBRARIES)) {
    for (const s of lib.syntax) assert.ok(isKeywordName(s), `${name} exports ${s}, which the expander does not implement`);
  }
  assert.deepEqual(STANDARD_LIBRARIES['(termite)'], { syntax: [], procedures: ['list-sort', 'vector-sort', 'sort', 'record?', 'error-object-who'] });
  assert.ok(STANDARD_LIBRARIES['(scheme base)'].procedures.includes('call/cc'));
  assert.ok(STANDARD_LIBRARIES['(scheme lazy)'].syntax.includes('delay-force'));
});

test('a library macro naming something the library never defines is an error at the use', () => {
  const files = { 'x.sld': '(define-library (x) (export m) (import (scheme base)) (begin (define-syntax m (syntax-rules () ((_) (undefined-fn))))))' };
  const e = syntaxErrorOf(() => expand('(import (x))\n(m)', { file: 'main.scm', readFile: memoryReadFile(files) }));
  assert.equal(e.message, 'main.scm:2:1: undefined-fn: unbound identifier (inserted by a macro of library (x)) in undefined-fn');
});

test('a library macro that defines a helper at the importer\'s top level gives it a hidden global there', () => {
  const files = { 'x.sld': '(define-library (x) (export def-getter) (import (scheme base)) (begin (define-syntax def-getter (syntax-rules () ((_ name v) (begin (define hidden v) (define (name) hidden)))))))' };
  assert.equal(core('(import (x)) (def-getter get 5) (get)', { readFile: memoryReadFile(files) }), '(begin (define .::hidden%1 (quote 5)) (define .::get (lambda:get () .::hidden%1)) (.::get))');
});
