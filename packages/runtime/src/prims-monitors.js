// @ts-check
/**
 * The monitor primitives behind `!?` (scheme-sources/termite.scm; the mechanism is
 * termite-node/monitors.js):
 *   (%monitor pid tag)       the running process will get (%down tag reason) if pid ends
 *                            or cannot be reached; the monitor is known by its tag
 *   (%demonitor tag)         remove it; #t if its notice was already sent
 *   (%down-error who pid reason)  the error to raise for a notice
 * A monitor is kept by the watching process under its tag, so the watcher's frames hold
 * only the tag (a value that travels), never the monitor.
 */
import { definePrimitive } from '@termite/scheme/internal';
import { describeError } from '@termite/scheme';
import { Sym } from './scheme-data.js';
import { Tag } from './termite-values.js';
import { current, checkPid } from './prims-processes.js';
import { monitor, demonitor, downError } from './termite-node/monitors.js';

/** Each process's monitors by tag. @type {WeakMap<any, Map<Tag, import('./termite-node/monitors.js').Monitor>>} */
const monitorsOf = new WeakMap();

definePrimitive('%monitor', 2, 2, (/** @type {any} */ pid, /** @type {any} */ tag) => {
  const proc = current('%monitor');
  checkPid(pid, '%monitor');
  let mine = monitorsOf.get(proc);
  if (mine === undefined) monitorsOf.set(proc, (mine = new Map()));
  mine.set(tag, monitor(proc.node, pid, proc.pid, tag));
  return tag;
});

definePrimitive('%demonitor', 1, 1, (/** @type {any} */ tag) => {
  const mine = monitorsOf.get(current('%demonitor'));
  const m = mine?.get(tag);
  if (mine === undefined || m === undefined) return false;
  mine.delete(tag);
  return demonitor(m);
});

definePrimitive('%down-error', 3, 3, (/** @type {any} */ who, /** @type {any} */ pid, /** @type {any} */ reason) =>
  downError(who instanceof Sym ? who.name : String(who), pid, reason, (e) => describeError(e)));
