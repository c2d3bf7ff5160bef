// @ts-check
/**
 * How code is named on the wire: a closure or frame refers to its lambda's unit by a
 * code reference {hash, env} (tag 40978), the unit's content hash and the id of the
 * environment it was instantiated in.
 *
 * Invariants: a unit has one code reference object, made on first use and kept on the
 * unit (unit.codeRef), so every closure and frame of the unit shares it and the encoder
 * writes it once (tag 28) and refers to it after (tag 29). Code without a unit hash (a
 * JavaScript function made outside the compiler) cannot be named and is refused.
 */
import { CodecError } from './codec-error.js';

/**
 * How a closure's code is named on the wire: the unit it belongs to.
 * @param {any} lam a LambdaInfo
 * @returns {{hash: string, env: string}}
 */
export function codeRefOf(lam) {
  const unit = lam.unit;
  if (!unit || typeof unit.hash !== 'string') throw new CodecError(`cannot serialize procedure ${lam.name}: its code has no identity`);
  return unit.codeRef ?? (unit.codeRef = { hash: unit.hash, env: unit.env?.id ?? unit.envId ?? 'rt' });
}

/** Whether x is a code reference (as codeRefOf makes them). @param {any} x */
export function isCodeRef(x) {
  return x !== null && typeof x === 'object' && typeof x.hash === 'string' && typeof x.env === 'string' && Object.keys(x).length === 2;
}
