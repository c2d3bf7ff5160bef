// @ts-check
/**
 * Small helpers shared by the form expanders: taking a form apart with a syntax error
 * when its shape is wrong, and building calls to runtime procedures ('rt' namespace).
 */
import { Pair, VOID } from '../values.js';
import { Call, GlobalRef, LocalRef, Const, globalName } from '../ir/core.js';
import { isIdentifier } from './hygiene.js';
import { syntaxError } from './errors.js';

/** @typedef {import('../ir/core.js').Loc} Loc */

/**
 * The elements of a proper list `l` (part of `form`), or a syntax error.
 * @param {any} l @param {string} who @param {any} form @param {Loc|null} loc @param {string} [what]
 * @returns {any[]}
 */
export function listOf(l, who, form, loc, what = 'expected a proper list') {
  const s = spine(l);
  if (s === null) syntaxError(who, 'a form may not be a circular list', form, loc);
  if (s.tail !== null) syntaxError(who, what, form, loc);
  return s.items;
}

/**
 * The elements and final cdr of a list, proper or not; null when it is circular (code
 * read with datum labels can be). Floyd's check: one extra pointer, no marks.
 * @param {any} l @returns {{items: any[], tail: any}|null}
 */
export function spine(l) {
  const items = [];
  let slow = l;
  while (l instanceof Pair) {
    items.push(l.car);
    l = l.cdr;
    if ((items.length & 1) === 0) {
      slow = slow.cdr;
      if (slow === l) return null;
    }
  }
  return { items, tail: l };
}

/**
 * The operands of `form` = (keyword operand ...), checking their number.
 * @param {any} form @param {string} who @param {Loc|null} loc
 * @param {number} min @param {number} max (Infinity for no limit)
 * @param {string} shape the expected shape, for the message
 * @returns {any[]}
 */
export function operands(form, who, loc, min, max, shape) {
  const ops = listOf(form.cdr, who, form, loc, `expected ${shape}`);
  if (ops.length < min || ops.length > max) syntaxError(who, `expected ${shape}`, form, loc);
  return ops;
}

/** @param {any} x @param {string} who @param {any} form @param {Loc|null} loc */
export function expectIdentifier(x, who, form, loc) {
  if (!isIdentifier(x)) syntaxError(who, 'expected an identifier', form, loc);
  return x;
}

/** A reference to runtime procedure `name`. @param {string} name @param {Loc|null} loc */
export const rtRef = (name, loc) => GlobalRef(globalName('rt', name), loc);

/** `(rt::name arg ...)`. @param {string} name @param {any[]} args @param {Loc|null} loc */
export const rtCall = (name, args, loc) => Call(rtRef(name, loc), args, loc);

/**
 * A reference to a definition target: a local Var or a GlobalName.
 * @param {any} target @param {Loc|null} loc
 */
export const refTo = (target, loc) => (target && typeof target.ns === 'string' ? GlobalRef(target, loc) : LocalRef(target, loc));

/** Give an anonymous lambda the name it is bound to. @param {any} node @param {string} name */
export function nameLambda(node, name) {
  if (node && (node.t === 'Lambda' || node.t === 'CaseLambda') && node.name === null) node.name = name;
  return node;
}

/** @param {Loc|null} loc */
export const voidConst = (loc) => Const(VOID, loc);
