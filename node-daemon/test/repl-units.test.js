// @ts-check
/**
 * The REPL's pure parts: a multi-line entry as one history line that reads the same
 * (strings, comments, character literals), the history file's order, trimming and
 * failures, Tab completion's candidates, and how pids and nodes are named by users.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { oneLine, loadHistory, HistoryWriter, MAX_ENTRIES } from '../src/repl/history.js';
import { makeCompleter } from '../src/repl/completion.js';
import { parsePid, resolveNode } from '../src/repl/processes.js';

test('oneLine joins lines, keeps strings (a newline in one becomes \\n) and drops ; comments', () => {
  assert.equal(oneLine('(define (f x)\n  ; doubled\n  (* x 2))\n'), '(define (f x) (* x 2))');
  assert.equal(oneLine('(display "a\nb; not a comment")\n'), '(display "a\\nb; not a comment")');
  assert.equal(oneLine('(list #\\; #\\" "q\\"x")\n'), '(list #\\; #\\" "q\\"x")');
});

test('history: newest first, trimmed to the limit; a file that cannot be written is said once', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'termite-hist-'));
  try {
    const file = path.join(dir, 'h');
    writeFileSync(file, Array.from({ length: MAX_ENTRIES + 5 }, (_, i) => `(e ${i})`).join('\n') + '\n');
    const h = loadHistory(file, () => assert.fail('no warning expected'));
    assert.equal(h.length, MAX_ENTRIES);
    assert.equal(h[0], `(e ${MAX_ENTRIES + 4})`);
    assert.equal(readFileSync(file, 'utf8').split('\n').length, MAX_ENTRIES + 1);
    /** @type {string[]} */
    const warned = [];
    const w = new HistoryWriter(path.join(dir, 'no', 'such', 'dir'), (s) => warned.push(s));
    w.add('(a)');
    w.add('(b)');
    assert.equal(warned.length, 1);
    assert.match(warned[0], /history not saved/);
    assert.deepEqual(loadHistory(path.join(dir, 'absent'), () => assert.fail('absent is no error')), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('completion: bound names (the runtime\'s %names only when asked), libraries in import, commands', () => {
  const complete = makeCompleter({ globalNames: () => ['vector-ref', 'vector-map', 'display', '%repl-server'], loadedLibraries: () => ['(my util)'] }, [',help', ',bt', ',ps']);
  assert.deepEqual(complete('(vector-'), [['vector-map', 'vector-ref'], 'vector-']);
  assert.deepEqual(complete('(%re'), [['%repl-server'], '%re']);
  assert.deepEqual(complete('(d'), [['display'], 'd']);
  assert.deepEqual(complete('(import (scheme ch'), [['(scheme char)'], '(scheme ch']);
  assert.deepEqual(complete('(import (scheme base) (my'), [['(my util)'], '(my']);
  assert.deepEqual(complete(',b'), [[',bt'], ',b']);
  assert.deepEqual(complete('(+ 1 '), [[], '']);
});

test('pids and nodes as users type them', () => {
  const nodes = [{ id: 'aaaa1111', address: '127.0.0.1:7400' }, { id: 'aabb2222', address: null }];
  assert.equal(resolveNode('127.0.0.1:7400', nodes), 'aaaa1111');
  assert.equal(resolveNode('ws://127.0.0.1:7400', nodes), 'aaaa1111');
  assert.equal(resolveNode('aab', nodes), 'aabb2222');
  assert.throws(() => resolveNode('aa', nodes), /names 2 nodes/);
  assert.throws(() => resolveNode('zz', nodes), /no node zz/);
  for (const text of ['12@aab', '#<pid 12@aabb2222>', '<12@aabb>']) {
    const pid = parsePid(text, nodes, 'aaaa1111');
    assert.deepEqual([pid.node, pid.n], ['aabb2222', 12], text);
  }
  assert.equal(parsePid('7', nodes, 'aaaa1111').node, 'aaaa1111');
  assert.throws(() => parsePid('x7', nodes, 'aaaa1111'), /not a pid/);
});
