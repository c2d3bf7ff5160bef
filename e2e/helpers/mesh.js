// @ts-check
/**
 * A mesh for the end-to-end tests: a real daemon (an OS process on a free loopback port,
 * node-daemon/test/helpers/daemons.js), Chromium (./browser.js) with worker tabs on the
 * daemon's /worker page, and Scheme programs run with `termite-node run --join` whose
 * output the test can wait for while they run. Nothing here sleeps on a guess: every
 * wait is for a condition (a DOM state, the daemon's /health, a line of output), with
 * a bound, and names what it waited for when the bound passes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bin, health, stopChild } from '../../node-daemon/test/helpers/daemons.js';

export const ARTIFACTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'artifacts');

/** The directory for screenshots and tab logs (gitignored). */
export function artifactsDir() {
  mkdirSync(ARTIFACTS, { recursive: true });
  return ARTIFACTS;
}

/**
 * @typedef {object} Tab
 * @property {import('playwright-core').Page} page
 * @property {string} id the tab's node id (empty until joined)
 * @property {string[]} errors page errors and console errors seen
 */

/**
 * Open a worker tab on a daemon. `suffix` is appended to /worker (a query or a
 * fragment such as `#token=...`).
 * @param {import('playwright-core').BrowserContext} context @param {number} port @param {string} [suffix]
 * @returns {Promise<Tab>}
 */
export async function openTab(context, port, suffix = '') {
  const page = await context.newPage();
  /** @type {Tab} */
  const tab = { page, id: '', errors: [] };
  page.on('pageerror', (e) => tab.errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') tab.errors.push(`console: ${m.text()}`);
  });
  await page.goto(`http://127.0.0.1:${port}/worker${suffix}`);
  return tab;
}

/**
 * Wait until the tab's page says it joined, and read its node id from the page.
 * @param {Tab} tab @param {number} [timeoutMs]
 */
export async function waitJoined(tab, timeoutMs = 30000) {
  await tab.page.waitForSelector('#state[data-state="joined"]', { timeout: timeoutMs });
  await tab.page.waitForFunction(() => /^[a-z2-7]{32}$/.test(document.getElementById('node-id')?.textContent ?? ''), null, { timeout: timeoutMs });
  tab.id = /** @type {string} */ (await tab.page.textContent('#node-id'));
  return tab.id;
}

/**
 * What the tab's worker last reported (its status: links, processes, counters).
 * @param {Tab} tab @returns {Promise<any>}
 */
export function tabStatus(tab) {
  return tab.page.evaluate(() => /** @type {any} */ (window).termite.view.status);
}

/**
 * Wait until `cond(status)` holds for the tab's reported status.
 * @param {Tab} tab @param {(s: any) => boolean} cond @param {number} timeoutMs @param {string} what
 */
export async function waitStatus(tab, cond, timeoutMs, what) {
  const until = Date.now() + timeoutMs;
  let last = null;
  while (Date.now() < until) {
    last = await tabStatus(tab);
    if (last && cond(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`tab ${tab.id}: timed out after ${timeoutMs} ms waiting for ${what}; last status: ${JSON.stringify(last)?.slice(0, 2000)}`);
}

/**
 * Wait until the daemon's /health lists every id as a peer (with `transport` if given).
 * @param {string} url the daemon's ws:// URL @param {string[]} ids @param {{transport?: string, timeoutMs?: number}} [opts]
 */
export async function waitPeers(url, ids, opts = {}) {
  const until = Date.now() + (opts.timeoutMs ?? 20000);
  let last = null;
  while (Date.now() < until) {
    last = await health(url).catch(() => null);
    const peers = last?.peers ?? [];
    if (ids.every((id) => peers.some((/** @type {any} */ p) => p.id === id && (!opts.transport || p.transport === opts.transport)))) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for the daemon to list ${ids.join(', ')}${opts.transport ? ` over ${opts.transport}` : ''}; its /health: ${JSON.stringify(last)}`);
}

/**
 * Scheme: `(find-node ID)`, the node reference of a mesh node by id, waiting (at most
 * 10 s, every 50 ms) until this node has learnt a route to it.
 */
export const FIND_NODE = String.raw`
(define (find-node id)
  (let retry ((tries 0))
    (let scan ((ns (mesh-nodes)))
      (cond ((null? ns)
             (if (> tries 200) (error "no such node in (mesh-nodes)" id)
                 (begin (recv (after 0.05 #t)) (retry (+ tries 1)))))
            ((equal? (node-id (car ns)) id) (car ns))
            (else (scan (cdr ns)))))))
`;

/**
 * @typedef {object} Program a running `termite-node run`
 * @property {() => string} stdout what it printed so far
 * @property {() => string} stderr
 * @property {(re: RegExp, timeoutMs: number, what?: string) => Promise<RegExpExecArray>} waitOutput
 * @property {Promise<number|null>} exited its exit status
 * @property {() => Promise<void>} stop
 */

/**
 * Start `termite-node run` on `source` joined to `join`, streaming its output.
 * @param {string} source @param {{token: string, join: string[], file?: string, args?: string[]}} opts
 *   (`args`: more command-line options)
 * @returns {Program}
 */
export function startProgram(source, opts) {
  // a unit's hash covers its file name: `file` runs the same code from the same path again
  const dir = opts.file ? null : mkdtempSync(path.join(os.tmpdir(), 'termite-e2e-'));
  const file = opts.file ?? path.join(/** @type {string} */ (dir), 'prog.scm');
  writeFileSync(file, source);
  const args = [bin, 'run', file, '--token', opts.token, '--port', '0'];
  for (const j of opts.join) args.push('--join', j);
  args.push(...(opts.args ?? []));
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  /** @type {Set<() => void>} */
  const listeners = new Set();
  const changed = () => {
    for (const l of [...listeners]) l();
  };
  child.stdout.on('data', (d) => {
    out += d;
    changed();
  });
  child.stderr.on('data', (d) => {
    err += d;
    changed();
  });
  /** @type {Promise<number|null>} */
  const exited = new Promise((resolve) => {
    child.on('exit', (status) => {
      if (dir) rmSync(dir, { recursive: true, force: true });
      resolve(status);
      changed();
    });
  });
  return {
    stdout: () => out,
    stderr: () => err,
    exited,
    stop: () => stopChild(child, 'SIGTERM'),
    waitOutput(re, timeoutMs, what) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = re.exec(out);
          if (m) {
            done();
            resolve(m);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            done();
            reject(new Error(`the program ended (${child.exitCode ?? child.signalCode}) before printing ${what ?? re}:\nstdout: ${out}\nstderr: ${err}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what ?? re}:\nstdout: ${out}\nstderr: ${err}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/**
 * Run a program to its end (bounded): its status and output.
 * @param {string} source @param {{token: string, join: string[], file?: string, timeoutMs?: number, args?: string[]}} opts
 */
export async function runToEnd(source, opts) {
  const p = startProgram(source, opts);
  const timer = setTimeout(() => void p.stop(), opts.timeoutMs ?? 30000);
  const status = await p.exited;
  clearTimeout(timer);
  return { status, stdout: p.stdout(), stderr: p.stderr() };
}

/**
 * Save each tab's log (what its worker reported) under e2e/artifacts/, for a failed run.
 * @param {string} name @param {Tab[]} tabs
 */
export async function saveTabLogs(name, tabs) {
  const dir = artifactsDir();
  for (const [i, t] of tabs.entries()) {
    if (t.page.isClosed()) continue;
    const lines = await t.page.evaluate(() => /** @type {any} */ (window).termite?.view?.log ?? []).catch(() => []);
    writeFileSync(path.join(dir, `${name}-tab${i}.log`), [...t.errors, ...lines].join('\n') + '\n');
  }
}
