// @ts-check
/**
 * Backtraces: the chain of Scheme procedure activations that led to an error, as lines
 * "NAME at FILE:LINE:COL", innermost first.
 *
 * Where the chain comes from. When an error is signalled, the activations between it
 * and the thread's last unwind are still JavaScript frames (of generated code, whose
 * functions are named L<lambda> and whose lines carry `//@lambda:site` markers); the
 * rest are the thread's data frames (`th.k`: lambda + return point). An ErrorOrigin
 * keeps both — the JS exception (its stack) and `th.k` at that moment — and nothing is
 * formatted until someone asks for the lines, so an error that a handler catches costs
 * one small object, and the running code is not touched at all.
 *
 * Invariants:
 *  - at most MAX_LINES frames are named; beyond, one line "… N more frames" (the count
 *    itself stops at MAX_COUNTED, so a continuation a million frames deep costs little);
 *  - the leading frames of the raising machinery (raise, error, …) are left out: the
 *    first line is the procedure whose code signalled the error;
 *  - generated sources are registered by their JS source name (`termite:<hash>.js`, and
 *    `termite:<hash>$rN.js` for the resume form of lambda N, generated later) when
 *    a unit is instantiated; their line tables are built on first use.
 *  - an error object keeps the frames it was signalled in (and their live values) until
 *    its backtrace is formatted; a copy of it (a message, the wire) carries neither.
 */
import { forEachSite, siteLocation, K_CALL } from '../ir/wire.js';
import { ErrorObject } from '../values.js';

/** Frames named in a backtrace. */
export const MAX_LINES = 30;
/** Frames counted (for "… N more"), at most. */
const MAX_COUNTED = 1_000_000;
/** JS frames captured with an error signalled by a primitive (V8 keeps 10 by default). */
export const JS_FRAMES = 60;

/** Procedures of the raising machinery, left out at the top of a backtrace. */
const RAISING = new Set(['raise', 'raise-continuable', '%raise-from-primitive', 'error', '%uncaught', 'with-exception-handler']);

/**
 * @typedef {object} UnitSource generated JS of one unit instance
 * @property {string} source
 * @property {any} wire
 * @property {{lam: Int32Array, site: Int32Array}|null} lines per JS line: lambda index, site (-1: none)
 */

/** @type {Map<string, UnitSource>} JS source name → the unit it was generated from */
const unitSources = new Map();

/**
 * Remember a unit's generated source under its JS source name (called by the linker).
 * @param {string} sourceName @param {string} source @param {any} wire
 */
export function registerUnitSource(sourceName, source, wire) {
  if (!unitSources.has(sourceName)) unitSources.set(sourceName, { source, wire, lines: null });
}

/** Forget the generated sources whose names start with `prefix` (an unloaded unit's). @param {string} prefix */
export function forgetUnitSources(prefix) {
  for (const name of [...unitSources.keys()]) if (name.startsWith(prefix)) unitSources.delete(name);
}

/** Lines `new Function` puts before the body ("function anonymous($\n) {"). */
const FUNCTION_PROLOGUE_LINES = 2;

/** @param {UnitSource} u */
function lineTables(u) {
  if (u.lines !== null) return u.lines;
  const text = u.source.split('\n');
  const n = text.length + FUNCTION_PROLOGUE_LINES + 2;
  const lam = new Int32Array(n).fill(-1);
  const site = new Int32Array(n).fill(-1);
  let current = -1;
  text.forEach((line, i) => {
    const f = /^function L(\d+)/.exec(line);
    if (f) current = Number(f[1]);
    const m = /\/\/@(\d+):(\d+)$/.exec(line);
    const at = i + 1 + FUNCTION_PROLOGUE_LINES;
    lam[at] = m ? Number(m[1]) : current;
    if (m) site[at] = Number(m[2]);
  });
  u.lines = { lam, site };
  return u.lines;
}

/**
 * How one activation reads: "name at file:line:col" (or just the name).
 * @param {any} wire @param {number} index lambda index @param {number} site -1 if unknown
 */
function frameLine(wire, index, site) {
  const lam = wire?.lambdas?.[index];
  const name = procedureName(lam?.name, index, wire);
  const loc = site >= 0 ? siteLocation(wire.debug, index, site) : null;
  return loc ? `${name} at ${loc}` : name;
}

/** @param {any} name @param {number} index @param {any} wire */
function procedureName(name, index, wire) {
  if (index === 0 && wire?.debug && name === wire.debug.file) return `top level of ${name}`;
  if (typeof name !== 'string' || name === '' || name === 'anonymous') return '(anonymous procedure)';
  return name;
}

/** return point → site, per lambda of a wire unit @type {WeakMap<any, Map<number, number>>} */
const labelSites = new WeakMap();

/** The site of the call whose return point is `label`. @param {any} wireLam @param {number} label */
function siteOfLabel(wireLam, label) {
  let m = labelSites.get(wireLam);
  if (m === undefined) {
    const sites = new Map();
    forEachSite(wireLam, (ins, site) => {
      if (ins[0] === K_CALL) sites.set(ins[1], site);
    });
    labelSites.set(wireLam, sites);
    m = sites;
  }
  return m.get(label) ?? -1;
}

/**
 * The first source location in a stack (generated code with debug information).
 * @param {string} stack
 */
function firstLocation(stack) {
  const re = /termite:([0-9a-f]+(?:\$r\d*)?)\.js:(\d+):\d+/g;
  let m;
  while ((m = re.exec(stack)) !== null) {
    const u = unitSources.get(`termite:${m[1]}.js`);
    if (u === undefined) continue;
    const t = lineTables(u);
    const line = Number(m[2]);
    if (line < t.lam.length && t.site[line] >= 0) {
      const loc = siteLocation(u.wire.debug, t.lam[line], t.site[line]);
      if (loc) return loc;
    }
  }
  return null;
}

/**
 * The lines of the JS part of a stack (generated code's frames only).
 * @param {string} stack @param {string[]} out
 */
function jsFrames(stack, out) {
  const re = /termite:([0-9a-f]+(?:\$r\d*)?)\.js:(\d+):\d+/g;
  let m;
  while ((m = re.exec(stack)) !== null) {
    const u = unitSources.get(`termite:${m[1]}.js`);
    if (u === undefined) continue;
    const t = lineTables(u);
    const line = Number(m[2]);
    if (line >= t.lam.length || t.lam[line] < 0) continue;
    out.push(frameLine(u.wire, t.lam[line], t.site[line]));
  }
}

/**
 * Where an error was signalled: the JS exception (for its stack) and the thread's
 * continuation at that moment. Formatted once, on demand.
 */
export class ErrorOrigin {
  /** @param {any} jsError an Error (its stack) or null @param {any} k the thread's frames */
  constructor(jsError, k) {
    this.jsError = jsError;
    this.k = k;
    /** @type {string[]|null} */
    this.formatted = null;
    /** @type {string|null|undefined} the innermost known source location (undefined: not looked for) */
    this.where = undefined;
  }

  /** "file:line:col" of the innermost frame of generated code that has one, or null. */
  location() {
    if (this.where === undefined) {
      const stack = this.jsError instanceof Error ? String(this.jsError.stack ?? '') : '';
      this.where = firstLocation(stack);
    }
    return this.where;
  }

  /** The backtrace lines, innermost first (see the header for the bounds). */
  lines() {
    if (this.formatted !== null) return this.formatted;
    this.location(); // kept: the stack is let go below
    /** @type {string[]} */
    const js = [];
    const stack = this.jsError instanceof Error ? String(this.jsError.stack ?? '') : '';
    jsFrames(stack, js);
    // V8 kept only the innermost JS_FRAMES frames: then the counts are lower bounds
    const truncated = (stack.match(/\n\s+at /g)?.length ?? 0) >= JS_FRAMES;
    const b = new LineBuilder();
    for (const line of js) b.add(line);
    // the frames V8 dropped were below the last JS line: only its count (or the
    // count of the rest, if the lines are full already) is a lower bound
    if (truncated) b.uncertain = b.full() ? MAX_LINES : b.out.length - 1;
    let counted = 0;
    for (let fr = this.k; fr !== null && fr !== undefined && counted < MAX_COUNTED; fr = fr.next, counted++) {
      if (b.full()) {
        b.more++;
        continue;
      }
      const lam = fr.lam;
      const wire = lam?.unit?.wire;
      b.add(wire ? frameLine(wire, lam.index, siteOfLabel(wire.lambdas[lam.index], fr.label)) : procedureName(lam?.name, -1, null));
    }
    this.formatted = b.finish(counted >= MAX_COUNTED);
    this.jsError = null;
    this.k = null;
    return this.formatted;
  }
}

/** Backtrace lines: the raising machinery dropped, repeats folded, at most MAX_LINES. */
class LineBuilder {
  constructor() {
    /** @type {string[]} */
    this.out = [];
    /** @type {number[]} how many times each line occurred in a row */
    this.times = [];
    this.more = 0;
    /** the line whose count is a lower bound (MAX_LINES: the count of the rest), or -1 */
    this.uncertain = -1;
  }

  full() {
    return this.more > 0;
  }

  /** @param {string} line */
  add(line) {
    const n = this.out.length;
    if (n === 0 && RAISING.has(line.split(' at ')[0])) return;
    if (this.more > 0) this.more++;
    else if (n > 0 && this.out[n - 1] === line) this.times[n - 1]++;
    else if (n < MAX_LINES) {
      this.out.push(line);
      this.times.push(1);
    } else this.more++;
  }

  /** @param {boolean} tooDeep whether the frames were too many to count them all */
  finish(tooDeep) {
    const plus = (/** @type {number} */ i) => (i === this.uncertain ? '+' : '');
    const out = this.out.map((line, i) => (this.times[i] > 1 ? `${line} (×${this.times[i]}${plus(i)})` : line));
    const more = tooDeep || this.uncertain === MAX_LINES ? '+' : '';
    if (this.more > 0) out.push(`… ${this.more}${more} more frame${this.more === 1 ? '' : 's'}`);
    return out;
  }
}

/**
 * A backtrace of the calling code now (for a death with no error object behind it:
 * `(raise 'boom)` that nothing caught).
 * @param {any} k the thread's frames
 */
export function originHere(k) {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = JS_FRAMES;
  const e = new Error('backtrace');
  Error.stackTraceLimit = limit;
  return new ErrorOrigin(e, k);
}

/**
 * The backtrace of a thread's uncaught exception: the error object's own, or, for any
 * other raised value, where the thread raised it. Null when nothing says.
 * @param {any} value the uncaught payload @param {any} [th] the thread that died of it
 * @returns {string[]|null}
 */
export function uncaughtBacktrace(value, th) {
  const origin = value instanceof ErrorObject ? value.origin : th?.uncaughtOrigin;
  return origin instanceof ErrorOrigin ? origin.lines() : null;
}

/**
 * The lines to print under an error's description: each frame indented, prefixed "in".
 * @param {string[]|null} lines
 */
export function formatBacktrace(lines) {
  if (lines === null || lines.length === 0) return '';
  return lines.map((l) => `  in ${l}\n`).join('');
}
