// @ts-check
/**
 * Every URL the daemon serves to browsers, in one table (the `route` hook of host.js;
 * daemon.js installs it). /health and the mesh's WebSocket endpoint are host.js's: every
 * node has them, a daemon or not.
 *
 *   GET  /                 the dashboard page                     dashboard-page.js
 *   GET  /api/state        the mesh now, as JSON                  dashboard-api.js
 *   GET  /api/events       the same, as Server-Sent Events        event-stream.js
 *   POST /api/eval         evaluate Scheme text on a node         dashboard-api.js
 *                          (takes the dashboard secret)
 *   POST /api/kill         terminate a process of the mesh       process-api.js
 *                          (takes the dashboard secret)
 *   POST /api/libraries/approve  trust a library publisher        library-api.js
 *                          (takes the dashboard secret)
 *
 * `/` (which holds the dashboard secret), `/api/eval` and `/worker` (which holds the mesh
 * token) answer a loopback connection only from the daemon's own OS user (or root).
 *   GET  /worker           the compute-worker page (with token)   browser-assets.js
 *   GET  /assets/...       the browser bundles and the .wasm      browser-assets.js
 *
 * Invariants: every request to these paths passes the checks of request-checks.js (Host
 * for all; same origin for POST; the dashboard secret and JSON only for /api/eval) in
 * router.js before any handler runs; refusals under /api are JSON, elsewhere text.
 * Only /api/eval, /api/kill and /api/libraries/approve take the secret: they are the
 * routes that change anything (one runs code with the daemon's rights, one stops
 * processes, one lets a publisher's code run here). /api/state and /api/events show what every peer of
 * the mesh can see (ids, addresses, counts, process names) and EventSource cannot send
 * a header (the secret is never put in a URL).
 */
import { createRouter } from './router.js';
import { serveDashboardPage } from './dashboard-page.js';
import { serveState, serveEval, EVAL_BODY } from './dashboard-api.js';
import { serveEvents } from './event-stream.js';
import { serveKill, KILL_BODY } from './process-api.js';
import { serveApprove, APPROVE_BODY } from './library-api.js';
import { serveWorkerPage, serveAsset } from './browser-assets.js';

const READ = ['GET', 'HEAD'];
const MAX_EVAL_BODY = 64 * 1024;
const MAX_KILL_BODY = 4 * 1024;

/** @type {import('./router.js').Family[]} */
const families = [
  { path: '/', json: false },
  { path: '/api', json: true },
  { path: '/api/', prefix: true, json: true },
  { path: '/worker', json: false },
  { path: '/worker/', json: false },
  { path: '/assets/', prefix: true, json: false },
];

/** @type {import('./router.js').Route[]} */
const routes = [
  { path: '/', methods: READ, ownUser: true, handle: serveDashboardPage },
  { path: '/api/state', methods: READ, handle: serveState },
  { path: '/api/events', methods: ['GET'], handle: serveEvents },
  { path: '/api/eval', methods: ['POST'], ownUser: true, secret: true, body: { type: 'application/json', max: MAX_EVAL_BODY, shape: EVAL_BODY }, handle: serveEval },
  { path: '/api/kill', methods: ['POST'], ownUser: true, secret: true, body: { type: 'application/json', max: MAX_KILL_BODY, shape: KILL_BODY }, handle: serveKill },
  { path: '/api/libraries/approve', methods: ['POST'], ownUser: true, secret: true, body: { type: 'application/json', max: MAX_KILL_BODY, shape: APPROVE_BODY }, handle: serveApprove },
  { path: '/worker', methods: READ, ownUser: true, handle: serveWorkerPage },
  { path: '/worker/', methods: READ, ownUser: true, handle: serveWorkerPage },
  { path: '/assets/', prefix: true, methods: READ, handle: serveAsset },
];

/** The daemon's browser routes, as host.js's `route` hook. */
export const daemonRoutes = createRouter(families, routes);
