#!/usr/bin/env node
// @ts-check
/**
 * One side of bench/mesh.js's two-node workloads: what `termite-node run FILE --join URL`
 * does (startHost, then the program as the node's main process), plus, with --webrtc,
 * the upgrade of the link to the daemon to a WebRTC data channel before the program runs
 * (MeshNode.upgrade; the CLI has no option for it).
 *
 *   node bench/mesh-node.js FILE.scm --join ws://127.0.0.1:PORT --token T [--webrtc PEER_ID] [--links ws|tcp|tls]
 *
 * --links: how this node links to the daemon: WebSocket, plain TCP (--insecure) or TLS
 * (the default of termite-node).
 *
 * The program's output goes to stdout; exit status 0 when it returned normally. With
 * BENCH_CPU set, the last line is "cpu <µs>": this process's CPU time (user + system,
 * every thread), for bench/mesh.js's CPU per operation.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startHost } from '../node-daemon/src/host.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { join: { type: 'string' }, token: { type: 'string' }, webrtc: { type: 'string' }, links: { type: 'string', default: 'tls' } },
});
const file = positionals[0];
if (!file || !values.join || !values.token) {
  process.stderr.write('usage: mesh-node.js FILE.scm --join URL --token T [--webrtc PEER_ID]\n');
  process.exit(2);
}
let out = '';
const host = await startHost({
  host: '127.0.0.1', port: 0, join: [values.join], token: values.token, data: undefined,
  tcp: values.links !== 'ws', insecure: values.links === 'tcp',
  stdout: (s) => { out += s; if (out.includes('\n')) { const i = out.lastIndexOf('\n'); process.stdout.write(out.slice(0, i + 1)); out = out.slice(i + 1); } },
  log: (s) => process.stderr.write(`mesh-node: ${s}\n`),
});
let status = 0;
try {
  if (values.webrtc) {
    const info = await host.mesh.upgrade(values.webrtc, 'webrtc', { timeoutMs: 15000 });
    if (info.transport !== 'webrtc') throw new Error(`upgrade left the link on ${info.transport}`);
    process.stderr.write(`mesh-node: link to ${values.webrtc.slice(0, 8)} upgraded to ${info.transport}\n`);
  }
  const r = await host.node.runProgram(readFileSync(file, 'utf8'), { file });
  host.node.flushStdout();
  if (!r.ok) {
    process.stderr.write(`Error: ${r.message}\n`);
    status = 1;
  }
} catch (e) {
  process.stderr.write(`mesh-node: ${e instanceof Error ? e.message : e}\n`);
  status = 1;
} finally {
  process.stdout.write(out);
  await host.stop();
}
if (process.env.BENCH_CPU) {
  const u = process.cpuUsage();
  process.stdout.write(`cpu ${u.user + u.system}\n`);
}
process.exit(status);
