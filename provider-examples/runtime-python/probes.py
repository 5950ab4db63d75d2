#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run-time probes from Python with ctypes alone: no compiler, no module.

The program below is an "event loop" that makes a provider, `pyapp', with
two probes, `request(str path, int64 id)' and `done(int64 id, double
seconds)', loads it and fires them while it runs:

    python3 probes.py [COUNT [SECONDS]]      (COUNT 0: forever)

It prints the file tracers open (/proc/PID/fd/N) first.  The library is
libsdtkit.so.1, found by the system's loader, or in $SDTKIT_LIBDIR.
"""
import ctypes
import os
import sys
import time

# <sdtkit.h>, as ctypes sees it
SDTKIT_INT64, SDTKIT_STRING, SDTKIT_DOUBLE = -8, 17, 19


class Value(ctypes.Union):
    """sdtkit_value: one argument, in the member its type reads."""
    _fields_ = [("i", ctypes.c_int64), ("u", ctypes.c_uint64),
                ("d", ctypes.c_double), ("p", ctypes.c_char_p)]


def load_library():
    name = "libsdtkit.so.1"
    libdir = os.environ.get("SDTKIT_LIBDIR")
    lib = ctypes.CDLL(os.path.join(libdir, name) if libdir else name)
    vp = ctypes.c_void_p
    lib.sdtkit_provider_create.argtypes = [ctypes.c_char_p, ctypes.POINTER(vp)]
    lib.sdtkit_provider_add_probe.argtypes = [vp, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int),
                                              ctypes.c_int, ctypes.POINTER(vp)]
    lib.sdtkit_provider_load.argtypes = [vp]
    lib.sdtkit_provider_destroy.argtypes = [vp]
    lib.sdtkit_provider_destroy.restype = None
    lib.sdtkit_provider_error.argtypes = [vp]
    lib.sdtkit_provider_error.restype = ctypes.c_char_p
    lib.sdtkit_provider_path.argtypes = [vp]
    lib.sdtkit_provider_path.restype = ctypes.c_char_p
    lib.sdtkit_probe_fire.argtypes = [vp, ctypes.POINTER(Value)]
    lib.sdtkit_probe_fire.restype = None
    lib.sdtkit_probe_is_enabled.argtypes = [vp]
    return lib


class Provider:
    def __init__(self, lib, name):
        self.lib, self.handle = lib, ctypes.c_void_p()
        if lib.sdtkit_provider_create(name.encode(), ctypes.byref(self.handle)) != 0:
            raise ValueError(f"bad provider name {name!r}")

    def check(self, rc):
        if rc != 0:
            raise OSError(self.lib.sdtkit_provider_error(self.handle).decode())

    def probe(self, name, *types):
        probe = ctypes.c_void_p()
        array = (ctypes.c_int * len(types))(*types)
        self.check(self.lib.sdtkit_provider_add_probe(self.handle, name.encode(), array,
                                                      len(types), ctypes.byref(probe)))
        return Probe(self.lib, probe, types)

    def load(self):
        self.check(self.lib.sdtkit_provider_load(self.handle))
        return self.lib.sdtkit_provider_path(self.handle).decode()

    def close(self):
        self.lib.sdtkit_provider_destroy(self.handle)


class Probe:
    def __init__(self, lib, handle, types):
        self.lib, self.handle, self.types = lib, handle, types

    def enabled(self):
        return self.lib.sdtkit_probe_is_enabled(self.handle) != 0

    def fire(self, *args):
        values = (Value * max(len(args), 1))()
        for v, t, a in zip(values, self.types, args):
            if t == SDTKIT_STRING:
                v.p = a.encode()
            elif t == SDTKIT_DOUBLE:
                v.d = a
            else:
                v.i = a
        self.lib.sdtkit_probe_fire(self.handle, values)


def main(argv):
    count = int(argv[1]) if len(argv) > 1 else 0
    pause = float(argv[2]) if len(argv) > 2 else 1.0
    provider = Provider(load_library(), "pyapp")
    request = provider.probe("request", SDTKIT_STRING, SDTKIT_INT64)
    done = provider.probe("done", SDTKIT_INT64, SDTKIT_DOUBLE)
    print(provider.load(), flush=True)
    i = 0
    while count == 0 or i < count:
        i += 1
        path, start = f"/item/{i % 7}", time.monotonic()
        if request.enabled():          # arguments are only built when traced
            request.fire(path, i)
        seconds = time.monotonic() - start
        if done.enabled():
            done.fire(i, seconds)
        print(f"request {i} {path}{'  [traced]' if done.enabled() else ''}", flush=True)
        time.sleep(pause)
    provider.close()


if __name__ == "__main__":
    main(sys.argv)
