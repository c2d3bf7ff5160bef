// @ts-check
/**
 * Counts of the DTS messages a node receives, by kind (dts-protocol.js), for the
 * measurements of bench/linda-dts-counts.js: messages, tuples carried (OUT, REPAIR_ACK)
 * and their bytes. Off unless the environment variable TERMITE_DTS_COUNTS names a file
 * (Node only): at exit the process appends one JSON line there — its pid, arguments,
 * the counts and its CPU time. Off, counting costs one comparison a message.
 *
 * Invariant: a BATCH is not counted itself; each message it carries is, once.
 */

/** @type {{msgs: number[], tuples: number[], bytes: number[]} | null} */
let counts = null;

const file = typeof process === 'object' && process !== null && typeof process.env === 'object' ? process.env.TERMITE_DTS_COUNTS : undefined;
if (typeof file === 'string' && file !== '') {
  const c = { msgs: new Array(12).fill(0), tuples: new Array(12).fill(0), bytes: new Array(12).fill(0) };
  counts = c;
  /** @type {any} */
  let fs = null;
  const name = 'node:fs'; // imported by a name in a variable: bundlers for browsers leave it alone
  import(name).then((m) => { fs = m; }, () => {});
  process.on('exit', () => {
    if (fs === null) return;
    const cpu = process.cpuUsage();
    const line = { pid: process.pid, argv: process.argv.slice(1).join(' ').slice(-120), ...c, cpuMs: (cpu.user + cpu.system) / 1000 };
    try {
      fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
    } catch {
      // a measurement that cannot be written is lost, not an error of the node
    }
  });
}

/**
 * Count one received DTS message (already unbatched).
 * @param {number} sub its kind @param {any[]} f the frame
 */
export function countDts(sub, f) {
  if (counts === null || !Number.isInteger(sub) || sub < 0 || sub > 11) return;
  counts.msgs[sub]++;
  if (sub === 1 && f[5] instanceof Uint8Array) {
    counts.tuples[1]++;
    counts.bytes[1] += f[5].length;
  } else if (sub === 9 && Array.isArray(f[3])) {
    for (const t of f[3]) {
      counts.tuples[9]++;
      if (Array.isArray(t) && t[2] instanceof Uint8Array) counts.bytes[9] += t[2].length;
    }
  }
}
