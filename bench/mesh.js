#!/usr/bin/env node
// @ts-check
/**
 * The mesh's benchmarks: two nodes (two OS processes) on this machine, each figure beside
 * its ceiling or reference measured in the same run.
 *
 *   node bench/mesh.js [PREFIX]        (npm run bench -- mesh: every figure below)
 *
 *   pingpong.tcp.2node       rt/s  a small message between two Scheme processes on a
 *                                  daemon and a joined node (bench/programs/mesh.scm),
 *                                  linked over plain TCP (--insecure)
 *   pingpong.tls.2node       rt/s  the same over TLS (termite-node's default)
 *   pingpong.ws.2node        rt/s  the same over WebSocket (daemon links before TCP)
 *   raw.ws.2node             rt/s  the same ping-pong over a bare `ws` socket (mesh-raw.js)
 *   raw.tcp.2node            rt/s  the same over a bare TCP socket (node:net, no framing): the
 *                                  floor of any transport between two Node processes here
 *   raw.tls.2node            rt/s  the same over a bare TLS 1.3 socket (node:tls): the floor of an
 *                                  encrypted link, so pingpong.tls.2node has a fair reference
 *   raw.tcp.1k.2node, raw.tls.1k.2node  the same bare sockets echoing 1 KiB
 *   pingpong.webrtc.2node    rt/s  the mesh pair upgraded to WebRTC (MeshNode.upgrade)
 *   raw.webrtc.2node         rt/s  bare node-datachannel
 *   remote_spawn.2node       µs    remote spawn of a closure over local data + its reply
 *                                  (TCP; remote_spawn.tls.2node, remote_spawn.ws.2node)
 *   stream.2node             msg/s 1,000,000 16-byte messages one way, then one answer
 *                                  (TCP; stream.tls.2node, stream.ws.2node), and
 *   stream.2node.receiver_rss MiB  the daemon's peak resident memory during the streams
 *   migrate.2node            ms    a process hopping between the two nodes, reporting after
 *                                  each hop: median of the hops
 *   payload.1k.2node, payload.64k.2node         rt/s of a bytevector echoed (TCP;
 *                                  .tls. and .ws. variants)
 *   raw.ws.1k.2node, raw.ws.64k.2node           the same bytes over a bare `ws` socket
 *   raw.tcp.64k.2node, raw.tls.64k.2node        64 KiB echoed over a bare TCP socket and a
 *                                  bare node:tls socket (TLS 1.3), in every pass beside the
 *                                  payloads: the ceilings of payload.64k and its .tls. variant
 *   stage.{framed,mesh}.{tcp,tls}.64k.2node  rt/s, the same 64 KiB echo with one layer added
 *                                  at a time (bench/mesh-stages.js): the mesh's TCP framing
 *                                  alone, then MeshNodes (admitted link, MSG frames)
 *   stage.cpu.echo.{raw,framed,mesh}.{tcp,tls}.64k  µs of CPU of the echo side per 64 KiB
 *                                  round trip: the bare echo, our framing, a MeshNode (once)
 *   stage.{encode,assemble,decode.copy,decode.view}.64k  µs of CPU per 64 KiB message for
 *                                  the runtime's own steps; then a table of µs per round trip
 *                                  per layer (bare socket, framing, mesh, runtime) beside Erlang
 *   erlang.pingpong.2node, erlang.remote_spawn.2node, erlang.payload.{1k,64k}.2node,
 *   erlang.stream.2node
 *                                  two distributed Erlang nodes (bench/erlang/twonode.erl)
 *   cpu.pingpong.2node.{asker,daemon}, cpu.remote_spawn.2node.{asker,daemon},
 *   cpu.payload.1k.2node.{asker,daemon}, cpu.raw.tcp.2node.{client,echo},
 *   cpu.raw.tcp.1k.2node.{client,echo}, and the .tls. variants of the ping-pong, the
 *   1 KiB payload and the bare echoes (cpu.pingpong.tls.2node.asker, cpu.raw.tls.1k…),
 *   cpu.pingpong.ws.2node.{asker,daemon}
 *                           µs    CPU time per operation on each side (user + system, every
 *                                  thread): the difference between a run of 3n operations and
 *                                  one of 15n, over 12n (start-up and warm-up cancel out); the
 *                                  daemon's from /proc/PID/stat, the asker's from its own
 *                                  process.cpuUsage (BENCH_CPU). Linux only
 *   erlang.pingpong.2node.nospin   the same with Erlang's schedulers not spinning before
 *                                  they sleep (+sbwt none ...): woken by the kernel per
 *                                  message, as a Node process is
 *
 * The Scheme side is a real daemon (`termite-node --port 0`) and a node joined to it
 * (bench/mesh-node.js: what `termite-node run --join` does, plus the WebRTC upgrade).
 * Each pass (PASSES of them) runs the raw sockets, our ping-pongs, Erlang's (with and
 * without its spin), then our remote spawns and payloads and Erlang's, so every pair
 * of a ratio meets the same load; each run has ROUNDS timed rounds after warm-up rounds.
 * A figure is the median of all its rounds; a ratio is the median of its per-pass
 * ratios (each pass's medians), printed with them. The streams run once, after the passes. Every OS process started
 * here is stopped by its PID (process group); every loop is bounded by a count.
 * Env: BENCH_MESH_SCALE scales the counts (default 1), BENCH_MESH_PASSES (default 2),
 * BENCH_MESH_PIN=same|split (Linux, `taskset`): every Node process of ours and of the bare
 * sockets on CPU 0 (`same`), or the servers (daemon, echo servers) on CPU 0 and the
 * clients (the joined node, the bare clients) on CPU 1 (`split`). A round trip's wake-ups
 * cost far more across CPUs than on one (BENCHMARKS.md, "Where the ping-pong's wall time
 * goes"), and an unpinned run lands either way, run by run: pinned, ours and the bare
 * socket are compared with their wake-ups alike. Erlang is not pinned.
 */
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { Reporter, prefixFromArgv, runChild, startChild, stopChild, waitFor, summarize } from './lib/index.js';
import { erlangInstalled, erlangTwoNode, TWO_NODE_GROUPS, ERLANG_NO_SPIN } from './erlang/run-erlang.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, '..', 'node-daemon', 'bin', 'termite-node.js');
const program = path.join(here, 'programs', 'mesh.scm');
const prefix = prefixFromArgv();
// `mesh` (or a prefix of it) selects every figure of this script
const rep = new Reporter(prefix.startsWith('mesh') || 'mesh'.startsWith(prefix) ? '' : prefix);
const SCALE = Number(process.env.BENCH_MESH_SCALE ?? 1);
const PASSES = Math.max(1, Math.min(5, Number(process.env.BENCH_MESH_PASSES ?? 2)));
const ROUNDS = 3;
const RAW_SMALL = 32; // bytes of the raw ping-pong's message, about a mesh SEND frame's size

/** @typedef {import('./lib/timing.js').Stats} Stats */

const PIN = process.env.BENCH_MESH_PIN ?? '';
if (PIN !== '' && PIN !== 'same' && PIN !== 'split') throw new Error(`BENCH_MESH_PIN must be same or split, not ${PIN}`);
/**
 * The command and arguments that run `node ARGS` on its CPU under BENCH_MESH_PIN (as is without it).
 * @param {'server' | 'client'} role @param {string[]} args @returns {[string, string[]]}
 */
function node(role, args) {
  if (PIN === '') return [process.execPath, args];
  return ['taskset', ['-c', PIN === 'split' && role === 'client' ? '1' : '0', process.execPath, ...args]];
}

/** @param {string} stdout @returns {Map<string, number[]>} */
function results(stdout) {
  /** @type {Map<string, number[]>} */
  const m = new Map();
  for (const line of stdout.split('\n')) {
    const r = /^result (\S+) (\d+) (\S+)\s*$/.exec(line);
    if (r && Number.isFinite(Number(r[3]))) m.set(r[1], [...(m.get(r[1]) ?? []), Number(r[3])]);
    const c = /^cpu (\d+)\s*$/.exec(line); // BENCH_CPU: the child's CPU time, µs
    if (c) m.set('cpu', [Number(c[1])]);
  }
  return m;
}

/** @type {Map<string, number[]>} samples of every figure, over passes */
const samples = new Map();
/** @param {Map<string, number[]>} m */
function keep(m) {
  for (const [k, v] of m) samples.set(k, [...(samples.get(k) ?? []), ...v]);
}

/** @param {string} what @param {() => Promise<void>} f */
async function guarded(what, f) {
  try {
    await f();
  } catch (e) {
    rep.comment(`${what}: not measured: ${e instanceof Error ? e.message : e}`);
  }
}

/** Start the daemon; resolves with its handle, port and id. @param {string} token */
async function startDaemon(token) {
  let log = '';
  // --insecure: it then accepts plain TCP, TLS and WebSocket links, so one daemon serves every variant
  const h = startChild(...node('server', [bin, '--port', '0', '--token', token, '--insecure']), { onLine: (l) => { log += `${l}\n`; } });
  /** @type {RegExpExecArray | null} */
  let m = null;
  const up = await waitFor(() => (m = /termite-node (\w+) listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(log)) !== null || !h.running(), 20000, 50);
  if (!up || !m) {
    await stopChild(h);
    throw new Error(`the daemon did not start: ${log.slice(-500)}`);
  }
  const mm = /** @type {RegExpExecArray} */ (m);
  return { h, id: mm[1], port: Number(mm[2]), log: () => log };
}

/** Start the raw echo server. */
async function startEcho() {
  let out = '';
  const h = startChild(...node('server', [path.join(here, 'mesh-raw.js'), 'echo']), { onLine: (l) => { out += `${l}\n`; } });
  /** @type {RegExpExecArray | null} */
  let m = null;
  /** @type {RegExpExecArray | null} */
  let t = null;
  /** @type {RegExpExecArray | null} */
  let s = null;
  const up = await waitFor(() => ((m = /^port (\d+)/m.exec(out)) !== null && (t = /^tcpport (\d+)/m.exec(out)) !== null && (s = /^tlsport (\d+)/m.exec(out)) !== null) || !h.running(), 10000, 20);
  if (!up || !m || !t || !s) {
    await stopChild(h);
    throw new Error(`the raw echo server did not start: ${h.stderr().slice(-300)}`);
  }
  const port = (/** @type {RegExpExecArray | null} */ x) => Number(/** @type {RegExpExecArray} */ (x)[1]);
  return { h, port: port(m), tcpPort: port(t), tlsPort: port(s) };
}

/**
 * @param {{port: number, id: string}} d @param {string} token
 * @param {string} groups @param {{webrtc?: boolean, scale?: number, links?: 'ws' | 'tcp' | 'tls', env?: Record<string, string>}} [o]
 */
async function runMesh(d, token, groups, o = {}) {
  const links = o.links ?? 'ws';
  const args = [path.join(here, 'mesh-node.js'), program, '--join', `ws://127.0.0.1:${d.port}`, '--token', token, '--links', links];
  if (o.webrtc) args.push('--webrtc', d.id);
  const r = await runChild(...node('client', args), {
    timeoutMs: 120000,
    env: { ...process.env, PEER_PORT: String(d.port), MESH_GROUPS: groups, NAME_SUFFIX: o.webrtc ? 'webrtc' : links, ROUNDS: String(ROUNDS), SCALE: String((o.scale ?? 1) * SCALE), ...o.env },
  });
  if (r.timedOut || r.code !== 0) throw new Error(`mesh-node ${groups}${o.webrtc ? ' (webrtc)' : ''} ${r.timedOut ? 'stopped at its time limit' : `exited with ${r.code}`}: ${r.stderr.slice(-600)}`);
  return results(r.stdout);
}

/** The stage echo servers of bench/mesh-stages.js. */
async function startStages() {
  let out = '';
  const h = startChild(process.execPath, [path.join(here, 'mesh-stages.js'), 'echo'], { onLine: (l) => { out += `${l}\n`; } });
  const up = await waitFor(() => /^mesh-tls \S+/m.test(out) || !h.running(), 20000, 20);
  const at = (/** @type {string} */ k) => /** @type {string} */ ((new RegExp(`^${k} (\\S+)`, 'm').exec(out) ?? [])[1]);
  if (!up || at('mesh-tls') === undefined) {
    await stopChild(h);
    throw new Error(`the stage echo servers did not start: ${h.stderr().slice(-300)}`);
  }
  return { h, framedTcp: at('framed-tcp'), framedTls: at('framed-tls'), meshTcp: at('mesh-tcp'), meshTls: at('mesh-tls') };
}

/** @param {string[]} args */
async function runStage(args) {
  const r = await runChild(process.execPath, [path.join(here, 'mesh-stages.js'), ...args], { timeoutMs: 60000 });
  if (r.timedOut || r.code !== 0) throw new Error(`mesh-stages ${args.join(' ')} ${r.timedOut ? 'stopped at its time limit' : `exited with ${r.code}`}: ${r.stderr.slice(-400)}`);
  return results(r.stdout);
}

/** @param {'ws'|'webrtc'|'tcp'|'tls'} mode @param {number} port @param {number} bytes @param {number} count @param {Record<string, string>} [env] */
async function runRaw(mode, port, bytes, count, env = {}) {
  const r = await runChild(...node('client', [path.join(here, 'mesh-raw.js'), mode, String(port), String(bytes), String(Math.max(10, Math.round(count * SCALE))), String(ROUNDS)]), { timeoutMs: 60000, env: { ...process.env, ...env } });
  if (r.timedOut || r.code !== 0) throw new Error(`raw ${mode} ${r.timedOut ? 'stopped at its time limit' : `exited with ${r.code}`}: ${r.stderr.slice(-400)}`);
  return results(r.stdout);
}

/** Print a figure from the samples under `key` (as printed by a child) as `name`. @param {string} name @param {string} key @param {string} unit @param {string} note */
function figure(name, key, unit, note) {
  const v = samples.get(key);
  if (!v || v.length === 0) return;
  const st = summarize(v);
  rep.bench(name, st.median, unit, { stats: st, note });
}

/**
 * `bench <a>.vs_<label>.ratio`: the median of the per-pass ratios when both figures were
 * measured in every pass (each pass's pair under the same load), else the ratio of the
 * medians; and the comment saying whether the target is met, with the per-pass ratios.
 * @param {string} a @param {string} b @param {string} label @param {{min?: number, max?: number, label?: string}} target
 */
function ratio(a, b, label, target) {
  const pa = passMedians.get(a);
  const pb = passMedians.get(b);
  const perPass = pa && pb && pa.length === pb.length && pa.length > 0 ? pa.map((x, i) => x / pb[i]) : null;
  const r = perPass ? summarize(perPass).median : rep.ratio(a, b);
  if (!Number.isFinite(r)) return;
  rep.bench(`${a}.vs_${label}.ratio`, Number(r.toFixed(3)), 'x');
  let t = '';
  if (target.max !== undefined) t = ` (target <= ${target.max.toFixed(2)}: ${r <= target.max ? 'met' : 'NOT met'})`;
  else if (target.min !== undefined) t = ` (target >= ${target.min}: ${r >= target.min ? 'met' : 'NOT met'})`;
  const passes = perPass ? `, median of ${perPass.length} per-pass ratios (${perPass.map((x) => x.toFixed(2)).join(', ')})` : ', ratio of the medians';
  rep.comment(`ratio ${a} / ${b} = ${r.toFixed(2)}${target.label ? ` ${target.label}` : ''}${passes}${t}`);
}

/** Thrown when the prefix selects no figure that needs the daemon. */
const SKIP = Symbol('skip');
const token = `bench-${randomBytes(9).toString('hex')}`;
const want = (/** @type {string[]} */ ...names) => rep.wantsAny(names);
/** @type {Awaited<ReturnType<typeof startDaemon>> | null} */
let daemon = null;
/** @type {Awaited<ReturnType<typeof startEcho>> | null} */
let echo = null;
/** @type {Awaited<ReturnType<typeof startStages>> | null} */
let stages = /** @type {Awaited<ReturnType<typeof startStages>> | null} */ (null);
/** Every figure measured with the daemon and the echo server (a prefix that selects none starts neither). */
const DAEMON_FIGURES = ['cpu.pingpong.2node.asker', 'cpu.remote_spawn.2node.asker', 'cpu.raw.tcp.2node.client', 'cpu.pingpong.tls.2node.asker',
  'cpu.payload.1k.2node.asker', 'cpu.payload.1k.tls.2node.asker', 'cpu.raw.tls.2node.client', 'cpu.raw.tcp.1k.2node.client', 'cpu.raw.tls.1k.2node.client', 'cpu.pingpong.ws.2node.asker',
  'pingpong.ws.2node', 'pingpong.tcp.2node', 'pingpong.tls.2node', 'raw.ws.2node', 'raw.tcp.2node', 'raw.tls.2node', 'raw.tcp.1k.2node', 'raw.tls.1k.2node', 'pingpong.webrtc.2node', 'raw.webrtc.2node',
  'remote_spawn.2node', 'remote_spawn.tls.2node', 'remote_spawn.ws.2node', 'migrate.2node', 'stream.2node', 'stream.tls.2node', 'stream.ws.2node',
  'payload.1k.2node', 'payload.64k.2node', 'payload.1k.tls.2node', 'payload.64k.tls.2node', 'payload.1k.ws.2node', 'payload.64k.ws.2node', 'raw.ws.1k.2node', 'raw.ws.64k.2node',
  'raw.tcp.64k.2node', 'raw.tls.64k.2node', 'stage.framed.tcp.64k.2node', 'stage.framed.tls.64k.2node', 'stage.mesh.tcp.64k.2node', 'stage.mesh.tls.64k.2node',
  'stage.encode.64k', 'stage.assemble.64k', 'stage.decode.copy.64k', 'stage.decode.view.64k', 'stage.cpu.echo.framed.tcp.64k'];
/** The largest resident memory (MiB) of `pid` seen every 50 ms while `f` runs (Linux /proc). @param {number} pid @param {() => Promise<void>} f */
async function peakRss(pid, f) {
  let peak = 0;
  const read = () => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Number(m[1]) / 1024);
    } catch { /* not Linux, or gone */ }
  };
  read();
  const t = setInterval(read, 50);
  try {
    await f();
  } finally {
    clearInterval(t);
  }
  read();
  return peak;
}
/** CPU time (ms) a process has used so far, every thread (Linux /proc; NaN elsewhere). @param {number} pid */
function procCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, in clock ticks of 10 ms
  } catch {
    return NaN;
  }
}

/**
 * CPU µs per operation on each side: a run of 3n operations and one of 15n (2 warm-up
 * rounds and 1 timed round each), the difference over 12n, so start-up and warm-up cancel.
 * @param {string} name @param {number} n @param {(scale: number) => Promise<Map<string, number[]>>} run
 * @param {number} peer the pid of the other side @param {[string, string]} sides
 */
async function cpuPerOp(name, n, run, peer, sides) {
  const at = [];
  for (const scale of [1, 5]) {
    const p0 = procCpuMs(peer);
    const m = await run(scale);
    const own = m.get('cpu')?.[0];
    if (own === undefined) throw new Error(`${name}: no cpu line from the child`);
    at.push({ own: own / 1000, peer: procCpuMs(peer) - p0 });
  }
  const ops = 12 * n * SCALE;
  rep.bench(`cpu.${name}.2node.${sides[0]}`, Number(((1000 * (at[1].own - at[0].own)) / ops).toFixed(1)), 'us', { note: `CPU per operation, ${sides[0]} side (user + system)` });
  rep.bench(`cpu.${name}.2node.${sides[1]}`, Number(((1000 * (at[1].peer - at[0].peer)) / ops).toFixed(1)), 'us', { note: `CPU per operation, ${sides[1]} side (/proc, 10 ms ticks)` });
}

/**
 * The CPU figures: our ping-pong, 1 KiB payload and remote spawn, over TCP and in TLS,
 * and the bare TCP and TLS echoes of the same sizes.
 * @param {{port: number, id: string, h: any}} d @param {{tcpPort: number, tlsPort: number, h: any}} e
 */
async function cpuFigures(d, e) {
  const env = (/** @type {string} */ group, /** @type {number} */ scale) => ({ MESH_GROUPS: group, ROUNDS: '1', WARM_SECONDS: '0', BENCH_CPU: '1', SCALE: String(scale * SCALE) });
  /** @type {[string, string, number, 'tcp' | 'tls' | 'ws'][]} [figure name, mesh.scm group, its count, links] */
  const ours = [['pingpong', 'pingpong', 4000, 'tcp'], ['pingpong.tls', 'pingpong', 4000, 'tls'], ['pingpong.ws', 'pingpong', 4000, 'ws'], ['payload.1k', 'payload1k', 3000, 'tcp'],
    ['payload.1k.tls', 'payload1k', 3000, 'tls'], ['remote_spawn', 'remote_spawn', 500, 'tcp']];
  for (const [name, group, n, links] of ours) {
    if (want(`cpu.${name}.2node.asker`, `cpu.${name}.2node.daemon`)) await guarded(`cpu.${name}`, () => cpuPerOp(name, n, (k) => runMesh(d, token, group, { links, env: env(group, k) }), d.h.pid, ['asker', 'daemon']));
  }
  // mesh-raw's client: a warm-up round and ROUNDS timed ones of `count` round trips, 3n·k in all
  /** @type {[string, 'tcp' | 'tls', number, number][]} [figure name, socket, bytes, n] */
  const bare = [['raw.tcp', 'tcp', RAW_SMALL, 4000], ['raw.tls', 'tls', RAW_SMALL, 4000], ['raw.tcp.1k', 'tcp', 1024, 3000], ['raw.tls.1k', 'tls', 1024, 3000]];
  for (const [name, mode, bytes, n] of bare) {
    const raw = (/** @type {number} */ k) => runRaw(mode, mode === 'tcp' ? e.tcpPort : e.tlsPort, bytes, ((3 * n) / (1 + ROUNDS)) * k, { BENCH_CPU: '1' });
    if (want(`cpu.${name}.2node.client`, `cpu.${name}.2node.echo`)) await guarded(`cpu.${name}`, () => cpuPerOp(name, n, raw, e.h.pid, ['client', 'echo']));
  }
}

/** @type {Map<string, number>} peak resident MiB of the daemon during each transport's stream */
const streamRss = new Map();

/**
 * Every figure: [name, key printed by the child (or the Erlang figure's name), unit, note].
 * @type {[string, string, string, string][]}
 */
const FIGURES = [
  ['pingpong.tcp.2node', 'pingpong.tcp.2node', 'rt/s', 'daemon + joined node, plain TCP over loopback; (pid . 0) to an echo process and back'],
  ['pingpong.tls.2node', 'pingpong.tls.2node', 'rt/s', 'the same in TLS 1.3 (the default)'],
  ['pingpong.ws.2node', 'pingpong.ws.2node', 'rt/s', 'the same over WebSocket'],
  ['raw.ws.2node', 'raw.ws', 'rt/s', `bare ws, ${RAW_SMALL}-byte binary message, echoed`],
  ['raw.tcp.2node', 'raw.tcp', 'rt/s', `bare TCP socket, ${RAW_SMALL} bytes echoed, no framing`],
  ['raw.tls.2node', 'raw.tls', 'rt/s', `bare TLS 1.3 socket (node:tls), ${RAW_SMALL} bytes echoed, no framing`],
  ['erlang.pingpong.2node', 'erlang.pingpong.2node', 'rt/s', 'two Erlang nodes, loopback TCP (Erlang as installed: idle schedulers spin before they sleep)'],
  ['erlang.pingpong.2node.nospin', 'erlang.pingpong.2node.nospin', 'rt/s', 'the same, schedulers not spinning (+sbwt none +sbwtdcpu none +sbwtdio none)'],
  ['pingpong.webrtc.2node', 'pingpong.webrtc.2node', 'rt/s', 'the same pair after MeshNode.upgrade to a WebRTC data channel'],
  ['raw.webrtc.2node', 'raw.webrtc', 'rt/s', `bare node-datachannel, ${RAW_SMALL}-byte message`],
  ['remote_spawn.2node', 'remote_spawn.tcp.2node', 'us', 'closure over local data spawned on the daemon, answers with a value computed from it; TCP'],
  ['remote_spawn.tls.2node', 'remote_spawn.tls.2node', 'us', 'the same in TLS'],
  ['remote_spawn.ws.2node', 'remote_spawn.ws.2node', 'us', 'the same over WebSocket'],
  ['erlang.remote_spawn.2node', 'erlang.remote_spawn.2node', 'us', 'spawn/2 of a closure on the other node + its reply'],
  ['migrate.2node', 'migrate.tcp.2node', 'ms', 'median single hop (migrate + report back), per round; TCP'],
  ['stream.2node', 'stream.tcp.2node', 'msg/s', '1,000,000 16-byte messages one way, then one answer; TCP'],
  ['stream.tls.2node', 'stream.tls.2node', 'msg/s', 'the same in TLS'],
  ['stream.ws.2node', 'stream.ws.2node', 'msg/s', 'the same over WebSocket'],
  ['erlang.stream.2node', 'erlang.stream.2node', 'msg/s', ''],
  ['payload.1k.2node', 'payload.1k.tcp.2node', 'rt/s', '1 KiB bytevector echoed; TCP'],
  ['payload.64k.2node', 'payload.64k.tcp.2node', 'rt/s', '64 KiB bytevector echoed; TCP'],
  ['payload.1k.tls.2node', 'payload.1k.tls.2node', 'rt/s', 'the same in TLS'],
  ['payload.64k.tls.2node', 'payload.64k.tls.2node', 'rt/s', 'the same in TLS'],
  ['payload.1k.ws.2node', 'payload.1k.ws.2node', 'rt/s', '1 KiB bytevector echoed'],
  ['raw.tcp.1k.2node', 'raw.tcp.1024', 'rt/s', 'bare TCP socket, 1 KiB echoed'],
  ['raw.tls.1k.2node', 'raw.tls.1024', 'rt/s', 'bare TLS 1.3 socket, 1 KiB echoed'],
  ['raw.ws.1k.2node', 'raw.ws.1024', 'rt/s', 'bare ws, 1 KiB'],
  ['payload.64k.ws.2node', 'payload.64k.ws.2node', 'rt/s', '64 KiB bytevector echoed'],
  ['raw.ws.64k.2node', 'raw.ws.65536', 'rt/s', 'bare ws, 64 KiB'],
  ['raw.tcp.64k.2node', 'raw.tcp.65536', 'rt/s', 'bare TCP socket, 64 KiB echoed, no framing'],
  ['raw.tls.64k.2node', 'raw.tls.65536', 'rt/s', 'bare node:tls socket (TLS 1.3, the cipher OpenSSL picks), 64 KiB echoed'],
  ['stage.framed.tcp.64k.2node', 'stage.framed.tcp.65536', 'rt/s', 'the mesh\'s TCP framing alone (tcp-frames.js), 64 KiB echoed'],
  ['stage.framed.tls.64k.2node', 'stage.framed.tls.65536', 'rt/s', 'the same in TLS'],
  ['stage.mesh.tcp.64k.2node', 'stage.mesh.tcp.65536', 'rt/s', 'two MeshNodes, 64 KiB MSG payloads echoed (no Scheme); TCP'],
  ['stage.mesh.tls.64k.2node', 'stage.mesh.tls.65536', 'rt/s', 'the same in TLS'],
  ['stage.encode.64k', 'stage.encode.65536', 'us', 'CPU: the value codec encoding a SEND of a 64 KiB bytevector'],
  ['stage.assemble.64k', 'stage.assemble.65536', 'us', 'CPU: a 64 KiB message spanning two reads copied into one buffer'],
  ['stage.decode.copy.64k', 'stage.decode.copy.65536', 'us', 'CPU: decoding it, the bytevector copied'],
  ['stage.decode.view.64k', 'stage.decode.view.65536', 'us', 'CPU: decoding it with viewBytes (what the runtime does now)'],
  ...['tcp', 'tls'].flatMap((l) => /** @type {const} */ (['raw', 'framed', 'mesh']).map((s) => /** @type {[string, string, string, string]} */ ([
    `stage.cpu.echo.${s}.${l}.64k`, `stage.cpu.echo.${s}.${l}.65536`, 'us',
    `CPU of the echo side per 64 KiB round trip, ${{ raw: 'the bare socket echo', framed: 'our framing alone', mesh: 'a MeshNode' }[s]}, ${l.toUpperCase()} (mesh-stages.js cpu)`]))),
  ['erlang.payload.1k.2node', 'erlang.payload.1k.2node', 'rt/s', ''],
  ['erlang.payload.64k.2node', 'erlang.payload.64k.2node', 'rt/s', ''],
];

/** @type {Map<string, number[]>} each figure's median in each pass (by name), for per-pass ratios */
const passMedians = new Map();
/** Note the medians of one pass's samples (child keys) under the figures' names. @param {Map<string, number[]>} pass */
function notePass(pass) {
  for (const [name, key] of FIGURES) {
    const v = pass.get(key);
    if (v && v.length > 0) passMedians.set(name, [...(passMedians.get(name) ?? []), summarize(v).median]);
  }
}
/** Run `f` for its samples, kept for the figures and for this pass. @param {Map<string, number[]>} pass @param {string} what @param {() => Promise<Map<string, number[]>>} f */
async function measure(pass, what, f) {
  await guarded(what, async () => {
    const m = await f();
    keep(m);
    for (const [k, v] of m) pass.set(k, [...(pass.get(k) ?? []), ...v]);
  });
}
/**
 * Erlang's two nodes for `groups` (one VM pair; our processes are stopped meanwhile, 2
 * cores), as samples keyed by figure name (`suffix` appended: the no-spin run).
 * @param {(keyof typeof TWO_NODE_GROUPS)[]} groups @param {string[]} [flags] @param {string} [suffix]
 */
async function erlangSamples(groups, flags = [], suffix = '') {
  /** @type {Map<string, number[]>} */
  const m = new Map();
  for (const [n, st] of await erlangTwoNode(groups, { flags })) m.set(`${n}${suffix}`, st.samples);
  return m;
}
const erlangOk = erlangInstalled();
if (!erlangOk) rep.comment('erlang not installed (erl/erlc not on PATH): erlang.* figures skipped');
/** The Erlang groups of `names` that the prefix selects. @param {(keyof typeof TWO_NODE_GROUPS)[]} names */
const erlangWanted = (names) => (erlangOk ? names.filter((g) => rep.wants(TWO_NODE_GROUPS[g]) || rep.wants(TWO_NODE_GROUPS[g].slice('erlang.'.length))) : []);

/** One pass of the ping-pongs: raw sockets, the mesh over each transport, then Erlang. @param {{port: number, id: string}} d @param {{port: number, tcpPort: number, tlsPort: number}} e */
async function pingpongPass(d, e) {
  /** @type {Map<string, number[]>} */
  const pass = new Map();
  if (want('pingpong.ws.2node', 'pingpong.tcp.2node', 'pingpong.tls.2node', 'raw.ws.2node', 'raw.tcp.2node', 'raw.tls.2node')) {
    await measure(pass, 'raw.tcp.2node', () => runRaw('tcp', e.tcpPort, RAW_SMALL, 8000));
    await measure(pass, 'raw.tls.2node', () => runRaw('tls', e.tlsPort, RAW_SMALL, 8000));
    await measure(pass, 'raw.ws.2node', () => runRaw('ws', e.port, RAW_SMALL, 8000));
    for (const links of /** @type {const} */ (['ws', 'tcp', 'tls'])) await measure(pass, `pingpong.${links}.2node`, () => runMesh(d, token, 'pingpong', { links }));
  }
  if (erlangWanted(['pingpong']).length > 0) {
    await measure(pass, 'erlang.pingpong.2node', () => erlangSamples(['pingpong']));
    await measure(pass, 'erlang.pingpong.2node.nospin', () => erlangSamples(['pingpong'], ERLANG_NO_SPIN, '.nospin'));
  }
  notePass(pass);
}

/**
 * One pass of remote spawn, migration and payloads over each transport, the bare 64 KiB
 * echoes, then the bare sockets' 1 KiB echo and Erlang's.
 * @param {{port: number, id: string}} d @param {{tcpPort: number, tlsPort: number}} e
 */
async function groupsPass(d, e) {
  /** @type {Map<string, number[]>} */
  const pass = new Map();
  if (want('raw.tcp.64k.2node', 'payload.64k.2node')) await measure(pass, 'raw.tcp.64k.2node', () => runRaw('tcp', e.tcpPort, 65536, 1500));
  if (want('raw.tls.64k.2node', 'payload.64k.tls.2node')) await measure(pass, 'raw.tls.64k.2node', () => runRaw('tls', e.tlsPort, 65536, 1000));
  if (stages !== null && want('stage.', 'payload.64k.2node')) {
    const st = stages;
    const n = String(Math.max(100, Math.round(1000 * SCALE)));
    await measure(pass, 'stage.framed.tcp', () => runStage(['framed', 'tcp', st.framedTcp, '65536', n, String(ROUNDS)]));
    await measure(pass, 'stage.framed.tls', () => runStage(['framed', 'tls', st.framedTls, '65536', n, String(ROUNDS)]));
    await measure(pass, 'stage.mesh.tcp', () => runStage(['mesh', 'tcp', st.meshTcp, '65536', n, String(ROUNDS)]));
    await measure(pass, 'stage.mesh.tls', () => runStage(['mesh', 'tls', st.meshTls, '65536', n, String(ROUNDS)]));
  }
  for (const links of /** @type {const} */ (['tcp', 'tls', 'ws'])) {
    const v = links === 'tcp' ? '' : `.${links}`;
    /** @type {string[]} */
    const groups = [];
    if (want(`remote_spawn${v}.2node`)) groups.push('remote_spawn');
    if (links === 'tcp' && want('migrate.2node')) groups.push('migrate');
    if (want(`payload.1k${v}.2node`)) groups.push('payload1k');
    if (want(`payload.64k${v}.2node`)) groups.push('payload64k');
    if (groups.length > 0) await measure(pass, `${groups.join(', ')} (${links})`, () => runMesh(d, token, groups.join(' '), { links }));
  }
  if (want('payload.1k.2node', 'raw.tcp.1k.2node')) await measure(pass, 'raw.tcp.1k.2node', () => runRaw('tcp', e.tcpPort, 1024, 6000));
  if (want('payload.1k.tls.2node', 'raw.tls.1k.2node')) await measure(pass, 'raw.tls.1k.2node', () => runRaw('tls', e.tlsPort, 1024, 6000));
  const erl = erlangWanted(['remote_spawn', 'payload1k', 'payload64k']);
  if (erl.length > 0) await measure(pass, 'erlang two-node figures', () => erlangSamples(erl));
  notePass(pass);
}

try {
  if (!want(...DAEMON_FIGURES)) throw SKIP;
  daemon = await startDaemon(token);
  echo = await startEcho();
  if (want('stage.', 'payload.64k.2node')) await guarded('stage echo servers', async () => { stages = await startStages(); });
  if (want('stage.', 'payload.64k.2node')) await guarded('stage codec', async () => keep(await runStage(['codec', '65536', '2000'])));
  for (const links of ['tcp', 'tls']) {
    if (want('stage.cpu.', 'payload.64k.2node')) await guarded(`stage cpu ${links}`, async () => keep(await runStage(['cpu', links, '65536', String(Math.max(200, Math.round(1000 * SCALE))), '1'])));
  }
  const d = daemon;
  const e = echo;
  rep.comment(`daemon ${d.id.slice(0, 8)} on 127.0.0.1:${d.port} (pid ${d.h.pid}); raw echo server pid ${e.h.pid}; ${PASSES} passes x ${ROUNDS} rounds, Erlang's figures in each pass${PIN === '' ? '' : `; our processes and the bare sockets pinned: ${PIN === 'same' ? 'all on CPU 0' : 'servers on CPU 0, clients on CPU 1'}`}`);
  // passes alternate ours, the raw sockets and Erlang, so that each pass's ratios are taken
  // under the same load (on a shared machine one reference run swung 3x)
  for (let p = 1; p <= PASSES; p++) {
    await pingpongPass(d, e);
    await groupsPass(d, e);
  }
  if (want('pingpong.webrtc.2node', 'raw.webrtc.2node')) {
    await guarded('raw.webrtc.2node', async () => keep(await runRaw('webrtc', e.port, RAW_SMALL, 3000)));
    await guarded('pingpong.webrtc.2node', async () => keep(await runMesh(d, token, 'pingpong', { webrtc: true, scale: 0.5 })));
  }
  for (const links of /** @type {const} */ (['tcp', 'tls', 'ws'])) {
    const v = links === 'tcp' ? '' : `.${links}`;
    if (want(`stream${v}.2node`)) {
      await guarded(`stream${v}.2node`, async () => {
        // always 1,000,000 messages, whatever BENCH_MESH_SCALE
        streamRss.set(links, await peakRss(/** @type {number} */ (d.h.pid), async () => keep(await runMesh(d, token, 'stream', { links, scale: 1 / SCALE }))));
      });
    }
  }
  await cpuFigures(d, e);
  if (want('payload.1k.ws.2node', 'raw.ws.1k.2node')) await guarded('raw.ws.1k.2node', async () => keep(await runRaw('ws', e.port, 1024, 6000)));
  if (want('payload.64k.ws.2node', 'raw.ws.64k.2node')) await guarded('raw.ws.64k.2node', async () => keep(await runRaw('ws', e.port, 65536, 1500)));
} catch (err) {
  if (err !== SKIP) rep.comment(`mesh figures not measured: ${err instanceof Error ? err.message : err}`);
} finally {
  if (echo) await stopChild(echo.h);
  if (stages) await stopChild(stages.h);
  if (daemon) await stopChild(daemon.h);
}
// Erlang's stream, after ours (it is not part of the passes: one run of 1,000,000 each)
if (erlangWanted(['stream']).length > 0) await guarded('erlang.stream.2node', async () => keep(await erlangSamples(['stream'])));

for (const [name, key, unit, note] of FIGURES) {
  figure(name, key, unit, note);
  if (name === 'stream.ws.2node') {
    for (const [links, mib] of streamRss) rep.bench(`stream${links === 'tcp' ? '' : `.${links}`}.2node.receiver_rss`, Math.round(mib), 'MiB', { note: 'peak resident memory of the receiving daemon during the streams' });
  }
}

ratio('pingpong.tcp.2node', 'erlang.pingpong.2node', 'erlang', { min: 0.95, label: 'ours / Erlang' });
ratio('pingpong.tcp.2node', 'erlang.pingpong.2node.nospin', 'erlang_nospin', { min: 0.95, label: 'ours / Erlang with schedulers not spinning' });
ratio('pingpong.tcp.2node', 'raw.tcp.2node', 'raw_tcp', { min: 0.85, label: 'ours / bare TCP' });
ratio('pingpong.tls.2node', 'pingpong.tcp.2node', 'tcp', { min: 0.85, label: 'encrypted / plain' });
// what TLS itself costs a bare socket here, and ours against that floor
ratio('raw.tls.2node', 'raw.tcp.2node', 'raw_tcp', { label: 'bare TLS / bare TCP' });
ratio('pingpong.tls.2node', 'raw.tls.2node', 'raw_tls', { label: 'ours in TLS / bare TLS' });
ratio('raw.tls.1k.2node', 'raw.tcp.1k.2node', 'raw_tcp', { label: 'bare TLS / bare TCP, 1 KiB' });
ratio('payload.1k.2node', 'raw.tcp.1k.2node', 'raw_tcp', { label: 'ours / bare TCP, 1 KiB' });
ratio('payload.1k.tls.2node', 'raw.tls.1k.2node', 'raw_tls', { label: 'ours in TLS / bare TLS, 1 KiB' });
ratio('payload.1k.2node', 'erlang.payload.1k.2node', 'erlang', { min: 1, label: 'ours / Erlang' });
ratio('payload.64k.2node', 'erlang.payload.64k.2node', 'erlang', { min: 0.8, label: 'ours / Erlang' });
ratio('payload.1k.tls.2node', 'payload.1k.2node', 'tcp', { min: 0.85, label: 'encrypted / plain' });
ratio('payload.64k.tls.2node', 'payload.64k.2node', 'tcp', { min: 0.85, label: 'encrypted / plain' });
// the 64 KiB ceilings: ours against the bare sockets, and what TLS costs Node itself
ratio('payload.64k.2node', 'raw.tcp.64k.2node', 'raw_tcp', { label: 'ours / bare TCP' });
ratio('payload.64k.tls.2node', 'raw.tls.64k.2node', 'raw_tls', { label: 'ours / bare TLS' });
ratio('raw.tls.64k.2node', 'raw.tcp.64k.2node', 'raw_tcp', { label: 'bare TLS / bare TCP: the ceiling of encrypted / plain at 64 KiB' });
ratio('stream.2node', 'erlang.stream.2node', 'erlang', { min: 1, label: 'ours / Erlang' });
ratio('stream.tls.2node', 'stream.2node', 'tcp', { min: 0.85, label: 'encrypted / plain' });
ratio('remote_spawn.2node', 'erlang.remote_spawn.2node', 'erlang', { max: 1.5, label: 'ours / Erlang (time: lower is better)' });
ratio('remote_spawn.tls.2node', 'remote_spawn.2node', 'tcp', { max: 1 / 0.85, label: 'encrypted / plain (time)' });
ratio('pingpong.ws.2node', 'raw.ws.2node', 'raw', { min: 0.85, label: 'ours / bare ws' });
// how close Erlang's distribution is to what Node gets from a bare socket here, and what its spin is worth
ratio('erlang.pingpong.2node', 'raw.tcp.2node', 'raw_tcp', {});
ratio('erlang.pingpong.2node', 'erlang.pingpong.2node.nospin', 'nospin', {});
ratio('pingpong.webrtc.2node', 'raw.webrtc.2node', 'raw', { min: 0.85, label: 'ours / bare data channel' });
if (rep.get('migrate.2node') !== undefined) rep.comment(`migrate.2node target <= 0.3 ms: ${(rep.get('migrate.2node') ?? Infinity) <= 0.3 ? 'met' : 'NOT met'}`);
ratio('payload.1k.ws.2node', 'raw.ws.1k.2node', 'raw', {});
ratio('payload.64k.ws.2node', 'raw.ws.64k.2node', 'raw', {});

/**
 * The 64 KiB round trip split by layer, in µs per round trip (from the medians above):
 * each layer is the difference between the echo with it and the echo without it.
 * @param {'tcp' | 'tls'} links
 */
function stageTable(links) {
  const us = (/** @type {string} */ name) => {
    const v = rep.get(name);
    return v === undefined || v <= 0 ? NaN : 1e6 / v;
  };
  const v = links === 'tcp' ? '' : '.tls';
  const bare = us(`raw.${links}.64k.2node`);
  const framed = us(`stage.framed.${links}.64k.2node`);
  const mesh = us(`stage.mesh.${links}.64k.2node`);
  const ours = us(`payload.64k${v}.2node`);
  if (![bare, framed, mesh, ours].every(Number.isFinite)) return;
  const f = (/** @type {number} */ x) => x.toFixed(0);
  const erl = us('erlang.payload.64k.2node');
  rep.comment(`64 KiB round trip over ${links.toUpperCase()}, µs: bare socket ${f(bare)}; + our framing ${f(framed - bare)}; + the mesh (links, MSG frames) ${f(mesh - framed)}; + the runtime (decode, scheduling, the Scheme echo, encode) ${f(ours - mesh)}; = ours ${f(ours)}${links === 'tcp' && Number.isFinite(erl) ? `; Erlang ${f(erl)}` : ''}`);
}
stageTable('tcp');
stageTable('tls');
