// SPDX-License-Identifier: MIT
// The Node binding's driver: the commands of tests/bindings.bats,
// read from stdin, one reply line each, through the addon stapsdt.node
// (libstapsdt's API, argument "compat") or sdtkit.node (native), found on
// NODE_PATH.  "node driver.js worker API PROVIDER PROBE TYPE... -- VALUE..."
// is a worker, as Node's cluster makes them: a new process.
'use strict';

const fs = require('fs');
const readline = require('readline');
const childProcess = require('child_process');

const [role, api] = process.argv[2] === 'worker' ? ['worker', process.argv[3]] : ['main', process.argv[2]];
const addon = require(api === 'compat' ? 'stapsdt.node' : 'sdtkit.node');

// Waits on a tracer are bounded only against a hang: the suite's bound.
const HANG_MS = 1000 * Number(process.env.SDTKIT_HANG_SECONDS || 300);
const providers = new Map();
const probes = new Map();
let worker = null;

const name = (token) => (token === "''" ? '' : token);
const value = (token) => (/^-?[0-9]+$/.test(token) ? BigInt(token) : token);
const text = (s) => (s === null ? 'NULL' : `<${s}>`);

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function usage() {
  const fds = fs.readdirSync('/proc/self/fd').length;
  const maps = fs.readFileSync('/proc/self/maps', 'utf8').split('\n').length - 1;
  const rss = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]);
  return [fds, maps, rss];
}

function attempt(f) {
  try {
    f();
    return true;
  } catch (e) {
    return false;
  }
}

function toggle(count, unload, load) {
  const before = usage();
  let failed = 0;
  for (let i = 0; i < count; i++) failed += !(attempt(unload) && attempt(load));
  const after = usage();
  return `toggle ${count} failed ${failed} fds ${before[0]} ${after[0]} maps ${before[1]} ${after[1]}` +
    ` rss ${before[2]} ${after[2]}`;
}

// Until a tracer attaches to probe: false after HANG_MS.
function waitEnabled(probe) {
  const deadline = Date.now() + HANG_MS;
  while (!probe.isEnabled()) {
    if (Date.now() > deadline) return false;
    sleep(1);
  }
  return true;
}

// Fire probe with values every millisecond while a tracer is attached (a
// tracer raises the semaphore before its breakpoint is in; one that exits on
// its first event has gone when this returns): how many times, null when it
// had not gone after HANG_MS.
function serve(probe, values) {
  const deadline = Date.now() + HANG_MS;
  let n = 0;
  while (probe.isEnabled()) {
    if (Date.now() > deadline) return null;
    n += +probe.fire(() => values);
    sleep(1);
  }
  return n;
}

// ---- the two APIs: a provider and its probes, the reply of each command ----

const compat = {
  create(key) {
    try {
      providers.set(key, new addon.USDTProvider(name(key)));
    } catch (e) {
      providers.set(key, null);
      return 'provider NULL';
    }
    const m = providers.get(key).members();
    return `provider ${text(m.name)} errno ${m.errno} error ${text(m.error)} filename ${text(m.filename)}`;
  },
  probe(p, key, types) {
    const probe = p.addProbe(name(key), ...types);
    probes.set(key, probe.isNull() ? null : probe);
    if (probe.isNull()) {
      const m = p.members();
      return `probe NULL errno ${m.errno} error ${text(m.error)}`;
    }
    const m = probe.members();
    return `probe ${text(m.name)} argCount ${m.argCount} fire ${compat.fireByte(m)}`;
  },
  fireByte: (m) => (m.fireByte === null ? 'NULL' : m.fireByte.toString(16).padStart(2, '0')),
  status(verb, p, f) {
    if (attempt(f)) return `${verb} 0`;
    const m = p.members();
    return `${verb} -1 errno ${m.errno} error ${text(m.error)}`;
  },
  load: (p) => compat.status('load', p, () => p.enable()),
  unload: (p) => compat.status('unload', p, () => p.disable()),
  toggle: (p, n) => toggle(n, () => p.disable(), () => p.enable()),
  path(p) {
    const f = p.members().filename;
    return `path ${f === null ? 'NULL' : f}`;
  },
  state(key, probe) {
    const m = probe.members();
    return `state <${key}> argCount ${m.argCount} fire ${compat.fireByte(m)} enabled ${+probe.isEnabled()}`;
  },
};

const native = {
  create(key) {
    providers.set(key, null);
    try {
      providers.set(key, new addon.Provider(name(key)));
      return `provider <${name(key)}> 0`;
    } catch (e) {
      return `provider <${name(key)}> ${e.code}`;
    }
  },
  probe(p, key, types) {
    probes.set(key, null);
    const probe = p.addProbe(name(key), ...types);
    probes.set(key, probe);
    return `probe <${probe.name()}> nargs ${probe.nargs()}`;
  },
  load(p) {
    p.load();
    return 'load 0';
  },
  unload(p) {
    p.unload();
    return 'unload 0';
  },
  toggle: (p, n) => toggle(n, () => p.unload(), () => p.load()),
  path: (p) => `path ${p.path() === null ? 'NULL' : p.path()}`,
  state: (key, probe) => `state <${key}> nargs ${probe.nargs()} enabled ${+probe.isEnabled()}`,
};

const API = api === 'compat' ? compat : native;

async function run(cmd, args) {
  if (cmd === 'provider') return API.create(args[0]);
  if (['probe', 'load', 'unload', 'destroy', 'path', 'toggle'].includes(cmd)) {
    const p = providers.get(args[0]);
    if (!p) return `${cmd} NULL`;
    switch (cmd) {
      case 'probe': {
        const reply = API.probe(p, args[1], args.slice(2));
        if (probes.get(args[1])) probes.get(args[1]).definition = [args[0], args.slice(2)];
        return reply;
      }
      case 'load': return API.load(p);
      case 'unload': return API.unload(p);
      case 'path': return API.path(p);
      case 'toggle': return API.toggle(p, Number(args[1]));
      default:
        p.destroy();
        return 'destroy';
    }
  }
  const probe = probes.get(args[0]);
  if (!probe) return `${cmd} NULL`;
  const values = args.slice(1).map(value);
  switch (cmd) {
    case 'state': return API.state(args[0], probe);
    case 'fire': return `fire <${args[0]}> ${+probe.fire(() => values)}`;
    case 'wait': return `wait <${args[0]}> ${waitEnabled(probe) ? 'enabled' : 'timeout'}`;
    case 'serve': {
      const n = serve(probe, values);
      return `serve <${args[0]}> ${n === null ? 'timeout' : n}`;
    }
    case 'fork': {
      // Node's workers are new processes (cluster, child_process.fork):
      // each makes and loads its own provider, is traced on its own pid,
      // fires, and exits
      const [prov, types] = probe.definition;
      worker = childProcess.fork(__filename, ['worker', api, prov, args[0], ...types, '--', ...args.slice(1)],
        { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      worker.status = new Promise((resolve) => worker.on('exit', (code) => resolve(code)));
      // replied once the worker's probes are loaded, for the tracer to find
      await Promise.race([new Promise((resolve) => worker.once('message', resolve)), worker.status]);
      return `worker ${worker.pid}`;
    }
    default: return `unknown command ${cmd}`;
  }
}

async function main() {
  if (role === 'worker') {
    const sep = process.argv.indexOf('--');
    const [prov, key, ...types] = process.argv.slice(4, sep);
    const values = process.argv.slice(sep + 1).map(value);
    API.create(prov);
    API.probe(providers.get(prov), key, types);
    const loaded = API.load(providers.get(prov));
    process.send(loaded);
    const probe = probes.get(key);
    process.exitCode = waitEnabled(probe) && serve(probe, values) ? 0 : 3;
    process.disconnect();
    return;
  }
  process.stdout.write(`ready ${process.pid}\n`);
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    const words = line.split(/\s+/).filter((w) => w !== '');
    if (words.length === 0) continue;
    let reply;
    if (words[0] === 'reap') {
      reply = `reaped ${await worker.status}`;
    } else {
      try {
        reply = await run(words[0], words.slice(1));
      } catch (e) {
        if (!e.code || !e.code.startsWith('SDTKIT_')) throw e;
        reply = `${words[0]} ${e.code} <${e.message}>`;
      }
    }
    process.stdout.write(`${reply}\n`);
  }
}

main();
