# SPDX-License-Identifier: MIT
"""sdtkit: a ctypes binding to libsdtkit's native API: status codes become
exceptions carrying sdtkit_strerror's name and the provider's message."""

import ctypes
from ctypes import (POINTER, Union, byref, c_char_p, c_double, c_int,
                    c_int64, c_uint64, c_void_p)

TYPES = {"int8": -1, "uint8": 1, "int16": -2, "uint16": 2, "int32": -4,
         "uint32": 4, "int64": -8, "uint64": 8, "pointer": 16, "string": 17,
         "float": 18, "double": 19}


class Value(Union):
    _fields_ = [("i", c_int64), ("u", c_uint64), ("d", c_double),
                ("p", c_void_p)]


lib = ctypes.CDLL("libsdtkit.so")
lib.sdtkit_provider_create.argtypes = [c_char_p, POINTER(c_void_p)]
lib.sdtkit_provider_add_probe.argtypes = [c_void_p, c_char_p, POINTER(c_int),
                                          c_int, POINTER(c_void_p)]
for f in ("sdtkit_provider_load", "sdtkit_provider_unload"):
    getattr(lib, f).argtypes = [c_void_p]
lib.sdtkit_provider_destroy.argtypes = [c_void_p]
lib.sdtkit_provider_destroy.restype = None
lib.sdtkit_provider_error.argtypes = [c_void_p]
lib.sdtkit_provider_error.restype = c_char_p
lib.sdtkit_provider_path.argtypes = [c_void_p]
lib.sdtkit_provider_path.restype = c_char_p
lib.sdtkit_strerror.argtypes = [c_int]
lib.sdtkit_strerror.restype = c_char_p
lib.sdtkit_probe_fire.argtypes = [c_void_p, POINTER(Value)]
lib.sdtkit_probe_fire.restype = None
lib.sdtkit_probe_is_enabled.argtypes = [c_void_p]
lib.sdtkit_probe_name.argtypes = [c_void_p]
lib.sdtkit_probe_name.restype = c_char_p
lib.sdtkit_probe_nargs.argtypes = [c_void_p]


class Error(Exception):
    """A status code: code is its name (SDTKIT_E_STATE ...), message the
    provider's message."""

    def __init__(self, status, message):
        self.code = lib.sdtkit_strerror(status).decode().split(":")[0]
        self.message = message
        super().__init__(f"{self.code}: {message}")


class Provider:
    def __init__(self, name):
        self.handle = None
        handle = c_void_p()
        rc = lib.sdtkit_provider_create(name.encode(), byref(handle))
        if rc != 0:
            raise Error(rc, "")
        self.handle = handle

    def _check(self, rc):
        if rc != 0:
            raise Error(rc, lib.sdtkit_provider_error(self.handle).decode())

    def add_probe(self, name, *types):
        fmt = [TYPES[t] for t in types]
        out = c_void_p()
        self._check(lib.sdtkit_provider_add_probe(
            self.handle, name.encode(), (c_int * len(fmt))(*fmt), len(fmt),
            byref(out)))
        return Probe(out, fmt, types)

    def load(self):
        self._check(lib.sdtkit_provider_load(self.handle))

    def unload(self):
        self._check(lib.sdtkit_provider_unload(self.handle))

    @property
    def path(self):
        p = lib.sdtkit_provider_path(self.handle)
        return p.decode() if p is not None else None

    def destroy(self):
        if self.handle:
            lib.sdtkit_provider_destroy(self.handle)
        self.handle = None

    def __del__(self):
        self.destroy()


class Probe:
    def __init__(self, handle, fmt, types):
        self.handle = handle
        self.fmt = fmt
        self.types = types

    @property
    def name(self):
        return lib.sdtkit_probe_name(self.handle).decode()

    @property
    def nargs(self):
        return lib.sdtkit_probe_nargs(self.handle)

    @property
    def is_enabled(self):
        return lib.sdtkit_probe_is_enabled(self.handle) != 0

    def fire(self, *args):
        """Fire while a tracer is attached: True when it fired."""
        if not self.is_enabled:
            return False
        values = (Value * max(len(self.fmt), 1))()
        keep = []
        for i, (t, a) in enumerate(zip(self.fmt, args)):
            if isinstance(a, str):
                keep.append(ctypes.create_string_buffer(a.encode()))
                values[i].p = ctypes.cast(keep[-1], c_void_p)
            elif t < 0:
                values[i].i = a
            else:
                values[i].u = a
        lib.sdtkit_probe_fire(self.handle, values)
        return True
