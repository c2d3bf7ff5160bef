// @ts-check
/**
 * Engine internals for the packages built directly on the Scheme runtime (the process
 * runtime, the mesh integration). Not for programs: the stable API is index.js.
 */
export { R, U, CALL, unwind, arity, PEND_CALL, PEND_CAPTURE, PEND_SUSPEND, PEND_EXIT, Cell, Unbound, gv } from './runtime/engine.js';
export { Thread, runSlice, ACT_CALL, ACT_RETURN, SLICE_YIELD, SLICE_DONE, SLICE_SUSPENDED, SLICE_DIED, driverHooks, ESCAPE, DIE } from './runtime/driver.js';
export { definePrimitive, primitives } from './runtime/registry.js';
export { defineBuiltin, installPrimitives, builtinUnit } from './runtime/builtins.js';
export { boot, consoleSinks, loadRuntimeSource, runtimeUnits, precompiledRuntime, supplyPrecompiledRuntime, precompiledStats } from './runtime/boot.js';
export { rtEnv, libraryEnvs, Environment, instantiate, LinkError } from './runtime/linker.js';
export { registerValueCodec, encodeValue, encodeSmallValue, encodeSmallBetween, encodeAnyValue, decodeValue, CodecError, internRecordType } from './serialize.js';
export * as tags from './serialize.js';
export { CborWriter } from './cbor-writer.js';
export { registerEquality, isEqual, isEqv } from './runtime/prims-equivalence.js';
export { registerPrinter, writeString, displayString } from './printer.js';
export { Port } from './runtime/ports.js';
export { consolePorts, portDecoders } from './runtime/port-codec.js';
export { current } from './runtime/current.js';
export { makeParameter, parameterValue, ParamKey } from './runtime/prims-control.js';
export { checkWire } from './ir/check-wire.js';
export { IRCheckError } from './ir/wire.js';
