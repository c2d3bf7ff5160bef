// @ts-check
/**
 * Datum labels (`#0=`, `#0#`): shared structure and cycles in read data.
 *
 * Invariants: labels are scoped to one top-level datum (`r.labels` is reset for each);
 * a label is defined once; a reference to a label whose datum is still being read is a
 * Placeholder, and `patchLabels` replaces every placeholder once the top-level datum is
 * complete (iteratively, so deep or long data do not recurse on the JS stack). A label
 * whose datum is only a reference to itself (`#0=#0#`) is an error.
 */
import { Pair } from '../values.js';
import { isDelimiter } from './lexer.js';
import { F_LABEL, NOTHING } from './parse-stack.js';

/** @typedef {import('../reader.js').Reader} Reader */
/** @typedef {import('./parse-stack.js').FrameStack} FrameStack */

/** A reference to a datum label whose datum is not complete yet. */
export class Placeholder {
  /** @param {number} n */
  constructor(n) {
    this.n = n;
    /** @type {any} */
    this.value = this;
    this.done = false;
  }
}

/**
 * `#n=` (define a label) or `#n#` (refer to one).
 * @param {Reader} r @param {FrameStack} stack @param {number} start
 */
export function readLabel(r, stack, start) {
  const s = r.text;
  let i = start + 1;
  while (i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) i++;
  const n = Number(s.slice(start + 1, i));
  const c = s.charCodeAt(i);
  r.pos = i + 1;
  if (c === 61) {
    // =
    if (r.labels === null) r.labels = new Map();
    if (r.labels.has(n)) r.fail(`datum label #${n}= is defined twice`, start);
    r.labels.set(n, new Placeholder(n));
    stack.push(F_LABEL, start, null).tag = n;
    return NOTHING;
  }
  if (c === 35) {
    // #
    const ph = r.labels === null ? undefined : r.labels.get(n);
    if (ph === undefined) r.fail(`datum label #${n}# is not defined`, start);
    if (ph.done) return ph.value;
    r.patchNeeded = true;
    return ph;
  }
  let j = i;
  while (j < s.length && !isDelimiter(s.charCodeAt(j))) j++;
  return r.fail(`bad syntax \`${s.slice(start, j)}\``, start);
}

/**
 * Replace the placeholders in a datum by the data their labels denote.
 * @param {any} root
 */
export function patchLabels(root) {
  /** @param {any} v */
  const resolve = (v) => {
    let k = 0;
    while (v instanceof Placeholder) {
      v = v.value;
      if (++k > 1e6) throw new Error('datum label cycle');
    }
    return v;
  };
  root = resolve(root);
  const seen = new Set();
  const work = [root];
  while (work.length > 0) {
    let x = work.pop();
    // Walk a list's spine iteratively; cars and vector elements go on the work stack.
    while (x instanceof Pair || Array.isArray(x)) {
      if (seen.has(x)) break;
      seen.add(x);
      if (Array.isArray(x)) {
        for (let i = 0; i < x.length; i++) {
          if (x[i] instanceof Placeholder) x[i] = resolve(x[i]);
          work.push(x[i]);
        }
        break;
      }
      if (x.car instanceof Placeholder) x.car = resolve(x.car);
      if (x.cdr instanceof Placeholder) x.cdr = resolve(x.cdr);
      work.push(x.car);
      x = x.cdr;
    }
  }
  return root;
}
