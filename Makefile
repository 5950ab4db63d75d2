# SPDX-License-Identifier: MIT
# sdtkit: a drop-in <sys/sdt.h> and dtrace -h/-G, in C with libc only.
#
#   make                  build the programs and the provider examples, run the demo,
#                         install into build/prefix and write build/env.sh (make env)
#   make check            run every test suite (and the programs' suites again under
#                         ASan/UBSan and built with musl); SUITES="tests/a.bats ..."
#                         runs only those
#   make check-fast       the fast tier: host compilers, the tools, the run-time
#                         library (also check-cross, check-tracers, check-release)
#   make install PREFIX=/usr/local DESTDIR= LIBDIR=   the tools, headers, man
#                         pages, run-time libraries, pkg-config and CMake files
#   make uninstall, make clean, make bench, make fuzz (FUZZ_SECONDS=60 each)
#   make dist, make distcheck   the release tarball, build/sdtkit-VERSION.tar.gz
#   make deb, make rpm    the Debian and RPM packages, from that tarball
#   make musl             the tools and run-time libraries built with musl-gcc
#
# Layout: lib/ is the core (build/libsdtcore.a), tools/ the programs that
# link it, runtime/ the run-time probe library.  Everything built goes to
# build/: the programs to build/bin, the objects and libraries to build/,
# each other build variant's to a directory of its own (build/asan/,
# build/musl/ ...: variants.table), the examples to build/examples.
# Packaging is packaging.mk.

# The variant rules below come before "all:"; plain make means all.
.DEFAULT_GOAL := all

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
# The run-time libraries and their pkg-config and CMake files are
# architecture-dependent: LIBDIR (Debian passes its multiarch directory).
# sdtkit.pc and sdtkit's CMake package hold no such path: share/.
LIBDIR     ?= $(PREFIX)/lib
PKGCONFIGDIR ?= $(PREFIX)/share/pkgconfig
LIBPKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DESTDIR    ?=

CC      ?= cc
CFLAGS  ?= -O2 -g
# The one source of the version: VERSION (the programs and the packages).
VERSION    := $(shell cat $(dir $(lastword $(MAKEFILE_LIST)))VERSION)
# Flags the project itself insists on; CFLAGS stays the user's to change.
# -fPIC: the core also goes into the run-time shared library.
WARN_CFLAGS = -std=c11 -Wall -Wextra -Wpedantic -Werror
BASE_CFLAGS = $(WARN_CFLAGS) -D_POSIX_C_SOURCE=200809L -DSDTKIT_VERSION=\"$(VERSION)\" \
              -fPIC -MMD -MP
SAN_FLAGS   = -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
              -fno-omit-frame-pointer

BATS ?= bats

# ---- What is built from what ------------------------------------------

LIB_SRCS       = $(sort $(wildcard lib/*.c))
DTRACE_SRCS    = tools/dtrace.c $(sort $(wildcard tools/dtrace-*.c))
SDTLIST_SRCS   = tools/sdt-list.c $(sort $(wildcard tools/sdt-list-*.c))
PROGRAMS       = dtrace sdt-list
# The run-time probe library (runtime/): libsdtkit (<sdtkit.h>) and
# libstapsdt (<libstapsdt.h>, libstapsdt's ABI on the same code), each
# shared (exporting its API only: a version script) and static (one
# relocatable object whose other symbols are made local, so a program or a
# binding's shared object that links the archive meets none of ours).  Both
# hold the pure core only.
RT_CORE_SRCS   = lib/arch.c lib/elfwrite.c lib/sha1.c lib/dso.c
RT_NATIVE_SRCS = runtime/provider.c runtime/object.c runtime/place.c runtime/failure.c \
                 runtime/fire.c runtime/lttng.c \
                 $(RT_CORE_SRCS)
RT_COMPAT_SRCS = runtime/stapsdt.c $(RT_NATIVE_SRCS)
SDTKIT_SO      = libsdtkit.so.1
STAPSDT_SO     = libstapsdt.so.0
RT_FILES       = $(SDTKIT_SO) $(STAPSDT_SO) libsdtkit.a libstapsdt.a
ALL_SRCS       = $(sort $(LIB_SRCS) $(DTRACE_SRCS) $(SDTLIST_SRCS) $(RT_COMPAT_SRCS))

objs = $(patsubst %.c,$(1)/%.o,$(2))

# ---- Build variants -----------------------------------------------------
#
# variants.table says each variant once: its directories, its toolchain
# (CC, LD, OBJCOPY, AR), its flags and what make check runs with it.  Each
# cell becomes V.COLUMN here (normal.dir, asan.cc ...; "-" is empty) and
# variant_rules V gives V every rule: objects, libsdtcore.a (a program
# links only the members it uses), the run-time libraries and archives,
# dtrace and sdt-list; a variant whose dir is an earlier one's gets its
# programs only, from that one's objects.  A make target asks for what it
# wants of a variant (build/asan/libsdtkit.so.1): make builds nothing else.
# A new variant is one row of the table.

OBJCOPY    ?= objcopy
MUSL_CC    ?= musl-gcc
FUZZ_CC    ?= clang
FUZZ_DIR   ?= build/fuzz
FUZZ_FLAGS  = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
NDEBUG_DIR ?= build/ndebug

# The table's cells, read by tests/table as NAME.COLUMN=VALUE words (a
# blank inside a value written ^, "-" made empty), and VARIANTS, the
# names in order.
VARIANT_CELLS := $(patsubst %=-,%=,$(shell tests/table variants.table | tr ' ' ^))
VARIANTS      := $(shell tests/table variants.table name)
$(foreach c,$(VARIANT_CELLS),$(eval $(subst ^, ,$(c))))

# The run-time library's thread-local variable (runtime.h: fire_rider)
# through a TLS descriptor: -mtls-dialect=gnu2 where the compiler $(1)
# is for x86 and takes it.
tls_flags = $(shell $(1) -mtls-dialect=gnu2 -dM -E -x c /dev/null 2>/dev/null | \
                grep -q '__x86_64__\|__i386__' && echo -mtls-dialect=gnu2)
# tls_of V: tls_flags of variant V's compiler, asked once a make (at the
# first run-time object V compiles).
tls_of = $(if $(filter undefined,$(origin $(1)._tls)),$(eval $(1)._tls := \
    $(call tls_flags,$($(1).cc))))$($(1)._tls)

# An archive of one relocatable object where only the API stays global,
# so a static user's program cannot collide with the core's names: with
# variant V's ld -r, objcopy and ar.
define rt_archive
	$($(1).ld) -r -o $(@:.a=.o) $(filter %.o,$^)
	sed -n 's/^ *\([A-Za-z_][A-Za-z0-9_]*\);$$/\1/p' $(filter %.map,$^) > $(@:.a=.keep)
	$($(1).objcopy) --keep-global-symbols=$(@:.a=.keep) $(@:.a=.o)
	rm -f $@
	$($(1).ar) rcs $@ $(@:.a=.o)
endef

# variant_objects V: V's objects, core archive and run-time libraries.
define variant_objects
$$($(1).dir)/%.o: %.c VERSION
	@mkdir -p $$(@D)
	$$($(1).cc) $$(BASE_CFLAGS) $$($(1).cflags) $$(if $$(filter runtime/%,$$<),$$(call tls_of,$(1))) -c -o $$@ $$<

$$($(1).dir)/libsdtcore.a: $$(call objs,$$($(1).dir),$$(LIB_SRCS))
	rm -f $$@
	$$($(1).ar) rcs $$@ $$^

$$($(1).dir)/$$(SDTKIT_SO) $$($(1).dir)/libsdtkit.a: \
    $$(call objs,$$($(1).dir),$$(RT_NATIVE_SRCS)) runtime/sdtkit.map
$$($(1).dir)/$$(STAPSDT_SO) $$($(1).dir)/libstapsdt.a: \
    $$(call objs,$$($(1).dir),$$(RT_COMPAT_SRCS)) runtime/stapsdt.map
$$($(1).dir)/$$(SDTKIT_SO) $$($(1).dir)/$$(STAPSDT_SO):
	$$($(1).cc) $$($(1).ldflags) -shared -Wl,-soname,$$(@F) $$($(1).shflags) \
	    -Wl,--version-script=$$(filter %.map,$$^) -o $$@ $$(filter %.o,$$^) -ldl -lpthread
$$($(1).dir)/libsdtkit.a $$($(1).dir)/libstapsdt.a:
	$$(call rt_archive,$(1))
endef

# variant_rules V: every rule of V (its objects' only when no earlier
# variant has its dir); V.files, what it builds.
define variant_rules
$(if $(filter $($(1).dir),$(VARIANT_DIRS)),,$(call variant_objects,$(1)))
VARIANT_DIRS += $($(1).dir)
$(1).programs = $(addprefix $($(1).bin)/,$(PROGRAMS))
$(1).files = $$($(1).programs) $(addprefix $($(1).dir)/,$(RT_FILES))

$$($(1).bin)/dtrace: $$(call objs,$$($(1).dir),$$(DTRACE_SRCS)) $$($(1).dir)/libsdtcore.a
$$($(1).bin)/sdt-list: $$(call objs,$$($(1).dir),$$(SDTLIST_SRCS)) $$($(1).dir)/libsdtcore.a
$$($(1).programs):
	@mkdir -p $$(@D)
	$$($(1).cc) $$($(1).ldflags) -o $$@ $$^
endef

$(foreach v,$(VARIANTS),$(eval $(call variant_rules,$(v))))

# What the targets want of them.
TOOLS         = $(normal.programs)
RT_LIBS       = $(addprefix $(normal.dir)/,$(RT_FILES))

.PHONY: all tools headers runtime runtime-ndebug musl examples demo check install uninstall clean bench \
        fuzz fuzz-build
.DELETE_ON_ERROR:

all: tools headers runtime examples demo

tools: $(TOOLS)
runtime: $(RT_LIBS)
# make musl: the tools and the run-time libraries built with musl-gcc
# (Debian's musl-tools): make check builds them when musl-gcc is there:
# tests/run runs the programs' suites again with each pair of programs, and
# tests/musl.bats the libraries and the header.
musl: $(musl.files) $(musl-static.programs)
# tests/runtime.bats runs its cases, the reload loop and the threads on
# these (the ELF writer checks its bounds in every build).
runtime-ndebug: $(addprefix $(ndebug.dir)/,$(SDTKIT_SO) $(STAPSDT_SO))

# The installed usdt.h is one file, like libbpf's: include/usdt.h with
# sys/sdt-operands.h and sys/sdt-config.h inlined, so copying it alone into
# a project works.  The sources still say each rule once.
HEADER_SRCS = include/usdt.h include/sys/sdt-operands.h include/sys/sdt-config.h
headers: build/usdt.h

build/usdt.h: $(HEADER_SRCS) tools/inline-includes.awk
	@mkdir -p $(@D)
	awk -f tools/inline-includes.awk include/usdt.h > $@

# ---- libFuzzer harnesses (fuzz/*_fuzz.c): clang, with the core and the
# dtrace stages (not its main); `make fuzz` runs each for FUZZ_SECONDS.

FUZZ_SECONDS ?= 60
FUZZ_SRCS     = $(LIB_SRCS) $(filter-out tools/dtrace.c,$(DTRACE_SRCS))
FUZZERS       = $(patsubst fuzz/%.c,$(FUZZ_DIR)/%,$(wildcard fuzz/*_fuzz.c))

$(FUZZ_DIR)/%_fuzz: $(fuzz.dir)/fuzz/%_fuzz.o $(call objs,$(fuzz.dir),$(FUZZ_SRCS))
	$(fuzz.cc) $(fuzz.ldflags) -o $@ $^

# The run-time library's harness: its API on the pure core, not dtrace's.
$(FUZZ_DIR)/runtime_fuzz: $(fuzz.dir)/fuzz/runtime_fuzz.o $(call objs,$(fuzz.dir),$(RT_COMPAT_SRCS))
	$(fuzz.cc) $(fuzz.ldflags) -o $@ $^ -ldl -lpthread

fuzz-build: $(FUZZERS)

fuzz: $(FUZZERS)
	fuzz/run $(FUZZ_SECONDS) $(FUZZ_DIR) $(FUZZERS)

# ---- Examples, demo, tests ---------------------------------------------

# The examples are built in a copy, build/examples (cp -u keeps what did
# not change, so make there rebuilds what did), with this tree's dtrace,
# header and run-time library, never the system's, warnings as errors (the
# tracer suites read them there).
EXAMPLES_DIR = build/examples
EXAMPLE_VARS = DTRACE=$(CURDIR)/$(normal.bin)/dtrace SDT_INCLUDE=$(CURDIR)/include \
               RUNTIME_LIBDIR=$(CURDIR)/$(normal.dir) WARNFLAGS="-Wall -Wextra -Werror" \
               MESON_OPTS=-Dwerror=true

# (+: the copy is made under make -n too, which runs the make there)
examples: tools runtime
	+@mkdir -p $(EXAMPLES_DIR) && cp -pRu provider-examples/. $(EXAMPLES_DIR)/
	$(MAKE) -C $(EXAMPLES_DIR) $(EXAMPLE_VARS)

demo: examples
	@$(MAKE) -s -C $(EXAMPLES_DIR) demo $(EXAMPLE_VARS)

# tests/run decides what runs: a pass of the suites for each variant
# whose check column is not "-" (variants.table), the tier's tests of
# each; `tests/run --plan` prints those runs, "PASS SUITE" a line, and
# make check builds what they read: each pass's variant, where its
# compiler is installed (tests/run reports a pass it finds unbuilt), the
# examples for the tracer tier, the packages for the package suites.  One
# line ends it for all passes: N passed, N failed, N skipped.  `make -j
# check` builds the prerequisites in parallel; the suites get no jobserver
# (MAKEFLAGS unset) nor TIER (a command line's variables are exported):
# the make runs of tests are their own.
#
# Tiers (tests/run): TIER=all (make check), fast (make check-fast: host
# compilers, the tools and the run-time library, without the tools
# passes), cross, tracers, release (make check-cross ...).
TIER ?= all
ifneq ($(filter check,$(MAKECMDGOALS)),)
CHECK_PLAN     := $(shell env SDTKIT_TIER=$(TIER) tests/run --plan $(SUITES))
CHECK_VARIANTS  = $(foreach v,$(sort $(filter $(VARIANTS),$(CHECK_PLAN))), \
    $(if $(shell command -v $(firstword $($(v).cc)) 2>/dev/null),$(v)))
# check_runs SUITE...: those of the SUITEs the plan runs.
check_runs      = $(filter $(1),$(notdir $(filter-out $(VARIANTS),$(CHECK_PLAN))))
# The release tier's package suites read make deb's packages of this
# machine's architecture, arm64's and s390x's (cross-built in a testbed)
# and the testbeds' base layer (packaging.mk): make check builds those the
# suites it runs read, where dpkg-buildpackage is (as root, for a testbed).
CHECK_DEB      := $(shell command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null && echo deb)
CHECK_TESTBED  := $(shell [ "$$(id -u)" = 0 ] && command -v unshare >/dev/null && echo yes)
cross_ok        = $(shell dpkg-query -W -f '$${Status}' crossbuild-essential-$(1) 2>/dev/null | grep -q ' installed$$' && echo $(1))
CHECK_PACKAGES  = $(if $(call check_runs,deb.bats deb-multiarch.bats deb-cross.bats autopkgtest.bats),$(CHECK_DEB)) \
    $(if $(CHECK_DEB),$(if $(CHECK_TESTBED),$(if $(call check_runs,autopkgtest.bats),build/testbed/ok) \
    $(if $(call check_runs,deb-multiarch.bats deb-cross.bats),$(if $(call cross_ok,arm64),testbed-deb-arm64)) \
    $(if $(call check_runs,deb-cross.bats),$(if $(call cross_ok,s390x),testbed-deb-s390x))))
# tests/musl.bats reads make musl's programs, the static ones too.
CHECK_MUSL      = $(if $(call check_runs,musl.bats),$(if $(shell command -v $(MUSL_CC) 2>/dev/null),musl))
endif
check: headers $(foreach v,$(CHECK_VARIANTS),$($(v).files)) $(if $(filter all tracers,$(TIER)),examples) \
    $(CHECK_PACKAGES) $(CHECK_MUSL)
	env -u MAKEFLAGS -u MFLAGS -u TIER BATS=$(BATS) SDTKIT_TIER=$(TIER) tests/run $(SUITES)

check-fast check-cross check-tracers check-release:
	@$(MAKE) --no-print-directory check TIER=$(@:check-%=%)
.PHONY: check-fast check-cross check-tracers check-release

# ---- Installing ---------------------------------------------------------

HEADERS = include/sys/sdt.h include/sys/sdt-config.h include/sys/sdt-operands.h

# sdtkit.pc: `pkg-config --cflags sdtkit` finds the header and
# `pkg-config --variable=dtrace sdtkit` the program, for any PREFIX.  Paths
# under PREFIX are written relative to ${prefix} so --define-variable can
# move them.  Written at install time: the paths are those of this install.
pc_path = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))

# dtrace is also TRIPLET-dtrace for each of the targets (lib/triplets.h), as
# binutils' tools are named for cross builds: configure scripts look for
# ${host}-dtrace (Ruby's for that name alone), and the name gives -G its
# target.  Links to dtrace and to its man page.
TRIPLETS = $(shell sed -n 's/^ *T."\([^"]*\)".*/\1/p' lib/triplets.h)

install: tools headers install-runtime install-cmake
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(INCLUDEDIR)/sys $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(PKGCONFIGDIR)
	install -m 755 $(TOOLS) $(DESTDIR)$(BINDIR)/
	for t in $(TRIPLETS); do ln -sf dtrace $(DESTDIR)$(BINDIR)/$$t-dtrace && \
	    ln -sf dtrace.1 $(DESTDIR)$(MANDIR)/man1/$$t-dtrace.1 || exit 1; done
	install -m 644 $(HEADERS) $(DESTDIR)$(INCLUDEDIR)/sys/
	install -m 644 build/usdt.h $(DESTDIR)$(INCLUDEDIR)/usdt.h
	install -m 644 $(wildcard man/*.1) $(DESTDIR)$(MANDIR)/man1/
	printf '%s\n' 'prefix=$(PREFIX)' 'bindir=$(call pc_path,$(BINDIR))' \
	  'includedir=$(call pc_path,$(INCLUDEDIR))' 'dtrace=$${bindir}/dtrace' '' \
	  'Name: sdtkit' \
	  'Description: USDT probes: <sys/sdt.h> and dtrace -h/-G, in C with libc only' \
	  'Version: $(VERSION)' 'Cflags: -I$${includedir}' \
	  >$(DESTDIR)$(PKGCONFIGDIR)/sdtkit.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/sdtkit.pc

uninstall: uninstall-runtime uninstall-cmake
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(PROGRAMS) $(TRIPLETS:%=%-dtrace))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(TRIPLETS:%=%-dtrace.1))
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/sys/,$(notdir $(HEADERS)))
	rm -f $(DESTDIR)$(INCLUDEDIR)/usdt.h
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(wildcard man/*.1)))
	rm -f $(DESTDIR)$(PKGCONFIGDIR)/sdtkit.pc
	-rmdir $(DESTDIR)$(INCLUDEDIR)/sys 2>/dev/null

# ---- Installing the run-time libraries ----------------------------------
#
# Each shared library as Debian's and Fedora's library policies want it: the
# file libNAME.so.MAJOR.RT_MINOR, the SONAME link libNAME.so.MAJOR to it (what
# programs load), the development link libNAME.so (what -lNAME and bindings
# that load the library by name, as ctypes and .NET do, find); the static
# archives, the headers, the man pages, a pkg-config file each
# (sdtkit-runtime.pc for -lsdtkit, libstapsdt.pc for -lstapsdt).  Shared
# libraries are not executable (mode 644).

RT_MINOR   = 0.0
RT_SONAMES = $(SDTKIT_SO) $(STAPSDT_SO)
RT_HEADERS = include/sdtkit.h include/libstapsdt.h
RT_MANS    = man/sdtkit.3 man/libstapsdt.3
# rt_pc NAME LIB DESCRIPTION: the pkg-config file for -lLIB.
rt_pc = printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(call pc_path,$(LIBDIR))' \
	  'includedir=$(call pc_path,$(INCLUDEDIR))' '' 'Name: $(1)' 'Description: $(3)' \
	  'Version: $(VERSION)' 'Cflags: -I$${includedir}' 'Libs: -L$${libdir} -l$(2)' \
	  'Libs.private: -ldl -lpthread' >$(DESTDIR)$(LIBPKGCONFIGDIR)/$(1).pc

install-runtime: runtime
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(MANDIR)/man3 \
	    $(DESTDIR)$(LIBPKGCONFIGDIR)
	for so in $(RT_SONAMES); do \
	    install -m 644 $(normal.dir)/$$so $(DESTDIR)$(LIBDIR)/$$so.$(RT_MINOR) && \
	    ln -sfn $$so.$(RT_MINOR) $(DESTDIR)$(LIBDIR)/$$so && \
	    ln -sfn $$so $(DESTDIR)$(LIBDIR)/$${so%.so.*}.so || exit 1; \
	done
	install -m 644 $(addprefix $(normal.dir)/,libsdtkit.a libstapsdt.a) $(DESTDIR)$(LIBDIR)/
	install -m 644 $(RT_HEADERS) $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(RT_MANS) $(DESTDIR)$(MANDIR)/man3/
	$(call rt_pc,sdtkit-runtime,sdtkit,USDT probes created at run time (libsdtkit))
	$(call rt_pc,libstapsdt,stapsdt,The libstapsdt API for USDT probes created at run time (sdtkit))
	chmod 644 $(DESTDIR)$(LIBPKGCONFIGDIR)/sdtkit-runtime.pc $(DESTDIR)$(LIBPKGCONFIGDIR)/libstapsdt.pc

uninstall-runtime:
	for so in $(RT_SONAMES); do \
	    rm -f $(DESTDIR)$(LIBDIR)/$$so.$(RT_MINOR) $(DESTDIR)$(LIBDIR)/$$so \
	          $(DESTDIR)$(LIBDIR)/$${so%.so.*}.so; \
	done
	rm -f $(DESTDIR)$(LIBDIR)/libsdtkit.a $(DESTDIR)$(LIBDIR)/libstapsdt.a
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(notdir $(RT_HEADERS)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(RT_MANS)))
	rm -f $(DESTDIR)$(LIBPKGCONFIGDIR)/sdtkit-runtime.pc $(DESTDIR)$(LIBPKGCONFIGDIR)/libstapsdt.pc

.PHONY: install-runtime uninstall-runtime

# ---- This build as a prefix: build/env.sh ------------------------------
#
# make (or make env) installs this build into build/prefix and writes
# build/env.sh, which puts that prefix first on the paths compilers,
# linkers, the loader, the shell, pkg-config, CMake and man search: after
# `. build/env.sh` a shell runs this build's dtrace, sdt-list, headers and
# libraries, not a system's (README's examples).  Every directory is given
# to the install here, so that a PREFIX or LIBDIR given to make (or in the
# environment) does not move it.

ENV_PREFIX = $(CURDIR)/build/prefix
ENV_SCRIPT = build/env.sh
ENV_DIRS   = PREFIX=$(ENV_PREFIX) BINDIR=$(ENV_PREFIX)/bin INCLUDEDIR=$(ENV_PREFIX)/include \
             MANDIR=$(ENV_PREFIX)/share/man LIBDIR=$(ENV_PREFIX)/lib \
             PKGCONFIGDIR=$(ENV_PREFIX)/share/pkgconfig LIBPKGCONFIGDIR=$(ENV_PREFIX)/lib/pkgconfig \
             CMAKEDIR=$(ENV_PREFIX)/share/cmake/sdtkit \
             RT_CMAKEDIR=$(ENV_PREFIX)/lib/cmake/sdtkit-runtime DESTDIR=
# env_var NAME VALUE: the script's line putting VALUE before $NAME's value.
env_var = 'export $(1)="$(2)$${$(1):+:$$$(1)}"'

all: env
env: tools headers runtime
	@$(MAKE) -s --no-print-directory install $(ENV_DIRS)
	@printf '%s\n' '# Written by make: `. $(ENV_SCRIPT)` puts this build of sdtkit first.' \
	  $(call env_var,PATH,$(ENV_PREFIX)/bin) $(call env_var,CPATH,$(ENV_PREFIX)/include) \
	  $(call env_var,LIBRARY_PATH,$(ENV_PREFIX)/lib) \
	  $(call env_var,LD_LIBRARY_PATH,$(ENV_PREFIX)/lib) \
	  $(call env_var,PKG_CONFIG_PATH,$(ENV_PREFIX)/lib/pkgconfig:$(ENV_PREFIX)/share/pkgconfig) \
	  $(call env_var,CMAKE_PREFIX_PATH,$(ENV_PREFIX)) \
	  'export MANPATH="$(ENV_PREFIX)/share/man:$$MANPATH"' > $(ENV_SCRIPT)
	@echo 'sdtkit: `. $(ENV_SCRIPT)` puts this build first on PATH, CPATH, LD_LIBRARY_PATH ...'

.PHONY: env

# ---- Benchmarks, cleaning -----------------------------------------------

# Performance figures, side by side with SystemTap (not part of make check);
# the output is committed as BENCHMARKS.md.
bench: tools
	bench/run -o BENCHMARKS.md

clean:
	rm -rf build $(TESTBED_DIR)

# ---- Packaging: the CMake packages, make dist, distcheck, deb, rpm --------
include $(dir $(lastword $(MAKEFILE_LIST)))packaging.mk

# What each object was built from (-MMD), in every variant.
-include $(foreach d,$(sort $(VARIANT_DIRS)),$(patsubst %.o,%.d,$(call objs,$(d),$(ALL_SRCS))))
