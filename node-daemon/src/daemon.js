// @ts-check
/**
 * `termite-node` with no command: the edge daemon. Listens on --host:--port (default
 * 127.0.0.1:7400) for peers (WebSocket) and browsers (dashboard at /, worker page at
 * /worker, /health), joins the meshes given by --join, and runs until SIGINT or
 * SIGTERM, then stops cleanly (peers are told, processes stop, the port is released).
 */
import { startHost } from './host.js';
import { consoleSinks } from '@termite/scheme';
import { BufferedOutput } from './output.js';

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
    const stop = (/** @type {string} */ sig) => {
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
