#!/usr/bin/env node
// @ts-check
/**
 * A short tour of the core, printed: tuple-space operations and one
 * scheduling round. Run with `node packages/core/examples/demo.js`, or call
 * demo() (the README's demo does).
 */
import { loadCore, formal, BLOCKED } from '../src/index.js';

/**
 * Run the tour; returns the lines it printed.
 * @param {(line: string) => void} [print]
 * @returns {Promise<string[]>}
 */
export async function demo(print = console.log) {
  const lines = /** @type {string[]} */ ([]);
  const say = (/** @type {string} */ s) => { lines.push(s); print(s); };
  const show = (/** @type {unknown} */ v) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x));
  const core = await loadCore();
  const space = core.createSpace();

  say('-- tuple space');
  space.out(['point', 3, 4]);
  space.out(['point', 5, 12]);
  space.out(['label', 'origin']);
  say(`out ["point",3,4], ["point",5,12], ["label","origin"]  -> ${space.size} tuples`);
  say(`rdp ["point", integer, integer]                       -> ${show(space.rdp(['point', formal.integer, formal.integer]))}`);
  say(`inp ["point", 5, any]                                  -> ${show(space.inp(['point', 5, formal.any]))}`);
  say(`count ["point", integer, integer]                      -> ${space.count(['point', formal.integer, formal.integer])}`);
  say(`inp ["nothing"]                                        -> ${show(space.inp(['nothing']) ?? null)}`);

  say('-- scheduling round');
  const worker = core.spawn({ priority: 2 });
  const urgent = core.spawn({ priority: 0 });
  const name = (/** @type {number} */ p) => (p === worker ? 'worker' : 'urgent');
  let pid = core.next();
  say(`next -> ${name(pid)} (${core.wakeReason}); it waits for a "job" tuple`);
  const got = space.in(pid, ['job', formal.string]);
  say(`  ${name(pid)} is ${got === BLOCKED ? core.state(pid) : 'not blocked'}`);
  pid = core.next();
  say(`next -> ${name(pid)} (${core.wakeReason}); it outs ["job","render"] and exits`);
  space.out(['job', 'render']);
  core.exit(pid);
  pid = core.next();
  say(`next -> ${name(pid)} (${core.wakeReason}) with ${show(core.takeTuple(pid))}`);
  core.exit(pid);
  say(`next -> ${core.next() === 0 ? 'nobody is ready' : '?'}; core holds ${core.liveBytes} bytes`);
  core.check();
  core.destroy();
  return lines;
}

if (process.argv[1] && import.meta.url === new URL(process.argv[1], 'file:').href) await demo();
