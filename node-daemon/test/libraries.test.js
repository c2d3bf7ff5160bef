// @ts-check
/**
 * Versioned libraries across real daemons: a process importing (foo bar@1.0) migrates to
 * a daemon that never saw the library, which fetches it once (however many messages use
 * it), checks it and keeps it under --data; two versions run side by side there; an
 * untrusted publisher is refused with library, version and publisher named, and nothing
 * of the library runs; a library without a version cannot travel; a restarted daemon
 * finds what it installed. A hostile peer's tampered library (code that is not what the
 * signed record names) is refused. Daemons are OS processes on free loopback ports,
 * stopped by PID.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createIdentity, base64url } from '@termite/mesh';
import { compileProgramText, wireToData } from '@termite/scheme';
import { signedBytes } from '@termite/runtime';
import { startDaemon, runProgram, newToken, waitFor } from './helpers/daemons.js';
import { hostilePeer, closureRef, R } from './helpers/peer.js';
import { libraryWorkspace } from './helpers/library-workspace.js';

/** A library version whose body says it loaded (on the node's stderr, its log) and whose greet tags its version. */
const libSource = (/** @type {string} */ v) => `(define-library (foo bar@${v})
  (export greet)
  (import (scheme base) (scheme write))
  (begin (display "LOADED-${v}\\n" (current-error-port)) (define (greet x) (list 'v${v} x))))`;

const { tmp, libs, publisherDir, publisher, started } = await libraryWorkspace('termite-libs-test-', {
  'foo/bar@1.0.sld': libSource('1.0'),
  'foo/bar@1.5.sld': libSource('1.5'),
  'foo/local.sld': '(define-library (foo local) (export f) (import (scheme base)) (begin (define (f x) (* x 2))))',
});

/** A program that migrates a server using `greet` to the daemon on `port` and calls it `n` times. */
const migrating = (/** @type {number} */ port, /** @type {string} */ imports, /** @type {number} */ n) => `
(import (scheme base) (scheme write) (termite) ${imports})
(define there (make-node "127.0.0.1" ${port}))
(define server
  (spawn (lambda ()
    (migrate there)
    (let loop ()
      (recv ((from tag ('call f x)) (! from (list tag (list (f x) (equal? (current-node) there))))))
      (loop)))))
(let loop ((i 0))
  (when (< i ${n})
    ;; each message carries a procedure of the library: its code travels with it
    (write (!? server (list 'call greet i) 10)) (newline)
    (loop (+ i 1))))
`;

/** @param {import('./helpers/daemons.js').Daemon} d @param {RegExp} re */
const count = (d, re) => (d.log().match(new RegExp(re.source, 'g')) ?? []).length;

const runArgs = ['--lib', libs, '--publisher', publisherDir];

test('a process importing a versioned library migrates to a node that never saw it: fetched once, run there, kept across a restart', async () => {
  const token = newToken();
  const data = path.join(tmp, 'data-b');
  let b = await startDaemon({ token, data, args: ['--trust', publisher.id] });
  started.push(b);
  const r = await runProgram(migrating(b.port, '(foo bar@1.0)', 20), { token, join: [b.url], args: runArgs });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n').filter((l) => l.startsWith('('));
  assert.equal(lines.length, 20);
  assert.equal(lines[7], '((v1.0 7) #t)', 'the library ran on the daemon');
  await waitFor(() => /installed library \(foo bar\) version 1\.0/.test(b.log()), 5000, 'the install line');
  assert.equal(count(b, /installed library \(foo bar\) version 1\.0/), 1, 'one install for 20 messages carrying its code');
  assert.match(b.log(), new RegExp(`publisher ${publisher.id}, fetched from`));
  await waitFor(() => count(b, /LOADED-1\.0/) >= 1, 5000, 'its top level\'s output');
  assert.equal(count(b, /LOADED-1\.0/), 1, 'its top level ran once there');
  // restart: the record and the code are found under --data, nothing is fetched
  await b.stop();
  b = await startDaemon({ token, data, args: ['--trust', publisher.id] });
  started.push(b);
  const again = await runProgram(migrating(b.port, '(foo bar@1.0)', 3), { token, join: [b.url], args: runArgs });
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /\(\(v1\.0 2\) #t\)/);
  await waitFor(() => /installed library/.test(b.log()), 5000, 'the install line');
  assert.match(b.log(), /installed library \(foo bar\) version 1\.0 \(publisher \w+, from this node's store\)/);
  assert.doesNotMatch(b.log(), /fetched from/);
});

test('two versions of one library run side by side on one node, each process calling its own', async () => {
  const token = newToken();
  const b = await startDaemon({ token, args: ['--trust', publisher.id] });
  started.push(b);
  const prog = `
(import (scheme base) (scheme write) (termite) (prefix (foo bar@1.0) old:) (prefix (foo bar@1.5) new:))
(define there (make-node "127.0.0.1" ${b.port}))
(define (server f)
  (spawn (lambda () (migrate there) (let loop () (recv ((from tag x) (! from (list tag (f x))))) (loop)))))
(define a (server old:greet))
(define c (server (lambda (x) (new:greet x))))
(write (list (!? a 1 10) (!? c 2 10) (!? a 3 10))) (newline)`;
  const r = await runProgram(prog, { token, join: [b.url], args: runArgs });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim().split('\n').pop(), '((v1.0 1) (v1.5 2) (v1.0 3))');
  // the daemon's log lines reach its pipe on their own time: wait for both, then count
  await waitFor(() => count(b, /installed library \(foo bar\) version 1\.[05] /) >= 2, 5000, 'both installs logged');
  assert.equal(count(b, /installed library \(foo bar\) version 1\.0 /), 1);
  assert.equal(count(b, /installed library \(foo bar\) version 1\.5 /), 1);
});

test('an untrusted publisher is refused, naming library, version and publisher; nothing of the library runs', async () => {
  const token = newToken();
  const b = await startDaemon({ token }); // trusts no publisher but itself
  started.push(b);
  const r = await runProgram(migrating(b.port, '(foo bar@1.5)', 1), { token, join: [b.url], args: runArgs });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, new RegExp(`cannot migrate: .*library \\(foo bar\\) version 1\\.5 is published by ${publisher.id}, whom this node does not trust \\(start it with --trust ${publisher.id}`));
  // a daemon's log line reaches its pipe on its own time: wait for it (bounded)
  await waitFor(() => /refused/.test(b.log()), 5000, 'the refusal logged');
  assert.doesNotMatch(b.log(), /LOADED-1\.5/);
  assert.doesNotMatch(b.log(), /installed library/);
});

test('a library without a version cannot travel: the error says so', async () => {
  const token = newToken();
  const b = await startDaemon({ token, args: ['--trust', publisher.id] });
  started.push(b);
  const r = await runProgram(migrating(b.port, '(foo local)', 1).replace("(list 'call greet i)", "(list 'call f i)"), { token, join: [b.url], args: runArgs });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /library \(foo local\) has no version: a library without one is local to its program and cannot travel to another node \(name it with a version, as in \(define-library \(foo local@1\.0\)/);
});

test('a tampered library — code that is not what the signed record names, a record its signature does not cover, records requiring each other — is refused and never runs', async () => {
  const token = newToken();
  const pub = await createIdentity();
  const b = await startDaemon({ token, args: ['--trust', pub.id] });
  started.push(b);
  const peer = await hostilePeer(b, token);
  try {
    const units = compileProgramText('(define-library (evil lib@1.0) (export f) (import (scheme base) (scheme write)) (begin (display "EVIL-RAN\\n" (current-error-port)) (define (f) 1))) (import (evil lib@1.0)) f');
    const honest = units[0];
    const other = compileProgramText('(define-library (evil lib@1.0) (export f) (import (scheme base) (scheme write)) (begin (display "EVIL-RAN-TAMPERED\\n" (current-error-port)) (define (f) 2))) (import (evil lib@1.0)) f')[0];
    const key = '(evil lib)@1.0';
    const sign = async (/** @type {string} */ unit) => base64url(await pub.sign(signedBytes(key, unit, [])));
    // 1. the record signs the honest unit; CODE answers with other IR under that hash
    peer.libs.set(key, [key, honest.hash, [], base64url(pub.publicKey), await sign(honest.hash)]);
    peer.units.set(honest.hash, ['(evil lib)@1.0', wireToData(other.wire), false]);
    const thunk = closureRef(honest.hash, `lib:${key}`, 1);
    const a1 = await peer.request([R.SPAWN, thunk, [], false]);
    assert.equal(a1[0], false);
    assert.match(String(a1[1]), /does not match its hash/);
    // 2. a record whose signature covers another unit
    const key2 = '(evil lib)@2.0';
    peer.libs.set(key2, [key2, honest.hash, [], base64url(pub.publicKey), await sign(other.hash)]);
    const a2 = await peer.request([R.SPAWN, closureRef(honest.hash, `lib:${key2}`, 1), [], false]);
    assert.equal(a2[0], false);
    assert.match(String(a2[1]), /library \(evil lib\) version 2\.0: the signature of publisher \w+ does not match its content/);
    // 3. records that require each other: refused, not waited on forever
    const [ka, kb] = ['(evil a)@1.0', '(evil b)@1.0'];
    const signReq = async (/** @type {string} */ k, /** @type {string[]} */ req) => base64url(await pub.sign(signedBytes(k, honest.hash, req)));
    peer.libs.set(ka, [ka, honest.hash, [`lib:${kb}`], base64url(pub.publicKey), await signReq(ka, [`lib:${kb}`])]);
    peer.libs.set(kb, [kb, honest.hash, [`lib:${ka}`], base64url(pub.publicKey), await signReq(kb, [`lib:${ka}`])]);
    const a3 = await peer.request([R.SPAWN, closureRef(honest.hash, `lib:${ka}`, 1), [], false]);
    assert.equal(a3[0], false);
    assert.match(String(a3[1]), /libraries require each other in a cycle \(\(evil a\)@1\.0 → \(evil b\)@1\.0 → \(evil a\)@1\.0\)/);
    assert.doesNotMatch(b.log(), /EVIL-RAN/);
    assert.doesNotMatch(b.log(), /installed library/);
  } finally {
    await peer.mesh.stop();
  }
});
