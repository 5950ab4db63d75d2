# SPDX-License-Identifier: MIT
"""stapsdt: a ctypes binding to libstapsdt's API, as Python bindings for
libstapsdt are written: the library loaded by its unversioned name, the
structures declared here (member for member, libstapsdt.h's layout) so that
the binding reads what libstapsdt sets, and a probe that fires only while
a tracer is attached."""

import ctypes
from ctypes import (POINTER, Structure, c_char_p, c_int, c_int8, c_int16,
                    c_int32, c_int64, c_uint8, c_uint16, c_uint32, c_uint64,
                    c_void_p)

MAX_ARGUMENTS = 6

# ArgType_t: the note's size, negative when signed; strings go as uint64.
TYPES = {"int8": -1, "uint8": 1, "int16": -2, "uint16": 2, "int32": -4,
         "uint32": 4, "int64": -8, "uint64": 8, "string": 8}
# How each is passed to the variadic probeFire.
CTYPES = {-1: c_int8, 1: c_uint8, -2: c_int16, 2: c_uint16, -4: c_int32,
          4: c_uint32, -8: c_int64, 8: c_uint64}


class SDTProbe(Structure):
    pass


class SDTProvider(Structure):
    pass


SDTProbe._fields_ = [("name", c_char_p), ("argFmt", c_int * MAX_ARGUMENTS),
                     ("_fire", c_void_p), ("provider", POINTER(SDTProvider)),
                     ("argCount", c_int)]
SDTProvider._fields_ = [("name", c_char_p), ("probes", c_void_p),
                        ("errno", c_int), ("error", c_char_p),
                        ("_handle", c_void_p), ("_filename", c_char_p),
                        ("_memfd", c_int), ("_use_memfd", c_int)]

lib = ctypes.CDLL("libstapsdt.so")
lib.providerInit.argtypes = [c_char_p]
lib.providerInit.restype = POINTER(SDTProvider)
lib.providerAddProbe.restype = POINTER(SDTProbe)
for f in ("providerLoad", "providerUnload"):
    getattr(lib, f).argtypes = [POINTER(SDTProvider)]
    getattr(lib, f).restype = c_int
lib.providerDestroy.argtypes = [POINTER(SDTProvider)]
lib.providerDestroy.restype = None
lib.probeFire.restype = None
lib.probeIsEnabled.argtypes = [POINTER(SDTProbe)]
lib.probeIsEnabled.restype = c_int


class Provider:
    """A provider; destroyed with the object, its probes then dropped."""

    def __init__(self, name):
        self.name = name
        self.handle = lib.providerInit(name.encode())
        self.probes = []

    def add_probe(self, name, *types):
        probe = Probe(self, name, [TYPES[t] for t in types], types)
        self.probes.append(probe)
        return probe

    def load(self):
        return lib.providerLoad(self.handle)

    def unload(self):
        return lib.providerUnload(self.handle)

    @property
    def members(self):
        """The SDTProvider_t itself (ValueError when there is none)."""
        return self.handle.contents

    def destroy(self):
        if self.handle:
            lib.providerDestroy(self.handle)
        self.handle = None

    def __del__(self):
        self.destroy()


class Probe:
    def __init__(self, provider, name, fmt, types):
        self.name = name
        self.fmt = fmt
        self.types = types
        self.handle = lib.providerAddProbe(provider.handle, name.encode(),
                                           c_int(len(fmt)),
                                           *[c_int(t) for t in fmt])

    @property
    def members(self):
        return self.handle.contents

    @property
    def is_enabled(self):
        return bool(self.handle) and lib.probeIsEnabled(self.handle) == 1

    def fire(self, *args):
        """Fire while a tracer is attached: True when it fired."""
        if not self.is_enabled:
            return False
        values = []
        for t, a in zip(self.fmt, args):
            values.append(c_char_p(a.encode()) if isinstance(a, str)
                          else CTYPES[t](a))
        lib.probeFire(self.handle, *values)
        return True
