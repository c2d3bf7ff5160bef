// @ts-check
/**
 * Distribution: Termite processes across the mesh (docs/mesh.md, "Termite over the
 * mesh"). The mesh moves opaque payloads between node ids; this layer gives them
 * meaning: pids that name processes on other nodes, messages, links and signals
 * between nodes, remote spawn, migration, and code on demand.
 *
 * The seams: the mesh below is a `MeshPort` (@termite/mesh, mesh-port.js): this layer
 * sends with `send` / `request` and is called back through `onMessage` / `onRequest` /
 * `on`. The node above reaches it through `node.remote`, a `RemoteOps` (remote-ops.js),
 * which `Distribution` implements; the layer asks of the node only what TermiteNode
 * offers as methods (local, deliver, spawn, adopt, retire, signal, addLink, …).
 *
 * Where things are (each file states the invariants of what it owns):
 *   distribution/frame-vocabulary.js    the frames and requests on the wire, their shapes
 *   distribution/one-way-frames.js      writing frames; receiving them in order, the SEND fast path,
 *                                       dispatch, forwarding, refusal (ERROR)
 *   distribution/send-queue.js          frames the mesh did not take: back-pressure (outboxes),
 *                                       errors to senders, the loss log
 *   distribution/destination-holds.js   frames held back for a node (a held `out`, a DTS batch)
 *                                       leave before anything else sent to it
 *   distribution/remote-requests.js     asking another node and answering (answered in the task
 *                                       the request arrived in when nothing must be fetched)
 *   distribution/code-on-demand.js      decoding with MissingCode, fetching and checking IR, caches
 *   distribution/received-code.js       what received code may call (DEFAULT_DENIED, guarded units)
 *   distribution/program-environments.js  replicas of program environments and their versions
 *   distribution/migration.js           migrate, accept a process, forwarding entries, GONE
 *   distribution/one-way-migration.js   HOP: a process moving in one frame, no answer (messengers' hops)
 *   distribution/remote-links.js        links to remote processes; node failure → exit signals
 *   distribution/node-addresses.js      NodeRef → node id (the address book)
 *   distribution/remote-spawn.js        remote spawn, services
 *   distribution/dashboard-sampling.js  snapshots of this node and of the mesh, EVAL on a node
 *   distribution/capabilities.js        restricted peers: the pids given to them, what they may act on
 *   distribution/vouching.js            telling a third node which of its pids were given to a restricted peer
 *   distribution/passing-on.js          a tab vouching for what it passes on; a restricted voucher held to what it holds
 *   code-libraries/                     versioned libraries: records, install policy, installing on demand
 *
 * The class below holds all of the layer's state (one object per node: the state of
 * each mechanism is listed with it) and names its methods; each method is a function of
 * the file of its mechanism, whose `this` is the Distribution. A method moved there
 * whole, so a call costs what it did when the class was one file: no wrapper, no extra
 * call on the SEND and request paths.
 */
import { CborWriter } from '@termite/scheme/internal';
import * as oneWay from './distribution/one-way-frames.js';
import * as requests from './distribution/remote-requests.js';
import * as sendQueue from './distribution/send-queue.js';
import * as destinationHolds from './distribution/destination-holds.js';
import * as codeOnDemand from './distribution/code-on-demand.js';
import * as received from './distribution/received-code.js';
import * as environments from './distribution/program-environments.js';
import * as migration from './distribution/migration.js';
import * as oneWayMigration from './distribution/one-way-migration.js';
import * as remoteLinks from './distribution/remote-links.js';
import * as addresses from './distribution/node-addresses.js';
import * as spawning from './distribution/remote-spawn.js';
import * as sampling from './distribution/dashboard-sampling.js';
import * as capabilities from './distribution/capabilities.js';
import * as vouching from './distribution/vouching.js';
import * as passingOn from './distribution/passing-on.js';
import * as whereabouts from './distribution/whereabouts.js';
import * as remoteSpaces from './linda/remote-spaces.js';
import * as libraryInstall from './code-libraries/library-install.js';
import * as libraryUnload from './code-libraries/library-unload.js';
import { LibraryRegistry } from './code-libraries/library-registry.js';
import { DEFAULT_DENIED } from './distribution/received-code.js';
import { SEND_HEADS } from './distribution/frame-vocabulary.js';

export { DEFAULT_DENIED };

/** @typedef {import('./termite-values.js').Pid} Pid */
/** @typedef {import('./remote-ops.js').RemoteOps} RemoteOps */

/**
 * @typedef {object} CodeCache persistent cache of units' IR (disk in Node, IndexedDB in tabs)
 * @property {(hash: string) => Promise<Uint8Array|null>} get
 * @property {(hash: string, bytes: Uint8Array) => Promise<void>} put
 */

/**
 * @typedef {object} DistributionOptions
 * @property {{host: string, port: number}|null} [address] where this node listens (a daemon)
 * @property {CodeCache|null} [codeCache] where fetched units' IR is kept across runs
 * @property {Set<string>} [denied] runtime procedures received code may not call (default DEFAULT_DENIED)
 * @property {(s: string) => void} [log] log lines (refused frames and requests; default the node's)
 * @property {number} [requestTimeoutMs] how long a request to another node may take (default 5000);
 *   also how long frames may wait for room in the mesh's queue to a node without any leaving
 * @property {number} [maxOutboxBytes] bytes that may wait for room in the mesh's queue to one
 *   node (default 64 MiB; send-queue.js)
 * @property {((text: string) => Promise<any>)|null} [evaluate] REPL evaluation of this node (dashboards)
 * @property {Set<string>} [evalPeers] peers that may ask this node to evaluate text (EVAL)
 * @property {Iterable<string>} [restrictedPeers] node ids that may act only on pids given to them or on processes they spawned (capabilities.js)
 * @property {import('./code-libraries/library-registry.js').LibraryOptions} [libraries] publishing
 *   and installing versioned libraries: the publisher key, trusted publishers, the store
 * @property {boolean} [restrictBrowserPeers] every peer that joins from a browser (the mesh's
 *   'link:up' event says `browser`; or 'peer:browser', for one that reaches this node through
 *   another; or an AS frame's flag) is a restricted peer too (default false; a daemon sets it
 *   unless `--trust-tabs`)
 * @property {boolean} [restrictRoutedBrowserPeers] whether the last two (a tab that reaches this
 *   node only through another) count too (default: as restrictBrowserPeers; every node the
 *   CLI builds, a program's included, keeps the default: the daemons that hand a tab this
 *   node's pids vouch for them here, vouching.js)
 * @property {boolean} [vouchWhenPassingOn] a node that restricts no peer (a tab) vouches to a
 *   third node for that node's pids and spaces it writes to another peer (passing-on.js; the
 *   web runtime sets it)
 */

/** @implements {RemoteOps} */
export class Distribution {
  /**
   * @param {import('./termite-node.js').TermiteNode} node
   * @param {import('@termite/mesh').MeshPort} mesh a started mesh node
   * @param {DistributionOptions} [opts]
   */
  // size: the layer's whole state is listed here, each mechanism's with it, one field a line
  constructor(node, mesh, opts = {}) {
    this.node = node;
    this.mesh = mesh;
    this.log = opts.log ?? node.log;
    this.timeoutMs = opts.requestTimeoutMs ?? 5000;
    this.stats = {
      sent: 0, received: 0, forwarded: 0, migrationsOut: 0, migrationsIn: 0, codeFetched: 0,
      queued: 0, dropped: 0, backPressured: 0,
    };
    // one-way frames the mesh did not take (send-queue.js)
    /** @type {Map<string, import('./distribution/send-queue.js').Outbox>} frames waiting for room, by destination */
    this.outboxes = new Map();
    this.maxOutboxBytes = opts.maxOutboxBytes ?? sendQueue.MAX_OUTBOX_BYTES;
    /** @type {Error | null} the reason of the mesh's last refusal ('send:error'), until read */
    this.sendError = null;
    /** @type {Map<string, {count: number}>} loss log windows by reason and destination */
    this.losses = new Map();
    /** refuseDelivery's window: when the last refusal was logged, and how many since */
    this.deliveryRefusals = { since: -Infinity, count: 0 };
    // frames held back for a node, released before anything else to it (destination-holds.js)
    /** @type {Map<string, import('./distribution/destination-holds.js').Hold[]>} by destination, in the order made */
    this.holds = new Map();
    /** holds in `holds`: the one test every send path makes */
    this.holdCount = 0;
    /** @type {import('./distribution/destination-holds.js').Hold | null} the hold that leaves before a frame to any node */
    this.firstHold = null;
    // one-way frames
    /** @type {Map<string, Promise<void>>} per-sender inbound chain (order of delivery) */
    this.inbound = new Map();
    // migration: where frames for a pid go
    /** @type {Map<string, string>} where processes born elsewhere now live (pid key → node id) */
    this.location = new Map();
    /** @type {Map<string, string>} processes that left this node: pid key → where they went */
    this.forwarding = new Map();
    /** @type {Map<string, Set<number | string>>} restricted peers → the serials of this node's pids given to them, and the keys of its guests' (capabilities.js) */
    this.restricted = new Map(Array.from(opts.restrictedPeers ?? [], (id) => [id, /** @type {Set<number | string>} */ (new Set())]));
    /** @type {Map<string, Set<string>>} restricted peers → the names of this node's spaces given to them (capabilities.js) */
    this.givenSpaces = new Map();
    /** @type {Map<string, Set<string>>} restricted peers → the program environments this node sent them procedures of */
    this.givenEnvs = new Map();
    /** @type {Map<string, Set<number>>} processes of this node away: pid key → the serials of this node's pids they left with (capabilities.js) */
    this.carried = new Map();
    /** @type {Set<string>} restricted peers named so because they joined from a browser, oldest first (capabilities.js) */
    this.browserPeers = new Set();
    /** whether a peer that joined from a browser — directly, or as the mesh or an AS frame says — is restricted */
    this.restrictsBrowsers = (opts.restrictRoutedBrowserPeers ?? opts.restrictBrowserPeers) === true;
    /** whether this node vouches to a third node for its pids and spaces it passes on (a tab: passing-on.js); only while it restricts no peer */
    this.passesOn = opts.vouchWhenPassingOn === true;
    if (this.passesOn) passingOn.wirePassingOn(this); // its send paths wrapped: no other node's change
    /** refuseUngiven's window: when the last refusal was logged, and how many since */
    this.capabilityRefusals = { since: -Infinity, count: 0 };
    /** @type {Map<string, string[]>} processes that migrated here: pid key → the nodes they came here from (where GONE goes) */
    this.cameFrom = new Map();
    /** @type {Map<string, Map<string, string>>} MOVEDs not believed yet: pid key → sender → where it said (whereabouts.js) */
    this.movedAhead = new Map();
    /** @type {Map<string, Set<() => void>>} waits for a process to be placed at a peer: pid key → checks (whereabouts.js) */
    this.placeWaits = new Map();
    this.placeWaitCount = 0;
    /** @type {WeakSet<import('./termite-node/process.js').Process>} processes whose copy came back before the answer to their MIGRATE was read (migration.js) */
    this.cameBackWhileLeaving = new WeakSet();
    /**
     * The last ARRIVALS_KEPT processes that migrated here, oldest first, numbered: a
     * dashboard that samples every node now and then still sees a process that came and
     * left between two samples. @type {{seq: number, pid: string, from: string, name: string}[]}
     */
    this.arrivals = [];
    this.arrivalSeq = 0;
    // remote links
    /** @type {Map<string, Set<string>>} remote pid key → local pid keys linked to it (for peer-down signals) */
    this.watchers = new Map();
    // code on demand, received code
    this.codeCache = opts.codeCache ?? null;
    this.denied = opts.denied ?? DEFAULT_DENIED;
    /** @type {Map<string, Promise<any>>} code fetches in flight by hash */
    this.fetching = new Map();
    /** @type {Map<string, Promise<void>>} library installs in flight by namespace (code-libraries/) */
    this.libFetching = new Map();
    /** this node's published and installed libraries, and its install policy */
    this.libraries = new LibraryRegistry(opts.libraries);
    /** @type {any} */ (node).libraries = this.libraries;
    /** @type {Map<any, any>} runtime units as values from other nodes see them (see receivedCode) */
    this.guardedUnits = new Map();
    // program environments
    /** @type {Map<string, Promise<void>>} environments whose definitions are being copied here */
    this.envLoading = new Map();
    /** @type {Map<string, Promise<void>>} environments whose copy is being brought up to date */
    this.refreshing = new Map();
    /** @type {Map<string, {version: number}>} program environments copied from other nodes, and the version copied */
    this.replicas = new Map();
    // services, addresses
    /** @type {Map<string, Pid>} published services */
    this.services = new Map();
    /** @type {Map<string, string>} "host:port" → node id */
    this.addressBook = new Map();
    // dashboards
    /** @type {((text: string) => Promise<any>)|null} REPL evaluation of this node (dashboards), if enabled */
    this.evaluate = opts.evaluate ?? null;
    /**
     * Peers allowed to ask this node to evaluate text (EVAL). Evaluation is full access
     * to the node, so a daemon allows none (its own dashboard calls `evaluate` directly)
     * and a tab allows only the daemon that served it.
     * @type {Set<string>}
     */
    this.evalPeers = opts.evalPeers ?? new Set();
    node.remote = this;
    mesh.onMessage((from, bytes) => this.onFrame(from, bytes));
    mesh.onRequest((from, bytes) => this.onRequest(from, bytes));
    mesh.on('peer:up', (e) => this.notePeer(e.id));
    // before any frame of the link is read (the mesh emits it as it admits the link)
    if (opts.restrictBrowserPeers === true) mesh.on('link:up', (e) => { if (e.browser === true) this.restrictBrowserPeer(e.id); });
    // a tab that reaches this node through another: before its first routed frame is read
    if (this.restrictsBrowsers) mesh.on('peer:browser', (e) => this.restrictBrowserPeer(e.id));
    mesh.on('peer:down', (e) => (this.peerDown(e.id, e.reason), this.spacesPeerDown(e.id, e.reason)));
    mesh.on('routes', () => (this.routesChanged(), this.spacesRoutesChanged()));
    this.watchRefusals(mesh);
  }

  /**
   * decodeValue's options for a frame when no environment is being copied here (made
   * once). Frames are decoded once, from buffers the transports gave away: a large
   * bytevector is a view of its frame (viewBytes), not a copy.
   */
  decodeOptions = { resolveCode: (/** @type {string} */ hash, /** @type {string} */ env) => this.receivedCode(hash, env), viewBytes: true };

  /** onFrame's set of environments still loading (cleared for each frame). @type {Set<string>} */
  loadingScratch = new Set();

  /** This node's id as CBOR text, as a SEND frame to one of its processes names it. */
  get selfText() {
    if (this.selfTextBytes === null) {
      const w = new CborWriter(64);
      w.text(this.node.id);
      this.selfTextBytes = w.bytes();
    }
    return this.selfTextBytes;
  }

  /** @type {Uint8Array | null} */
  selfTextBytes = null;

  /**
   * encodeValue's options for encode(), made once (a message costs no closure): each
   * program environment a procedure comes from is listed once in encodingEnvs.
   */
  encodeOptions = {
    onCode: (/** @type {any} */ unit) => {
      const env = unit?.env;
      const envs = this.encodingEnvs;
      if (!env || envs === null || env.id === 'rt' || env.id.startsWith('lib:')) return;
      for (const e of envs) if (e[0] === env.id) return;
      envs.push([env.id, env.version]);
    },
  };

  /** The environment list of the frame encode() is encoding. @type {any[] | null} */
  encodingEnvs = null;

  /** sendHead's cache: the heads of SEND frames to pids, by serial. @type {Array<{node: string, n: number, head: Uint8Array | null} | undefined>} */
  sendHeads = new Array(SEND_HEADS).fill(undefined);

  // one-way frames (distribution/one-way-frames.js)
  whereIs = oneWay.whereIs;
  encode = oneWay.encode;
  emit = oneWay.emit;
  send = oneWay.send;
  sendHead = oneWay.sendHead;
  signal = oneWay.signal;
  exited = oneWay.exited;
  link = oneWay.link;
  unlink = oneWay.unlink;
  terminate = oneWay.terminate;
  isAlive = oneWay.isAlive;
  onFrame = oneWay.onFrame;
  deliverLocalSend = oneWay.deliverLocalSend;
  chain = oneWay.chain;
  handleFrame = oneWay.handleFrame;
  refuse = oneWay.refuse;
  refuseDelivery = oneWay.refuseDelivery;
  refuseOncePerSecond = oneWay.refuseOncePerSecond;

  // frames the mesh did not take (distribution/send-queue.js)
  watchRefusals = sendQueue.watchRefusals;
  meshRefused = sendQueue.meshRefused;
  relayRefused = sendQueue.relayRefused;
  sendBehind = sendQueue.sendBehind;
  refused = sendQueue.refused;
  openOutbox = sendQueue.openOutbox;
  enqueue = sendQueue.enqueue;
  mustWait = sendQueue.mustWait;
  outboxMayMove = sendQueue.outboxMayMove;
  flushOutbox = sendQueue.flushOutbox;
  outboxStalled = sendQueue.outboxStalled;
  failOutbox = sendQueue.failOutbox;
  dropFrames = sendQueue.dropFrames;
  closeOutbox = sendQueue.closeOutbox;
  whenSent = sendQueue.whenSent;
  noteLoss = sendQueue.noteLoss;

  // frames held back for a node (distribution/destination-holds.js)
  addHold = destinationHolds.addHold;
  dropHold = destinationHolds.dropHold;
  releaseHolds = destinationHolds.releaseHolds;
  releaseHoldsTo = destinationHolds.releaseHoldsTo;
  releaseFirstHold = destinationHolds.releaseFirstHold;

  // requests (distribution/remote-requests.js)
  onRequest = requests.onRequest;
  onRequestAsync = requests.onRequestAsync;
  refusedRequest = requests.refusedRequest;
  answer = requests.answer;
  waitsForVouching = requests.waitsForVouching;
  answerNow = requests.answerNow;
  answerRestricted = requests.answerRestricted;
  call = requests.call;
  callSlowly = requests.callSlowly;

  // code on demand (distribution/code-on-demand.js, distribution/received-code.js)
  decode = codeOnDemand.decode;
  decodeReady = codeOnDemand.decodeReady;
  decodeFetching = codeOnDemand.decodeFetching;
  obtainUnit = codeOnDemand.obtainUnit;
  fetchAndInstantiate = codeOnDemand.fetchAndInstantiate;
  fetchWire = codeOnDemand.fetchWire;
  runToEnd = codeOnDemand.runToEnd;
  unitData = codeOnDemand.unitData;
  receivedCode = received.receivedCode;
  policy = received.policy;

  // versioned libraries installed on demand (code-libraries/library-install.js)
  obtainLibrary = libraryInstall.obtainLibrary;
  installLibrary = libraryInstall.installLibrary;
  libraryRecordFrom = libraryInstall.libraryRecordFrom;
  libraryData = libraryInstall.libraryData;
  libraryRecordOf = libraryInstall.libraryRecordOf;
  watchOldVersions = libraryUnload.watchOldVersions;
  unloadOldVersions = libraryUnload.unloadOldVersions;
  unloadLibrary = libraryUnload.unloadLibrary;

  // program environments (distribution/program-environments.js)
  stale = environments.stale;
  refresh = environments.refresh;
  loadGlobals = environments.loadGlobals;
  envData = environments.envData;

  // migration (distribution/migration.js)
  migrate = migration.migrate;
  processState = migration.processState;
  acceptMigration = migration.acceptMigration;
  deliverLate = migration.deliverLate;
  processEnded = migration.processEnded;
  isForwarded = migration.isForwarded;
  processGone = migration.processGone;
  hop = oneWayMigration.hop;
  onHopFrame = oneWayMigration.onHopFrame;

  // where processes are, vouching for a restricted peer's MIGRATE (distribution/whereabouts.js)
  processMoved = whereabouts.processMoved;
  keepMovedAhead = whereabouts.keepMovedAhead;
  locationChanged = whereabouts.locationChanged;
  forgetWhereabouts = whereabouts.forgetWhereabouts;
  awaitEntry = whereabouts.awaitEntry;
  needsVouching = whereabouts.needsVouching;
  vouchMigration = whereabouts.vouchMigration;
  lastSentTo = whereabouts.lastSentTo;
  answerWhere = whereabouts.answerWhere;

  // restricted peers (distribution/capabilities.js)
  give = capabilities.give;
  giveToProcessOf = capabilities.giveToProcessOf;
  giveEnvs = capabilities.giveEnvs;
  mayReach = capabilities.mayReach;
  noteCarried = capabilities.noteCarried;
  mayAct = capabilities.mayAct;
  mayTake = capabilities.mayTake;
  maySpace = capabilities.maySpace;
  mayMakeSpace = capabilities.mayMakeSpace;
  checkMentions = capabilities.checkMentions;
  checkRequest = capabilities.checkRequest;
  mayPublish = capabilities.mayPublish;
  refuseUngiven = capabilities.refuseUngiven;
  restrictBrowserPeer = capabilities.restrictBrowserPeer;
  actingFor = capabilities.actingFor;
  actFrame = capabilities.actFrame;
  actRequest = capabilities.actRequest;
  onActedFrame = capabilities.onActedFrame;
  answerActed = capabilities.answerActed;
  whyNotTaken = capabilities.whyNotTaken;
  /** @type {string | null} the owner of the AS frame being handled (capabilities.js onActedFrame) */
  actedOwner = null;

  // vouching to a third node for its pids given to a restricted peer (distribution/vouching.js)
  /** @type {import('./distribution/vouching.js').VouchState | undefined} made on first use */
  vouchState = undefined;
  vouchFor = vouching.vouchFor;
  forgetVouches = vouching.forgetVouches;
  acceptVouch = vouching.acceptVouch;
  holdUngiven = vouching.holdUngiven;
  holdSpaceOp = vouching.holdSpaceOp;
  behindHeld = vouching.behindHeld;
  replayHeld = vouching.replayHeld;
  answerAfterVouch = vouching.answerAfterVouch;
  // a tab vouching for what it passes on to another tab (distribution/passing-on.js)
  passOn = passingOn.passOn;
  holderVouchRefusal = passingOn.holderVouchRefusal;
  relayedByHolder = passingOn.relayedByHolder;

  // remote links and failure (distribution/remote-links.js)
  watch = remoteLinks.watch;
  routesChanged = remoteLinks.routesChanged;
  peerDown = remoteLinks.peerDown;

  // tuple spaces held by other nodes, and requests for this node's (linda/remote-spaces.js)
  /** @type {any} requests sent, helpers waiting, tuples withdrawn and not yet acknowledged (made on first use) */
  spaceState = undefined;
  onSpaceFrame = remoteSpaces.onSpaceFrame;
  spacesPeerDown = remoteSpaces.spacesPeerDown;
  spacesRoutesChanged = remoteSpaces.spacesRoutesChanged;
  spaceRequestAbandoned = remoteSpaces.spaceRequestAbandoned;

  // node addresses (distribution/node-addresses.js)
  notePeer = addresses.notePeer;
  resolveNode = addresses.resolveNode;
  knownNode = addresses.knownNode;
  nodeRefOf = addresses.nodeRefOf;

  // remote spawn and services (distribution/remote-spawn.js)
  remoteSpawn = spawning.remoteSpawn;
  spawnOn = spawning.spawnOn;
  acceptSpawn = spawning.acceptSpawn;
  remoteService = spawning.remoteService;

  // dashboards (distribution/dashboard-sampling.js)
  snapshot = sampling.snapshot;
  meshSnapshot = sampling.meshSnapshot;
  evalOn = sampling.evalOn;
  knownNodes = sampling.knownNodes;
}
