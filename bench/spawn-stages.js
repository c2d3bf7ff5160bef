#!/usr/bin/env node
// @ts-check
/**
 * CPU of a remote spawn, and of its stages, with both nodes in this one process: a
 * measuring tool for BENCHMARKS.md ("Remote spawn and the receive path"), not a script
 * of `npm run bench`.
 *
 *   node bench/spawn-stages.js [spawn|pingpong] [COUNT]
 *
 * Two hosts as termite-node starts them (startHost: a MeshNode, a runtime node, the
 * distribution layer), B joined to A over plain TCP (--insecure). B runs a Scheme
 * program: `spawn` does what remote_spawn.2node does (a remote spawn of a closure over
 * local data, the spawned process answers with a value computed from it), `pingpong`
 * what pingpong.2node does (a small message to an echo process on A and back). Both
 * nodes run on this thread, so an operation's CPU is both ends' work, two writes and two
 * reads through the kernel's loopback, with no wake-up across CPUs in it: the figure the
 * load of a shared machine cannot swing much (run it pinned: `taskset -c 0`).
 *
 * Prints "stage spawn.cpu <µs per operation>" (or pingpong.cpu): the CPU time
 * (process.cpuUsage) of a run of 5·COUNT operations minus one of COUNT, over 4·COUNT, so
 * start-up and the program's compilation cancel out; the median of 5 such pairs, after
 * a warm-up of 3·COUNT. Then, for `spawn`, one more run with the stages timed (each a
 * method of the distribution layer or the mesh wrapped with a clock, on this
 * instance only, by the process's CPU time: getrusage, whole µs, unbiased over many
 * calls; each call costs ~0.5 µs, which the enclosing stages and spawn.cpu_timed
 * include): "stage spawn.<side>.<stage> <µs>" per operation. A stage includes those nested in it (onRequest contains the request's
 * decode, the spawn and the answer's encode).
 * Every loop is bounded by its count; both hosts are stopped at the end.
 */
import { startHost } from '../node-daemon/src/host.js';

const mode = process.argv[2] ?? 'spawn';
const COUNT = Number(process.argv[3] ?? 2000);
if (!['spawn', 'pingpong'].includes(mode) || !(COUNT > 0)) {
  process.stderr.write('usage: spawn-stages.js [spawn|pingpong] [COUNT]\n');
  process.exit(2);
}
const TOKEN = 'spawn-stages-0123456789abcdef';

/** @param {string} name @param {number} value */
function print(name, value) {
  process.stdout.write(`stage ${name} ${value.toFixed(2)}\n`);
}

/** This process's CPU time so far, µs (getrusage: the kernel's own accounting, whole µs). */
function cpuMicros() {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** @param {number[]} xs */
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** The Scheme program of one run of `n` operations on B; A's id is `peer`. @param {number} n @param {number} port */
function program(n, port) {
  const peer = `(define peer (make-node "127.0.0.1" ${port}))`;
  if (mode === 'spawn') {
    return `${peer}
(let ((data (list '(1 2 3) "local data" 42)) (me (self)))
  (do ((i 0 (+ i 1))) ((= i ${n}))
    (let ((tag (make-tag)))
      (remote-spawn peer (lambda () (! me (list tag (+ (apply + (car data)) (caddr data))))))
      (recv ((,tag 48) #t) (after 10 (error "no reply from the spawned process"))))))`;
  }
  return `${peer}
(define echo (remote-spawn peer (lambda () (let loop () (let ((m (?))) (! (car m) (cdr m)) (loop))))))
(do ((i 0 (+ i 1))) ((= i ${n})) (! echo (cons (self) i)) (recv (x #t) (after 10 (error "no echo"))))`;
}

/** CPU µs of one run of n operations. @param {any} host @param {number} n @param {number} port A's port */
async function cpuOfRun(host, n, port) {
  const u0 = process.cpuUsage();
  const r = await host.node.runProgram(program(n, port), { file: 'spawn-stages.scm' });
  const u = process.cpuUsage(u0);
  if (!r.ok) throw new Error(`the ${mode} program failed: ${r.message}`);
  return u.user + u.system;
}

/**
 * Wrap `obj[name]` (an own or inherited method) so its time adds to `acc[key]`.
 * @param {any} obj @param {string} name @param {Record<string, number>} acc @param {string} key
 */
function timeMethod(obj, name, acc, key) {
  const f = obj[name];
  if (typeof f !== 'function') throw new Error(`no method ${name} to time`);
  acc[key] = 0;
  obj[name] = function timed(/** @type {any[]} */ ...args) {
    const t0 = cpuMicros();
    try {
      return f.apply(this, args);
    } finally {
      acc[key] += cpuMicros() - t0;
    }
  };
}

/**
 * The stages of a spawn: B (the caller) and A (the spawning node), methods of their
 * distribution layers and meshes, timed on these instances only.
 * @param {any} a @param {any} b
 */
function wrapStages(a, b) {
  /** @type {Record<string, number>} */
  const acc = {};
  timeMethod(b.distribution, 'encode', acc, 'caller.encode_request');
  timeMethod(b.mesh, 'request', acc, 'caller.request_write');
  timeMethod(b.distribution, 'decodeReady', acc, 'caller.decode_answer_and_msg');
  timeMethod(b.distribution, 'onFrame', acc, 'caller.msg_frame_to_mailbox');
  timeMethod(a.distribution, 'onRequest', acc, 'spawner.on_request');
  timeMethod(a.distribution, 'decodeReady', acc, 'spawner.decode_request');
  timeMethod(a.distribution, 'acceptSpawn', acc, 'spawner.accept_spawn');
  timeMethod(a.node, 'spawn', acc, 'spawner.process_creation');
  timeMethod(a.distribution, 'encode', acc, 'spawner.encode_answer_and_msg');
  timeMethod(a.distribution, 'send', acc, 'spawner.msg_send');
  return acc;
}

const out = (/** @type {string} */ s) => { if (s.trim() !== '') process.stderr.write(s); };
const log = (/** @type {string} */ s) => process.stderr.write(`spawn-stages: ${s}\n`);
const a = await startHost({ host: '127.0.0.1', port: 0, join: [], token: TOKEN, data: undefined, tcp: true, insecure: true, stdout: out, log });
/** @type {any} */
let b = null;
try {
  b = await startHost({ host: '127.0.0.1', port: 0, join: [`ws://127.0.0.1:${a.port}`], token: TOKEN, data: undefined, tcp: true, insecure: true, stdout: out, log });
  await cpuOfRun(b, 3 * COUNT, a.port);
  /** @type {number[]} */
  const per = [];
  for (let i = 0; i < 5; i++) {
    const small = await cpuOfRun(b, COUNT, a.port);
    const large = await cpuOfRun(b, 5 * COUNT, a.port);
    per.push((large - small) / (4 * COUNT));
  }
  print(`${mode}.cpu`, median(per));
  if (mode === 'spawn') {
    const acc = wrapStages(a, b);
    const total = await cpuOfRun(b, 5 * COUNT, a.port);
    print('spawn.cpu_timed', total / (5 * COUNT));
    for (const [k, us] of Object.entries(acc)) print(`spawn.${k}`, us / (5 * COUNT));
  }
} finally {
  if (b !== null) await b.stop();
  await a.stop();
}
process.exit(0);
