#!/usr/bin/env node
// @ts-check
/**
 * Where a central round trip and an RPC by tuples spend their time, stage by stage, on
 * both ends (BENCHMARKS.md, "Linda round trips"): a real daemon (the holder) and a joined
 * node (the requester) run under `node --cpu-prof`, linked over WebSocket as bench/linda.js
 * links them; bench/programs/linda-stages.scm runs one workload; each side's profile is
 * read back and every stage's CPU is printed in µs per iteration.
 *
 *   node bench/linda-stages.js [rtt|rpc|msg|rpc-local|msg-local ...]   (default: rtt rpc msg)
 *
 *   rtt  (out s 'x i) (in s 'x i) on the daemon's central space
 *   rpc  RPC by tuples, 256 payload bytes (request tuple, server on the daemon, response tuple)
 *   msg  the same 256 bytes to an echo process on the daemon and back (the reference)
 *   rpc-local, msg-local  rpc and msg with the server (the echo process) on the requester's
 *        own node, a local space: the processes' share, without frames (not in the default set)
 *
 * A stage is the inclusive CPU of the functions named for it (each counted once per
 * stack, however deep it recurses), over the samples between the first and the last
 * one that shows the workload's own frames (start-up is left out; the warm-up
 * iterations are in, and counted). `busy` is every sample in that window but the idle
 * ones; `(idle)` is the time the process waited. Under load a process also waits for
 * the CPU while it runs: the wall time per iteration is the program's own clock.
 * Each workload also prints both processes' CPU per timed iteration (/proc/PID/stat, read
 * when the program starts and ends its timed loop) and the wall time left over: the
 * wake-ups, the loopback, and — on a loaded machine — waiting for a core.
 * Env: STAGES_N (iterations, default 20000), STAGES_SIZE (payload bytes, default 256),
 * STAGES_PROFILE=0 (the CPU and wall figures without the profiler), STAGES_KEEP=1 (keep the
 * .cpuprofile files, for a closer look: the directory is printed).
 * Every OS process started here is stopped by its PID.
 */
import path from 'node:path';
import os from 'node:os';
import { mkdtempSync, readdirSync, readFileSync, rmSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { startChild, stopChild, waitFor } from './lib/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, '..', 'node-daemon', 'bin', 'termite-node.js');
const program = path.join(here, 'programs', 'linda-stages.scm');
const N = Number(process.env.STAGES_N ?? 20000);
const SIZE = Number(process.env.STAGES_SIZE ?? 256);
const WARMUP = Math.max(200, Math.round(N / 10));
/** STAGES_PROFILE=0: the CPU and wall figures alone, without the profiler's own cost */
const PROFILE = process.env.STAGES_PROFILE !== '0';
const LISTENING = /termite-node (\w+) listening on http:\/\/127\.0\.0\.1:(\d+)/;

/**
 * The stages, by side: a label and the functions whose inclusive time it is. The names
 * are this repository's functions (and Node's socket write); `encode`, `emit` and the
 * like include everything they call.
 * @type {Record<'requester' | 'holder', [string, string[]][]>}
 */
const STAGES = {
  requester: [
    ['Scheme loop (the process: the program, its calls)', ['runLoop']],
    ['tuple/template encode (encodeFields)', ['encodeFields']],
    ['request frame built and queued (sendRemoteOut, flushHeldOut, requestRemote; message: send)', ['sendRemoteOut', 'flushHeldOut', 'requestRemote', 'send']],
    ['frame encode (Distribution.encode, encodeSmallBetween)', ['encode', 'encodeSmallBetween']],
    ['socket writes (writev, writeBuffer, writeUtf8String)', ['writev', 'writeBuffer', 'writeUtf8String']],
    ['frame received (onFrame: read, decode, dispatch)', ['onFrame']],
    ['frame decode (decodeReady)', ['decodeReady']],
    ['answer handled (onReply; message: deliverLocalSend)', ['onReply', 'deliverLocalSend']],
    ['process woken (resumeExternal, deliver)', ['resumeExternal', 'deliver']],
    ['ws receive (Receiver: getData, dataMessage)', ['getData', 'dataMessage']],
  ],
  holder: [
    ['frame received (onFrame: read, decode, dispatch)', ['onFrame']],
    ['frame decode (decodeReady)', ['decodeReady']],
    ['SPACE request served (onSpaceFrame)', ['onSpaceFrame']],
    ['core store (putTuple → outBytes)', ['outBytes']],
    ['core match and withdraw (inpBytes)', ['inpBytes']],
    ['waiter records served (answerServedRecords)', ['answerServedRecords']],
    ['answer sent (handOver; message: send)', ['handOver', 'send']],
    ['ACK handled (onAck)', ['onAck']],
    ['server process (runLoop: in, decode, out)', ['runLoop']],
    ['tuple decode in the server (decodeTuple)', ['decodeTuple']],
    ['tuple encode in the server (encodeFields)', ['encodeFields']],
    ['frame encode (Distribution.encode, encodeSmallBetween)', ['encode', 'encodeSmallBetween']],
    ['socket writes (writev, writeBuffer)', ['writev', 'writeBuffer', 'writeUtf8String']],
    ['ws receive (Receiver: getData, dataMessage)', ['getData', 'dataMessage']],
  ],
};
/** the frames that mark a workload's window, by side */
const MARKS = { requester: ['onFrame'], holder: ['onFrame'] };

/**
 * A .cpuprofile's per-stage CPU in µs per iteration, within the window of samples whose
 * stacks hold one of `marks`.
 * @param {any} prof @param {[string, string[]][]} stages @param {string[]} marks @param {number} iterations
 */
export function stageTable(prof, stages, marks, iterations) {
  /** @type {Map<number, any>} */
  const byId = new Map(prof.nodes.map((/** @type {any} */ n) => [n.id, n]));
  /** @type {Map<number, number>} */
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  /** @param {number} id @returns {string[]} the stack's function names, leaf first */
  const stackOf = (id) => {
    const names = [];
    for (let at = /** @type {number | undefined} */ (id), k = 0; at !== undefined && k < 10000; at = parent.get(at), k++) names.push(byId.get(at).callFrame.functionName);
    return names;
  };
  /** @type {Map<number, string[]>} */
  const stacks = new Map();
  const times = [];
  let t = prof.startTime;
  for (let i = 0; i < prof.samples.length; i++) {
    t += prof.timeDeltas[i];
    times.push(t);
  }
  const stack = (/** @type {number} */ id) => stacks.get(id) ?? (stacks.set(id, stackOf(id)), /** @type {string[]} */ (stacks.get(id)));
  let first = -1, last = -1;
  for (let i = 0; i < prof.samples.length; i++) {
    if (stack(prof.samples[i]).some((f) => marks.includes(f))) {
      if (first < 0) first = i;
      last = i;
    }
  }
  const rows = stages.map(([label]) => ({ label, us: 0 }));
  /** @type {Map<string, number>} */
  const self = new Map();
  let busy = 0, idle = 0;
  for (let i = Math.max(first, 1); i <= last; i++) {
    const dt = times[i] - times[i - 1]; // the sample stands for the time since the one before
    const names = stack(prof.samples[i]);
    if (names[0] === '(idle)') {
      idle += dt;
      continue;
    }
    busy += dt;
    self.set(names[0] || '(anonymous)', (self.get(names[0] || '(anonymous)') ?? 0) + dt);
    stages.forEach(([, fns], k) => {
      if (names.some((f) => fns.includes(f))) rows[k].us += dt;
    });
  }
  const per = (/** @type {number} */ us) => us / iterations;
  return {
    windowMs: (times[last] - times[Math.max(first, 0)]) / 1000,
    busy: per(busy), idle: per(idle),
    rows: rows.map((r) => ({ label: r.label, us: per(r.us) })),
    top: [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.STAGES_TOP ?? 12)).map(([f, us]) => ({ f, us: per(us) })),
  };
}

/** clock ticks a second of /proc/PID/stat's times (the kernel's USER_HZ, 100 on Linux) */
const TICKS = 100;

/** A process's CPU so far, user + system, in clock ticks (/proc/PID/stat). @param {number} pid */
function cpuTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]); // utime, stime (fields 14 and 15)
}

/** The one .cpuprofile a process left in `dir`. @param {string} dir */
function readProfile(dir) {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length !== 1) throw new Error(`${dir}: expected one profile, found ${files.length}`);
  return JSON.parse(readFileSync(path.join(dir, files[0]), 'utf8'));
}

/** One workload under the profiler on both ends; prints its tables. @param {string} workload @param {string} dir */
async function profileOne(workload, dir) {
  const token = `stages-${randomBytes(9).toString('hex')}`;
  const holderDir = path.join(dir, `${workload}-holder`), requesterDir = path.join(dir, `${workload}-requester`);
  mkdirSync(holderDir);
  mkdirSync(requesterDir);
  let out = '';
  const daemon = startChild(process.execPath, [...(PROFILE ? ['--cpu-prof', '--cpu-prof-dir', holderDir] : []), bin, '--port', '0', '--token', token], { onLine: (l) => { out += `${l}\n`; } });
  try {
    if (!(await waitFor(() => LISTENING.test(out) || !daemon.running(), 20000, 20))) throw new Error(`the daemon did not start: ${out.slice(-400)}`);
    const port = Number(/** @type {RegExpExecArray} */ (LISTENING.exec(out))[2]);
    /** both processes' CPU ticks when the timed iterations start and end */
    /** @type {number[][]} */
    const cpu = [];
    let result = '';
    /** @type {any} */
    let req = null;
    req = startChild(process.execPath, [...(PROFILE ? ['--cpu-prof', '--cpu-prof-dir', requesterDir] : []), path.join(here, 'mesh-node.js'), program, '--join', `ws://127.0.0.1:${port}`, '--token', token, '--links', 'ws'], {
      env: { ...process.env, PEER_PORT: String(port), WORKLOAD: workload, N: String(N), WARMUP: String(WARMUP), SIZE: String(SIZE) },
      onLine: (l, stream) => {
        if (stream !== 'stdout') return;
        if (l === 'timed' || l.startsWith('result ')) cpu.push([cpuTicks(req.pid), cpuTicks(/** @type {number} */ (daemon.pid))]);
        if (l.startsWith('result ')) result = l;
      },
    });
    if (!(await waitFor(() => !req.running(), 300000, 50))) await stopChild(req);
    if (!/^result /.test(result) || cpu.length !== 2) throw new Error(`${workload}: no result: ${req.stderr().slice(-600)}`);
    const wall = Number(result.split(' ')[3]);
    const cpuUs = (/** @type {number} */ k) => ((cpu[1][k] - cpu[0][k]) * 1e6) / TICKS / N;
    console.log(`# ${workload}: ${wall.toFixed(1)} µs per iteration (wall, the program's clock), ${N} timed after ${WARMUP} warm-up; payload ${SIZE} bytes; load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    console.log(`cpu ${workload}.requester ${cpuUs(0).toFixed(1)} us  CPU per timed iteration (/proc, user + system)`);
    console.log(`cpu ${workload}.holder ${cpuUs(1).toFixed(1)} us  CPU per timed iteration (/proc, user + system)`);
    console.log(`cpu ${workload}.wait ${(wall - cpuUs(0) - cpuUs(1)).toFixed(1)} us  wall less both CPUs: wake-ups, the loopback, and waiting for a core`);
  } finally {
    await stopChild(daemon);
  }
  for (const side of /** @type {('requester' | 'holder')[]} */ (PROFILE ? ['requester', 'holder'] : [])) {
    const t = stageTable(readProfile(side === 'holder' ? holderDir : requesterDir), STAGES[side], MARKS[side], N + WARMUP);
    console.log(`# ${workload} ${side}: busy ${t.busy.toFixed(1)} µs, idle ${t.idle.toFixed(1)} µs per iteration (window ${t.windowMs.toFixed(0)} ms)`);
    for (const r of t.rows) console.log(`stage ${workload}.${side} ${r.us.toFixed(2)} us  ${r.label}`);
    console.log(`#   top self time: ${t.top.map((x) => `${x.f} ${x.us.toFixed(1)}`).join(', ')}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const want = process.argv.slice(2).filter((a) => ['rtt', 'rpc', 'msg', 'rpc-local', 'msg-local'].includes(a));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'linda-stages-'));
  try {
    for (const w of want.length > 0 ? want : ['rtt', 'rpc', 'msg']) await profileOne(w, dir);
  } finally {
    if (process.env.STAGES_KEEP === '1') console.log(`# profiles kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
