// @ts-check
/**
 * The pure-JavaScript reference tuple space the core is measured against:
 * the straightforward implementation — a Map from arity to an array of
 * tuples (plain JS arrays, oldest first), linear scans, and a deep-equality
 * function for actual fields. No index, no encoding, no copying: tuples
 * are stored by reference (which is what makes it fast on trivial cases and
 * is also why it is only a reference: a caller mutating a tuple after out()
 * would change the store).
 */

/** A typed formal of the reference space. */
export class RefFormal {
  /** @param {(v: unknown) => boolean} test */
  constructor(test) {
    this.test = test;
  }
}

/** Formals equivalent to @termite/core's `formal` (JS numbers cannot tell 1 from 1.0). */
export const refFormal = Object.freeze({
  any: new RefFormal(() => true),
  integer: new RefFormal((v) => Number.isInteger(v) || typeof v === 'bigint'),
  number: new RefFormal((v) => typeof v === 'number' || typeof v === 'bigint'),
  float: new RefFormal((v) => typeof v === 'number' && !Number.isInteger(v)),
  string: new RefFormal((v) => typeof v === 'string'),
  bytes: new RefFormal((v) => v instanceof Uint8Array),
  boolean: new RefFormal((v) => typeof v === 'boolean'),
  array: new RefFormal((v) => Array.isArray(v)),
  null: new RefFormal((v) => v === null),
});

/**
 * Structural equality of plain data.
 * @param {unknown} a
 * @param {unknown} b
 * @returns {boolean}
 */
export function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (a instanceof Uint8Array) {
    if (!(b instanceof Uint8Array) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  const ka = Object.keys(a), kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (!deepEqual(/** @type {any} */ (a)[k], /** @type {any} */ (b)[k])) return false;
  return true;
}

/**
 * @param {unknown[]} template
 * @param {unknown[]} tuple (same length)
 */
function matches(template, tuple) {
  for (let i = 0; i < template.length; i++) {
    const f = template[i];
    if (f instanceof RefFormal) {
      if (!f.test(tuple[i])) return false;
    } else if (!deepEqual(f, tuple[i])) {
      return false;
    }
  }
  return true;
}

export class RefSpace {
  constructor() {
    /** @type {Map<number, unknown[][]>} tuples by arity, oldest first */
    this.byArity = new Map();
  }

  /** @param {unknown[]} tuple */
  out(tuple) {
    let list = this.byArity.get(tuple.length);
    if (list === undefined) this.byArity.set(tuple.length, (list = []));
    list.push(tuple);
  }

  /** @param {unknown[]} template @param {boolean} remove */
  find(template, remove) {
    const list = this.byArity.get(template.length);
    if (list === undefined) return undefined;
    for (let i = 0; i < list.length; i++) {
      if (matches(template, list[i])) {
        const t = list[i];
        if (remove) list.splice(i, 1);
        return t;
      }
    }
    return undefined;
  }

  /** @param {unknown[]} template */
  inp(template) { return this.find(template, true); }

  /** @param {unknown[]} template */
  rdp(template) { return this.find(template, false); }

  /** @param {unknown[]} template */
  count(template) {
    const list = this.byArity.get(template.length) ?? [];
    let n = 0;
    for (const t of list) if (matches(template, t)) n++;
    return n;
  }
}
