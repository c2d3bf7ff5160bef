// @ts-check
/**
 * R7RS §6.14 the system interface, through the host (engine/host.js: Node's, or the
 * browser's): the command line, environment variables, clocks, and the feature list.
 * exit, emergency-exit and load are the driver's.
 *
 * Invariants: `features` lists exactly what cond-expand treats as true — the language's
 * features (expand/stdlib.js BASE_FEATURES) and this host's, which are added to them
 * when this module loads, at boot, so a program's cond-expand sees `node` or `posix` as
 * (features) does. Every call returns fresh lists, which the program may mutate.
 */
import { Flonum, Pair, Sym, arrayToList } from '../values.js';
import { definePrimitive } from '../engine/registry.js';
import { checkString } from './prims-strings.js';
import * as host from '../engine/host.js';
import { BASE_FEATURES } from '../expand/stdlib.js';


// the host's feature identifiers (node, browser, posix, ...) join the language's
for (const f of host.hostFeatures) if (!BASE_FEATURES.includes(f)) BASE_FEATURES.push(f);

definePrimitive('command-line', 0, 0, () => arrayToList(host.commandLine()));
definePrimitive('get-environment-variable', 1, 1, (/** @type {any} */ name) => {
  const v = host.getEnv(checkString('get-environment-variable', name));
  return v === undefined ? false : v;
});
definePrimitive('get-environment-variables', 0, 0, () => arrayToList(host.environment().map(([k, v]) => new Pair(k, v))));
definePrimitive('current-second', 0, 0, () => new Flonum(host.currentSecond()));
definePrimitive('current-jiffy', 0, 0, () => host.currentJiffy());
definePrimitive('jiffies-per-second', 0, 0, () => host.jiffiesPerSecond, { pure: true });
definePrimitive('features', 0, 0, () => arrayToList(BASE_FEATURES.map((f) => Sym.intern(f))));
