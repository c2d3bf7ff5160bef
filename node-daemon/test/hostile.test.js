// @ts-check
/**
 * Hostile input at the Termite layer (docs/security.md, "Hostile input"): a test peer — a
 * real mesh node admitted with the daemon's token, driven by hand (helpers/peer.js) —
 * sends a real daemon garbage, broken frames and code that must not run. Each time the
 * sender gets a precise error (an ERROR frame [8, message] for a one-way frame, [#f
 * message] for a request, a mesh ERROR for what the mesh refuses), the daemon logs the
 * same refusal, and the daemon goes on serving other peers. Mobile code that reaches a
 * denied procedure (by name or as a value) gets an error in its own process.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { encodeValue } from '@termite/scheme/internal';
import { runtimeUnits } from '@termite/scheme/internal';
import { Pid } from '@termite/runtime';
import { writeString } from '@termite/scheme';
import { startDaemon, runProgram, health, newToken, waitFor } from './helpers/daemons.js';
import { hostilePeer, closureRef, unitOf, oversizedFrom, F, R } from './helpers/peer.js';

const token = newToken();
/** @type {import('./helpers/daemons.js').Daemon} */
let d;
/** @type {Awaited<ReturnType<typeof hostilePeer>>} */
let peer;
/** @type {Awaited<ReturnType<typeof hostilePeer>>} another peer, well behaved: proof the daemon still serves */
let witness;
const scratch = mkdtempSync(path.join(os.tmpdir(), 'termite-hostile-'));
let envs = 0;
/** A program environment id the daemon has never seen (so it fetches code and asks ENV). */
const freshEnv = () => `hostile-env-${process.pid}-${++envs}`;

before(async () => {
  d = await startDaemon({ token });
  peer = await hostilePeer(d, token);
  witness = await hostilePeer(d, token);
});

after(async () => {
  await Promise.all([peer?.stop(), witness?.stop()]);
  await d?.stop('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

/** @param {string} s */
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The daemon logged that it refused something from `from` with this message. @param {string} from @param {string} message */
async function logged(from, message) {
  const re = new RegExp(`(frame|request) from ${from.slice(0, 12)} refused: ${escape(message)}`);
  await waitFor(() => re.test(d.log()), 5000, `daemon log line ${re}`);
}

/** The daemon process is up, answers HTTP, and its Termite layer answers another peer. */
async function stillServing() {
  assert.equal(d.child.exitCode, null, 'the daemon process is alive');
  assert.equal((await health(d.url)).ok, true);
  const stats = await witness.request([R.STATS, []]);
  assert.equal(stats[0], true, String(stats[1]));
  assert.equal(JSON.parse(stats[1]).id, d.id);
}

/** A minimal CBOR text string. @param {string} s */
function cborText(s) {
  const b = Buffer.from(s, 'utf8');
  if (b.length >= 256) throw new Error('short strings only');
  return Buffer.concat([Buffer.from(b.length < 24 ? [0x60 | b.length] : [0x78, b.length]), b]);
}

test('garbage and broken one-way frames are refused with an ERROR frame naming the problem, and logged', async () => {
  const cases = [
    // random bytes as a Termite payload (0xff first: a "break" byte, never a valid start)
    { bytes: Buffer.concat([Buffer.from([0xff]), randomBytes(63)]), error: /^CodecError: .* at byte \d+$/ },
    // a SEND cut short by one byte (its trailing vector of environment versions is missing)
    { bytes: encodeValue([F.SEND, d.id, 1, 'hello', []]).subarray(0, -1), error: /^CodecError: truncated input at byte \d+$/ },
    // a SEND whose message holds a CBOR tag (48879) no codec defines
    {
      bytes: Buffer.concat([Buffer.from([0x85, F.SEND]), cborText(d.id), Buffer.from([0x01, 0xd9, 0xbe, 0xef, 0x01, 0x80])]),
      error: /^CodecError: unknown tag 48879 at byte \d+$/,
    },
    { value: [99, d.id, 1, 'x', []], error: /^unknown frame type 99$/ },
    { value: ['SEND', d.id, 1, 'x', []], error: /^malformed frame: not a vector that starts with a frame type$/ },
    // a LINK whose target is not a pid (this used to throw a TypeError inside the mesh handler)
    { value: [F.LINK, 'no-such-node', 5, 'not-a-pid', []], error: /^malformed LINK frame$/ },
    { value: [F.SEND, d.id, 1, 'a SEND without the environment versions'], error: /^malformed SEND frame$/ },
  ];
  for (const c of cases) {
    peer.send(c.bytes ?? c.value);
    const f = await peer.errorFrame(c.error);
    await logged(peer.id, String(f[1]));
  }
  assert.doesNotMatch(d.log(), /message handler threw/, 'no handler threw: every refusal was deliberate');
  await stillServing();
});

test('garbage and broken requests are answered [#f message] naming the problem, and logged', async () => {
  /** @type {Array<[any, RegExp]>} */
  const cases = [
    [Buffer.concat([Buffer.from([0xff]), randomBytes(31)]), /^CodecError: .* at byte \d+$/],
    [encodeValue([R.STATS, []]).subarray(0, -1), /^CodecError: truncated input at byte \d+$/],
    [Buffer.from([0x82, 0x18, R.SPAWN, 0xd9, 0xbe, 0xef, 0x01]), /^CodecError: unknown tag 48879 at byte 6$/],
    [[99, []], /^Error: unknown request type 99$/],
    [[R.SPAWN, 42, null, false, []], /^CodecError: SPAWN needs a procedure to run, got 42$/],
    [[R.MIGRATE, [new Pid(peer.id, 3), 'not a thread', 7, 8, 9], []], /^CodecError: malformed process state/],
    [[R.MIGRATE, [new Pid(peer.id, 3), [1, 2], [], [], []], []], /^CodecError: not a thread snapshot$/],
    // 5,000 nested tags: within the decoder's depth bound, beyond what the stack holds
    [Buffer.concat([Buffer.alloc(10_000).map((_, i) => (i % 2 === 0 ? 0xd8 : 28)), Buffer.from([0x80])]), /^CodecError: value nested too deeply to decode/],
  ];
  for (const [req, re] of cases) {
    const answer = await peer.request(req);
    assert.equal(answer[0], false, `refused: ${answer[1]}`);
    assert.match(answer[1], re);
    await logged(peer.id, answer[1]);
  }
  await stillServing();
});

test('an oversized frame is refused by the daemon\'s mesh (FrameTooLargeError to the sender, logged)', async () => {
  const e = await oversizedFrom(d, token, 64 * 1024 * 1024 + 4096);
  assert.equal(e.name, 'FrameTooLargeError');
  assert.match(e.message, /^chunked frame \(message \d+\) of (\d+) bytes exceeds the limit of 67108864 bytes$/);
  assert.ok(Number(/of (\d+) bytes/.exec(e.message)?.[1]) > 64 * 1024 * 1024, 'the size declared is the frame\'s');
  await waitFor(() => new RegExp(`bad frame from peer \\{"peer":"${e.id}".*FrameTooLargeError`).test(d.log()), 5000, 'the refusal in the daemon log');
  await stillServing();
});

test('the control: a closure whose IR the peer serves is fetched, checked and run by the daemon', async () => {
  const u = unitOf('(lambda (to) (lambda () (! to (list \'answer (* 6 7)))))');
  peer.units.set(u.hash, ['hostile', u.data, false]);
  const inner = u.lambdas.findIndex((l) => l.nfree === 1);
  const answer = await peer.request([R.SPAWN, closureRef(u.hash, freshEnv(), inner, [new Pid(peer.id, 1)]), null, false, []]);
  assert.equal(answer[0], true, String(answer[1]));
  assert.ok(answer[1] instanceof Pid && answer[1].node === d.id, 'a pid on the daemon');
  assert.ok(peer.asked.some((q) => q[0] === R.CODE && q[1] === u.hash), 'the daemon fetched the IR from the peer');
  const sent = await peer.frame((f) => f[0] === F.SEND && f[2] === 1, 'the spawned process\'s message');
  assert.equal(writeString(sent[3]), '(answer 42)');
});

test('MOVED is believed only from the node the process\'s messages go to: another peer cannot redirect them to itself', async () => {
  // a process on the daemon that sends one message to `to`, spawned by the peer
  const u = unitOf('(lambda (to) (lambda () (! to \'hello)))');
  peer.units.set(u.hash, ['hostile', u.data, false]);
  const inner = u.lambdas.findIndex((l) => l.nfree === 1);
  /** @param {Pid} to */
  const sendFromDaemon = async (to) => {
    const answer = await peer.request([R.SPAWN, closureRef(u.hash, freshEnv(), inner, [to]), null, false, []]);
    assert.equal(answer[0], true, String(answer[1]));
  };
  /** @param {typeof peer} p @param {Pid} pid */
  const arrives = (p, pid) => p.frame((f) => f[0] === F.SEND && f[1] === pid.node && f[2] === pid.n && writeString(f[3]) === 'hello', `hello for ${pid.n}@${pid.node.slice(0, 8)} at ${p.id.slice(0, 8)}`);

  // the peer claims that the witness's process 7 now lives on the peer: refused, logged
  const victim = new Pid(witness.id, 7);
  peer.send([F.MOVED, victim.node, victim.n, peer.id, []]);
  const refusal = await peer.errorFrame(/^MOVED for process 7 of /);
  assert.match(String(refusal[1]), new RegExp(`from ${peer.id.slice(0, 12)}, which is not where this node sends its messages \\(${witness.id.slice(0, 12)}\\)$`));
  await logged(peer.id, String(refusal[1]));
  // ... and the daemon still sends that process's messages to the witness, none to the peer
  await sendFromDaemon(victim);
  await arrives(witness, victim);
  assert.ok(!peer.frames.some((f) => f[0] === F.SEND && f[1] === victim.node), 'the peer got none of the witness\'s messages');

  // the control: the peer's own process 8 moved to the witness, said by the peer (its host)
  const own = new Pid(peer.id, 8);
  peer.send([F.MOVED, own.node, own.n, witness.id, []]); // no answer; the link keeps it before the SPAWN
  await sendFromDaemon(own);
  await arrives(witness, own);
  await stillServing();
});

test('SPAWN, MIGRATE and SEND naming code nobody can supply are refused, naming the unit', async () => {
  const nobody = 'ab'.repeat(32);
  const thunk = closureRef(nobody, freshEnv(), 1);
  const expected = new RegExp(`^CodecError: unit ${nobody.slice(0, 16)} could not be fetched from ${peer.id.slice(0, 12)}: this peer does not have unit ${nobody.slice(0, 16)}$`);
  const spawn = await peer.request([R.SPAWN, thunk, null, false, []]);
  assert.deepEqual([spawn[0], expected.test(spawn[1])], [false, true], spawn[1]);
  await logged(peer.id, spawn[1]);
  const migrate = await peer.request([R.MIGRATE, [new Pid(peer.id, 9), thunk, [], [], []], []]);
  assert.deepEqual([migrate[0], expected.test(migrate[1])], [false, true], migrate[1]);
  peer.send([F.SEND, d.id, 1, thunk, []]);
  await peer.errorFrame(expected);
  assert.ok(peer.asked.filter((q) => q[0] === R.CODE && q[1] === nobody).length >= 3, 'the daemon asked the sender each time');
  await stillServing();
});

test('IR naming globals outside the allowed library, IR whose hash does not match, and malformed IR are refused, naming the unit', async () => {
  const text = '(lambda () (* 6 7))';
  /** @type {Array<[string, (data: any[]) => void, (h: string) => RegExp]>} */
  const variants = [
    ['made-up runtime global', (dd) => { dd[2].push(['rt', 'host-secret-procedure']); }, (h) => new RegExp(`^IRCheckError: unit ${h}: global host-secret-procedure is not in this node's allowed library$`)],
    ['host namespace', (dd) => { dd[2].push(['js', 'process']); }, (h) => new RegExp(`^IRCheckError: unit ${h}: global js::process is not in this node's allowed library$`)],
    ['made-up primitive', (dd) => { dd[3].push('%host-only'); }, (h) => new RegExp(`^IRCheckError: unit ${h}: primitive %host-only is not in this node's allowed library$`)],
    ['unknown instruction', (dd) => { dd[4][1][2][0][3] = [[99, 1]]; }, (h) => new RegExp(`^IRCheckError: unit ${h}: lambda 1: unknown instruction 99$`)],
    ['global index out of range', (dd) => { dd[4][1][2][0][3] = [[20, [3, 5]]]; }, (h) => new RegExp(`^IRCheckError: unit ${h}: lambda 1: global 5 out of range$`)],
    ['not a unit', (dd) => { dd.length = 2; }, (h) => new RegExp(`^Error: unit ${h}: malformed unit$`)],
  ];
  for (const [what, variant, error] of variants) {
    let u;
    try {
      u = unitOf(text, variant);
    } catch {
      u = { data: unitOf(text).data, hash: 'ee'.repeat(32) };
      variant(u.data);
    }
    peer.units.set(u.hash, ['hostile', u.data, false]);
    const re = error(u.hash.slice(0, 16));
    const answer = await peer.request([R.SPAWN, closureRef(u.hash, freshEnv(), 1), null, false, []]);
    assert.equal(answer[0], false, `${what}: refused`);
    assert.match(answer[1], re, what);
    await logged(peer.id, answer[1]);
    // the same code in a one-way frame: an ERROR frame; and a refused unit is not kept
    peer.send([F.SEND, d.id, 1, closureRef(u.hash, freshEnv(), 1), []]);
    await peer.errorFrame(re);
    assert.equal(peer.asked.filter((q) => q[0] === R.CODE && q[1] === u.hash).length, 2, `${what}: fetched again, not cached`);
  }
  // honest IR served under another unit's hash
  const liar = 'cd'.repeat(32);
  peer.units.set(liar, ['liar', unitOf(text).data, false]);
  const answer = await peer.request([R.SPAWN, closureRef(liar, freshEnv(), 1), null, false, []]);
  assert.equal(answer[0], false);
  assert.match(answer[1], new RegExp(`^CodecError: unit ${liar.slice(0, 16)} does not match its hash \\(got [0-9a-f]{16}\\)$`));
  await logged(peer.id, answer[1]);
  await stillServing();
});

test('denied procedures reached by mobile code raise in the mobile process: by name, as values, through the runtime\'s own code', async () => {
  const victim = path.join(scratch, 'victim.txt');
  writeFileSync(victim, 'keep me');
  const r = await runProgram(
    `
(define a (make-node "127.0.0.1" ${d.port}))
(define (try thunk)
  (guard (e ((error-object? e) (error-object-message e))) (on a thunk)))
(define rm delete-file)
(define quit exit)
(define to-file call-with-output-file)
(write (try (lambda () (delete-file ${JSON.stringify(victim)}) 'deleted))) (newline)
(write (try (lambda () (rm ${JSON.stringify(victim)}) 'deleted))) (newline)
(write (try (lambda () (quit 3)))) (newline)
(write (try (lambda () (to-file ${JSON.stringify(victim + '.new')} (lambda (p) (write 'x p)))))) (newline)
(write (try (lambda () (with-output-to-file ${JSON.stringify(victim + '.new')} (lambda () (write 'x)))))) (newline)
(write (try (lambda () (get-environment-variable "HOME")))) (newline)
(write (on a (lambda () (list 'still 'here)))) (newline)
`,
    { token, join: [d.url] },
  );
  assert.equal(r.status, 0, r.stderr);
  const deny = (/** @type {string} */ name) => JSON.stringify(`${name} is not allowed for code received from another node`);
  assert.equal(r.stdout, [deny('delete-file'), deny('delete-file'), deny('exit'), deny('call-with-output-file'), deny('with-output-to-file'), deny('get-environment-variable'), '(still here)', ''].join('\n'));
  assert.equal(existsSync(victim), true, 'the file was not deleted');
  assert.equal(existsSync(victim + '.new'), false, 'no file was written');

  // closures the peer forges over the daemon's own runtime code: a builtin, exit, a library's top level
  const prelude = [...runtimeUnits.values()].find((u) => u.wire.name === 'prelude');
  const exitIndex = prelude.wire.lambdas.findIndex((/** @type {any} */ l) => l.name === 'exit');
  /** @type {Array<[any, RegExp]>} */
  const forged = [
    [closureRef('builtin', 'rt', 'delete-file', []), /died: delete-file: delete-file is not allowed for code received from another node/],
    [closureRef(prelude.hash, 'rt', exitIndex, []), /died: exit: exit is not allowed for code received from another node/],
    [closureRef(prelude.hash, 'rt', 0, []), /died: prelude: the top level of runtime library prelude cannot be run by another node/],
  ];
  for (const [thunk, died] of forged) {
    const answer = await peer.request([R.SPAWN, thunk, null, false, []]);
    assert.equal(answer[0], true, String(answer[1]));
    await waitFor(() => died.test(d.log()), 5000, `the process's death in the log: ${died}`);
  }
  // IR that names exit is checked, linked to a stand-in, and dies instead of ending the daemon
  const u = unitOf('(lambda () (exit 3))');
  peer.units.set(u.hash, ['exits', u.data, false]);
  const answer = await peer.request([R.SPAWN, closureRef(u.hash, freshEnv(), 1), null, false, []]);
  assert.equal(answer[0], true, String(answer[1]));
  await waitFor(() => (d.log().match(/died: exit: exit is not allowed/g) ?? []).length >= 2, 5000, 'the second exit refused');
  await stillServing();
});

test('after all of it the daemon serves a program joined with --join: remote-spawn and on round trips', async () => {
  const r = await runProgram(
    `
(define a (make-node "127.0.0.1" ${d.port}))
(define (square x) (* x x))
(define worker (remote-spawn a (lambda () (let loop () (recv ((from x) (! from (square x)))) (loop)))))
(! worker (list (self) 12))
(display (?)) (newline)
(display (on a (lambda () (map square '(1 2 3))))) (newline)
`,
    { token, join: [d.url] },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '144\n(1 4 9)\n');
  await stillServing();
  assert.doesNotMatch(d.log(), /message handler threw|uncaught|unhandled/i);
});
