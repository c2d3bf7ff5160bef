// @ts-check
/**
 * The receiving node of send-backpressure.test.js, in a process of its own so that the
 * test can stop it (SIGSTOP: it reads nothing, so the sender's queue fills for certain),
 * let it go on (SIGCONT) or make it go away (SIGKILL: its socket closes), whatever the
 * machine's load. A real mesh node listening on loopback, with a Termite node, its
 * Distribution and one receiving process.
 *
 * Usage: node send-backpressure-receiver.js --receive TOKEN EXPECTED (without --receive,
 * as when `node --test test/` runs every file of this folder, it does nothing).
 * Writes JSON lines on stdout:
 *   {"ready": true, "address": ..., "node": ..., "n": ...}   the receiver's address and pid
 *   {"got": COUNT, "inOrder": BOOL, "damaged": N}        once EXPECTED messages [i, bytes] arrived
 *   {"symbol": NAME, "count": COUNT}                      for each message that is a symbol
 * A message [i, bytes] is in order if i is the count of such messages before it, and
 * damaged unless bytes is 65,536 bytes that all equal i mod 256 at both ends.
 * It exits when its stdin closes (the test ended), so it never outlives the test.
 */
import { createMeshNode, createIdentity, createMemoryLogger } from '@termite/mesh';
import { createNode } from '../src/index.js';
import { Distribution } from '../src/distribution.js';

const [mode, token, expectedText] = process.argv.slice(2);
if (mode === '--receive') await receive(token, Number(expectedText));

/**
 * Listen, report the receiver's address and pid, and report on what it receives.
 * @param {string} token @param {number} expected
 */
async function receive(token, expected) {
  const mesh = createMeshNode({ identity: await createIdentity(), token, listen: { host: '127.0.0.1', port: 0 }, webrtc: false, logger: createMemoryLogger() });
  await mesh.start();
  const node = /** @type {any} */ (await createNode({ id: mesh.id }));
  new Distribution(node, mesh, {});

  /** @param {object} line */
  const say = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

  let count = 0;
  let inOrder = true;
  let damaged = 0;
  const receiver = node.spawnHandler((/** @type {any} */ msg) => {
    if (Array.isArray(msg)) {
      const [i, bytes] = msg;
      if (i !== count) inOrder = false;
      if (!(bytes instanceof Uint8Array) || bytes.length !== 65536 || bytes[0] !== i % 256 || bytes[65535] !== i % 256) damaged++;
      if (++count === expected) say({ got: count, inOrder, damaged });
    } else if (typeof msg?.name === 'string') {
      say({ symbol: msg.name, count });
    }
  });
  say({ ready: true, address: mesh.addresses()[0], node: receiver.pid.node, n: receiver.pid.n });

  process.stdin.resume();
  process.stdin.on('end', () => {
    node.stop();
    mesh.stop().finally(() => process.exit(0));
  });
}
