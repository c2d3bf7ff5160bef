// @ts-check
/**
 * Chromium for the end-to-end tests: Debian's Chromium driven by playwright-core (no
 * browser download), loopback only. WebRTC on the host's network namespace: mDNS
 * hiding of local addresses is switched off by *replacing* Playwright's own
 * --disable-features switch (Chromium honours only the last one) with one that adds
 * WebRtcHideLocalIpsWithMdns; Chromium then gathers its
 * host candidate, which the worker page rewrites to 127.0.0.1 (candidate policy
 * 'loopback-rewrite', the mesh's filterCandidate), so ICE runs on loopback only. (The
 * other way, granting media permissions and allowing loopback in peer connections,
 * was seen to pair a non-loopback interface's address with 127.0.0.1 on a host that
 * has one, so traffic left loopback.)
 *
 * Each browser is a launched server with its own fresh profile directory (Playwright
 * makes one per launch and removes it), closed by its handle; if closing does not end
 * it within 5 s, its process group is killed by the PID recorded at launch.
 */
import { readFileSync, existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM ?? (existsSync('/usr/lib/chromium/chromium') ? '/usr/lib/chromium/chromium' : '/usr/bin/chromium');

export const BASE_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
  // many tabs in one browser (tabs.joined): keep background tabs' timers at full speed
  '--disable-background-timer-throttling',
  '--disable-renderer-backgrounding',
  '--disable-backgrounding-occluded-windows',
];

/** @type {Promise<string | null> | null} */
let playwrightFeatures = null;

/**
 * Playwright's own --disable-features=... switch, read from the command line of a
 * throw-away browser (once per process).
 * @returns {Promise<string | null>}
 */
function defaultDisableFeatures() {
  playwrightFeatures ??= (async () => {
    const server = await chromium.launchServer({ executablePath: CHROMIUM, headless: true, args: BASE_ARGS, host: '127.0.0.1', handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false });
    const pid = /** @type {number} */ (server.process().pid);
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').find((a) => a.startsWith('--disable-features=')) ?? null;
    } finally {
      await closeServer(server, pid);
    }
  })();
  return playwrightFeatures;
}

/**
 * @typedef {object} Chromium
 * @property {import('playwright-core').Browser} browser
 * @property {number} pid
 * @property {() => Promise<void>} close
 */

/**
 * Launch Chromium for WebRTC on loopback (mDNS hiding off, as the header explains).
 * `executablePath`: another Chromium (or a wrapper that execs it, e.g. in a network namespace);
 * `args`: more switches (a later switch overrides an earlier one of the same name).
 * @param {{executablePath?: string, args?: string[]}} [opts]
 * @returns {Promise<Chromium>}
 */
export async function launchChromium(opts = {}) {
  const sw = await defaultDisableFeatures();
  const args = [...BASE_ARGS, sw ? `${sw},WebRtcHideLocalIpsWithMdns` : '--disable-features=WebRtcHideLocalIpsWithMdns'];
  // V8 flags for profiling a tab (e.g. `--prof --logfile=/tmp/v8-%p.log`: a tick log per isolate)
  if (process.env.CHROMIUM_JS_FLAGS) args.push(`--js-flags=${process.env.CHROMIUM_JS_FLAGS}`);
  args.push(...(opts.args ?? []));
  const server = await chromium.launchServer({
    executablePath: opts.executablePath ?? CHROMIUM, headless: true, args, host: '127.0.0.1', timeout: 30000,
    ...(sw ? { ignoreDefaultArgs: [sw] } : {}),
    handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false,
  });
  const pid = /** @type {number} */ (server.process().pid);
  let browser;
  try {
    browser = await chromium.connect(server.wsEndpoint(), { timeout: 30000 });
  } catch (e) {
    await closeServer(server, pid);
    throw e;
  }
  let closed = false;
  return {
    browser,
    pid,
    close: async () => {
      if (closed) return;
      closed = true;
      await bounded(browser.close(), 5000);
      await closeServer(server, pid);
    },
  };
}

/** @param {import('playwright-core').BrowserServer} server @param {number} pid */
async function closeServer(server, pid) {
  await bounded(server.close(), 5000);
  if (alive(pid)) {
    try { process.kill(-pid, 'SIGKILL'); } catch { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
  }
}

/** @param {number} pid */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** @param {Promise<unknown>} p @param {number} ms */
function bounded(p, ms) {
  /** @type {any} */
  let t;
  return Promise.race([p.catch(() => {}), new Promise((r) => { t = setTimeout(r, ms); })]).finally(() => clearTimeout(t));
}
