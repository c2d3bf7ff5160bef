#!/usr/bin/env node
// @ts-check
/**
 * Browser figures: a daemon (`termite-node`, its own OS process), Debian's Chromium
 * (e2e/helpers/browser.js: WebRTC on loopback) with worker tabs on the daemon's
 * /worker page, and each ping-pong beside the bare transport measured in the same run
 * with the same browser.
 *
 *   node bench/browser.js [PREFIX]     (npm run bench -- browser: every figure below)
 *
 *   pingpong.ws.browser       rt/s  a Scheme process on a tab (`/worker?webrtc=0`: the tab
 *                                   stays on its WebSocket) pings an echo process on the daemon
 *   raw.ws.browser            rt/s  a page's bare WebSocket <-> a Node `ws` echo server
 *                                   (bench/mesh-raw.js echo, its own OS process)
 *   pingpong.webrtc.browser   rt/s  the same over the tab's data channel to the daemon
 *   raw.webrtc.browser        rt/s  a page's bare RTCPeerConnection data channel <->
 *                                   node-datachannel (mesh-raw.js echo, signalled over ws)
 *   pingpong.webrtc.tabs      rt/s  Scheme processes on two tabs (their tab <-> tab data channel)
 *   raw.webrtc.tabs           rt/s  two pages' bare RTCPeerConnections (signalled by this script)
 *   raw.webrtc.browser.worker rt/s  raw.webrtc.browser with the page's channel transferred
 *                                   to a Web Worker that pings, where a tab's channel lives
 *                                   (no target: it shows what that placement costs)
 *   first_migration.browser   ms    from page.goto of a fresh worker tab (new browser context:
 *                                   new identity, empty caches) until a process that a watcher
 *                                   on the (already running) daemon migrated into it reports
 *                                   from there; median of FIRST_SAMPLES tabs
 *   tabs.joined               tabs  worker tabs one daemon holds with every one answering an
 *                                   `on` round trip from the daemon: tabs opened in batches until
 *                                   one fails to join within JOIN_BOUND_MS, a round trip fails, or
 *                                   the cap (BENCH_TABS_CAP, default 40) is reached
 *   <figure>.vs_raw           x     pingpong / raw of the same run
 *
 * The ping-pong message is small: (pid . 0) for Scheme, 32 bytes for the raw transports
 * (about a mesh SEND frame). Every ping-pong runs ROUNDS timed rounds after a warm-up
 * of count/2 round trips repeated until WARM_MS have passed (the same for ours and raw:
 * the mesh's path through the daemon and the tab's worker needs more round trips than a
 * bare echo for V8 to optimise it; with count/2 alone its first rounds were 10-20% slower);
 * Scheme and raw alternate in PASSES passes, so both meet the same load; a figure is the
 * median of all its rounds and the ratio is also given per pass. The daemon and the echo
 * server are stopped by PID (process group), Chromium by its handle then its PID; every
 * wait is bounded.
 * Env: BENCH_BROWSER_PASSES (default 2), BENCH_BROWSER_COUNT (round trips per round,
 * default 1000), BENCH_BROWSER_ROUNDS (timed rounds per ping-pong, default 3),
 * BENCH_BROWSER_WARM_MS (default 2000), BENCH_NODE_FLAGS (extra Node flags for the
 * daemon and the echo server, e.g. `--cpu-prof --cpu-prof-dir=DIR`), CHROMIUM_JS_FLAGS
 * (e2e/helpers/browser.js: V8 flags for Chromium, e.g. `--prof --logfile=DIR/v8-%p.log`),
 * BENCH_TABS_CAP (default 40), BENCH_TABS_PHASE_S (no new batch of tabs after this many
 * seconds, default 150), BENCH_FIRST_SAMPLES (default 3),
 * BENCH_FIRST_SUFFIX (appended to /worker for first_migration, e.g. `?webrtc=0`).
 *
 * This file owns the run: starting and stopping the daemon, the echo server and
 * Chromium, the phases, and the figures. The page side of the raw transports is in
 * browser/page-raw.js, the Scheme programs the tabs and the daemon run in
 * browser/programs.js.
 */
import http from 'node:http';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { Reporter, prefixFromArgv, startChild, stopChild, waitFor, summarize } from './lib/index.js';
import { launchChromium } from '../e2e/helpers/browser.js';
import { openTab, waitJoined, waitPeers, waitStatus, startProgram } from '../e2e/helpers/mesh.js';
import { pageRawEcho, pageRtcSetup, pageRawTabsPingPong, RAW_WORKER_SOURCE } from './browser/page-raw.js';
import { pingPongProgram, firstMigrationProgram, tabsAnswerProgram, results } from './browser/programs.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, '..', 'node-daemon', 'bin', 'termite-node.js');
const prefix = prefixFromArgv();
// `browser` (or a prefix of it) selects every figure of this script
const rep = new Reporter(prefix.startsWith('browser') || 'browser'.startsWith(prefix) ? '' : prefix);
const PASSES = Math.max(1, Math.min(5, Number(process.env.BENCH_BROWSER_PASSES ?? 2)));
const COUNT = Math.max(50, Number(process.env.BENCH_BROWSER_COUNT ?? 1000));
const ROUNDS = Math.max(1, Math.min(50, Number(process.env.BENCH_BROWSER_ROUNDS ?? 3)));
const RAW_BYTES = 32;
/** Warm-up of every ping-pong, ours and raw alike: count/2 round trips, repeated until this long has passed. */
const WARM_MS = Math.max(0, Number(process.env.BENCH_BROWSER_WARM_MS ?? 2000));
/** Extra Node flags for the daemon and the raw echo server (profiling: `--cpu-prof --cpu-prof-dir=DIR`). */
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter((f) => f !== '');
const FIRST_SAMPLES = Number(process.env.BENCH_FIRST_SAMPLES ?? 3);
const TABS_CAP = Math.max(1, Math.min(100, Number(process.env.BENCH_TABS_CAP ?? 40)));
const TABS_BATCH = 5;
const JOIN_BOUND_MS = 30000;
const SCRIPT_BUDGET_MS = 270000; // stop starting new work after this (run.js's limit is higher)
const TABS_PHASE_MS = Number(process.env.BENCH_TABS_PHASE_S ?? 150) * 1000; // tabs.joined: no new batch after this
const started = Date.now();
const overBudget = () => Date.now() - started > SCRIPT_BUDGET_MS;

/** @typedef {import('./lib/timing.js').Stats} Stats */
/** @typedef {import('../e2e/helpers/mesh.js').Tab} Tab */

/** @type {Map<string, number[]>} samples (rounds) of each figure */
const samples = new Map();
/** @type {Map<string, number[]>} per-pass ratios */
const passRatios = new Map();
/** @param {string} k @param {number[]} v */
const keep = (k, v) => samples.set(k, [...(samples.get(k) ?? []), ...v]);

/** @param {string} what @param {() => Promise<void>} f */
async function guarded(what, f) {
  try {
    await f();
  } catch (e) {
    rep.comment(`${what}: not measured: ${e instanceof Error ? e.message.split('\n').slice(0, 6).join(' | ') : e}`);
  }
}

/** Start a daemon; resolves with its handle, port, id and URL. @param {string} token */
async function startDaemon(token) {
  let log = '';
  const h = startChild(process.execPath, [...NODE_FLAGS, bin, '--port', '0', '--token', token], { onLine: (l) => { log += `${l}\n`; } });
  /** @type {RegExpExecArray | null} */
  let m = null;
  const up = await waitFor(() => (m = /termite-node (\w+) listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(log)) !== null || !h.running(), 20000, 50);
  if (!up || !m) {
    await stopChild(h);
    throw new Error(`the daemon did not start: ${log.slice(-500)}`);
  }
  const mm = /** @type {RegExpExecArray} */ (m);
  const port = Number(mm[2]);
  return { h, id: mm[1], port, url: `ws://127.0.0.1:${port}`, log: () => log };
}

/** The raw echo server (bench/mesh-raw.js echo): WebSocket echo + node-datachannel answerer. */
async function startEcho() {
  let out = '';
  const h = startChild(process.execPath, [...NODE_FLAGS, path.join(here, 'mesh-raw.js'), 'echo'], { onLine: (l) => { out += `${l}\n`; } });
  /** @type {RegExpExecArray | null} */
  let m = null;
  const up = await waitFor(() => (m = /^port (\d+)/m.exec(out)) !== null || !h.running(), 10000, 20);
  if (!up || !m) {
    await stopChild(h);
    throw new Error(`the raw echo server did not start: ${h.stderr().slice(-300)}`);
  }
  return { h, port: Number(/** @type {RegExpExecArray} */ (m)[1]) };
}

/** A blank page on 127.0.0.1 for the raw transports (served by this process). */
function startBlankServer() {
  const srv = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end('<!doctype html><title>raw</title><body>raw transports</body>');
  });
  return new Promise((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const a = /** @type {import('node:net').AddressInfo} */ (srv.address());
      resolve({ srv, url: `http://127.0.0.1:${a.port}/` });
    });
  });
}

/**
 * Run the ping-pong program between nodes a (pinger) and b (echo); its rounds.
 * @param {{port: number, url: string}} d @param {string} token @param {string} a @param {string} b @param {string} name
 */
async function meshPingPong(d, token, a, b, name) {
  const prog = startProgram(pingPongProgram({ port: d.port, a, b, name, count: COUNT, rounds: ROUNDS, warmMs: WARM_MS }), { token, join: [d.url] });
  try {
    await prog.waitOutput(/^(done|timeout)$/m, 150000, `the ping-pong ${name}`);
  } finally {
    await prog.stop();
  }
  const v = results(prog.stdout()).get(name);
  if (!v || v.length === 0) throw new Error(`no result from the program: ${prog.stdout().slice(-300)} ${prog.stderr().slice(-500)}`);
  return v;
}

/**
 * Alternate raw and mesh ping-pong for PASSES passes; keep their rounds and per-pass ratios.
 * @param {string} mesh @param {string} raw @param {() => Promise<number[]>} runMesh @param {() => Promise<number[]>} runRaw
 */
async function alternate(mesh, raw, runMesh, runRaw) {
  for (let p = 1; p <= PASSES; p++) {
    if (p > 1 && overBudget()) {
      rep.comment(`${mesh}: pass ${p} skipped (the script's time budget is spent)`);
      break;
    }
    /** @type {number[] | null} */
    let r = null;
    /** @type {number[] | null} */
    let m = null;
    await guarded(raw, async () => { r = await runRaw(); keep(raw, r); });
    await guarded(mesh, async () => { m = await runMesh(); keep(mesh, m); });
    if (r && m) {
      const k = `${mesh} / ${raw}`;
      passRatios.set(k, [...(passRatios.get(k) ?? []), summarize(m).median / summarize(r).median]);
    }
  }
}

/** Print a figure from its samples. @param {string} name @param {string} unit @param {string} note */
function figure(name, unit, note) {
  const v = samples.get(name);
  if (!v || v.length === 0) return;
  const st = summarize(v);
  rep.bench(name, st.median, unit, { stats: st, note });
}

/** `bench <a>.vs_raw <x> x`, the ratio comment, and the per-pass ratios. @param {string} a @param {string} b */
function ratio(a, b) {
  const r = rep.ratio(a, b);
  if (!Number.isFinite(r)) return;
  rep.bench(`${a}.vs_raw`, Number(r.toFixed(3)), 'x');
  rep.ratioComment(a, b, { min: 0.85, label: 'ping-pong >= 0.85x raw' });
  const per = passRatios.get(`${a} / ${b}`);
  if (per && per.length > 0) rep.comment(`ratio ${a} / ${b} per pass: ${per.map((x) => x.toFixed(2)).join(', ')}`);
}

// ---------------------------------------------------------------------------------------

const token = `bench-${randomBytes(9).toString('hex')}`;
const want = (/** @type {string[]} */ ...names) => rep.wantsAny(names);
/** @type {Awaited<ReturnType<typeof startDaemon>> | null} */
let daemon = null;
/** @type {Awaited<ReturnType<typeof startEcho>> | null} */
let echo = null;
/** @type {import('../e2e/helpers/browser.js').Chromium | null} */
let chromium = null;
/** @type {{srv: http.Server, url: string} | null} */
let blank = null;

const wantPP = want('pingpong.ws.browser', 'raw.ws.browser', 'pingpong.webrtc.browser', 'raw.webrtc.browser', 'pingpong.webrtc.tabs', 'raw.webrtc.tabs');
const wantFirst = want('first_migration.browser');
const wantTabs = want('tabs.joined');

try {
  if (!wantPP && !wantFirst && !wantTabs) process.exit(0);
  [daemon, chromium] = await Promise.all([startDaemon(token), launchChromium()]);
  const d = daemon;
  const browser = chromium.browser;
  rep.comment(`daemon ${d.id.slice(0, 8)} on 127.0.0.1:${d.port} (pid ${d.h.pid}); Chromium pid ${chromium.pid} (${browser.version()}); ${PASSES} passes x ${ROUNDS} rounds of ${COUNT} round trips`);

  // --- first_migration.browser: fresh tabs, the daemon already running --------------------
  if (wantFirst) {
    await guarded('first_migration.browser', async () => {
      const prog = startProgram(firstMigrationProgram({ port: d.port, count: FIRST_SAMPLES }), { token, join: [d.url] });
      try {
        await prog.waitOutput(/^watching$/m, 30000, 'the watcher on the daemon');
        const times = [];
        for (let i = 1; i <= FIRST_SAMPLES; i++) {
          const ctx = await browser.newContext();
          try {
            const page = await ctx.newPage();
            const t0 = performance.now();
            const [, m] = await Promise.all([
              page.goto(`http://127.0.0.1:${d.port}/worker${process.env.BENCH_FIRST_SUFFIX ?? ''}`),
              prog.waitOutput(new RegExp(`(?:arrived \\S+\\n[^]*?){${i - 1}}arrived (\\S+)\\n`), 30000, `arrival ${i}`),
            ]);
            const ms = performance.now() - t0;
            const id = (m[1] ?? '');
            const tabId = await waitJoined({ page, id: '', errors: [] }, 10000);
            if (!prog.stdout().includes(`arrived ${tabId}`)) throw new Error(`the process arrived at ${id}, not at the new tab ${tabId}`);
            times.push(ms);
            // where the time went: the worker's start-up marks, ms after the page's navigation start
            const marks = await page.evaluate(() => {
              const v = /** @type {any} */ (window).termite.view;
              const m = v.status?.timing ?? {};
              return Object.entries(m).map(([k, t]) => `${k} ${Math.round(/** @type {number} */ (t) - v.pageStart)}`).join(', ');
            }).catch(() => '');
            if (marks) rep.comment(`first_migration.browser sample ${i}: ${Math.round(ms)} ms; worker marks (ms after navigation start): ${marks}`);
          } finally {
            await ctx.close().catch(() => {});
          }
        }
        const st = summarize(times);
        rep.bench('first_migration.browser', st.median, 'ms', { stats: st, note: `page.goto of a fresh tab (new context) until a process migrated into it reports; ${times.map((t) => Math.round(t)).join(', ')} ms` });
        rep.comment(`first_migration.browser <= 1000 ms: ${st.median <= 1000 ? 'met' : 'NOT met'}`);
      } finally {
        await prog.stop();
      }
    });
  }

  // --- ping-pong: tab <-> daemon on WebSocket, data channel; tab <-> tab ------------------
  if (wantPP) {
    echo = await startEcho();
    blank = /** @type {{srv: http.Server, url: string}} */ (await startBlankServer());
    const e = echo;
    const rawCtx = await browser.newContext();
    const rawPage = await rawCtx.newPage();
    await rawPage.goto(blank.url);
    const rawEcho = (/** @type {'ws'|'webrtc'} */ mode, inWorker = false) => rawPage.evaluate(pageRawEcho, { port: e.port, mode, bytes: RAW_BYTES, count: COUNT, rounds: ROUNDS, warmMs: WARM_MS, inWorker, workerSource: RAW_WORKER_SOURCE });

    if (want('pingpong.ws.browser', 'raw.ws.browser')) {
      await guarded('pingpong.ws.browser', async () => {
        const ctx = await browser.newContext();
        try {
          const tab = await openTab(ctx, d.port, '?webrtc=0');
          const id = await waitJoined(tab, JOIN_BOUND_MS);
          await waitPeers(d.url, [id], { transport: 'websocket', timeoutMs: 20000 });
          await alternate('pingpong.ws.browser', 'raw.ws.browser', () => meshPingPong(d, token, id, d.id, 'pingpong.ws.browser'), () => rawEcho('ws'));
          const h = await waitPeers(d.url, [id], { timeoutMs: 5000 });
          const p = h.peers.find((/** @type {any} */ x) => x.id === id);
          if (p?.transport !== 'websocket') rep.comment(`pingpong.ws.browser: the tab's link is ${p?.transport}, not websocket`);
        } finally {
          await ctx.close().catch(() => {});
        }
      });
    }

    if (want('pingpong.webrtc.browser', 'raw.webrtc.browser', 'pingpong.webrtc.tabs', 'raw.webrtc.tabs')) {
      await guarded('pingpong.webrtc', async () => {
        const ctx = await browser.newContext();
        try {
          const tabs = [await openTab(ctx, d.port), await openTab(ctx, d.port)];
          const ids = await Promise.all(tabs.map((t) => waitJoined(t, JOIN_BOUND_MS)));
          await waitPeers(d.url, ids, { transport: 'webrtc', timeoutMs: 30000 });
          if (want('pingpong.webrtc.browser', 'raw.webrtc.browser')) {
            await alternate('pingpong.webrtc.browser', 'raw.webrtc.browser', () => meshPingPong(d, token, ids[0], d.id, 'pingpong.webrtc.browser'), () => rawEcho('webrtc'));
            // the same bare channel with its page end moved into a worker, where the tab's
            // is: whether the thread Chromium delivers to explains any of the gap (no target)
            for (let p = 1; p <= PASSES && !overBudget(); p++) {
              await guarded('raw.webrtc.browser.worker', async () => {
                keep('raw.webrtc.browser.worker', await rawEcho('webrtc', true));
              });
            }
          }
          if (want('pingpong.webrtc.tabs', 'raw.webrtc.tabs')) {
            for (const [i, t] of tabs.entries()) {
              const other = ids[1 - i];
              await waitStatus(t, (st) => st.links.some((/** @type {any} */ l) => l.id === other && l.transport === 'webrtc'), 30000, 'a WebRTC link to the other tab');
            }
            // raw: two pages' bare RTCPeerConnections, signalled through this script
            const rctx = await browser.newContext();
            try {
              const [pa, pb] = [await rctx.newPage(), await rctx.newPage()];
              await Promise.all([pa.goto(/** @type {any} */ (blank).url), pb.goto(/** @type {any} */ (blank).url)]);
              await Promise.all([pa.evaluate(pageRtcSetup), pb.evaluate(pageRtcSetup)]);
              const offer = await pa.evaluate(async () => {
                const r = /** @type {any} */ (window).rawRtc;
                r.bind(r.pc.createDataChannel('raw', { ordered: true }));
                await r.pc.setLocalDescription(await r.pc.createOffer());
                await Promise.race([r.gathered, new Promise((res) => setTimeout(res, 5000))]);
                return { sdp: r.pc.localDescription.sdp, cands: r.cands };
              });
              const answer = await pb.evaluate(async (o) => {
                const r = /** @type {any} */ (window).rawRtc;
                await r.pc.setRemoteDescription({ type: 'offer', sdp: o.sdp.split('\r\n').filter((/** @type {string} */ l) => !l.startsWith('a=candidate:')).join('\r\n') });
                for (const c of o.cands) await r.pc.addIceCandidate(c);
                await r.pc.setLocalDescription(await r.pc.createAnswer());
                await Promise.race([r.gathered, new Promise((res) => setTimeout(res, 5000))]);
                return { sdp: r.pc.localDescription.sdp, cands: r.cands };
              }, offer);
              await pa.evaluate(async (o) => {
                const r = /** @type {any} */ (window).rawRtc;
                await r.pc.setRemoteDescription({ type: 'answer', sdp: o.sdp.split('\r\n').filter((/** @type {string} */ l) => !l.startsWith('a=candidate:')).join('\r\n') });
                for (const c of o.cands) await r.pc.addIceCandidate(c);
                await Promise.race([r.open, new Promise((_, rej) => setTimeout(() => rej(new Error('page <-> page data channel did not open within 15 s')), 15000))]);
              }, answer);
              await pb.waitForFunction(() => /** @type {any} */ (window).rawRtc.dc?.readyState === 'open', null, { timeout: 15000 });
              const rawTabs = () => pa.evaluate(pageRawTabsPingPong, { bytes: RAW_BYTES, count: COUNT, rounds: ROUNDS, warmMs: WARM_MS });
              await alternate('pingpong.webrtc.tabs', 'raw.webrtc.tabs', () => meshPingPong(d, token, ids[0], ids[1], 'pingpong.webrtc.tabs'), rawTabs);
            } finally {
              await rctx.close().catch(() => {});
            }
          }
        } finally {
          await ctx.close().catch(() => {});
        }
      });
    }
    await rawCtx.close().catch(() => {});
    const notes = {
      'pingpong.ws.browser': 'tab (/worker?webrtc=0) pinging an echo process on the daemon, (pid . 0)',
      'raw.ws.browser': `page WebSocket <-> Node ws echo, ${RAW_BYTES} bytes`,
      'pingpong.webrtc.browser': 'tab pinging an echo process on the daemon over their data channel',
      'raw.webrtc.browser': `page RTCPeerConnection <-> node-datachannel echo, ${RAW_BYTES} bytes`,
      'pingpong.webrtc.tabs': 'tab pinging an echo process on another tab over their data channel',
      'raw.webrtc.tabs': `page <-> page RTCPeerConnection, ${RAW_BYTES} bytes`,
      'raw.webrtc.browser.worker': `raw.webrtc.browser with the page's channel transferred to a Web Worker, which pings (the tab's placement), ${RAW_BYTES} bytes`,
    };
    for (const [name, note] of Object.entries(notes)) figure(name, 'rt/s', note);
    ratio('pingpong.ws.browser', 'raw.ws.browser');
    ratio('pingpong.webrtc.browser', 'raw.webrtc.browser');
    ratio('pingpong.webrtc.tabs', 'raw.webrtc.tabs');
    // not a target: how much of the tab <-> daemon gap is the channel's end being in a worker
    rep.ratioComment('pingpong.webrtc.browser', 'raw.webrtc.browser.worker', { label: 'ours / the bare channel in a worker (no target)' });
    rep.ratioComment('raw.webrtc.browser.worker', 'raw.webrtc.browser', { label: 'bare channel: in a worker / on the page (no target)' });
  }

  // --- tabs.joined: on a fresh daemon, tabs opened in batches ------------------------------
  if (wantTabs) {
    await guarded('tabs.joined', async () => {
      if (daemon) await stopChild(daemon.h);
      daemon = null;
      const d2 = (daemon = await startDaemon(token));
      const ctx = await browser.newContext();
      /** @type {string[]} */
      const ids = [];
      let why = `the cap (${TABS_CAP}) reached`;
      const t0 = performance.now();
      try {
        while (ids.length < TABS_CAP) {
          if (overBudget() || performance.now() - t0 > TABS_PHASE_MS) {
            why = `the time bound was reached (${Math.round((performance.now() - t0) / 1000)} s; a batch takes longer as tabs are added)`;
            break;
          }
          const tb = performance.now();
          const n = Math.min(TABS_BATCH, TABS_CAP - ids.length);
          const batch = await Promise.all(Array.from({ length: n }, () => openTab(ctx, d2.port, '?fresh=1')));
          const joined = await Promise.allSettled(batch.map((t) => waitJoined(t, JOIN_BOUND_MS)));
          const ok = joined.filter((j) => j.status === 'fulfilled').map((j) => /** @type {PromiseFulfilledResult<string>} */ (j).value);
          if (ok.length < n) {
            why = `${n - ok.length} tab(s) of a batch did not join within ${JOIN_BOUND_MS / 1000} s`;
            break;
          }
          const all = [...ids, ...ok];
          const prog = startProgram(tabsAnswerProgram({ port: d2.port, ids: all }), { token, join: [d2.url] });
          let answered = 0;
          let detail = '';
          try {
            const m = await prog.waitOutput(/^(answered (\d+) (.*)|timeout)$/m, 45000, 'the on round trips');
            answered = Number(m[2] ?? 0);
            detail = m[3] ?? 'no report within 30 s';
            await new Promise((r) => setTimeout(r, 100)); // the error line, if any
            const em = /^error (.*)$/m.exec(prog.stdout());
            if (em) detail += `; first error: ${em[1].slice(0, 160)}`;
          } finally {
            await prog.stop();
          }
          if (answered < all.length) {
            why = `only ${answered} of ${all.length} tabs answered an \`on\` round trip within 20 s (${detail})`;
            break;
          }
          ids.push(...ok);
          rep.comment(`tabs.joined: ${ids.length} tabs answering (batch ${((performance.now() - tb) / 1000).toFixed(1)} s, ${Math.round((performance.now() - t0) / 1000)} s in all; load average ${loadavg()[0].toFixed(1)})`);
        }
      } finally {
        await ctx.close().catch(() => {});
      }
      rep.bench('tabs.joined', ids.length, 'tabs', { note: `cap ${TABS_CAP}, batches of ${TABS_BATCH}; stopped: ${why}` });
    });
  }
} catch (err) {
  rep.comment(`browser figures not measured: ${err instanceof Error ? err.message : err}`);
} finally {
  await chromium?.close();
  if (echo) await stopChild(echo.h);
  if (daemon) await stopChild(daemon.h);
  blank?.srv.close();
}
rep.comment(`bench/browser.js took ${Math.round((Date.now() - started) / 1000)} s`);
process.exit(0);
