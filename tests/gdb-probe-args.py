# SPDX-License-Identifier: MIT
# Sourced by gdb from tests/helpers.bash (gdb_runs): a breakpoint on a
# stap probe that prints "name hit", then every argument as gdb decodes it,
# and continues.
import gdb

class ProbeArgs(gdb.Breakpoint):
    def shown(self, value):
        return value

    def stop(self):
        name = self.location.split(":")[-1]
        print("%s hit" % name)
        try:
            argc = int(gdb.parse_and_eval("$_probe_argc"))
        except gdb.error as e:
            print("%s argc ERROR %s" % (name, str(e).replace("\n", " ")))
            return False
        for i in range(argc):
            try:
                value = self.shown(int(gdb.parse_and_eval("$_probe_arg%d" % i)))
                print("%s arg%d %d" % (name, i, value))
            except gdb.error as e:
                print("%s arg%d ERROR %s" % (name, i, str(e).replace("\n", " ")))
        return False

class ProbeArgs64(ProbeArgs):
    """The same, each value printed as a signed 64-bit integer (what a
    tracer reading the note's size and sign into a 64-bit register gives,
    as tests/header/args.c writes its expected values)."""
    def shown(self, value):
        value %= 1 << 64
        return value - (1 << 64) if value >= 1 << 63 else value
