// @ts-check
/**
 * A library is fetched from another node when the sender of the code does not give it:
 * three nodes — daemon A publishes (foo bar@1.0) with a publisher key P, daemon B trusts
 * P and is linked to A, and a program node C (compiling the library itself, so signing
 * it with its own key, which B does not trust) calls the library's code on B. B asks C,
 * refuses C's record, asks A, installs A's and runs the code; the log says where it came
 * from. Daemons are OS processes on free loopback ports, stopped by PID.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, runProgram, newToken, waitFor } from './helpers/daemons.js';
import { libraryWorkspace } from './helpers/library-workspace.js';

const { libs, publisherDir, publisher, started } = await libraryWorkspace('termite-lib-sources-test-', {
  'foo/bar@1.0.sld': `(define-library (foo bar@1.0) (export greet) (import (scheme base)) (begin (define (greet x) (list 'v1.0 x))))`,
});

test('a library the sender does not give is fetched from another node linked to the receiver', async () => {
  const token = newToken();
  const a = await startDaemon({ token, args: ['--lib', libs, '--publisher', publisherDir] });
  started.push(a);
  await waitFor(() => /publishing libraries \(foo bar@1\.0\)/.test(a.log()), 10000, 'A publishing');
  const b = await startDaemon({ token, join: [a.url], args: ['--trust', publisher.id] });
  started.push(b);
  const prog = `(import (scheme base) (scheme write) (termite) (foo bar@1.0))
(define there (make-node "127.0.0.1" ${b.port}))
(write (on there (lambda () (greet 7)))) (newline)`;
  const r = await runProgram(prog, { token, join: [b.url], args: ['--lib', libs] });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), '(v1.0 7)');
  await waitFor(() => /installed library \(foo bar\) version 1\.0/.test(b.log()), 10000, 'the install line');
  assert.match(b.log(), new RegExp(`installed library \\(foo bar\\) version 1\\.0 \\(publisher ${publisher.id}, fetched from ${a.id.slice(0, 12)}, as \\w{12} did not give it\\)`));
});
