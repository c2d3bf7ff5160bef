// @ts-check
/**
 * `termite-node` with no command: the edge daemon. Listens on --host:--port (default
 * 127.0.0.1:7400) for peers (WebSocket) and browsers (dashboard at /, worker page at
 * /worker, /health), joins the meshes given by --join, and runs until SIGINT or
 * SIGTERM, then stops cleanly (peers are told, processes stop, the port is released).
 */
import { startHost } from './host.js';
import { consoleSinks } from '@termite/scheme';
import { readFileSync } from 'node:fs';
import { BufferedOutput } from './output.js';

/** How long a drain before stopping may take. */
const DRAIN_MS = 90_000;

/**
 * --drain-to: move this node's processes and logical nodes to the node at `url`
 * (`drain-node`, docs/processes.md) and log what moved; bounded by DRAIN_MS.
 * @param {any} host @param {string} url @param {(s: string) => void} log
 */
async function drainTo(host, url, log) {
  const [, h, p] = /** @type {RegExpExecArray} */ (/^wss?:\/\/([A-Za-z0-9.-]+):(\d+)/.exec(url));
  log(`draining to ${url}`);
  const program = `(let ((r (drain-node (make-node "${h}" ${Number(p)}))))
    (string-append (number->string (length (cdr (assq 'moved r)))) " processes moved, "
                   (number->string (length (cdr (assq 'stayed r)))) " stayed, "
                   (number->string (length (cdr (assq 'failed r)))) " failed; "
                   (number->string (cdr (assq 'logical-nodes r))) " logical nodes moved"))`;
  let timer;
  const r = await Promise.race([
    host.node.runProgram(program, { file: 'drain' }),
    new Promise((resolve) => (timer = setTimeout(() => resolve({ ok: false, message: `not done within ${DRAIN_MS / 1000} s` }), DRAIN_MS))),
  ]);
  clearTimeout(timer);
  const text = typeof r.value?.text === 'function' ? r.value.text() : String(r.value); // a Scheme string (string-append makes it mutable)
  log(r.ok ? `drained to ${url}: ${text}` : `drain to ${url} failed: ${r.message}`);
}

/**
 * The PEM files of --tls-cert and --tls-key (host.js checks that TLS can use them).
 * @param {string} certFile @param {string} keyFile
 */
function readCertificate(certFile, keyFile) {
  /** @param {string} f @param {string} what */
  const read = (f, what) => {
    try {
      return readFileSync(f);
    } catch (e) {
      throw new Error(`cannot read the ${what} ${f}: ${e instanceof Error ? e.message : e}`);
    }
  };
  return { cert: read(certFile, 'TLS certificate (--tls-cert)'), key: read(keyFile, 'TLS key (--tls-key)') };
}

/**
 * @param {import('./cli.js').CliOptions} options
 * @returns {Promise<number>}
 */
export async function startDaemon(options) {
  const stdout = new BufferedOutput(1);
  const stderr = new BufferedOutput(2);
  const log = (/** @type {string} */ s) => stderr.write(`${new Date().toISOString()} ${s}\n`);
  consoleSinks.stderr = (s) => stderr.write(s);
  const flusher = setInterval(() => {
    stdout.flush();
    stderr.flush();
  }, 50);
  let host;
  try {
    const { daemonRoutes } = await import('./http/routes.js').catch(() => ({ daemonRoutes: undefined }));
    host = await startHost({
      host: options.host,
      port: options.port ?? 7400,
      join: options.join,
      token: options.token,
      data: options.data,
      limits: options.limits,
      allowOrigins: options.allowOrigin,
      restrictedPeers: options.restrictedPeer,
      trustTabs: options.trustTabs,
      publish: options.lib,
      trust: options.trust,
      approvalWaitMs: options.approvalWait * 1000,
      publisher: options.publisher,
      insecure: options.insecure,
      ice: options.ice,
      ...(options.tlsCert !== undefined && options.tlsKey !== undefined ? { certificate: readCertificate(options.tlsCert, options.tlsKey) } : {}),
      stdout: (s) => stdout.write(s),
      log,
      route: daemonRoutes,
      logPeers: true,
    });
  } catch (e) {
    clearInterval(flusher);
    stderr.write(`termite-node: cannot start: ${e instanceof Error ? e.message : e}\n`);
    stderr.flush();
    return 1;
  }
  log(`termite-node ${host.identity.id} listening on ${host.url} (dashboard ${host.url}/, workers ${host.url}/worker)`);
  if (!options.token) log(`mesh token (generated; pass --token to choose one): ${host.token}`);
  stderr.flush();
  const code = await new Promise((resolve) => {
    const stop = async (/** @type {string} */ sig) => {
      if (options.drainTo !== undefined) await drainTo(host, options.drainTo, log);
      log(`${sig} received: stopping`);
      host.stop().then(() => resolve(0), () => resolve(1));
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  clearInterval(flusher);
  stdout.flush();
  stderr.flush();
  return /** @type {number} */ (code);
}
