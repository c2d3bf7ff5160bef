#!/usr/bin/env node
// @ts-check
/**
 * Where the DTS messages of the distributed matrix multiplication go (BENCHMARKS.md,
 * "Distributed spaces with four workers"): for one grain and n workers, a holder daemon,
 * n worker daemons and the coordinator (bench/programs/linda-matmul.scm, KIND=distributed,
 * a warm-up and ROUNDS rounds) run with TERMITE_DTS_COUNTS set
 * (packages/runtime/src/linda/dts-counters.js); each process writes, at exit, the DTS
 * messages it received by kind, the tuples they carried and its CPU time. Printed:
 *
 *   bench dts.<grain>.n<k>.<KIND>.msgs    messages of that kind received, all nodes summed
 *   bench dts.<grain>.n<k>.<KIND>.tuples  tuples carried (OUT, REPAIR_ACK)
 *   bench dts.<grain>.n<k>.cpu.<role>     ms of CPU of the holder, the coordinator, each worker
 *   bench linda.matmul.distributed.<grain>.n<k>  ms  the rounds' median, same run
 *
 *   node bench/linda-dts-counts.js [row|element] [1|2|4]   (default: both grains, n = 1, 2, 4)
 *
 * Every OS process started here is stopped by its PID; every wait is bounded.
 */
import path from 'node:path';
import os from 'node:os';
import { readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { startChild, stopChild, runChild, waitFor } from './lib/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, '..', 'node-daemon', 'bin', 'termite-node.js');
const matmul = path.join(here, 'programs', 'linda-matmul.scm');
const NAMES = ['', 'OUT', 'IN', 'RD', 'CHOWN_REQ', 'CHOWN_ACK', 'DELETE', 'ACCESS', 'REPAIR_REQ', 'REPAIR_ACK', 'REFUSED'];
const LISTENING = /termite-node (\w+) listening on http:\/\/127\.0\.0\.1:(\d+)/;
const grains = process.argv[2] ? [process.argv[2]] : ['element', 'row'];
const ns = process.argv[3] ? [Number(process.argv[3])] : [1, 2, 4];
const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-dts-counts-'));

/** Start a daemon and wait for its port. @param {string[]} args @param {NodeJS.ProcessEnv} env */
async function daemon(args, env) {
  let out = '';
  const h = startChild(process.execPath, [bin, '--port', '0', ...args], { env, onLine: (l) => { out += `${l}\n`; } });
  /** @type {RegExpExecArray | null} */
  let m = null;
  if (!(await waitFor(() => (m = LISTENING.exec(out)) !== null || !h.running(), 20000, 20)) || m === null) {
    await stopChild(h);
    throw new Error(`a daemon did not start: ${out.slice(-400)}`);
  }
  return { h, port: /** @type {RegExpExecArray} */ (m)[2] };
}

/** One grain with n workers: the counts, printed. @param {string} grain @param {number} n */
async function measure(grain, n) {
  const file = path.join(dir, `${grain}-${n}.jsonl`);
  const token = `bench-${randomBytes(9).toString('hex')}`;
  const env = { ...process.env, TERMITE_DTS_COUNTS: file };
  /** @type {Array<{h: any, port: string}>} */
  const started = [];
  try {
    const holder = await daemon(['--token', token], env);
    started.push(holder);
    /** @type {Array<{h: any, port: string}>} */
    const workers = [];
    for (let k = 0; k < n; k++) workers.push(await daemon(['--token', token, '--join', `ws://127.0.0.1:${holder.port}`], env));
    started.push(...workers);
    // W1..W4: the first n are the workers; the program names four nodes but uses n of them
    const ports = Object.fromEntries([1, 2, 3, 4].map((k) => [`W${k}`, workers[k - 1]?.port ?? holder.port]));
    const r = await runChild(process.execPath, [path.join(here, 'mesh-node.js'), matmul, '--join', `ws://127.0.0.1:${holder.port}`, '--token', token], {
      timeoutMs: 200000,
      env: { ...env, ...ports, KIND: 'distributed', HOLDER_PORT: holder.port, ROUNDS: '3', N: String(n), GRAIN: grain, DIM_ELEMENT: '10', DIM_ROW: '48' },
    });
    if (r.timedOut || r.code !== 0) throw new Error(`${grain} n=${n}: ${r.stderr.slice(-400)}`);
    const times = [...r.stdout.matchAll(/^result (\S+) \d+ ([\d.]+)/gm)].map((m) => Number(m[2])).sort((a, b) => a - b);
    if (times.length > 0) console.log(`bench linda.matmul.distributed.${grain}.n${n} ${times[Math.floor(times.length / 2)].toPrecision(3)} ms`);
  } finally {
    for (const s of started.reverse()) await stopChild(s.h);
  }
  const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const msgs = new Array(12).fill(0), tuples = new Array(12).fill(0);
  let w = 0;
  for (const l of lines) {
    for (let i = 0; i < 12; i++) {
      msgs[i] += l.msgs[i];
      tuples[i] += l.tuples[i];
    }
    const role = l.argv.includes('mesh-node') ? 'coordinator' : l.argv.includes('--join') ? `worker${++w}` : 'holder';
    console.log(`bench dts.${grain}.n${n}.cpu.${role} ${l.cpuMs.toFixed(0)} ms`);
  }
  for (let i = 1; i < NAMES.length; i++) {
    if (msgs[i] > 0) console.log(`bench dts.${grain}.n${n}.${NAMES[i]}.msgs ${msgs[i]} messages`);
    if (tuples[i] > 0) console.log(`bench dts.${grain}.n${n}.${NAMES[i]}.tuples ${tuples[i]} tuples`);
  }
}

try {
  for (const grain of grains) for (const n of ns) await measure(grain, n);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
