// @ts-check
/** The Scheme data model, re-exported for the runtime's modules. */
export {
  Pair, Box, Record, Closure, Frame, Values, ErrorObject, Sym, Flonum, Ratnum, VOID, EOF,
  SchemeError, schemeError, schemeErrorOf, arrayToList, listToArray, CALL,
} from '@termite/scheme';
export { Port } from '@termite/scheme/internal';
