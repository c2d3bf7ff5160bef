// @ts-check
/**
 * The Scheme data model (pairs, symbols, procedures, errors, ports, …) as the runtime's
 * modules use it, from one place: the language's values come from @termite/scheme, the
 * values the runtime adds are in termite-values.js.
 */
export {
  Pair, Box, Record, Closure, Frame, Values, ErrorObject, Sym, Flonum, Ratnum, VOID, EOF,
  SchemeError, schemeError, schemeErrorOf, arrayToList, listToArray, CALL, stringText,
} from '@termite/scheme';
export { Port } from '@termite/scheme/internal';
