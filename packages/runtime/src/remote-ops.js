// @ts-check
/**
 * The seam between a node and its distribution layer: `RemoteOps` is everything the
 * node (termite-node.js) and the primitives (prims-*.js) may ask of the layer that
 * reaches other nodes, `node.remote`. `Distribution` (distribution.js) implements it;
 * a node outside any mesh has `remote` null, and then every pid that is not local names
 * a process that cannot be reached ("send and pray": the message is dropped).
 *
 * The node calls these only for pids that are not (or no longer) local: a process of
 * this node is always handled by the node itself, without the layer.
 *
 * Types only.
 */

/** @typedef {import('./termite-values.js').Pid} Pid */
/** @typedef {import('./termite-values.js').NodeRef} NodeRef */
/** @typedef {import('./termite-node/process.js').Process} Process */

/**
 * @typedef {object} RemoteOps
 *
 * What the node asks when a pid is not local:
 * @property {(pid: Pid, msg: any) => boolean} send `!` to a process elsewhere (the message is
 *   encoded now: later changes to it are not seen); false when it waits for room in the
 *   mesh's queue to that node (the sending process should then wait: `mustWait`); raises
 *   (a SchemeError) when it can never be sent (distribution/send-queue.js)
 * @property {(proc: Process) => boolean} mustWait whether a process has frames waiting
 *   for room; the node then resumes it with `resumeSender` once they have left
 * @property {(pid: Pid) => Promise<void>} whenSent settles once the frames waiting for
 *   the node of `pid` have left (rejects if they were dropped)
 * @property {(from: Pid, to: Pid) => void} link `from` (elsewhere) gets an outbound link to local `to`
 * @property {(from: Pid, to: Pid) => void} unlink
 * @property {(pid: Pid, payload: any) => void} signal an exit signal for a process elsewhere
 * @property {(to: Pid, from: Pid) => void} exited `from` (here), linked to `to` (elsewhere), returned normally
 * @property {(pid: Pid) => void} terminate `terminate!` of a process elsewhere
 * @property {(proc: Process) => void} processEnded a process that lived on other nodes
 *   (proc.visited) ended here: they drop what they keep for it
 * @property {(pid: Pid) => boolean} isForwarded whether a process of this node left it
 *   (migrated): its pid is then alive elsewhere, not dead
 * @property {Record<string, number>} stats counters the node's snapshot shows
 *
 * What the primitives ask (prims-processes.js, prims-linda.js, prims-distribution.js):
 * @property {(id: string) => NodeRef} nodeRefOf a node reference for a node id, with its address when known
 * @property {(pid: Pid) => boolean} isAlive whether a process elsewhere may be alive (its node is reachable)
 * @property {(ref: NodeRef) => Promise<string>} resolveNode the node id a reference names, connecting if needed
 * @property {() => NodeRef[]} knownNodes every node reachable from here (not this one)
 * @property {(ref: NodeRef, thunk: any, params: any, linkTo: Pid | false) => Promise<Pid>} remoteSpawn
 *   start `thunk` on another node; resolves with the new pid
 * @property {(proc: Process, ref: NodeRef) => Promise<void>} migrate move a process blocked in
 *   `migrate` to another node (it resumes there, or here with an error raised)
 * @property {(proc: Process, ref: NodeRef, notice: {pid: Pid, msg: any} | null) => Promise<void>} [hop] move a
 *   process blocked in `%msgr-move` to another node in one frame (it resumes there, or here
 *   with an error object as the value); `notice` goes to its pid if the other node cannot take it
 * @property {Map<string, Pid>} services services published on this node, by name
 * @property {(name: string, ref: NodeRef, peer?: string | null) => Promise<Pid>} remoteService a service's pid
 *   on a node (`peer`: the peer the asking process descends from, if any: a restricted
 *   peer's process finds on this node only services it may reach)
 * @property {(peer: string, name: string) => boolean} mayPublish whether a process descending
 *   from `peer` may publish a service under `name` (not over one a restricted peer may not reach)
 * @property {(peer: string, msg: any, sender: string | null) => void} giveToProcessOf a local `!`
 *   to a process of `peer` (`proc.peer`) from a process that is not (of `sender`): third
 *   nodes' pids and spaces in it are vouched for as given to that peer, when it is
 *   restricted and the sender is no restricted peer's
 */

export {};
