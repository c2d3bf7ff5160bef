#!/usr/bin/env node
// @ts-check
/**
 * The (termite messengers) benchmarks (docs/messengers.md; the MESSENGERS paper's §4 on
 * this machine), each beside its reference measured in the same run:
 *
 *   node bench/messengers.js [PREFIX]      (npm run bench -- messengers)
 *
 *   messengers.hop.local        hops/s  a messenger hopping along a link between two logical
 *                                       nodes of one physical node (the paper's test 5)
 *   pingpong.local              rt/s    beside it: (pid . n) between two processes, same program
 *   messengers.create           1/s     logical nodes (and their links) created by one messenger
 *   messengers.hop.2node        hops/s  a messenger carrying an 800-byte bytevector hopping
 *                                       between a node and a daemon (the paper's test 6)
 *   pingpong.800.ws.2node       rt/s    beside it: (pid . 800-byte bytevector) to an echo
 *                                       process on the daemon and back, same program
 *   migrate.800.2node           hops/s  and a plain process holding the same bytevector
 *                                       migrating between the two (`migrate`): the floor
 *   messengers.shortest_path.8x8.{1,2,4}node  ms  the shortest-path example's walk
 *                                       (examples/messengers/shortest-path.scm) on an 8×8 mesh
 *                                       striped over 1, 2 or 4 physical nodes: the median of walks
 *                                       11-20 of a run (walks 1-10 warm the JIT up)
 *   messengers.shortest_path.8x8.{1,2,4}node.first  ms  the first walk of the run
 *   sequential.shortest_path.8x8  ms    Dijkstra on the same weights, sequentially, same run
 *   messengers.grain            divisions  floating-point divisions per stop at which two
 *                                       messengers hopping between the two physical nodes
 *                                       break even with the same divisions done sequentially
 *                                       (the paper's Figure 10), interpolated between the
 *                                       measured ratios (grain.D lines, printed as comments)
 *
 * The Scheme side is bench/programs/messengers.scm (hops, creates, ping-pongs) and the
 * example's definitions followed by a timing driver (shortest paths). Daemons are real
 * `termite-node` processes on free ports, stopped by PID; every loop is bounded by a
 * count. Env: BENCH_MSGR_K (repetitions, default 20000), BENCH_MSGR_RUNS (program runs
 * per figure, default 3).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { Reporter, prefixFromArgv, runChild, startChild, stopChild, waitFor, summarize } from './lib/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, '..', 'node-daemon', 'bin', 'termite-node.js');
const program = path.join(here, 'programs', 'messengers.scm');
const example = path.join(here, '..', 'examples', 'messengers', 'shortest-path.scm');
const prefix = prefixFromArgv();
// `messengers` (or a prefix of it) selects every figure of this script
const rep = new Reporter(prefix.startsWith('messengers') || 'messengers'.startsWith(prefix) ? '' : prefix);
const K = Math.max(100, Number(process.env.BENCH_MSGR_K ?? 20000));
const RUNS = Math.max(1, Math.min(9, Number(process.env.BENCH_MSGR_RUNS ?? 3)));
const token = `bench-${randomBytes(9).toString('hex')}`;

/** @type {Map<string, number[]>} */
const samples = new Map();

/** @param {string} stdout */
function keep(stdout) {
  for (const line of stdout.split('\n')) {
    const r = /^result (\S+) (\S+)\s*$/.exec(line);
    if (r && Number.isFinite(Number(r[2]))) samples.set(r[1], [...(samples.get(r[1]) ?? []), Number(r[2])]);
  }
}

/** @param {string} what @param {() => Promise<void>} f */
async function guarded(what, f) {
  try {
    await f();
  } catch (e) {
    rep.comment(`${what}: not measured: ${e instanceof Error ? e.message : e}`);
  }
}

/** A daemon on a free port, joined to `join` (ws URLs). @param {string[]} join */
async function startDaemon(join = []) {
  let log = '';
  const args = [bin, '--port', '0', '--token', token];
  for (const j of join) args.push('--join', j);
  const h = startChild(process.execPath, args, { onLine: (l) => { log += `${l}\n`; } });
  /** @type {RegExpExecArray | null} */
  let m = null;
  const up = await waitFor(() => (m = /termite-node (\w+) listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(log)) !== null || !h.running(), 20000, 50);
  if (!up || !m) {
    await stopChild(h);
    throw new Error(`a daemon did not start: ${log.slice(-400)}`);
  }
  return { h, port: Number(/** @type {RegExpExecArray} */ (m)[2]) };
}

/**
 * Run a Scheme file with `termite-node run`, joined to the daemons; keep its results.
 * @param {string} file @param {number[]} ports @param {Record<string, string>} env
 */
async function runScheme(file, ports, env) {
  const args = [bin, 'run', file, '--token', token, '--port', '0'];
  for (const p of ports) args.push('--join', `ws://127.0.0.1:${p}`);
  const r = await runChild(process.execPath, args, { timeoutMs: 300000, env: { ...process.env, K: String(K), ...env } });
  if (r.timedOut || r.code !== 0) throw new Error(`${path.basename(file)} ${r.timedOut ? 'stopped at its time limit' : `exited with ${r.code}`}: ${r.stderr.slice(-500)}`);
  keep(r.stdout);
}

/** The shortest-path example's definitions, then a driver timing the walk and Dijkstra. */
function shortestPathProgram() {
  const text = readFileSync(example, 'utf8');
  const cut = text.indexOf(';;; ------------------------------------------------------------ run');
  if (cut < 0) throw new Error('the shortest-path example has no run section');
  return `${text.slice(0, cut)}
(define reps 20)
(define warm 10) ; walks 0-9 warm the JIT up (the first is reported as .first); 10-19 are the figure
(define (ms-since t0) (* 1000. (/ (- (current-jiffy) t0) (jiffies-per-second))))
(define (result name value) (display "result ") (display name) (display " ") (display value) (newline))
(define me (self))
(inject-and-wait (build me))
(define addr (recv (('mesh a) a)))
(define name (string-append "messengers.shortest_path.8x8." (number->string (vector-length physical)) "node"))
(let loop ((i 0))
  (when (< i reps)
    (let ((var (string->symbol (string-append "d" (number->string i)))) (t0 (current-jiffy)))
      (inject-and-wait (lambda () (walker var 0)) (vector-ref addr 0))
      (cond ((= i 0) (result (string-append name ".first") (ms-since t0)))
            ((>= i warm) (result name (ms-since t0))))
      (unless (equal? (vector-map (lambda (a) (node-ref-at a var)) addr) (dijkstra)) (error "not Dijkstra's distances")))
    (when (>= i warm) (let ((t0 (current-jiffy))) (dijkstra) (result "sequential.shortest_path.8x8" (ms-since t0))))
    (loop (+ i 1))))
`;
}

/** Print a figure from the samples under `name`. @param {string} name @param {string} unit @param {string} note */
function figure(name, unit, note) {
  const v = samples.get(name);
  if (!v || v.length === 0) return;
  const st = summarize(v);
  rep.bench(name, st.median, unit, { stats: st, note });
}

/** @type {{h: any, port: number}[]} */
const daemons = [];
const dir = mkdtempSync(path.join(os.tmpdir(), 'termite-bench-msgr-'));
try {
  if (rep.wantsAny(['messengers.hop.local', 'pingpong.local', 'messengers.create'])) {
    await guarded('messengers.hop.local', async () => {
      for (let i = 0; i < RUNS; i++) await runScheme(program, [], { MSGR_GROUPS: 'local' });
    });
  }
  const two = rep.wantsAny(['messengers.hop.2node', 'pingpong.800.ws.2node', 'migrate.800.2node']);
  const sp = rep.wantsAny(['messengers.shortest_path', 'sequential.shortest_path']);
  if (two || sp || rep.wants('messengers.grain')) daemons.push(await startDaemon());
  if (two) {
    await guarded('messengers.hop.2node', async () => {
      for (let i = 0; i < RUNS; i++) await runScheme(program, [daemons[0].port], { MSGR_GROUPS: 'twonode', PEER_PORT: String(daemons[0].port) });
    });
  }
  if (rep.wants('messengers.grain')) {
    await guarded('messengers.grain', async () => {
      for (let i = 0; i < RUNS; i++) await runScheme(program, [daemons[0].port], { MSGR_GROUPS: 'grain', PEER_PORT: String(daemons[0].port) });
    });
  }
  if (sp) {
    const file = path.join(dir, 'shortest-path-bench.scm');
    writeFileSync(file, shortestPathProgram());
    await guarded('messengers.shortest_path.8x8.1node', () => runScheme(file, [], {}));
    await guarded('messengers.shortest_path.8x8.2node', () => runScheme(file, [daemons[0].port], {}));
    await guarded('messengers.shortest_path.8x8.4node', async () => {
      const url = `ws://127.0.0.1:${daemons[0].port}`;
      daemons.push(await startDaemon([url]), await startDaemon([url]));
      await runScheme(file, daemons.map((d) => d.port), {});
    });
  }
} finally {
  for (const d of daemons) await stopChild(d.h);
  rmSync(dir, { recursive: true, force: true });
}

rep.comment(`K = ${K}; ${RUNS} program runs per figure; the machine is shared and was loaded: read ratios, not absolute rates`);
figure('pingpong.local', 'rt/s', `${K} round trips of (pid . n), same program as messengers.hop.local`);
figure('messengers.hop.local', 'hops/s', `${K} hops along one link between two logical nodes of one physical node`);
rep.ratioComment('messengers.hop.local', 'pingpong.local', { label: 'a local hop vs a round trip (two context switches)' });
figure('messengers.create', '1/s', `${Math.floor(K / 4)} creates (node + link both ways) by one messenger, on this physical node`);
figure('pingpong.800.ws.2node', 'rt/s', `${Math.floor(K / 10)} round trips of (pid . 800-byte bytevector), daemon + joined node`);
figure('messengers.hop.2node', 'hops/s', `${Math.floor(K / 10)} hops of a messenger carrying an 800-byte bytevector between the two`);
figure('migrate.800.2node', 'hops/s', `${Math.floor(K / 10)} migrations of a plain process holding an 800-byte bytevector, same program`);
rep.ratioComment('messengers.hop.2node', 'pingpong.800.ws.2node', { min: 0.8, label: 'hops/s vs round trips/s' });
rep.ratioComment('messengers.hop.2node', 'migrate.800.2node', { label: 'a hop vs the bare migration under it' });
figure('sequential.shortest_path.8x8', 'ms', "Dijkstra on the same weights, sequentially, in Scheme, same runs");
for (const n of [1, 2, 4]) {
  figure(`messengers.shortest_path.8x8.${n}node`, 'ms', `the walk from n0-0 until every copy has ended, mesh columns striped over ${n} physical node(s), walks 11-20 of a run (the first ten warm the JIT up); checked against Dijkstra`);
  figure(`messengers.shortest_path.8x8.${n}node.first`, 'ms', 'the first walk of a run (code compiled and optimised on the way)');
  rep.ratioComment(`messengers.shortest_path.8x8.${n}node`, 'sequential.shortest_path.8x8', { label: 'messengers / sequential' });
}

/** The break-even grain: the first measured ratio at or below 1, interpolated (log d) with the one before. */
function breakEven() {
  const points = [...samples.keys()].filter((k) => k.startsWith('grain.')).map((k) => [Number(k.slice(6)), summarize(/** @type {number[]} */ (samples.get(k))).median]).sort((x, y) => x[0] - y[0]);
  if (points.length === 0) return;
  rep.comment(`messengers.grain: parallel / sequential time by divisions per stop: ${points.map(([d, r]) => `${d}: ${r.toFixed(2)}`).join(', ')}`);
  const i = points.findIndex(([, r]) => r <= 1);
  if (i < 0) return rep.comment(`messengers.grain: no break-even up to ${points[points.length - 1][0]} divisions per stop`);
  if (i === 0) return rep.bench('messengers.grain', points[0][0], 'divisions', { note: 'at or below the smallest grain measured' });
  const [[d0, r0], [d1, r1]] = [points[i - 1], points[i]];
  const d = Math.exp(Math.log(d0) + ((r0 - 1) / (r0 - r1)) * (Math.log(d1) - Math.log(d0)));
  rep.bench('messengers.grain', Math.round(d), 'divisions', { note: 'per stop, two messengers on two physical nodes against one sequential loop; the paper needed 15,000-30,000' });
}
breakEven();
