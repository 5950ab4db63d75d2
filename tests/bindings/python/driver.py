# SPDX-License-Identifier: MIT
"""The Python binding's driver: the commands of tests/bindings.bats,
read from stdin, one reply line each, through stapsdt.py (libstapsdt's API,
argument "compat") or sdtkit.py (the native API, "native")."""

import ctypes
import os
import sys
import time

API = sys.argv[1]
# Waits on a tracer are bounded only against a hang: the suite's bound.
HANG = int(os.environ.get("SDTKIT_HANG_SECONDS", "300"))
if API == "compat":
    import stapsdt as binding
else:
    import sdtkit as binding


def name(token):
    return "" if token == "''" else token


def value(token):
    try:
        return int(token)
    except ValueError:
        return token


def text(b):
    return "NULL" if b is None else "<" + b.decode(errors="replace") + ">"


def usage():
    fds = len(os.listdir("/proc/self/fd"))
    with open("/proc/self/maps") as f:
        maps = sum(1 for _ in f)
    with open("/proc/self/status") as f:
        rss = next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))
    return fds, maps, rss


def wait_enabled(probe):
    """Until a tracer attaches to probe: False after HANG seconds."""
    deadline = time.monotonic() + HANG
    while not probe.is_enabled:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    return True


class Compat:
    """libstapsdt's API: the members bindings read."""

    @staticmethod
    def fire_byte(m):
        """_fire's first byte, in hex (0x90 untraced on x86-64), or NULL."""
        return "NULL" if not m._fire else "%02x" % ctypes.string_at(m._fire, 1)[0]

    @staticmethod
    def create(key):
        p = binding.Provider(name(key))
        if not p.handle:
            return None, "provider NULL"
        m = p.members
        return p, (f"provider {text(m.name)} errno {m.errno} error {text(m.error)}"
                   f" filename {text(m._filename)}")

    @staticmethod
    def probe(p, key, types):
        probe = p.add_probe(name(key), *types)
        if not probe.handle:
            m = p.members
            return None, f"probe NULL errno {m.errno} error {text(m.error)}"
        m = probe.members
        return probe, (f"probe {text(m.name)} argCount {m.argCount}"
                       f" fire {Compat.fire_byte(m)}")

    @staticmethod
    def status(verb, p, rc):
        if rc == 0:
            return f"{verb} 0"
        m = p.members
        return f"{verb} {rc} errno {m.errno} error {text(m.error)}"

    load = staticmethod(lambda p: Compat.status("load", p, p.load()))
    unload = staticmethod(lambda p: Compat.status("unload", p, p.unload()))
    cycle = staticmethod(lambda p: p.unload() == 0 and p.load() == 0)

    @staticmethod
    def path(p):
        f = p.members._filename
        return "NULL" if f is None else f.decode()

    @staticmethod
    def state(key, probe):
        m = probe.members
        return (f"state <{key}> argCount {m.argCount} fire {Compat.fire_byte(m)}"
                f" enabled {int(probe.is_enabled)}")


class Native:
    """The native API: status codes raise binding.Error."""

    @staticmethod
    def create(key):
        try:
            return binding.Provider(name(key)), f"provider <{name(key)}> 0"
        except binding.Error as e:
            return None, f"provider <{name(key)}> {e.code}"

    @staticmethod
    def probe(p, key, types):
        probe = p.add_probe(name(key), *types)
        return probe, f"probe <{probe.name}> nargs {probe.nargs}"

    @staticmethod
    def load(p):
        p.load()
        return "load 0"

    @staticmethod
    def unload(p):
        p.unload()
        return "unload 0"

    @staticmethod
    def cycle(p):
        try:
            p.unload()
            p.load()
            return True
        except binding.Error:
            return False

    path = staticmethod(lambda p: p.path or "NULL")
    state = staticmethod(lambda key, probe: f"state <{key}> nargs {probe.nargs}"
                         f" enabled {int(probe.is_enabled)}")


A = Compat if API == "compat" else Native
providers = {}
probes = {}
worker = None


def toggle(p, count):
    before = usage()
    failed = sum(not A.cycle(p) for _ in range(count))
    after = usage()
    return (f"toggle {count} failed {failed} fds {before[0]} {after[0]}"
            f" maps {before[1]} {after[1]} rss {before[2]} {after[2]}")


def serve(probe, values):
    """Fire probe with values every millisecond while a tracer is attached
    (a tracer raises the semaphore before its breakpoint is in; one that
    exits on its first event has gone when this returns): how many times,
    None when it had not gone after HANG seconds."""
    deadline = time.monotonic() + HANG
    n = 0
    while probe.is_enabled:
        if time.monotonic() > deadline:
            return None
        n += probe.fire(*values)
        time.sleep(0.001)
    return n


def fork(probe, values):
    """A pre-fork server's worker: traced on its own pid, it serves the
    probe it inherited, then exits as Python does, finalisers and all."""
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        sys.exit(0 if wait_enabled(probe) and serve(probe, values) else 3)
    return pid


def provider_command(cmd, p, args):
    if cmd == "probe":
        probes[args[1]] = None
        probes[args[1]], reply = A.probe(p, args[1], args[2:])
        return reply
    if cmd in ("load", "unload"):
        return getattr(A, cmd)(p)
    if cmd == "path":
        return "path " + A.path(p)
    if cmd == "destroy":
        p.destroy()
        return "destroy"
    return toggle(p, int(args[1]))


def probe_command(cmd, key, probe, values):
    global worker
    if cmd == "state":
        return A.state(key, probe)
    if cmd == "fire":
        return f"fire <{key}> {int(probe.fire(*values))}"
    if cmd == "wait":
        return f"wait <{key}> " + ("enabled" if wait_enabled(probe) else "timeout")
    if cmd == "serve":
        n = serve(probe, values)
        return f"serve <{key}> " + ("timeout" if n is None else str(n))
    if cmd == "fork":
        worker = fork(probe, values)
        return f"worker {worker}"
    raise ValueError(f"unknown command {cmd}")


def run(cmd, args):
    try:
        if cmd == "provider":
            providers[args[0]], reply = A.create(args[0])
            return reply
        if cmd in ("probe", "load", "unload", "destroy", "path", "toggle"):
            p = providers.get(args[0])
            return f"{cmd} NULL" if p is None else provider_command(cmd, p, args)
        probe = probes.get(args[0])
        if probe is None:
            return f"{cmd} NULL"
        return probe_command(cmd, args[0], probe, [value(a) for a in args[1:]])
    except getattr(binding, "Error", ()) as e:
        return f"{cmd} {e.code} <{e.message}>"


def main():
    print(f"ready {os.getpid()}", flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "reap":
            _, status = os.waitpid(worker, 0)
            reply = f"reaped {os.waitstatus_to_exitcode(status)}"
        else:
            reply = run(words[0], words[1:])
        print(reply, flush=True)


main()
