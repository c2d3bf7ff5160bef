// @ts-check
/**
 * Browser tabs on the simulated internet (scripts/netsim.js): Debian's Chromium, driven
 * by playwright-core, started *inside* a host's network namespace — behind that host's
 * NAT router when it has one — so its tabs reach daemons only across the simulated
 * links, as a browser at home does.
 *
 * How: playwright launches the executable it is given with a pipe on fds 3 and 4; the
 * executable here is a two-line wrapper that runs `ip netns exec NS chromium "$@"`,
 * and both `sh` and `ip netns exec` exec rather than fork, so the pipe, the PID and the
 * process group Playwright records are Chromium's own (e2e/helpers/browser.js stops it
 * by its handle, then by that PID). Nothing listens on a port for the browser's control.
 *
 * Tabs open the daemon's /worker page through a relayed link (a ws:// URL from
 * Netsim.link, turned into http://), with `fresh=1` (a new identity per tab) and the
 * mesh token in the fragment. A tab's round trip is a mesh request from its worker (the
 * same SERVICE request the probe times, which a daemon answers at once).
 *
 * Invariants: every wait is bounded and names what it waited for; the wrapper's
 * directory is removed when its browser is closed; Netsim.cleanup() kills whatever is
 * left in the namespace anyway.
 */
import { mkdtempSync, writeFileSync, rmSync, chmodSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchChromium, CHROMIUM } from '../e2e/helpers/browser.js';

/** SERVICE [24, "netsim-probe", []] in the value codec's CBOR (as netsim-probe.js sends). */
const SERVICE_REQUEST = [0x83, 0x18, 0x18, 0x6c, ...new TextEncoder().encode('netsim-probe'), 0x80];

/**
 * @typedef {object} SimTab
 * @property {import('playwright-core').Page} page
 * @property {string} id its node id
 * @property {number} joinMs from opening the page until it said it joined
 */

/**
 * Chromium running in `host`'s namespace. `links`: the relayed daemon URLs its tabs will
 * open. A page over plain http from a non-loopback address is not a secure context, and
 * the worker needs WebCrypto (its identity) there; on the real internet a daemon serves
 * tabs over https, here the browser is told to treat those origins as secure.
 * @param {import('./netsim.js').SimHost} host @param {string[]} links
 * @returns {Promise<import('../e2e/helpers/browser.js').Chromium>}
 */
export async function chromiumIn(host, links) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'netsim-chromium-'));
  const wrapper = path.join(dir, 'chromium');
  writeFileSync(wrapper, `#!/bin/sh\nexec ip netns exec '${host.ns}' '${CHROMIUM}' "$@"\n`);
  chmodSync(wrapper, 0o755);
  try {
    // the simulated internet's addresses are IP literals; let them past the resolver rule that keeps tests on loopback
    const c = await launchChromium({ executablePath: wrapper, args: [
      '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE 10.77.*',
      `--unsafely-treat-insecure-origin-as-secure=${links.map((l) => l.replace(/^ws:/, 'http:')).join(',')}`,
    ] });
    return {
      ...c,
      close: async () => {
        await c.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/**
 * The worker page's URL behind a relayed link (`ws://IP:PORT` from Netsim.link).
 * @param {string} linkUrl @param {string} token @param {{webrtc?: boolean}} [opts]
 */
export function workerUrl(linkUrl, token, opts = {}) {
  const q = new URLSearchParams({ fresh: '1' });
  if (!opts.webrtc) q.set('webrtc', '0');
  return `${linkUrl.replace(/^ws:/, 'http:')}/worker?${q}#token=${token}`;
}

/**
 * Open one worker tab at `url` and wait (bounded) until it joined.
 * @param {import('playwright-core').BrowserContext} context @param {string} url @param {number} timeoutMs
 * @returns {Promise<SimTab>}
 */
export async function openSimTab(context, url, timeoutMs) {
  const page = await context.newPage();
  const t0 = Date.now();
  try {
    await page.goto(url, { timeout: timeoutMs });
    await page.waitForSelector('#state[data-state="joined"]', { timeout: Math.max(1, timeoutMs - (Date.now() - t0)) });
    await page.waitForFunction(() => /^[a-z2-7]{32}$/.test(document.getElementById('node-id')?.textContent ?? ''), null, { timeout: 5000 });
  } catch (e) {
    const log = await page.evaluate(() => /** @type {any} */ (window).termite?.view?.log?.slice(-20) ?? []).catch(() => []);
    throw new Error(`a tab at ${url.replace(/#.*/, '')} did not join within ${timeoutMs} ms: ${e instanceof Error ? e.message.split('\n')[0] : e}; its log: ${log.join(' | ')}`);
  }
  const joinMs = Date.now() - t0;
  const id = /** @type {string} */ (await page.textContent('#node-id'));
  return { page, id, joinMs };
}

/**
 * Open `n` tabs at `url`, at most `parallel` loading at once; each must join within `timeoutMs`.
 * @param {import('playwright-core').BrowserContext} context @param {string} url @param {number} n
 * @param {{parallel?: number, timeoutMs?: number}} [opts]
 * @returns {Promise<SimTab[]>}
 */
export async function openSimTabs(context, url, n, opts = {}) {
  /** @type {SimTab[]} */
  const tabs = [];
  let next = 0;
  const lane = async () => {
    while (next < n) {
      next++;
      tabs.push(await openSimTab(context, url, opts.timeoutMs ?? 60_000));
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, opts.parallel ?? 4) }, lane));
  return tabs;
}

/**
 * Median round trip (ms) of `rounds` mesh requests from a tab's worker to node `id`,
 * after waiting (bounded) until the tab has a route to it and 3 unmeasured requests.
 * @param {SimTab} tab @param {string} id @param {number} rounds @param {number} [timeoutMs]
 * @returns {Promise<{ms: number, hops: number}>}
 */
export async function tabRoundTrip(tab, id, rounds, timeoutMs = 30_000) {
  const worker = tab.page.workers()[0];
  if (!worker) throw new Error(`tab ${tab.id} has no worker`);
  return worker.evaluate(async ([to, bytes, n, bound]) => {
    const mesh = /** @type {any} */ (self).termite.mesh;
    const until = Date.now() + bound;
    while (!mesh.isReachable(to)) {
      if (Date.now() > until) throw new Error(`no route to ${to} within ${bound} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const req = new Uint8Array(bytes);
    /** @type {number[]} */
    const times = [];
    for (let i = 0; i < n + 3; i++) {
      if (Date.now() > until) throw new Error(`round trips to ${to} not done within ${bound} ms`);
      const t = performance.now();
      await mesh.request(to, req, { timeoutMs: 10_000 });
      if (i >= 3) times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const route = mesh.routes().find((/** @type {any} */ r) => r.id === to);
    return { ms: times[Math.floor(times.length / 2)], hops: route?.hops ?? 0 };
  }, /** @type {[string, number[], number, number]} */ ([id, SERVICE_REQUEST, rounds, timeoutMs]));
}
