#!/usr/bin/env node
// @ts-check
/**
 * The simulated internet: daemons in their own Linux network namespaces, joined
 * through an "internet" namespace (a bridge), WAN latency added on each link by a
 * user-space relay (netsim-relay.js; this kernel has no netem), some daemons behind a
 * NAT router (iptables in a router namespace, the daemon on a private network behind
 * it; port-restricted, full-cone or symmetric: NAT_TYPES), coturn as STUN/TURN server
 * (startTurn), and Chromium in a namespace (netsim-tabs.js). Needs root and `ip netns`;
 * NAT also needs `iptables`, TURN coturn's `turnserver`.
 *
 * Everything it makes is named with a prefix unique to the run (`tm` + 5 random hex
 * digits), and cleanup() removes exactly that: the processes it started (by PID), then
 * any process left in its namespaces, then the namespaces (their veths, bridge and NAT
 * rules go with them), and coturn's directory. From setup() on, the
 * same is done on process exit and on SIGINT/SIGTERM (then the process exits with 130),
 * so a failed or interrupted run leaves nothing.
 * Nothing is added to the root namespace.
 *
 * Addresses: the internet's bridge 10.77.0.1/16 (the relays listen there); a public
 * daemon 10.77.1.i; a NAT router's WAN side 10.77.2.j, its home network
 * 192.168.j.0/24 with the daemon at 192.168.j.2.
 *
 * As a command (root):
 *   node scripts/netsim.js [--daemons N] [--nat K] [--delay MS] [--hold]
 * builds N daemons in a binary tree of relayed links (K of the leaves behind NAT),
 * prints how long the mesh took to connect, and removes everything (--hold: waits for
 * Ctrl-C first, to look around with `ip netns exec`).
 */
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(here, '..', 'node-daemon', 'bin', 'termite-node.js');
const RELAY = path.join(here, 'netsim-relay.js');
const PROBE = path.join(here, 'netsim-probe.js');
const CORE_IP = '10.77.0.1';
const DAEMON_PORT = 7400;

/** @param {string[]} args */
function ip(...args) {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** @param {string} cmd @returns {boolean} */
function has(cmd) {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Why the simulation cannot run here, or null if it can.
 * @param {{nat?: boolean, turn?: boolean}} [need]
 * @returns {string | null}
 */
export function unavailable(need = {}) {
  if (process.getuid?.() !== 0) return 'the simulated internet needs root (network namespaces, veth pairs, NAT)';
  if (!has('ip')) return '`ip` (iproute2) is missing';
  const probe = `tmprobe${process.pid}`;
  try {
    execFileSync('ip', ['netns', 'add', probe], { stdio: 'ignore' });
    execFileSync('ip', ['netns', 'del', probe], { stdio: 'ignore' });
  } catch {
    return '`ip netns add` does not work here (no network namespaces, or not allowed to make one)';
  }
  if (need.nat && !has('iptables')) return '`iptables` is missing (NAT routers need it: apt-get install iptables)';
  if (need.turn && !has('turnserver')) return '`turnserver` is missing (STUN/TURN: apt-get install coturn)';
  return null;
}

/**
 * @typedef {object} SimHost a namespace with an address on the simulated internet
 * @property {string} name
 * @property {string} ns
 * @property {string} ip the daemon's address (private behind NAT)
 * @property {boolean} nat
 * @property {string} [wanIp] behind NAT: the router's public address
 */

/** @typedef {'port-restricted' | 'full-cone' | 'symmetric'} NatType */

/**
 * The iptables `nat` table rules of each NAT type, given the router's WAN address and
 * the host's private one. Linux keeps a flow's source port when it is free, so plain
 * MASQUERADE/SNAT map endpoint-independently; conntrack lets in only replies.
 * - port-restricted (the default; most home routers): MASQUERADE. One outside port per
 *   inside socket, whoever it sends to; only the address and port it sent to may answer.
 * - full-cone: the same mapping (SNAT to the WAN address), and every UDP datagram that
 *   arrives at the WAN side unasked is forwarded to the host (DNAT): once a socket has a
 *   mapping, anyone may send to it (endpoint-independent filtering).
 * - symmetric: MASQUERADE --random-fully, a fresh random outside port for every new
 *   flow (each destination), so the port a STUN server saw is of no use to any other
 *   peer: only a relay (TURN, or the mesh through a daemon) reaches a host behind it.
 * @type {Record<NatType, (wan: string, host: string) => string[][]>}
 */
export const NAT_TYPES = {
  'port-restricted': () => [['-A', 'POSTROUTING', '-o', 'wan', '-j', 'MASQUERADE']],
  'full-cone': (wan, host) => [
    ['-A', 'POSTROUTING', '-o', 'wan', '-j', 'SNAT', '--to-source', wan],
    ['-A', 'PREROUTING', '-i', 'wan', '-p', 'udp', '-j', 'DNAT', '--to-destination', host],
  ],
  symmetric: () => [['-A', 'POSTROUTING', '-o', 'wan', '-j', 'MASQUERADE', '--random-fully']],
};

/**
 * @typedef {object} SimDaemon
 * @property {SimHost} host
 * @property {string} id
 * @property {string} url ws:// address inside its namespace
 * @property {import('node:child_process').ChildProcess} child
 * @property {number} readyAt when it said it listens (Date.now())
 * @property {() => string} log
 */

export class Netsim {
  prefix = `tm${randomBytes(3).toString('hex').slice(0, 5)}`;
  core = `${this.prefix}-net`;
  /** @type {string[]} */
  #namespaces = [];
  /** @type {Set<import('node:child_process').ChildProcess>} */
  #children = new Set();
  #public = 0;
  #nat = 0;
  #relayPort = 20000;
  /** @type {import('./netsim-relay.js').LinkSpec[]} */
  #relaySpecs = [];
  #cleaned = false;
  /** @type {import('node:child_process').ChildProcess | null} */
  #turn = null;
  /** @type {string[]} directories of the run (coturn's database), removed at cleanup */
  #dirs = [];
  #onExit = () => this.cleanupSync();
  #onSignal = () => {
    this.cleanupSync();
    process.exit(130);
  };

  /** Make the internet: its namespace and bridge. */
  setup() {
    process.once('exit', this.#onExit);
    process.once('SIGINT', this.#onSignal);
    process.once('SIGTERM', this.#onSignal);
    this.#addNs(this.core);
    ip('-n', this.core, 'link', 'add', 'br0', 'type', 'bridge');
    ip('-n', this.core, 'addr', 'add', `${CORE_IP}/16`, 'dev', 'br0');
    ip('-n', this.core, 'link', 'set', 'br0', 'up');
    return this;
  }

  /** @param {string} ns */
  #addNs(ns) {
    ip('netns', 'add', ns);
    this.#namespaces.push(ns);
    ip('-n', ns, 'link', 'set', 'lo', 'up');
  }

  /**
   * A veth from namespace `ns` (named `dev` there, address `addr`) to the bridge.
   * @param {string} ns @param {string} dev @param {string} addr @param {string} tag unique
   */
  #wire(ns, dev, addr, tag) {
    const outer = `${this.prefix}${tag}`;
    ip('link', 'add', outer, 'netns', this.core, 'type', 'veth', 'peer', 'name', dev, 'netns', ns);
    ip('-n', this.core, 'link', 'set', outer, 'master', 'br0', 'up');
    ip('-n', ns, 'addr', 'add', addr, 'dev', dev);
    ip('-n', ns, 'link', 'set', dev, 'up');
  }

  /** A host with a public address on the internet. @param {string} name @returns {SimHost} */
  addHost(name) {
    const i = ++this.#public;
    if (i > 250) throw new Error('at most 250 public hosts');
    const ns = `${this.prefix}-${name}`;
    this.#addNs(ns);
    this.#wire(ns, 'eth0', `10.77.1.${i}/16`, `p${i}`);
    return { name, ns, ip: `10.77.1.${i}`, nat: false };
  }

  /**
   * A host on a private network behind a NAT router; `type` says how the router maps
   * and filters (NAT_TYPES; the NAT section of docs/mesh.md): it can dial out, nobody can
   * dial it (but a full-cone NAT lets any UDP sender reach a mapped port).
   * @param {string} name @param {NatType} [type]
   * @returns {SimHost}
   */
  addNatHost(name, type = 'port-restricted') {
    if (!NAT_TYPES[type]) throw new Error(`unknown NAT type ${type}: ${Object.keys(NAT_TYPES).join(', ')}`);
    const j = ++this.#nat;
    if (j > 250) throw new Error('at most 250 NAT hosts');
    const router = `${this.prefix}-r${j}`;
    const ns = `${this.prefix}-${name}`;
    this.#addNs(router);
    this.#addNs(ns);
    this.#wire(router, 'wan', `10.77.2.${j}/16`, `r${j}`);
    ip('link', 'add', 'lan', 'netns', router, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
    ip('-n', router, 'addr', 'add', `192.168.${j}.1/24`, 'dev', 'lan');
    ip('-n', router, 'link', 'set', 'lan', 'up');
    ip('-n', ns, 'addr', 'add', `192.168.${j}.2/24`, 'dev', 'eth0');
    ip('-n', ns, 'link', 'set', 'eth0', 'up');
    ip('-n', ns, 'route', 'add', 'default', 'via', `192.168.${j}.1`);
    execFileSync('ip', ['netns', 'exec', router, 'sysctl', '-qw', 'net.ipv4.ip_forward=1']);
    for (const rule of NAT_TYPES[type](`10.77.2.${j}`, `192.168.${j}.2`)) execFileSync('ip', ['netns', 'exec', router, 'iptables', '-t', 'nat', ...rule]);
    return { name, ns, ip: `192.168.${j}.2`, nat: true, wanIp: `10.77.2.${j}` };
  }

  /**
   * A WAN link to `target` (its daemon port): the URL to dial, through a relay in the
   * internet that adds `delayMs` each way. Takes effect at startRelays().
   * @param {SimHost} target @param {number} delayMs @param {number} [lossPct]
   */
  link(target, delayMs, lossPct = 0) {
    if (target.nat) throw new Error(`${target.name} is behind NAT: nobody can dial it`);
    const port = ++this.#relayPort;
    this.#relaySpecs.push({ listen: `${CORE_IP}:${port}`, target: `${target.ip}:${DAEMON_PORT}`, delayMs, lossPct });
    return `ws://${CORE_IP}:${port}`;
  }

  /** Start the relays of every link made so far (one process in the internet namespace). */
  async startRelays() {
    const specs = this.#relaySpecs.splice(0);
    if (specs.length === 0) return;
    const child = this.#spawn(this.core, process.execPath, [RELAY, JSON.stringify(specs)]);
    await waitOutput(child, /relay ready/, 15_000, 'the relays');
  }

  /**
   * Run a command in a namespace; the process is stopped by cleanup().
   * @param {string} ns @param {string} cmd @param {string[]} args
   */
  #spawn(ns, cmd, args) {
    const child = spawn('ip', ['netns', 'exec', ns, cmd, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.#children.add(child);
    child.on('exit', () => this.#children.delete(child));
    /** @type {any} */ (child).out = '';
    child.stdout?.on('data', (d) => { /** @type {any} */ (child).out += d; });
    child.stderr?.on('data', (d) => { /** @type {any} */ (child).out += d; });
    return child;
  }

  /**
   * Start a daemon in `host`'s namespace, joining `join` (relay URLs), with more
   * command-line options `args` (e.g. --stun, --turn).
   * @param {SimHost} host @param {{token: string, join?: string[], args?: string[], timeoutMs?: number}} opts
   * @returns {Promise<SimDaemon>}
   */
  async startDaemon(host, opts) {
    const args = [BIN, '--host', host.ip, '--port', String(DAEMON_PORT), '--token', opts.token, ...(opts.args ?? [])];
    for (const j of opts.join ?? []) args.push('--join', j);
    const child = this.#spawn(host.ns, process.execPath, args);
    const m = await waitOutput(child, /termite-node (\w+) listening on/, opts.timeoutMs ?? 120_000, `the daemon of ${host.name}`);
    return { host, id: m[1], url: `ws://${host.ip}:${DAEMON_PORT}`, child, readyAt: Date.now(), log: () => /** @type {any} */ (child).out };
  }

  /**
   * Start coturn (`turnserver`, Debian's coturn package) on `host`, a public host: STUN
   * and TURN on UDP 3478 with one long-term user, relaying from ports 49152–49999 of the
   * same address. Its SQLite database and PID file go in a directory of the run, removed
   * at cleanup. Resolves with the URLs to give ICE: `stun:IP:3478` and
   * `turn:USER:PASSWORD@IP:3478` (the credentials in node-datachannel's form), and
   * `turnServer`, the URL without credentials.
   * With `secret`, coturn takes REST-style credentials made from that shared secret
   * (`use-auth-secret`, as a daemon's --turn-secret makes them) instead of the user.
   * @param {SimHost} host @param {{user: string, password: string, secret?: string, timeoutMs?: number}} o
   */
  async startTurn(host, o) {
    if (host.nat) throw new Error('a TURN server needs a public address');
    const dir = mkdtempSync(path.join(os.tmpdir(), `${this.prefix}-turn-`));
    this.#dirs.push(dir);
    const child = this.#spawn(host.ns, 'turnserver', [
      '-n', '--no-cli', '--no-tls', '--no-dtls', '--fingerprint', '--lt-cred-mech', '--realm=termite',
      ...(o.secret ? ['--use-auth-secret', `--static-auth-secret=${o.secret}`] : [`--user=${o.user}:${o.password}`]), `--listening-ip=${host.ip}`, `--relay-ip=${host.ip}`, '--listening-port=3478',
      '--min-port=49152', '--max-port=49999', '--denied-peer-ip=192.168.0.0-192.168.255.255', '--allowed-peer-ip=10.77.0.0-10.77.255.255', `--userdb=${path.join(dir, 'turndb')}`, `--pidfile=${path.join(dir, 'turn.pid')}`,
      '--log-file=stdout', '--simple-log', ...(process.env.NETSIM_TURN_VERBOSE ? ['--verbose'] : []),
    ]);
    await waitOutput(child, /Total General servers/, o.timeoutMs ?? 15_000, 'turnserver');
    this.#turn = child;
    return { stun: `stun:${host.ip}:3478`, turn: `turn:${o.user}:${o.password}@${host.ip}:3478`, turnServer: `turn:${host.ip}:3478` };
  }

  /**
   * Run a Node script in `host`'s namespace (stopped by cleanup()) and wait, bounded, for
   * a line of its output matching `ready`; resolves with the process and the match.
   * @param {SimHost} host @param {string[]} args the script and its arguments @param {RegExp} ready @param {number} timeoutMs
   */
  async startNodeScript(host, args, ready, timeoutMs) {
    const child = this.#spawn(host.ns, process.execPath, args);
    const match = await waitOutput(child, ready, timeoutMs, `${path.basename(args[0])} in ${host.name}`);
    return { child, match };
  }

  /** What coturn printed so far ('' if none was started). */
  turnLog() {
    return /** @type {any} */ (this.#turn)?.out ?? '';
  }

  /**
   * Run the probe (netsim-probe.js) in `host`'s namespace with `task`; resolves with its JSON answer.
   * @param {SimHost} host @param {object} task @param {number} timeoutMs
   */
  async probe(host, task, timeoutMs) {
    const child = this.#spawn(host.ns, process.execPath, [PROBE, JSON.stringify(task)]);
    const m = await waitOutput(child, /^probe (\{.*\})$/m, timeoutMs, 'the probe');
    return JSON.parse(m[1]);
  }

  /**
   * Cut a host off the network, or plug it back (its interface down or up): its links
   * go silent, as when a home connection drops.
   * @param {SimHost} host @param {boolean} up
   */
  setOnline(host, up) {
    ip('-n', host.ns, 'link', 'set', 'eth0', up ? 'up' : 'down');
  }

  /** Namespaces this run made that still exist. */
  leftovers() {
    const list = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' });
    return list.split('\n').map((l) => l.split(' ')[0]).filter((n) => n.startsWith(`${this.prefix}-`));
  }

  /** Stop every process it started (by PID) and delete its namespaces. */
  async cleanup() {
    const exits = [...this.#children].map((c) => new Promise((r) => {
      if (c.exitCode !== null || c.signalCode !== null) return r(undefined);
      c.once('exit', r);
      c.kill('SIGTERM');
      setTimeout(() => c.kill('SIGKILL'), 3000).unref();
    }));
    await Promise.race([Promise.all(exits), new Promise((r) => setTimeout(r, 6000).unref())]);
    this.cleanupSync();
  }

  /** The same, without waiting (process exit): SIGKILL, then the namespaces. */
  cleanupSync() {
    if (this.#cleaned) return;
    this.#cleaned = true;
    process.off('exit', this.#onExit);
    process.off('SIGINT', this.#onSignal);
    process.off('SIGTERM', this.#onSignal);
    for (const c of this.#children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    for (const d of this.#dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    for (const ns of this.#namespaces.splice(0).reverse()) {
      try {
        execFileSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' }).split('\n').filter(Boolean).forEach((pid) => {
          try { process.kill(Number(pid), 'SIGKILL'); } catch { /* already gone */ }
        });
        ip('netns', 'del', ns);
      } catch { /* already gone */ }
    }
  }
}

/**
 * Wait until a child's output matches `re` (bounded), or fail with what it printed.
 * @param {import('node:child_process').ChildProcess} child @param {RegExp} re @param {number} ms @param {string} what
 * @returns {Promise<RegExpExecArray>}
 */
function waitOutput(child, re, ms, what) {
  return new Promise((resolve, reject) => {
    const out = () => /** @type {any} */ (child).out;
    const check = () => {
      const m = re.exec(out());
      if (!m) return;
      done();
      resolve(m);
    };
    const onExit = (/** @type {number | null} */ code) => { done(); reject(new Error(`${what} exited (${code}) before it was ready:\n${out().slice(-2000)}`)); };
    const timer = setTimeout(() => { done(); reject(new Error(`${what} not ready within ${ms} ms:\n${out().slice(-2000)}`)); }, ms);
    const done = () => {
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.stderr?.off('data', check);
      child.off('exit', onExit);
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.on('exit', onExit);
    check();
  });
}

/**
 * N daemons in a binary tree of relayed links (daemon i joins daemon ⌊(i−1)/2⌋), `nat`
 * of the leaves behind NAT routers; resolves once every daemon listens, with the time
 * its first daemon was started (Date.now(): the probe, another process, reports the same clock).
 * @param {Netsim} sim @param {{daemons: number, nat: number, delayMs: number, token: string}} o
 */
export async function buildTree(sim, o) {
  /** @type {SimHost[]} */
  const hosts = [];
  const firstLeaf = Math.floor(o.daemons / 2);
  for (let i = 0; i < o.daemons; i++) {
    const behindNat = i >= firstLeaf && i - firstLeaf < o.nat && i > 0;
    hosts.push(behindNat ? sim.addNatHost(`d${i}`) : sim.addHost(`d${i}`));
  }
  const joins = hosts.map((_, i) => (i === 0 ? [] : [sim.link(hosts[Math.floor((i - 1) / 2)], o.delayMs)]));
  await sim.startRelays();
  const t0 = Date.now();
  // all at once on a shared machine: allow each daemon the time the whole crowd takes to boot
  const timeoutMs = 60_000 + o.daemons * 6000;
  const daemons = await Promise.all(hosts.map((h, i) => sim.startDaemon(h, { token: o.token, join: joins[i], timeoutMs })));
  return { hosts, daemons, t0 };
}

/** @param {string[]} argv */
async function main(argv) {
  const opt = (/** @type {string} */ name, /** @type {number} */ dflt) => {
    const i = argv.indexOf(name);
    return i < 0 ? dflt : Number(argv[i + 1]);
  };
  const daemons = opt('--daemons', 10);
  const nat = opt('--nat', 2);
  const delayMs = opt('--delay', 20);
  const why = unavailable({ nat: nat > 0 });
  if (why) {
    process.stderr.write(`netsim: ${why}\n`);
    return 2;
  }
  const sim = new Netsim().setup();
  try {
    const token = randomBytes(12).toString('hex');
    const { hosts, daemons: ds, t0 } = await buildTree(sim, { daemons, nat, delayMs, token });
    const r = await sim.probe(hosts[0], { join: ds[0].url, token, targets: ds.slice(1).map((d) => d.id), rounds: 0, timeoutMs: 60_000 }, 90_000);
    process.stdout.write(`${daemons} daemons (${nat} behind NAT, ${delayMs} ms per link) in namespaces ${sim.prefix}-*: connected ${r.reachedAt - t0} ms after the first started\n`);
    if (argv.includes('--hold')) {
      process.stdout.write('holding: Ctrl-C removes everything\n');
      await new Promise(() => {});
    }
    return 0;
  } finally {
    await sim.cleanup();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main(process.argv.slice(2)).then((code) => process.exit(code), (e) => {
    process.stderr.write(`netsim: ${e instanceof Error ? e.stack : e}\n`);
    process.exit(1);
  });
}
