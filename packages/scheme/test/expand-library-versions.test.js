// @ts-check
// Versioned library names: (define-library (foo bar@1.2) ...), (import (foo bar@1.2)),
// which version an import without one takes, and two versions side by side.
import test from 'node:test';
import assert from 'node:assert/strict';
import { memoryReadFile, core, expand, syntaxErrorOf } from './fixtures/expand/helpers.js';
import { runProgramText } from '../src/index.js';
import { writeString } from '../src/printer.js';
import { compareVersions, baseKey, keyVersion } from '../src/expand/library-names.js';

const lib = (/** @type {string} */ v, /** @type {string} */ value) =>
  `(define-library (foo bar@${v}) (export f) (import (scheme base)) (begin (define (f) ${value})))`;

const files = {
  'libs/foo/bar@1.0.sld': lib('1.0', "'one"),
  'libs/foo/bar@1.5.sld': lib('1.5', "'one-five"),
  'libs/foo/bar.sld': lib('2.0', "'two"),
  'libs/foo/plain.sld': '(define-library (foo plain) (export g) (import (scheme base)) (begin (define g 7)))',
};
const opts = { file: 'main.scm', libraryPath: ['libs'], readFile: memoryReadFile(files) };

test('a versioned library\'s globals are qualified by name and version', () => {
  assert.equal(core('(import (foo bar@1.0)) (f)', opts), '(lib:(foo bar)@1.0::f)');
  assert.equal(core('(import (foo bar@1.5)) (f)', opts), '(lib:(foo bar)@1.5::f)');
  assert.equal(core('(import (foo plain)) g', opts), 'lib:(foo plain)::g');
});

test('two versions of one library are imported side by side and each call goes to its own', () => {
  const text = '(import (scheme base) (prefix (foo bar@1.0) a:) (prefix (foo bar@1.5) b:)) (list (a:f) (b:f))';
  const { units } = expand(text, opts);
  assert.deepEqual(units.map((u) => u.name), ['(foo bar)@1.0', '(foo bar)@1.5', 'main.scm']);
  const r = runProgramText(text, opts);
  assert.ok(r.ok);
  assert.equal(writeString(r.value), '(one one-five)');
});

test('an import without a version takes the highest version already loaded, else the one foo/bar.sld defines', () => {
  assert.equal(core('(import (foo bar)) (f)', opts), '(lib:(foo bar)@2.0::f)', 'nothing loaded: the file foo/bar.sld, whatever its version');
  assert.equal(core('(import (prefix (foo bar@1.5) v:) (foo bar)) (f)', opts), '(lib:(foo bar)@1.5::f)');
  assert.equal(core('(import (prefix (foo bar@1.0) x:) (prefix (foo bar@1.5) y:) (foo bar)) (f)', opts), '(lib:(foo bar)@1.5::f)');
});

test('a versioned import looks for foo/bar@V.sld, then foo/bar.sld, which must define that version', () => {
  assert.equal(core('(import (foo bar@2.0)) (f)', opts), '(lib:(foo bar)@2.0::f)');
  const e = syntaxErrorOf(() => expand('(import (foo bar@3.1)) 1', opts));
  assert.match(e.message, /libs\/foo\/bar\.sld does not define library \(foo bar\)@3\.1/);
  const missing = syntaxErrorOf(() => expand('(import (foo nothing@1.0)) 1', opts));
  assert.match(missing.message, /library \(foo nothing\)@1\.0 not found \(looked for foo\/nothing@1\.0\.sld and foo\/nothing@1\.0\.scm and foo\/nothing\.sld/);
});

test('a bad version, or a version on another part than the last, is a syntax error naming the rule', () => {
  assert.match(syntaxErrorOf(() => expand('(import (foo bar@x)) 1', opts)).message, /bad library version in bar@x: a version is numbers separated by dots/);
  assert.match(syntaxErrorOf(() => expand('(import (foo@1 bar)) 1', opts)).message, /only the last part of a library name may carry a version/);
  assert.match(syntaxErrorOf(() => expand('(define-library (q@1..2) (begin)) 1', opts)).message, /bad library version in q@1\.\.2/);
});

test('versions order number by number, and keys split into name and version', () => {
  assert.ok(compareVersions('1.10', '1.9') > 0);
  assert.ok(compareVersions('1.2', '1.2.0') < 0);
  assert.equal(compareVersions('3.0.1', '3.0.1'), 0);
  assert.equal(baseKey('(foo bar)@1.2'), '(foo bar)');
  assert.equal(keyVersion('(foo bar)@1.2'), '1.2');
  assert.equal(keyVersion('(foo bar)'), null);
});
