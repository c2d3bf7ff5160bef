// @ts-check
/**
 * The HTML of the pages the daemon serves.
 *
 * The worker page is rendered by the daemon for each request with the configuration the
 * page needs (docs/browser.md, "The token"): the mesh token, the WebSocket URL to join,
 * the daemon's node id and where the worker bundle is. Invariant: the configuration is a
 * JSON script element (data, never executed), escaped so that no value can close the
 * element.
 *
 * The dashboard page is built once (dashboard-page.js); its only configuration is the
 * daemon's dashboard secret, put in per daemon (dashboardHtml).
 */
export { dashboardPage, dashboardHtml } from './dashboard-page.js';

/**
 * @typedef {object} WorkerPageConfig
 * @property {string} token
 * @property {string} join ws:// URL of the daemon
 * @property {string} daemonId
 * @property {string[]} [trust] library publishers the tab installs from (those its daemon trusts)
 * @property {string} workerUrl
 * @property {string[]} [iceServers] STUN/TURN URLs for the tab (TURN as `turn:USER:PASSWORD@HOST:PORT`)
 * @property {'all' | 'relay'} [iceTransportPolicy] 'relay': TURN relay candidates only
 * @property {string} pageScriptUrl
 */

/** @param {unknown} value */
export function jsonForScript(value) {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** @param {string} s */
function attr(s) {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/**
 * Content-Security-Policy of the worker page: scripts only from the daemon, no inline
 * script; 'unsafe-eval' because the worker compiles checked IR into functions (and
 * WebAssembly); connections to WebSocket endpoints (the daemon, or another daemon a
 * program names).
 */
export const WORKER_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self' 'unsafe-eval'",
  "worker-src 'self'",
  "connect-src 'self' ws: wss:",
  "style-src 'unsafe-inline'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The worker page's stylesheet (inline: the page loads nothing but its script and the worker). */
const WORKER_PAGE_STYLE = `<style>
  :root { color-scheme: light dark; --bg: #f6f7f9; --panel: #fff; --ink: #1d2330; --muted: #667085; --line: #e3e6ec;
          --ok: #12805c; --warn: #b54708; --bad: #c0362c; --rtc: #6941c6; --ws: #175cd3; --accent: #0e7490; }
  @media (prefers-color-scheme: dark) { :root { --bg: #0f1217; --panel: #171b22; --ink: #e6e9ef; --muted: #98a2b3; --line: #2a303b;
          --ok: #47cd89; --warn: #fdb022; --bad: #f97066; --rtc: #b692f6; --ws: #84adff; --accent: #22ccee; } }
  * { box-sizing: border-box; }
  body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg); color: var(--ink); }
  header { display: flex; align-items: center; gap: 14px; padding: 14px 22px; border-bottom: 1px solid var(--line); background: var(--panel); }
  header h1 { font-size: 17px; margin: 0; font-weight: 650; letter-spacing: .2px; }
  header .logo { width: 26px; height: 26px; border-radius: 7px; background: linear-gradient(135deg, var(--accent), var(--rtc)); }
  #state { padding: 2px 10px; border-radius: 999px; font-weight: 600; font-size: 12px; text-transform: uppercase; letter-spacing: .6px; border: 1px solid currentColor; color: var(--muted); }
  #state[data-state="joined"] { color: var(--ok); }
  #state[data-state="joining"], #state[data-state="disconnected"], #state[data-state="starting"] { color: var(--warn); }
  #state[data-state="refused"], #state[data-state="failed"] { color: var(--bad); }
  #detail { color: var(--muted); flex: 1; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  main { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; padding: 16px 22px; max-width: 1400px; }
  section { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 12px 16px; min-width: 0; }
  section.wide { grid-column: 1 / -1; }
  h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .8px; color: var(--muted); margin: 0 0 8px; font-weight: 650; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 14px; margin: 0; }
  dt { color: var(--muted); } dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
  .mono, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
  table { width: 100%; border-collapse: collapse; }
  td { padding: 5px 8px 5px 0; border-top: 1px solid var(--line); vertical-align: top; overflow-wrap: anywhere; }
  tr:first-child td { border-top: 0; }
  td.empty { color: var(--muted); font-style: italic; }
  td.transport { font-weight: 600; }
  td.transport.webrtc { color: var(--rtc); } td.transport.websocket { color: var(--ws); } td.transport.routed { color: var(--muted); font-weight: 400; }
  #refusal { grid-column: 1 / -1; background: color-mix(in srgb, var(--bad) 12%, var(--panel)); border: 1px solid var(--bad); color: var(--bad); border-radius: 10px; padding: 12px 16px; font-weight: 600; }
  #log { margin: 0; max-height: 300px; overflow: auto; font-size: 12px; white-space: pre-wrap; color: var(--ink); }
  #counters { color: var(--muted); font-size: 12.5px; margin-top: 8px; }
  footer { padding: 0 22px 18px; color: var(--muted); font-size: 12px; }
  @media (max-width: 800px) { main { grid-template-columns: 1fr; } }
</style>`;

/** @param {WorkerPageConfig} config */
export function workerPageHtml(config) {
  const cfg = {
    token: config.token, join: config.join, daemonId: config.daemonId, workerUrl: config.workerUrl, trust: config.trust ?? [],
    iceServers: config.iceServers ?? [], iceTransportPolicy: config.iceTransportPolicy ?? 'all',
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Termite compute worker</title>
<link rel="icon" href="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E%3Crect width='32' height='32' rx='8' fill='%230e7490'/%3E%3Ccircle cx='16' cy='16' r='6' fill='%23fff'/%3E%3C/svg%3E">
${WORKER_PAGE_STYLE}
<script type="application/json" id="termite-config">${jsonForScript(cfg)}</script>
<script type="module" src="${attr(config.pageScriptUrl)}"></script>
</head>
<body>
<header>
  <div class="logo" aria-hidden="true"></div>
  <h1>Termite compute worker</h1>
  <span id="state" data-state="starting">Starting</span>
  <span id="detail">loading the runtime</span>
</header>
<main>
  <div id="refusal" role="alert" hidden></div>
  <section>
    <h2>This tab</h2>
    <dl>
      <dt>Node</dt><dd><code id="node-id">…</code></dd>
      <dt>Daemon</dt><dd><code id="daemon-id">—</code></dd>
      <dt>Processes</dt><dd id="process-count">0</dd>
    </dl>
    <div id="counters"></div>
  </section>
  <section>
    <h2>Links</h2>
    <table id="links"><tbody><tr><td class="empty">no links yet</td></tr></tbody></table>
  </section>
  <section class="wide">
    <h2>Processes</h2>
    <table id="processes"><tbody><tr><td class="empty">no processes</td></tr></tbody></table>
  </section>
  <section class="wide">
    <h2>Log</h2>
    <pre id="log"></pre>
  </section>
</main>
<footer>Processes run in a Web Worker; this page only shows them. Keep the tab open to keep the node in the mesh.</footer>
</body>
</html>
`;
}
