// @ts-check
/**
 * GET /api/events — the dashboard's live feed as Server-Sent Events: `hello` (everything:
 * this node, the history, the recent migrations and the mesh now), then a `tick` every
 * 500 ms (nodes, the new sample, new migrations) from the host's Monitor.
 *
 * Invariants: at most MAX_STREAMS streams per daemon (503 beyond); a viewer that does not
 * read is dropped once 4 MB wait for it, rather than buffered without bound; a closed
 * stream stops being a viewer at once.
 */
import { monitorOf } from '../monitor/monitor.js';
import { sendJson } from './respond.js';

const MAX_STREAMS = 64;
const MAX_BUFFERED = 4 * 1024 * 1024;

/** @param {import('./router.js').RouteContext} ctx */
export async function serveEvents({ res, host }) {
  const m = monitorOf(host);
  if (m.viewers.size >= MAX_STREAMS) return sendJson(res, 503, { ok: false, error: 'too many open dashboards on this daemon' });
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-content-type-options': 'nosniff',
    'x-accel-buffering': 'no',
  });
  res.write('retry: 1000\n\n');
  /** @type {import('../monitor/monitor.js').Viewer} */
  const viewer = {
    tick: (tick) => writeEvent(res, 'tick', { t: tick.t, nodes: tick.nodes, sample: tick.sample, migrations: tick.migrations, migrationsTotal: tick.migrationsTotal, error: tick.error }),
    end: () => res.end(),
  };
  m.viewers.add(viewer);
  res.on('close', () => m.viewers.delete(viewer));
  m.ensureRunning();
  const tick = await m.fresh();
  if (!res.writableEnded) writeEvent(res, 'hello', { ...m.hello(), ...tick });
}

/** @param {import('node:http').ServerResponse} res @param {string} event @param {any} data */
function writeEvent(res, event, data) {
  if (res.writableEnded || res.destroyed) return;
  if (res.writableLength > MAX_BUFFERED) {
    res.destroy(); // a viewer that does not read: drop it rather than buffer without bound
    return;
  }
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}
