#!/usr/bin/env node
// @ts-check
/**
 * Tuple spaces across two nodes, each figure beside its reference measured in the same
 * run (docs/linda.md; BENCHMARKS.md, "Tuple spaces across nodes").
 *
 *   node bench/linda.js [PREFIX]        (node bench/run.js linda)
 *   node bench/linda.js linda.rpc       (all but the matrix multiplication, which takes the longest)
 *
 *   pingpong.ws.2node          rt/s    the reference: a message to an echo process on the
 *                                      daemon and back (as bench/mesh.js measures it)
 *   linda.central.rtt.2node    µs      an `out` then an `in` of that tuple, on a central space
 *                                      of the daemon, from the joined node
 *   linda.rpc.{256,1k,8k}.2node rt/s   RPC by tuples (a request tuple, a server on the daemon,
 *                                      a response tuple) with that many payload bytes
 *   raw.ws.{256,1024,8192}     rt/s    the references: the same bytes echoed over a bare `ws`
 *                                      socket (bench/mesh-raw.js). The bare echo swings between
 *                                      runs, so RPC is measured in RPC_ROUNDS rounds, each the
 *                                      bare echo then RPC by tuples and by messages; the
 *                                      `.vs_raw.ratio` figures are the median of the rounds' ratios
 *   rpc.msg.{256,1024,8192}.2node rt/s the same request and response as Termite messages in the
 *                                      same run (the fair reference: what the mesh and the
 *                                      runtime cost a message RPC before any Linda)
 *   linda.distributed.rd       µs      an `rd` on the joined node of a tuple the daemon put in a
 *                                      distributed space: served from the joined node's replica
 *                                      (beside linda.central.rtt.2node: target ≤ 0.1×)
 *   linda.distributed.rpc.256.2node rt/s RPC by tuples on a distributed space (the RPC
 *                                      optimisation: each tuple owned by the node waiting for it)
 *   linda.central.rtt.durable.2node µs the same round trip on a durable central space (a
 *                                      second daemon, with --data: an out and an in are then
 *                                      also an insert and a delete in SQLite)
 *   linda.durable.out          outs/s  `out`s into a durable central space (the --data daemon),
 *                                      timed on that daemon
 *   sqlite.insert              rows/s  the reference: the same tuples' bytes inserted alone into
 *                                      the same schema, WAL, the same synchronous setting
 *                                      (node-daemon/src/space-store.js), in this process
 *   linda.matmul.{element,row}.n{1,2,4}  ms  the S/Net matrix multiplication (bench/programs/
 *                                      linda-matmul.scm) on a central space of the daemon with
 *                                      n workers, one on each of n worker daemons; and
 *   linda.matmul.distributed.{element,row}.n{1,2,4} (and .fit.{a,b})  ms  the same on a
 *                                      distributed space made on the daemon (KIND=distributed)
 *   linda.matmul.{element,row}.fit.{a,b}  ms  the S/Net paper's fit t(n) = a/n + b (least
 *                                      squares over the three medians): a the work that divides,
 *                                      b what does not (the holder, the coordinator)
 *
 * The daemons are real `termite-node` OS processes (one plain, one with --data DIR); the joined node runs
 * bench/programs/linda-mesh.scm through bench/mesh-node.js, linked to the daemon over WebSocket
 * like the references (BENCH_LINDA_LINKS=tls|tcp for the others). Stage by stage, on both
 * ends: bench/linda-stages.js. Every OS process started
 * here is stopped by its PID; every loop is bounded by a count.
 * Env: BENCH_LINDA_SCALE scales the counts (default 1).
 */
import path from 'node:path';
import os from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { encodeValue } from '@termite/scheme/internal';
import { Sym } from '@termite/scheme';
import { Reporter, prefixFromArgv, runChild, startChild, stopChild, waitFor, summarize } from './lib/index.js';
import { openSpaceStore } from '../node-daemon/src/space-store.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, '..', 'node-daemon', 'bin', 'termite-node.js');
const program = path.join(here, 'programs', 'linda-mesh.scm');
const matmul = path.join(here, 'programs', 'linda-matmul.scm');
const MATMUL_WORKERS = [1, 2, 4];
const prefix = prefixFromArgv();
/** `node bench/linda.js linda.matmul`: only the matrix multiplication (it takes the longest) */
const onlyMatmul = prefix.startsWith('linda.matmul');
/** the matrix multiplication runs for the whole suite or its own prefix, not for another figure's (`node bench/linda.js linda.rpc`) */
const withMatmul = onlyMatmul || prefix === '' || prefix === 'linda' || 'linda.matmul'.startsWith(prefix);
/** `node bench/linda.js linda.matmul.distributed`: only the distributed space's rows */
const matmulKinds = prefix.startsWith('linda.matmul.distributed') ? ['distributed'] : ['central', 'distributed'];
const rep = new Reporter(prefix.startsWith('linda') || 'linda'.startsWith(prefix) ? '' : prefix);
const SCALE = Number(process.env.BENCH_LINDA_SCALE ?? 1);
const ROUNDS = 3;
const DURABLE_BYTES = 64;
const token = `bench-${randomBytes(9).toString('hex')}`;
const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-linda-'));
/** @type {Map<string, number[]>} */
const samples = new Map();

/** per-round ratios to the bare ws echo of the same round, by figure */
/** @type {Map<string, number[]>} */
const roundRatios = new Map();
const RPC_ROUNDS = 5;
const RAW_SIZES = [[256, 3000], [1024, 3000], [8192, 2000]];
/**
 * How the joined node links to the daemon: WebSocket, as the references (`raw.ws.*`, a bare
 * `ws` echo, and bench/mesh.js's `pingpong.ws.2node`) are measured; BENCH_LINDA_LINKS=tls
 * (termite-node's own default, TLS over TCP) or tcp for the others.
 */
const LINKS = process.env.BENCH_LINDA_LINKS ?? 'ws';

/** @param {string} stdout */
function keep(stdout) {
  for (const line of stdout.split('\n')) {
    const r = /^result (\S+) (\d+) (\S+)\s*$/.exec(line);
    if (r && Number.isFinite(Number(r[3]))) samples.set(r[1], [...(samples.get(r[1]) ?? []), Number(r[3])]);
  }
}

/** One round's figures (each printed once) into `into`. @param {string} stdout @param {Map<string, number>} into */
function parse(stdout, into) {
  for (const line of stdout.split('\n')) {
    const r = /^result (\S+) (\d+) (\S+)\s*$/.exec(line);
    if (r && Number.isFinite(Number(r[3]))) into.set(r[1], Number(r[3]));
  }
}

/**
 * Run bench/programs/linda-mesh.scm on a node joined to the daemon; its stdout.
 * @param {number} port the daemon's @param {'main' | 'rpc'} part @param {number} rounds
 */
async function lindaProgram(port, part, rounds) {
  const r = await runChild(process.execPath, [path.join(here, 'mesh-node.js'), program, '--join', `ws://127.0.0.1:${port}`, '--token', token, '--links', LINKS], {
    timeoutMs: 240000,
    env: { ...process.env, PEER_PORT: String(port), DURABLE_PORT: String(durable.m[2]), ROUNDS: String(rounds), SCALE: String(SCALE), DURABLE_BYTES: String(DURABLE_BYTES), PART: part },
  });
  if (r.timedOut || r.code !== 0) throw new Error(`${r.timedOut ? 'stopped at its time limit' : `exited with ${r.code}`}: ${r.stderr.slice(-600)}`);
  return r.stdout;
}

/** @param {string} what @param {() => Promise<void>} f */
async function guarded(what, f) {
  try {
    await f();
  } catch (e) {
    rep.comment(`${what}: not measured: ${e instanceof Error ? e.message : e}`);
  }
}

/** Start a child and wait for the line `re` matches in its output. @param {string[]} args @param {RegExp} re */
async function startAndWait(args, re) {
  let out = '';
  const h = startChild(process.execPath, args, { onLine: (l) => { out += `${l}\n`; } });
  /** @type {RegExpExecArray | null} */
  let m = null;
  const up = await waitFor(() => (m = re.exec(out)) !== null || !h.running(), 20000, 20);
  if (!up || m === null) {
    await stopChild(h);
    throw new Error(`${path.basename(args[0])} did not start: ${out.slice(-400)}`);
  }
  return { h, m: /** @type {RegExpExecArray} */ (m) };
}

/** The store's own insert rate: the tuples linda-mesh.scm outs, appended alone. */
function sqliteInsertRate() {
  const n = Math.max(100, Math.round(3000 * SCALE));
  const tuples = Array.from({ length: n }, (_, i) => encodeValue([Sym.intern('job'), i, new Uint8Array(DURABLE_BYTES).fill(1)]));
  for (let r = 0; r <= ROUNDS; r++) {
    const file = path.join(dir, `alone-${r}.sqlite`);
    const store = openSpaceStore(file);
    store.declare('bench-durable');
    const t0 = performance.now();
    for (const t of tuples) store.append('bench-durable', t);
    const secs = (performance.now() - t0) / 1000;
    store.close();
    if (r > 0) samples.set('sqlite.insert', [...(samples.get('sqlite.insert') ?? []), n / secs]); // round 0 warms up
  }
}

/**
 * The matrix multiplication with 1, 2 and 4 workers: four worker daemons joined to the
 * holder (stopped by PID at the end), the coordinator a joined node.
 * @param {number} port the holder's
 */
async function matmulFigures(port) {
  /** @type {any[]} */
  const workers = [];
  try {
    for (let k = 0; k < Math.max(...MATMUL_WORKERS); k++) workers.push(await startAndWait([bin, '--port', '0', '--token', token, '--join', `ws://127.0.0.1:${port}`], LISTENING));
    /** @type {Record<string, string>} */
    const ports = Object.fromEntries(workers.map((w, k) => [`W${k + 1}`, String(w.m[2])]));
    for (const kind of matmulKinds) {
      const r = await runChild(process.execPath, [path.join(here, 'mesh-node.js'), matmul, '--join', `ws://127.0.0.1:${port}`, '--token', token], {
        timeoutMs: 400000,
        env: { ...process.env, ...ports, KIND: kind, HOLDER_PORT: String(port), ROUNDS: String(ROUNDS), DIM_ELEMENT: String(Math.max(4, Math.round(10 * Math.sqrt(SCALE)))), DIM_ROW: String(Math.max(4, Math.round(48 * Math.sqrt(SCALE)))) },
      });
      if (r.timedOut || r.code !== 0) throw new Error(`${kind}: ${r.timedOut ? 'stopped at its time limit' : `exited with ${r.code}`}: ${r.stderr.slice(-600)}`);
      keep(r.stdout);
    }
  } finally {
    for (const w of workers) await stopChild(w.h);
  }
}

/**
 * Least squares of t(n) = a/n + b over the points given.
 * @param {number[]} ns @param {number[]} ts
 */
function fitInverse(ns, ts) {
  const xs = ns.map((n) => 1 / n);
  const mx = xs.reduce((p, x) => p + x, 0) / xs.length;
  const mt = ts.reduce((p, t) => p + t, 0) / ts.length;
  let sxx = 0, sxt = 0;
  for (let i = 0; i < xs.length; i++) {
    sxx += (xs[i] - mx) ** 2;
    sxt += (xs[i] - mx) * (ts[i] - mt);
  }
  const a = sxt / sxx;
  return { a, b: mt - a * mx };
}

/** @type {any} */
let daemon = null;
/** @type {any} */
let durable = null;
/** @type {any} */
let echo = null;
const LISTENING = /termite-node (\w+) listening on http:\/\/127\.0\.0\.1:(\d+)/;
try {
  daemon = await startAndWait([bin, '--port', '0', '--token', token], LISTENING);
  durable = await startAndWait([bin, '--port', '0', '--token', token, '--data', path.join(dir, 'daemon')], LISTENING);
  echo = await startAndWait([path.join(here, 'mesh-raw.js'), 'echo'], /^port (\d+)/m);
  const port = Number(daemon.m[2]);
  rep.comment(`daemon ${daemon.m[1].slice(0, 8)} on 127.0.0.1:${port} (pid ${daemon.h.pid}); daemon with --data (in ${dir}) on port ${durable.m[2]} (pid ${durable.h.pid}); raw echo server pid ${echo.h.pid}`);
  if (!onlyMatmul) await guarded('two-node figures', async () => keep(await lindaProgram(port, 'main', ROUNDS)));
  // RPC by tuples and its references, interleaved a round at a time: bare ws, then Linda
  // (and messages), so each round's ratio compares figures taken under the same load
  for (let round = 1; !onlyMatmul && round <= RPC_ROUNDS; round++) {
    await guarded(`RPC round ${round}`, async () => {
      /** @type {Map<string, number>} */
      const one = new Map();
      for (const [bytes, count] of RAW_SIZES) {
        const r = await runChild(process.execPath, [path.join(here, 'mesh-raw.js'), 'ws', String(echo.m[1]), String(bytes), String(Math.max(10, Math.round(count * SCALE))), '1'], { timeoutMs: 60000 });
        if (r.timedOut || r.code !== 0) throw new Error(`raw.ws.${bytes}: ${r.stderr.slice(-400)}`);
        parse(r.stdout, one);
      }
      parse(await lindaProgram(port, 'rpc', 1), one);
      for (const [k, v] of one) samples.set(k, [...(samples.get(k) ?? []), v]);
      for (const [n, b] of [['256', '256'], ['1k', '1024'], ['8k', '8192']]) {
        const raw = one.get(`raw.ws.${b}`), linda = one.get(`linda.rpc.${n}.2node`), msg = one.get(`rpc.msg.${b}.2node`);
        if (raw !== undefined && linda !== undefined) roundRatios.set(`linda.rpc.${n}.2node`, [...(roundRatios.get(`linda.rpc.${n}.2node`) ?? []), linda / raw]);
        if (raw !== undefined && msg !== undefined) roundRatios.set(`rpc.msg.${b}.2node`, [...(roundRatios.get(`rpc.msg.${b}.2node`) ?? []), msg / raw]);
      }
    });
  }
  if (withMatmul) await guarded('linda.matmul', () => matmulFigures(port));
} catch (e) {
  rep.comment(`linda figures not measured: ${e instanceof Error ? e.message : e}`);
} finally {
  if (echo) await stopChild(echo.h);
  if (daemon) await stopChild(daemon.h);
  if (durable) await stopChild(durable.h);
}
if (!onlyMatmul) await guarded('sqlite.insert', async () => sqliteInsertRate());
rmSync(dir, { recursive: true, force: true });

/** @param {string} name @param {string} key @param {string} unit @param {string} note */
function figure(name, key, unit, note) {
  const v = samples.get(key);
  if (!v || v.length === 0 || !rep.wants(name)) return;
  const st = summarize(v);
  rep.bench(name, st.median, unit, { stats: st, note });
}

figure('pingpong.ws.2node', 'pingpong.ws.2node', 'rt/s', 'daemon + joined node, in this run (the reference of linda.central.rtt.2node)');
figure('linda.central.rtt.2node', 'linda.central.rtt.2node', 'us', 'out then in of one tuple on a central space of the other node');
figure('linda.distributed.rd', 'linda.distributed.rd', 'us', 'rd of a tuple of a distributed space made on the other node, from this node\'s replica');
figure('linda.distributed.rpc.256.2node', 'linda.distributed.rpc.256.2node', 'rt/s', 'request and response tuples on a distributed space, server on the daemon; 256 payload bytes');
figure('linda.central.rtt.durable.2node', 'linda.central.rtt.durable.2node', 'us', 'the same on a durable central space (an SQLite insert and delete each)');
for (const [n, b] of [['256', '256'], ['1k', '1024'], ['8k', '8192']]) {
  figure(`linda.rpc.${n}.2node`, `linda.rpc.${n}.2node`, 'rt/s', `request tuple, server on the holder, response tuple; ${b} payload bytes`);
  figure(`raw.ws.${b}`, `raw.ws.${b}`, 'rt/s', `bare ws, ${b} bytes echoed`);
  figure(`rpc.msg.${b}.2node`, `rpc.msg.${b}.2node`, 'rt/s', `the same request and response as Termite messages (${b} bytes to an echo process on the daemon and back), same run`);
}
figure('linda.durable.out', 'linda.durable.out', 'outs/s', `durable central space, (out d 'job i <${DURABLE_BYTES} bytes>), on the daemon`);
figure('sqlite.insert', 'sqlite.insert', 'rows/s', 'the same tuples appended alone: same schema, WAL, synchronous=NORMAL');

const pp = rep.get('pingpong.ws.2node');
const rtt = rep.get('linda.central.rtt.2node');
if (pp !== undefined && rtt !== undefined) {
  const r = rtt / (1e6 / pp);
  rep.bench('linda.central.rtt.2node.vs_pingpong.ratio', Number(r.toFixed(3)), 'x');
  rep.comment(`ratio linda.central.rtt.2node / pingpong.ws.2node round trip = ${r.toFixed(2)} (target <= 1.2; an out and an in are two round trips: the out returns once the holder has the tuple)`);
}
const drd = rep.get('linda.distributed.rd');
if (drd !== undefined && rtt !== undefined) {
  const r = drd / rtt;
  rep.bench('linda.distributed.rd.vs_central_rtt.ratio', Number(r.toFixed(4)), 'x');
  rep.comment(`ratio linda.distributed.rd / linda.central.rtt.2node = ${r.toFixed(4)} (target <= 0.1: an rd from the replica never leaves the node)`);
}
const drpc = rep.ratio('linda.distributed.rpc.256.2node', 'raw.ws.256');
if (Number.isFinite(drpc)) {
  rep.bench('linda.distributed.rpc.256.2node.vs_raw.ratio', Number(drpc.toFixed(3)), 'x');
  rep.ratioComment('linda.distributed.rpc.256.2node', 'raw.ws.256', { min: 0.6, label: 'RPC by tuples on a distributed space / bare ws' });
}
for (const [n, b] of [['256', '256'], ['1k', '1024'], ['8k', '8192']]) {
  const per = roundRatios.get(`linda.rpc.${n}.2node`) ?? [];
  if (per.length > 0) {
    const r = summarize(per).median;
    const msgPer = roundRatios.get(`rpc.msg.${b}.2node`) ?? [];
    rep.bench(`linda.rpc.${n}.2node.vs_raw.ratio`, Number(r.toFixed(3)), 'x');
    rep.comment(`ratio linda.rpc.${n}.2node / raw.ws.${b} = ${r.toFixed(2)}: the median of ${per.length} rounds' ratios (${per.map((x) => x.toFixed(2)).join(' ')}), each round raw then Linda (target >= 0.6)${msgPer.length > 0 ? `; rpc.msg / raw per round: ${msgPer.map((x) => x.toFixed(2)).join(' ')}` : ''}`);
  }
  const m = rep.ratio(`linda.rpc.${n}.2node`, `rpc.msg.${b}.2node`);
  if (Number.isFinite(m)) {
    rep.bench(`linda.rpc.${n}.2node.vs_msg.ratio`, Number(m.toFixed(3)), 'x');
    rep.comment(`ratio linda.rpc.${n}.2node / rpc.msg.${b}.2node = ${m.toFixed(2)} (RPC by tuples beside the same RPC by messages; rpc.msg / raw.ws = ${rep.ratio(`rpc.msg.${b}.2node`, `raw.ws.${b}`).toFixed(2)})`);
  }
}
const dr = rep.ratio('linda.durable.out', 'sqlite.insert');
if (Number.isFinite(dr)) {
  rep.bench('linda.durable.out.vs_sqlite.ratio', Number(dr.toFixed(3)), 'x');
  rep.ratioComment('linda.durable.out', 'sqlite.insert', { min: 0.8, label: 'durable outs / SQLite inserts alone' });
}
for (const [kind, base] of [['central', 'linda.matmul'], ['distributed', 'linda.matmul.distributed']]) {
  for (const grain of ['element', 'row']) {
    for (const n of MATMUL_WORKERS) figure(`${base}.${grain}.n${n}`, `${base}.${grain}.n${n}`, 'ms', `${grain} tasks, ${n} worker daemon${n > 1 ? 's' : ''}, ${kind} space made on the daemon, product checked`);
    const ts = MATMUL_WORKERS.map((n) => rep.get(`${base}.${grain}.n${n}`));
    if (ts.every((t) => t !== undefined)) {
      const { a, b } = fitInverse(MATMUL_WORKERS, /** @type {number[]} */ (ts));
      rep.bench(`${base}.${grain}.fit.a`, Number(a.toFixed(1)), 'ms');
      rep.bench(`${base}.${grain}.fit.b`, Number(b.toFixed(1)), 'ms');
      rep.comment(`${base}.${grain}: t(n) = ${a.toFixed(1)}/n + ${b.toFixed(1)} ms (S/Net's a/n + b, least squares over n = ${MATMUL_WORKERS.join(', ')}); speed-up at 4: ${(/** @type {number} */ (ts[0]) / /** @type {number} */ (ts[2])).toFixed(2)}x`);
    }
  }
}
