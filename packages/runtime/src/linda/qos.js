// @ts-check
/**
 * L²imbo's QoS on Linda operations: `(with-qos priority seconds thunk)` runs `thunk`
 * with the process at that priority (0 first … 3 last) and with a deadline `seconds`
 * from now (#f: none), both given to the C core's scheduler — earliest deadline first
 * within a priority. A blocking Linda operation (in, rd, and their timed forms, on any
 * space, of this node or another) still waiting at the deadline fails with an error of
 * kind `deadline`; an in-timeout whose own timeout comes first returns its default.
 *
 * Invariants: `proc.qos` is null outside `with-qos`, and the core's priority and
 * deadline of the process are the ones it had before once `with-qos` returns or
 * escapes (scheme-sources/distribution.scm restores them with dynamic-wind).
 */
import { definePrimitive } from '@termite/scheme/internal';
import { ErrorObject, arrayToList } from '@termite/scheme';
import { schemeErrorOf } from '../scheme-data.js';
import { current, seconds } from '../prims-processes.js';

const PRIORITY_DEFAULT = 2;

/**
 * `(%set-qos priority seconds-or-#f)` → the QoS it replaces, as (priority deadline-ms)
 * or #f; `(%set-qos #f #f)` clears it (back to the default priority, no deadline).
 * `(%restore-qos saved)` puts back what %set-qos returned.
 */
definePrimitive('%set-qos', 2, 2, (/** @type {any} */ priority, /** @type {any} */ secs) => {
  const proc = current('with-qos');
  const saved = proc.qos === null ? false : arrayToList([proc.qos.priority, proc.qos.deadlineAt]);
  if (priority === false) {
    apply(proc, null);
    return saved;
  }
  if (!Number.isInteger(priority) || priority < 0 || priority > 3) schemeErrorOf('range', 'with-qos', 'a priority is 0 (first), 1, 2 or 3 (last)', priority);
  const deadlineAt = secs === false ? Infinity : proc.node.now() + seconds(secs, 'with-qos');
  // a nested with-qos cannot push the deadline of the enclosing one later
  apply(proc, { priority, deadlineAt: proc.qos === null ? deadlineAt : Math.min(deadlineAt, proc.qos.deadlineAt) });
  return saved;
});

definePrimitive('%restore-qos', 1, 1, (/** @type {any} */ saved) => {
  const proc = current('with-qos');
  apply(proc, saved === false ? null : { priority: saved.car, deadlineAt: saved.cdr.car });
  return false;
});

/** @param {any} proc @param {{priority: number, deadlineAt: number} | null} qos */
function apply(proc, qos) {
  proc.qos = qos;
  proc.node.core.setPriority(proc.cpid, qos === null ? PRIORITY_DEFAULT : qos.priority);
  proc.node.core.setDeadline(proc.cpid, qos === null ? Infinity : qos.deadlineAt);
}

/**
 * The error of an operation still waiting at its process's deadline.
 * @param {string} who @param {any} [space]
 */
export function deadlineError(who, space) {
  return new ErrorObject(`${who}: the operation passed its deadline (with-qos) before a tuple matched`, space === undefined ? null : arrayToList([space]), 'deadline', who);
}

/**
 * The wait of a blocking operation under the process's deadline: the earlier of its own
 * timeout and the deadline, and whether the deadline is the one that ends it.
 * @param {any} proc @param {number} timeoutAt
 */
export function qosWait(proc, timeoutAt) {
  const qos = proc.qos;
  if (qos === null || qos.deadlineAt >= timeoutAt) return { timeoutAt, byDeadline: false };
  return { timeoutAt: qos.deadlineAt, byDeadline: true };
}
