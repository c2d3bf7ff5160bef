// @ts-check
/**
 * Engine internals for the packages built directly on the Scheme runtime (the process
 * runtime, the mesh integration). Not for programs: the stable API is index.js.
 */
export { R, U, CALL, unwind, arity, PEND_CALL, PEND_CAPTURE, PEND_SUSPEND, PEND_EXIT, Cell, Unbound, gv } from './engine/engine.js';
export { Thread, runSlice, ACT_CALL, ACT_RETURN, SLICE_YIELD, SLICE_DONE, SLICE_SUSPENDED, SLICE_DIED, driverHooks, ESCAPE, DIE } from './engine/driver.js';
export { definePrimitive, primitives } from './engine/registry.js';
export { defineBuiltin, installPrimitives, builtinUnit } from './engine/builtins.js';
export { boot, consoleSinks, loadRuntimeSource, runtimeUnits, precompiledRuntime, supplyPrecompiledRuntime, precompiledStats } from './engine/boot.js';
export { rtEnv, libraryEnvs, Environment, instantiate, LinkError } from './engine/linker.js';
export { registerValueCodec, encodeValue, encodeSmallValue, encodeSmallBetween, encodeAnyValue, decodeValue, CodecError, internRecordType } from './serialize.js';
export * as tags from './serialize.js';
export { CborWriter } from './cbor-writer.js';
export { registerEquality, isEqual, isEqv } from './primitives/prims-equivalence.js';
export { registerPrinter, writeString, displayString } from './printer.js';
export { Port } from './primitives/ports.js';
export { consolePorts, portDecoders } from './primitives/port-codec.js';
export { current } from './engine/current.js';
export { makeParameter, parameterValue, ParamKey } from './primitives/prims-control.js';
export { checkWire } from './ir/check-wire.js';
export { IRCheckError } from './ir/wire.js';
export * as expander from './expand/extension.js';
