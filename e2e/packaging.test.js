// @ts-check
/**
 * The npm packages as a user gets them. Every workspace is packed (`npm pack`, which runs
 * each package's `prepack`: the type declarations, and @termite/web's pre-built browser
 * bundles), the tarballs — and nothing else of the repository — are installed into an
 * empty directory, esbuild is removed from that install (nothing may need it at run
 * time), and then, from that directory only:
 *
 *   - `npx termite-node --help`; `npx termite-node` (the daemon, on a free loopback
 *     port, in its own process group stopped by its PID) serves /health, the dashboard at / (its script inlined and allowed
 *     by hash), the worker page at /worker and the scripts it loads, and the core's .wasm
 *   - `termite-node run FILE.scm` runs a program; `termite-node repl` evaluates
 *   - `import '@termite/runtime'` runs a Scheme and a JS process side by side, as the
 *     package's README shows
 *   - a TypeScript program using the public API type-checks against the installed
 *     packages' declarations, and one that misuses it does not
 *   - in Chromium, the dashboard draws the mesh graph: the daemon, and a worker tab
 *     once it joins (skipped without Chromium; scripts/test-all.js reports the skip)
 *
 * and `npm test` (scripts/test-all.js) on a PATH holding only node and a shell: the
 * suites that need make, clang or Chromium are skipped with the install command and the
 * run passes; with TERMITE_REQUIRE_ALL=1 each skip fails it.
 *
 * Dependencies of the packages (ws, cbor-x, node-datachannel, better-sqlite3, ...) come
 * from npm's cache, which the repository's own install filled (`--prefer-offline`: the
 * registry is asked only for what the cache lacks). Install scripts are not run: a
 * native add-on's build is copied from the repository's install of the same version
 * (compiling better-sqlite3 again would take minutes), and one without such a build is
 * rebuilt with `npm rebuild`. Every step has a time bound; nothing sleeps on a guess.
 *
 *   node --test e2e/packaging.test.js
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findChromium, onPath } from '../scripts/test-tools.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WORKSPACES = ['packages/core', 'packages/scheme', 'packages/runtime', 'packages/mesh', 'node-daemon', 'web'];
const chromiumPath = findChromium();

/** npm's CLI, run with this node (so a PATH holding only node and npm is enough). */
function npmCli() {
  const fromEnv = process.env.npm_execpath;
  if (fromEnv && /npm-cli\.js$/.test(fromEnv)) return fromEnv;
  const beside = path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
  if (existsSync(beside)) return beside;
  const onp = onPath('npm');
  if (onp) return realpathSync(onp);
  throw new Error('npm is not installed beside node nor on PATH');
}

/**
 * Run a command to its end, bounded; resolves with its status and output.
 * @param {string} cmd @param {string[]} args
 * @param {{cwd: string, timeoutMs: number, input?: string, env?: Record<string, string>}} opts
 * @returns {Promise<{status: number|null, stdout: string, stderr: string}>}
 */
function run(cmd, args, opts) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${opts.timeoutMs} ms]`;
      child.kill('SIGKILL');
    }, opts.timeoutMs);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** @param {{status: number|null, stdout: string, stderr: string}} r @param {string} what */
function ok(r, what) {
  assert.equal(r.status, 0, `${what} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

const npm = npmCli();
/** @type {string} */ let tmp;
/** @type {string} the empty project the tarballs are installed into */ let app;
/** @type {string} the installed termite-node command */ let bin;
/** @type {{pid: number, port: number, id: string, log: () => string, stop: () => Promise<void>} | null} */
let daemon = null;
const token = `t-${createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 16)}`;

/**
 * Give each installed package with an install script the native build the repository's
 * install made for the same version, or rebuild it.
 */
async function provideNativeBuilds() {
  const modules = path.join(app, 'node_modules');
  const names = readdirSync(modules).flatMap((n) => (n.startsWith('@') ? readdirSync(path.join(modules, n)).map((m) => `${n}/${m}`) : [n]));
  for (const name of names) {
    const pkgFile = path.join(modules, name, 'package.json');
    if (!existsSync(pkgFile)) continue;
    const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
    const scripts = pkg.scripts ?? {};
    if (!scripts.install && !scripts.preinstall && !existsSync(path.join(modules, name, 'binding.gyp'))) continue;
    const ours = path.join(root, 'node_modules', name);
    const oursPkg = path.join(ours, 'package.json');
    if (existsSync(path.join(ours, 'build')) && existsSync(oursPkg) && JSON.parse(readFileSync(oursPkg, 'utf8')).version === pkg.version) {
      cpSync(path.join(ours, 'build'), path.join(modules, name, 'build'), { recursive: true });
    } else if (scripts.install || scripts.preinstall) {
      ok(await run(process.execPath, [npm, 'rebuild', name], { cwd: app, timeoutMs: 600_000 }), `npm rebuild ${name}`);
    }
  }
}

before(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'termite-packaging-'));
  const tarballs = path.join(tmp, 'tarballs');
  app = path.join(tmp, 'app');
  for (const d of [tarballs, app]) mkdirSync(d);
  ok(await run(process.execPath, [npm, 'pack', '--pack-destination', tarballs, ...WORKSPACES.flatMap((w) => ['-w', w])], { cwd: root, timeoutMs: 600_000 }), 'npm pack');
  const tgz = readdirSync(tarballs).filter((f) => f.endsWith('.tgz'));
  assert.equal(tgz.length, WORKSPACES.length, `one tarball per workspace: ${tgz}`);
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'termite-user', version: '1.0.0', private: true, type: 'module' }));
  ok(await run(process.execPath, [npm, 'install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', ...tgz.map((f) => path.join(tarballs, f))], { cwd: app, timeoutMs: 600_000 }), 'npm install of the tarballs');
  await provideNativeBuilds();
  // nothing may need esbuild at run time: the bundles are in the package
  rmSync(path.join(app, 'node_modules', 'esbuild'), { recursive: true, force: true });
  rmSync(path.join(app, 'node_modules', '@esbuild'), { recursive: true, force: true });
  bin = realpathSync(path.join(app, 'node_modules', '.bin', 'termite-node'));
});

after(async () => {
  await daemon?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** Whether any process of the group `pgid` is alive. @param {number} pgid */
function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * `npx termite-node` on a free loopback port (the daemon prints which), in its own
 * process group (npx → sh → node), stopped by signalling that group by its PID.
 * @returns {Promise<NonNullable<typeof daemon>>}
 */
function startInstalledDaemon() {
  const child = spawn(process.execPath, [npm, 'exec', '--offline', '--', 'termite-node', '--port', '0', '--token', token], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const pgid = /** @type {number} */ (child.pid);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const stop = async () => {
    if (!groupAlive(pgid)) return;
    process.kill(-pgid, 'SIGTERM');
    const until = Date.now() + 5000;
    while (groupAlive(pgid) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`npx termite-node did not start within 60 s:\n${out}`));
    }, 60_000);
    const onData = () => {
      const m = /termite-node (\w+) listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stderr.off('data', onData);
      resolve({ pid: pgid, port: Number(m[2]), id: m[1], log: () => out, stop });
    };
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npx termite-node exited with ${code}:\n${out}`));
    });
  });
}

/** @param {string} p */
const url = (p) => `http://127.0.0.1:${daemon?.port}${p}`;

test('the installed packages carry the pre-built bundles and the type declarations, not the tests', () => {
  const mod = path.join(app, 'node_modules');
  const web = path.join(mod, '@termite', 'web');
  const index = JSON.parse(readFileSync(path.join(web, 'dist', 'bundles', 'bundles.json'), 'utf8'));
  for (const f of ['js/worker.js', 'js/worker-page.js']) assert.ok(index.assets.includes(f), `bundles.json names ${f}`);
  for (const f of ['dist/bundles/assets/js/worker.js', 'dist/bundles/assets/js/worker-page.js', 'dist/bundles/dashboard/script.js', 'dist/bundles/dashboard/style.css']) {
    assert.ok(existsSync(path.join(web, f)), `@termite/web has ${f}`);
  }
  for (const [dir, name] of [['@termite/core', 'core'], ['@termite/scheme', 'scheme'], ['@termite/runtime', 'runtime'], ['@termite/mesh', 'mesh'], ['termite-node', 'termite-node'], ['@termite/web', 'web']]) {
    const pkg = JSON.parse(readFileSync(path.join(mod, dir, 'package.json'), 'utf8'));
    assert.ok(pkg.types && existsSync(path.join(mod, dir, pkg.types)), `${name}: its types entry (${pkg.types}) is installed`);
    assert.ok(!existsSync(path.join(mod, dir, 'test')), `${name}: its tests are not shipped`);
    for (const key of ['license', 'repository', 'engines', 'exports', 'files']) assert.ok(pkg[key], `${name}: package.json has ${key}`);
  }
  assert.ok(!existsSync(path.join(mod, 'esbuild')), 'esbuild is not there to be used');
});

test('npx termite-node --help answers from the installed package', async () => {
  const r = ok(await run(process.execPath, [npm, 'exec', '--offline', '--', 'termite-node', '--help'], { cwd: app, timeoutMs: 60_000 }), 'npx termite-node --help');
  assert.match(r.stdout + r.stderr, /termite-node run FILE\.scm/);
});

test('npx termite-node serves /health, the dashboard, the worker page and their scripts', async () => {
  daemon = await startInstalledDaemon();
  const health = await (await fetch(url('/health'))).json();
  assert.equal(health.ok, true);
  assert.equal(health.id, daemon.id);

  const dash = await fetch(url('/'));
  const html = await dash.text();
  assert.equal(dash.status, 200, `GET / answered ${dash.status}: ${html.slice(0, 300)}`);
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
  assert.ok(script.length > 10_000, `the dashboard's script is inlined (${script.length} characters)`);
  const hash = createHash('sha256').update(script).digest('base64');
  assert.ok(dash.headers.get('content-security-policy')?.includes(`'sha256-${hash}'`), 'the page allows exactly its script');
  assert.match(html, /<style>[^<]{1000,}/, "the dashboard's stylesheet is inlined");

  const worker = await fetch(url('/worker'));
  const page = await worker.text();
  assert.equal(worker.status, 200, `GET /worker answered ${worker.status}`);
  const pageScript = /<script type="module" src="([^"]+)"><\/script>/.exec(page)?.[1];
  const config = JSON.parse(/<script type="application\/json" id="termite-config">([^<]*)<\/script>/.exec(page)?.[1] ?? '{}');
  assert.ok(pageScript && config.workerUrl, 'the worker page names its script and the worker');
  for (const src of [pageScript, config.workerUrl]) {
    const res = await fetch(url(src));
    const body = await res.text();
    assert.equal(res.status, 200, `GET ${src} answered ${res.status}: ${body.slice(0, 200)}`);
    assert.match(res.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.ok(body.length > 1000, `${src} is a bundle (${body.length} characters)`);
  }
  const wasm = await fetch(url('/assets/wasm/termite_core.wasm'));
  assert.equal(wasm.headers.get('content-type'), 'application/wasm');
  assert.deepEqual([...new Uint8Array(await wasm.arrayBuffer()).subarray(0, 4)], [0, 0x61, 0x73, 0x6d]);
  const manifest = await (await fetch(url('/assets/manifest.json'))).json();
  assert.equal(manifest.prebuilt, true, 'the bundles were the pre-built ones, not built at run time');
});

test('termite-node run FILE.scm and termite-node repl work from the installed package', async () => {
  const file = path.join(app, 'pong.scm');
  writeFileSync(file, `(define p (spawn (lambda () (let ((m (?))) (! (car m) (list 'pong (cdr m)))))))
(! p (cons (self) 41))
(display (?)) (newline)
`);
  const r = ok(await run(process.execPath, [bin, 'run', file], { cwd: app, timeoutMs: 60_000 }), 'termite-node run');
  assert.equal(r.stdout.trim(), '(pong 41)');
  const repl = ok(await run(process.execPath, [bin, 'repl'], { cwd: app, timeoutMs: 60_000, input: '(define (sq x) (* x x))\n(sq 12)\n' }), 'termite-node repl');
  assert.match(repl.stdout, /\b144\b/);
});

test("import '@termite/runtime' runs a Scheme and a JS process side by side", async () => {
  writeFileSync(path.join(app, 'side-by-side.js'), `import { createNode, list, toJs } from '@termite/runtime';
const node = await createNode({});
const me = node.mailbox();
const echo = node.spawnScheme('(lambda () (let loop () (let ((m (?))) (! (car m) (cdr m)) (loop))))');
const doubler = node.spawnJs(async (self) => { for (;;) { const m = await self.receive(); self.send(m.car, m.cdr.car * 2); } });
me.send(echo, list(me.pid, 'hello', 42));
const fromScheme = toJs(await me.receive({ timeoutMs: 10000 }));
me.send(doubler, list(me.pid, 21));
const fromJs = toJs(await me.receive({ timeoutMs: 10000 }));
node.out('job', 7);
const tuple = await node.inp('job', 7);
console.log(JSON.stringify({ fromScheme, fromJs, tuple }));
node.stop();
`);
  const r = ok(await run(process.execPath, ['side-by-side.js'], { cwd: app, timeoutMs: 60_000 }), 'the JS API program');
  assert.deepEqual(JSON.parse(r.stdout.trim().split('\n').pop() ?? ''), { fromScheme: ['hello', 42], fromJs: 42, tuple: ['job', 7] });
});

test('a TypeScript program type-checks against the installed declarations, and a misuse does not', async () => {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022',
      lib: ['es2023', 'dom'], skipLibCheck: true, typeRoots: [path.join(root, 'node_modules', '@types')], types: ['node'],
    },
    files: ['uses-api.ts'],
  }));
  const good = `import { createNode, list, sym, toJs, formal, type ApiNode, type Pid } from '@termite/runtime';
import { createMeshNode } from '@termite/mesh';
const node: ApiNode = await createNode({ stdout: (s: string) => { process.stdout.write(s); } });
const r = await node.runProgram('(display 1)', { file: 'x.scm' });
const done: boolean = r.ok;
const me = node.mailbox();
const pid: Pid = node.spawnScheme('(lambda () (?))');
me.send(pid, list(me.pid, sym('hi'), 42));
const doubler: Pid = node.spawnJs(async (self) => { const m = await self.receive({ timeoutMs: 10 }); self.send(m.car, 1); });
node.out(node.space('results'), 'r', 1.5);
const t: any[] | null = await node.inp('job', formal.integer);
console.log(done, doubler, t, toJs(null), typeof createMeshNode);
node.stop();
export {};
`;
  writeFileSync(path.join(app, 'uses-api.ts'), good);
  ok(await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app, timeoutMs: 180_000 }), 'tsc on a program using the public API');
  writeFileSync(path.join(app, 'uses-api.ts'), good.replace("node.spawnScheme('(lambda () (?))')", 'node.spawnScheme(42)'));
  const bad = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app, timeoutMs: 180_000 });
  assert.notEqual(bad.status, 0, 'a number where the API takes Scheme source is a type error');
  assert.match(bad.stdout, /uses-api\.ts\(\d+,\d+\): error TS2345/);
});

test('in Chromium, the installed dashboard draws the mesh graph: the daemon and a worker tab', { skip: !chromiumPath && 'Chromium is not installed (apt-get install chromium, or set CHROMIUM)', timeout: 120_000 }, async () => {
  if (!daemon) throw new Error('the daemon test did not start the daemon');
  const { launchChromium } = await import('./helpers/browser.js');
  const chromium = await launchChromium();
  try {
    const context = await chromium.browser.newContext();
    const dash = await context.newPage();
    /** @type {string[]} */
    const errors = [];
    dash.on('pageerror', (e) => errors.push(e.message));
    await dash.goto(url('/'));
    const wait = { state: /** @type {const} */ ('attached'), timeout: 30_000 };
    await dash.locator(`#graph g.node[data-self="true"][data-node-id="${daemon.id}"]`).waitFor(wait);
    const tab = await context.newPage();
    await tab.goto(url('/worker'));
    await dash.bringToFront();
    await dash.locator('#graph g.node[data-kind="tab"]').first().waitFor(wait);
    await dash.locator('#graph g.link').first().waitFor(wait);
    assert.deepEqual(errors, [], 'no errors in the dashboard page');
  } finally {
    await chromium.close();
  }
});

test('npm test on a machine with only Node.js: suites needing missing tools are skipped with the install command; TERMITE_REQUIRE_ALL=1 fails them', async () => {
  // a PATH with node and a shell only (symlinks), as on a machine without make, clang or Chromium
  const only = path.join(tmp, 'node-only-bin');
  mkdirSync(only);
  symlinkSync(process.execPath, path.join(only, 'node'));
  symlinkSync('/bin/sh', path.join(only, 'sh'));
  const env = { PATH: only, TERMITE_TEST_ONLY: 'c,fuzz,e2e', CHROMIUM: '', TERMITE_REQUIRE_ALL: '' };
  const script = path.join(root, 'scripts', 'test-all.js');
  const r = await run(process.execPath, [script], { cwd: root, timeoutMs: 120_000, env });
  assert.equal(r.status, 0, `a run with only skips passes:\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /^== c: skipped — needs make .*install: apt-get install make/m);
  assert.match(r.stdout, /^== fuzz: skipped — .*needs clang with libFuzzer .*install: apt-get install clang libclang-rt-14-dev/m);
  assert.match(r.stdout, /^== e2e: skipped — needs Chromium .*install: apt-get install chromium/m);
  assert.match(r.stdout, /^0 passed, 0 failed$/m);
  const strict = await run(process.execPath, [script], { cwd: root, timeoutMs: 120_000, env: { ...env, TERMITE_REQUIRE_ALL: '1' } });
  assert.equal(strict.status, 1, 'under TERMITE_REQUIRE_ALL=1 a skipped suite fails the run');
  assert.match(strict.stdout, /^problem: fuzz: skipped, and TERMITE_REQUIRE_ALL=1 requires every suite$/m);
  assert.match(strict.stdout, /^0 passed, 3 failed$/m);
});
