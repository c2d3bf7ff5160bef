/**
 * A process linked to the REPL's own process crashes: the REPL reports it as erl's shell
 * does (`** exception exit: …` with the error's value and where it was raised) and the
 * session goes on with the same process — its pid, its mailbox, its definitions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'termite-node.js');

test('a linked crash is reported at the REPL, which keeps its process, mailbox and definitions', () => {
  const input = [
    '(define me (self))',
    '(! me \'kept)',
    '(define p (spawn-link (lambda () (car 7))))',
    '(receive (after 0.3 \'waited))', // the mailbox keeps 'kept: after picks nothing else up
    '(eq? me (self))',
    '(? 1)',
    '',
  ].join('\n');
  const r = spawnSync(process.execPath, [bin, 'repl'], { input, encoding: 'utf8', timeout: 30000 });
  assert.equal(r.status, 0, r.stderr);
  const text = r.stdout + r.stderr;
  assert.match(text, /\*\* exception exit: car: expected a pair: 7 \(at repl:\d+:\d+\) \(from process \d+\)/);
  const lines = r.stdout.split('\n').filter((l) => l !== '' && !l.startsWith('**') && !l.startsWith('  in '));
  assert.deepEqual(lines.slice(-2), ['#t', 'kept']);
});
