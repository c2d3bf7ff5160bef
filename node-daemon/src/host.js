// @ts-check
/**
 * A node as `termite-node` runs it: one HTTP server on --host:--port serving the
 * dashboard, the worker page and /health, and carrying the mesh's WebSocket endpoint;
 * a mesh identity (kept under --data, or created for this run); the Termite runtime
 * node with its distribution layer; a code cache and the durable log of central tuple
 * spaces (space-store.js) under --data. Used by the daemon and
 * by `run` / `repl` when they take part in a mesh.
 *
 * Start and stop happen here and nowhere else, in a fixed order (Startable): HTTP
 * server, mesh, runtime; stop is the reverse, and bounded in time. A start that fails
 * part way (an empty token, a port in use, a bad --data) stops what it had started and
 * rejects: nothing is left listening.
 *
 * /health (with the process's newest long GC pauses, gc-pauses.js) is Host-checked
 * like every other route (http/request-checks.js): 421 for a Host header that does not
 * name this node. A node with extra routes (the daemon) gets
 * a dashboard secret (`evalSecret`, 256 random bits) made here at start.
 *
 * A failed --join does not fail the start: each is logged once in words a user can act
 * on (join-feedback.js: no token, wrong token, unreachable) and listed in
 * `host.joinFailures` for `run` and `repl` to decide the exit status. A join without a
 * token is not tried (a generated token never matches a mesh's). With `logPeers`, a
 * peer joining or leaving is logged in one line.
 */
import http from 'node:http';
import tls from 'node:tls';
import v8 from 'node:v8';
import { mkdir, readFile, writeFile, rename } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createMeshNode, createIdentity, loadOrCreateIdentity, createLogger } from '@termite/mesh';
import { createNode, Distribution, NodeEvaluator, attachSpaceStore } from '@termite/runtime';
import { openSpaceStore } from './space-store.js';
import { libraryOptions, publishDirectories } from './library-store.js';
import { hostAllowed } from './http/request-checks.js';
import { watchGcPauses, recentGcPauses, heapAfterMajorGc } from './gc-pauses.js';
import { NoTokenError, describeJoinFailure, joinFailureKind, peerJoinedLine, peerLeftLine } from './join-feedback.js';

/**
 * @typedef {object} HostOptions
 * @property {string} host
 * @property {number} port (0: a free port)
 * @property {string[]} join ws:// URLs to join
 * @property {string|undefined} token the mesh secret (generated when absent; never empty)
 * @property {string|undefined} data directory for the identity and the code cache
 * @property {(s: string) => void} stdout where the node's stdout process writes
 * @property {(s: string) => void} log the node's log lines
 * @property {(req: http.IncomingMessage, res: http.ServerResponse, host: any) => boolean} [route] extra HTTP routes (dashboard)
 * @property {number} [peerTimeoutMs] failure detection bound (default 4000)
 * @property {{maxProcesses?: number, maxProcessesPerPeer?: number, maxMailbox?: number, maxProcessHeap?: number}} [limits] the node's process, mailbox and heap limits
 * @property {string[]} [allowOrigins] origins whose pages may open the mesh WebSocket besides this daemon's own
 * @property {string[]} [restrictedPeers] node ids that may act only on pids given to them or on processes they spawned
 * @property {boolean} [trustTabs] peers that join from a browser are daemon peers, not restricted ones (default false)
 * @property {boolean} [trustRoutedTabs] tabs that reach this node only through another node are not
 *   restricted here (default false; `run` and `repl` set it unless given --restrict-routed-tabs)
 * @property {boolean} [tcp] false: links to daemons over WebSocket only, as before TCP links
 *   (benchmarks compare the two); default true
 * @property {boolean} [insecure] links to daemons in plain TCP (default false: TLS, and plain links refused)
 * @property {{cert: string | Buffer, key: string | Buffer}} [certificate] PEM certificate and key:
 *   the port then also serves https:// and wss:// (the daemon's --tls-cert, --tls-key)
 * @property {boolean} [logPeers] log a line when a peer joins or leaves (the daemon)
 * @property {string[]} [publish] library directories whose versioned libraries this node publishes (the daemon's --lib)
 * @property {string[]} [trust] publishers whose libraries this node installs (--trust)
 * @property {number} [approvalWaitMs] how long an install from an untrusted publisher waits for an operator's approval (--approval-wait)
 * @property {string} [publisher] directory of a publisher key kept apart from the node key (--publisher)
 * @property {import('./ice-servers.js').IceConfig} [ice] STUN/TURN servers given to the tabs this node serves (--stun, --turn)
 */

/**
 * A code cache in `<data>/code`: one file per unit, named by its hash.
 * @param {string} dir
 */
export function diskCodeCache(dir) {
  let made = false;
  return {
    /** @param {string} hash */
    async get(hash) {
      if (!/^[0-9a-f]{64}$/.test(hash)) return null;
      try {
        return new Uint8Array(await readFile(path.join(dir, `${hash}.cbor`)));
      } catch {
        return null;
      }
    },
    /** @param {string} hash @param {Uint8Array} bytes */
    async put(hash, bytes) {
      if (!/^[0-9a-f]{64}$/.test(hash)) return;
      if (!made) {
        await mkdir(dir, { recursive: true });
        made = true;
      }
      const tmp = path.join(dir, `${hash}.${randomBytes(4).toString('hex')}.tmp`);
      await writeFile(tmp, bytes);
      await rename(tmp, path.join(dir, `${hash}.cbor`));
    },
  };
}

/**
 * Start a node. Resolves once it listens and has joined what it could.
 * @param {HostOptions} opts
 */
export async function startHost(opts) {
  if (opts.token !== undefined && (typeof opts.token !== 'string' || opts.token === '')) {
    throw new Error('the mesh token must not be empty (an empty token would admit anyone)');
  }
  if (opts.certificate !== undefined) checkCertificate(opts);
  const token = opts.token ?? randomBytes(18).toString('base64url');
  const tokenGiven = opts.token !== undefined;
  const identity = opts.data ? await loadOrCreateIdentity(opts.data) : await createIdentity();
  const started = Date.now();
  watchGcPauses(); // /health reports the long collections
  /** @type {any} */
  const host = { token, tokenGiven, identity, started, opts, joinFailures: [], starting: true, evalSecret: opts.route ? randomBytes(32).toString('base64url') : null };
  const server = http.createServer((req, res) => handle(host, req, res));
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve(undefined));
  });
  try {
    await startParts(host, server);
  } catch (e) {
    // nothing half-started stays behind: the port is released, the node stopped
    host.node?.stop();
    if (host.mesh) await bounded3s(host.mesh.stop().catch(() => {}));
    server.closeAllConnections?.();
    await bounded3s(new Promise((resolve) => server.close(() => resolve(undefined))));
    throw e;
  }
  host.starting = false;
  host.stop = () => stopHost(host);
  return host;
}

/**
 * The mesh, the runtime node and the distribution layer of a host whose server listens.
 * @param {any} host @param {http.Server} server
 */
async function startParts(host, server) {
  const { opts, identity, token } = host;
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  host.server = server;
  host.port = address.port;
  host.url = `${opts.certificate !== undefined ? 'https' : 'http'}://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${address.port}`;
  const logger = createLogger('termite:mesh', { sink: (/** @type {any} */ rec) => meshLog(host, rec) });
  const mesh = createMeshNode({
    identity,
    token,
    listen: { server, path: '/', host: opts.host },
    join: host.tokenGiven ? opts.join : [],
    peerTimeoutMs: opts.peerTimeoutMs,
    allowedOrigins: opts.allowOrigins,
    tcp: opts.tcp === false ? false : { encrypt: opts.insecure !== true, ...(opts.certificate !== undefined ? { certificate: opts.certificate } : {}) },
    logger,
  });
  host.mesh = mesh;
  const node = await createNode({ id: identity.id, host: opts.host, port: address.port, stdout: opts.stdout, log: opts.log, limits: opts.limits });
  host.node = node;
  if (opts.data) {
    // central spaces are durable: their log is replayed into the core before any peer can ask
    host.spaceStore = openSpaceStore(path.join(opts.data, 'spaces.sqlite'));
    const replayed = attachSpaceStore(node, host.spaceStore);
    if (replayed > 0) opts.log(`replayed ${replayed} tuples of durable spaces from ${opts.data}`);
  }
  // the dashboard's REPL on this node (peers may not evaluate here: evalPeers is empty)
  const evaluator = new NodeEvaluator(node, {});
  host.distribution = new Distribution(node, mesh, {
    address: { host: opts.host, port: address.port },
    codeCache: opts.data ? diskCodeCache(path.join(opts.data, 'code')) : null,
    log: opts.log,
    evaluate: (text) => evaluator.evalText(text, { timeoutMs: 10000 }),
    restrictedPeers: opts.restrictedPeers,
    restrictBrowserPeers: opts.trustTabs !== true,
    restrictRoutedBrowserPeers: opts.trustTabs !== true && opts.trustRoutedTabs !== true,
    libraries: await libraryOptions({ identity, data: opts.data, trust: opts.trust, publisher: opts.publisher, approvalWaitMs: opts.approvalWaitMs }),
  });
  host.distribution.libraries.onWaiting = (/** @type {string} */ pub, /** @type {string} */ key) => opts.log(`library ${key} of publisher ${pub}, whom this node does not trust, waits for an operator's approval (termite-node trust add ${pub}, or the dashboard)`);
  const publishDirs = [...(opts.publish ?? []), ...(opts.data && opts.publish ? [path.join(opts.data, 'libraries')] : [])];
  if (publishDirs.length > 0) {
    const keys = await publishDirectories(node, publishDirs, opts.log);
    if (keys.length > 0) opts.log(`publishing libraries ${keys.join(' ')} as ${host.distribution.libraries.publisher.id}`);
  }
  if (opts.logPeers) {
    mesh.on('peer:up', (/** @type {any} */ e) => opts.log(peerJoinedLine(e)));
    mesh.on('peer:down', (/** @type {any} */ e) => opts.log(peerLeftLine(e)));
  }
  const joined = await mesh.start();
  host.joined = joined?.joined ?? [];
  const failed = [...(joined?.failed ?? [])];
  if (!host.tokenGiven) for (const url of opts.join) failed.push({ url, error: new NoTokenError() });
  for (const f of failed) {
    const message = describeJoinFailure(f.url, f.error);
    host.joinFailures.push({ url: f.url, kind: joinFailureKind(f.error), message });
    opts.log(message);
  }
}

/**
 * A certificate that TLS cannot use fails the start, in words (not at a browser's first
 * connection): a key that does not match, a file that is not PEM. @param {HostOptions} opts
 */
function checkCertificate(opts) {
  if (opts.tcp === false) throw new Error('a TLS certificate needs TCP links on (the port sorts TLS connections between mesh links and pages)');
  try {
    tls.createSecureContext({ cert: opts.certificate?.cert, key: opts.certificate?.key });
  } catch (e) {
    throw new Error(`the TLS certificate and key cannot be used: ${e instanceof Error ? e.message : e}`);
  }
}

/** @param {any} host */
async function stopHost(host) {
  host.node.stop();
  host.spaceStore?.close();
  await bounded3s(host.mesh.stop().catch(() => {}));
  await bounded3s(new Promise((resolve) => host.server.close(() => resolve(undefined))));
  host.server.closeAllConnections?.();
}

/** `p`, or nothing after 3 s: a stop step never holds the stop forever. @param {Promise<any>} p */
function bounded3s(p) {
  return Promise.race([p, new Promise((r) => setTimeout(r, 3000).unref())]);
}

/**
 * @param {any} host @param {http.IncomingMessage} req @param {http.ServerResponse} res
 */
function handle(host, req, res) {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname === '/health') {
    if (!hostAllowed(req, host)) {
      res.writeHead(421, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
      res.end(JSON.stringify({ ok: false, error: 'This node answers only requests that name it by address (an IP address, localhost or its --host name) in the Host header.' }));
      return;
    }
    const node = host.node;
    const body = {
      ok: true,
      id: host.identity.id,
      uptimeMs: Date.now() - host.started,
      peers: host.mesh ? host.mesh.peers().map((/** @type {any} */ p) => ({ id: p.id, transport: p.transport })) : [],
      processes: node ? node.core.processStats().live : 0,
      heapUsedBytes: v8.getHeapStatistics().used_heap_size,
      gcPauses: recentGcPauses(),
      heapAfterMajorGc: heapAfterMajorGc(),
    };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
    return;
  }
  if (host.opts.route && host.opts.route(req, res, host)) return;
  res.writeHead(404, { 'content-type': 'text/plain' });
  res.end('not found\n');
}

/**
 * A mesh log record as a line. Left out: what the host says better itself (a failed
 * join, and the dialing side's refusal while joining at start; peers up and down
 * when it logs them).
 * @param {any} host @param {any} rec
 */
function meshLog(host, rec) {
  const log = host.opts.log;
  if (rec.level === 'debug' || rec.level === 'trace') return;
  if (rec.message === 'join failed') return;
  if (host.starting && rec.fields?.role === 'dialer' && /refused/.test(rec.message)) return;
  if (host.opts.logPeers && (rec.message === 'peer up' || rec.message === 'peer down')) return;
  const fields = rec.fields ? ' ' + JSON.stringify(rec.fields) : '';
  log(`${rec.name ?? 'mesh'} ${rec.level}: ${rec.message}${fields}`);
}
