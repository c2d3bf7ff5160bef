// @ts-check
/**
 * The compiler pipeline — the one place that states the order of the passes:
 *
 *   Core (from the expander)
 *     → recognize-primitives   primitives become PrimCall
 *     → fix-letrec             Letrec becomes Fix / Let / checked assignments
 *     → convert-assignments    assigned variables become boxes
 *     → cps-convert            L2 CPS: named continuations and join points
 *     → convert-closures       L3 Wire: lifted lambdas, frame layouts  (hashed, shipped)
 *   and, on the node that runs it (after checking received IR),
 *     → generate-js            JavaScript source (engine/linker.js)
 *
 * `trace` names passes whose output is printed (or 'all'); unknown names are errors.
 *
 * Dependencies point one way: the engine (engine/boot.js, engine/eval.js, through
 * compile-checked.js) calls the compiler, and the compiler imports nothing of the
 * engine. The one thing a pass needs of it, which names are primitives and their
 * arities, is handed in by the caller (CompileOptions.primitives).
 */
import { recognizePrimitives } from './passes/recognize-primitives.js';
import { fixLetrec } from './passes/fix-letrec.js';
import { convertAssignments } from './passes/convert-assignments.js';
import { cpsConvert } from './passes/cps-convert.js';
import { convertClosures } from './passes/convert-closures.js';
import { printCore } from './ir/core.js';
import { printCps } from './ir/cps.js';
import { printWire } from './ir/wire.js';
import { encodeValue } from './codec/index.js';
import { sha256, toHex } from './sha256.js';

export const PASSES = ['expand', 'recognize-primitives', 'fix-letrec', 'convert-assignments', 'cps-convert', 'convert-closures', 'generate-js'];

/**
 * @typedef {object} CompileOptions
 * @property {Map<string, {min: number, max: number}>} primitives the primitives compiled
 *   code may call directly, by name (the engine's registry, engine/registry.js)
 * @property {string[]|'all'} [trace]  passes whose output to print
 * @property {(pass: string, text: string) => void} [onTrace]
 * @property {(pass: string, ms: number) => void} [onTime] --time-passes
 * @property {(x: any) => string} [writeDatum] how constants print in traces
 */

/**
 * Compile one Core unit to wire IR with its content hash.
 * @param {import('./ir/core.js').CoreUnit} core
 * @param {CompileOptions} opts
 * @returns {{hash: string, wire: any}}
 */
export function compileUnit(core, opts) {
  const trace = normaliseTrace(opts.trace);
  const writeDatum = opts.writeDatum ?? String;
  const step = (/** @type {string} */ pass, /** @type {() => any} */ f, /** @type {(x: any) => string} */ print) => {
    const t0 = opts.onTime ? performance.now() : 0;
    const out = f();
    if (opts.onTime) opts.onTime(pass, performance.now() - t0);
    if (trace.has(pass) && opts.onTrace) opts.onTrace(pass, print(out));
    return out;
  };
  if (trace.has('expand') && opts.onTrace) opts.onTrace('expand', printCore(core.body, writeDatum));
  let body = step('recognize-primitives', () => recognizePrimitives(core.body, opts.primitives), (n) => printCore(n, writeDatum));
  body = step('fix-letrec', () => fixLetrec(body), (n) => printCore(n, writeDatum));
  body = step('convert-assignments', () => convertAssignments(body), (n) => printCore(n, writeDatum));
  const cps = step('cps-convert', () => cpsConvert(body), (t) => printCps(t, writeDatum));
  const wire = step('convert-closures', () => convertClosures(cps, { name: core.name, requires: core.requires, file: core.name }), (w) => printWire(w, writeDatum));
  return { hash: hashWire(wire), wire };
}

/** @param {string[]|'all'|undefined} trace */
function normaliseTrace(trace) {
  if (!trace) return new Set();
  if (trace === 'all') return new Set(PASSES);
  for (const t of trace) if (!PASSES.includes(t)) throw new Error(`unknown pass ${t}; passes are ${PASSES.join(', ')}`);
  return new Set(trace);
}

/**
 * The wire unit as plain Scheme data, in a fixed field order (what is hashed and shipped).
 * The unit's name and debug information are not part of its identity.
 * @param {any} w
 */
export function wireToData(w) {
  return [
    w.v,
    w.consts,
    w.globals,
    w.prims,
    w.lambdas.map((/** @type {any} */ l) => [l.name, l.nfree, l.clauses.map((/** @type {any} */ c) => [c.nreq, c.rest, c.nlocals, c.body])]),
    w.requires,
  ];
}

/**
 * Rebuild a wire unit from its data form (the inverse of wireToData); shapes are
 * checked afterwards by checkWire.
 * @param {any} d @param {string} name
 */
export function wireFromData(d, name) {
  if (!Array.isArray(d) || d.length !== 6 || !Array.isArray(d[4])) throw new Error('malformed unit');
  return {
    v: d[0],
    name,
    consts: d[1],
    globals: d[2],
    prims: d[3],
    lambdas: d[4].map((/** @type {any} */ l) => ({
      name: l?.[0],
      nfree: l?.[1],
      clauses: Array.isArray(l?.[2]) ? l[2].map((/** @type {any} */ c) => ({ nreq: c?.[0], rest: c?.[1], nlocals: c?.[2], body: c?.[3] })) : null,
    })),
    requires: d[5],
  };
}

/** @param {any} wire */
export function hashWire(wire) {
  return toHex(sha256(encodeValue(wireToData(wire))));
}
