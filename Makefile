# SPDX-License-Identifier: MIT
# sdtkit: a drop-in <sys/sdt.h> and dtrace -h/-G, in C with libc only.
#
#   make                  build the programs and the provider examples, run the demo
#   make check            run every test suite (and the programs' suites again under
#                         ASan/UBSan and built with musl); SUITES="tests/a.bats ..."
#                         runs only those
#   make install PREFIX=/usr/local DESTDIR= LIBDIR=   the tools, headers, man
#                         pages, run-time libraries, pkg-config and CMake files
#   make uninstall, make clean, make bench, make fuzz (FUZZ_SECONDS=60 each)
#   make dist, make distcheck   the release tarball, build/sdtkit-VERSION.tar.gz
#   make deb, make rpm    the Debian and RPM packages, from that tarball
#   make musl             the tools and run-time libraries built with musl-gcc
#
# Layout: lib/ is the core (build/libsdtcore.a), tools/ the programs that
# link it.  Objects go to build/ (build/asan/ for the sanitizer build).

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

LIB_SRCS     = $(sort $(wildcard lib/*.c))
DTRACE_SRCS  = tools/dtrace.c $(sort $(wildcard tools/dtrace-*.c))
SDTLIST_SRCS = tools/sdt-list.c
PROGRAMS     = dtrace sdt-list
TOOLS        = $(addprefix tools/,$(PROGRAMS))
ASAN_TOOLS   = $(addprefix build/asan/,$(PROGRAMS))

objs = $(patsubst %.c,$(1)/%.o,$(2))

.PHONY: all tools headers examples demo check install uninstall clean bench fuzz fuzz-build
.DELETE_ON_ERROR:

all: tools headers runtime examples demo

# The installed usdt.h is one file, like libbpf's: include/usdt.h with
# sys/sdt-operands.h and sys/sdt-config.h inlined, so copying it alone into
# a project works.  The sources still say each rule once.
HEADER_SRCS = include/usdt.h include/sys/sdt-operands.h include/sys/sdt-config.h
headers: build/usdt.h

build/usdt.h: $(HEADER_SRCS) tools/inline-includes.awk
	@mkdir -p $(@D)
	awk -f tools/inline-includes.awk include/usdt.h > $@

tools: $(TOOLS)

# One compile rule per build, for every source file.
build/%.o: %.c VERSION
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -c -o $@ $<

build/asan/%.o: %.c VERSION
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(SAN_FLAGS) -c -o $@ $<

# The core, archived: a program links only the members it uses.
build/libsdtcore.a: $(call objs,build,$(LIB_SRCS))
build/asan/libsdtcore.a: $(call objs,build/asan,$(LIB_SRCS))
build/libsdtcore.a build/asan/libsdtcore.a:
	rm -f $@
	$(AR) rcs $@ $^

tools/dtrace: $(call objs,build,$(DTRACE_SRCS)) build/libsdtcore.a
tools/sdt-list: $(call objs,build,$(SDTLIST_SRCS)) build/libsdtcore.a
build/asan/dtrace: $(call objs,build/asan,$(DTRACE_SRCS)) build/asan/libsdtcore.a
build/asan/sdt-list: $(call objs,build/asan,$(SDTLIST_SRCS)) build/asan/libsdtcore.a

$(TOOLS):
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^
$(ASAN_TOOLS):
	$(CC) $(SAN_FLAGS) -o $@ $^


# ---- The run-time probe library (runtime/) ----------------------------
#
# libsdtkit (<sdtkit.h>) and libstapsdt (<libstapsdt.h>, libstapsdt's ABI
# on the same code), each shared (exporting its API only: a version
# script) and static (one relocatable object whose other symbols are made
# local, so a program or a binding's shared object that links the archive
# meets none of ours).  Both hold the pure core only.

RT_CORE_SRCS   = lib/arch.c lib/elfwrite.c lib/sha1.c lib/dso.c
RT_NATIVE_SRCS = runtime/provider.c runtime/place.c
RT_COMPAT_SRCS = runtime/stapsdt.c
SDTKIT_SO      = libsdtkit.so.1
STAPSDT_SO     = libstapsdt.so.0
RT_LIBS        = build/$(SDTKIT_SO) build/$(STAPSDT_SO) build/libsdtkit.a build/libstapsdt.a

RT_NATIVE_OBJS = $(call objs,build,$(RT_NATIVE_SRCS) $(RT_CORE_SRCS))
RT_COMPAT_OBJS = $(call objs,build,$(RT_COMPAT_SRCS)) $(RT_NATIVE_OBJS)

build/$(SDTKIT_SO): $(RT_NATIVE_OBJS) runtime/sdtkit.map
build/$(STAPSDT_SO): $(RT_COMPAT_OBJS) runtime/stapsdt.map
build/$(SDTKIT_SO) build/$(STAPSDT_SO):
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(@F) -Wl,-z,defs \
	    -Wl,--version-script=$(filter %.map,$^) -o $@ $(filter %.o,$^) -ldl -lpthread

build/libsdtkit.a: $(RT_NATIVE_OBJS) runtime/sdtkit.map
build/libstapsdt.a: $(RT_COMPAT_OBJS) runtime/stapsdt.map
# An archive of one relocatable object where only the API stays global,
# so a static user's program cannot collide with the core's names.
define rt_archive
	$(LD) -r -o $(@:.a=.o) $(filter %.o,$^)
	sed -n 's/^ *\([A-Za-z_][A-Za-z0-9_]*\);$$/\1/p' $(filter %.map,$^) > $(@:.a=.keep)
	$(OBJCOPY) --keep-global-symbols=$(@:.a=.keep) $(@:.a=.o)
	rm -f $@
	$(AR) rcs $@ $(@:.a=.o)
endef
build/libsdtkit.a build/libstapsdt.a:
	$(rt_archive)

OBJCOPY ?= objcopy
runtime: $(RT_LIBS)
.PHONY: runtime

# The shared libraries again under ASan/UBSan, for the sanitizer pass.
ASAN_RT_LIBS = build/asan/$(SDTKIT_SO) build/asan/$(STAPSDT_SO)
build/asan/$(SDTKIT_SO): $(call objs,build/asan,$(RT_NATIVE_SRCS) $(RT_CORE_SRCS)) runtime/sdtkit.map
build/asan/$(STAPSDT_SO): $(call objs,build/asan,$(RT_COMPAT_SRCS) $(RT_NATIVE_SRCS) \
                          $(RT_CORE_SRCS)) runtime/stapsdt.map
$(ASAN_RT_LIBS):
	$(CC) $(SAN_FLAGS) -shared -Wl,-soname,$(@F) -Wl,--version-script=$(filter %.map,$^) \
	    -o $@ $(filter %.o,$^) -ldl -lpthread

# The shared libraries with the asserts off (-DNDEBUG), as a distribution
# may build them: `make runtime-ndebug` makes them in NDEBUG_DIR, and
# tests/runtime.bats runs its cases, the reload loop and the threads on
# them (the ELF writer checks its bounds in every build).
NDEBUG_DIR    ?= build/ndebug
NDEBUG_RT_LIBS = $(NDEBUG_DIR)/$(SDTKIT_SO) $(NDEBUG_DIR)/$(STAPSDT_SO)
$(NDEBUG_DIR)/%.o: %.c VERSION
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -DNDEBUG -c -o $@ $<
$(NDEBUG_DIR)/$(SDTKIT_SO): $(call objs,$(NDEBUG_DIR),$(RT_NATIVE_SRCS) $(RT_CORE_SRCS)) \
                            runtime/sdtkit.map
$(NDEBUG_DIR)/$(STAPSDT_SO): $(call objs,$(NDEBUG_DIR),$(RT_COMPAT_SRCS) $(RT_NATIVE_SRCS) \
                             $(RT_CORE_SRCS)) runtime/stapsdt.map
$(NDEBUG_RT_LIBS):
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(@F) -Wl,-z,defs \
	    -Wl,--version-script=$(filter %.map,$^) -o $@ $(filter %.o,$^) -ldl -lpthread
runtime-ndebug: $(NDEBUG_RT_LIBS)
.PHONY: runtime-ndebug

# ---- musl (the C library Alpine builds with) -----------------------------
#
# make musl: the tools and the run-time libraries built with musl-gcc
# (Debian's musl-tools) under build/musl: dtrace and sdt-list linked
# dynamically, and statically in build/musl/static; libsdtkit.so.1,
# libstapsdt.so.0 and the archives.  make check builds them when musl-gcc
# is there: tests/run runs the programs' suites again with each pair, and
# tests/musl.bats the libraries and the header.

MUSL_CC    ?= musl-gcc
MUSL        = build/musl
MUSL_TOOLS  = $(addprefix $(MUSL)/,$(PROGRAMS)) $(addprefix $(MUSL)/static/,$(PROGRAMS))
MUSL_RT     = $(addprefix $(MUSL)/,$(SDTKIT_SO) $(STAPSDT_SO) libsdtkit.a libstapsdt.a)
musl_objs   = $(call objs,$(MUSL),$(1))

$(MUSL)/%.o: %.c VERSION
	@mkdir -p $(@D)
	$(MUSL_CC) $(BASE_CFLAGS) $(CFLAGS) -c -o $@ $<

$(MUSL)/libsdtcore.a: $(call musl_objs,$(LIB_SRCS))
	rm -f $@
	$(AR) rcs $@ $^

$(MUSL)/dtrace $(MUSL)/static/dtrace: $(call musl_objs,$(DTRACE_SRCS)) $(MUSL)/libsdtcore.a
$(MUSL)/sdt-list $(MUSL)/static/sdt-list: $(call musl_objs,$(SDTLIST_SRCS)) $(MUSL)/libsdtcore.a
$(addprefix $(MUSL)/,$(PROGRAMS)):
	$(MUSL_CC) $(CFLAGS) $(LDFLAGS) -o $@ $^
$(addprefix $(MUSL)/static/,$(PROGRAMS)):
	@mkdir -p $(@D)
	$(MUSL_CC) -static $(CFLAGS) $(LDFLAGS) -o $@ $^

$(MUSL)/$(SDTKIT_SO) $(MUSL)/libsdtkit.a: $(call musl_objs,$(RT_NATIVE_SRCS) $(RT_CORE_SRCS)) \
                                          runtime/sdtkit.map
$(MUSL)/$(STAPSDT_SO) $(MUSL)/libstapsdt.a: $(call musl_objs,$(RT_COMPAT_SRCS) $(RT_NATIVE_SRCS) \
                                            $(RT_CORE_SRCS)) runtime/stapsdt.map
$(MUSL)/$(SDTKIT_SO) $(MUSL)/$(STAPSDT_SO):
	$(MUSL_CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(@F) -Wl,-z,defs \
	    -Wl,--version-script=$(filter %.map,$^) -o $@ $(filter %.o,$^)
$(MUSL)/libsdtkit.a $(MUSL)/libstapsdt.a:
	$(rt_archive)

musl: $(MUSL_TOOLS) $(MUSL_RT)
.PHONY: musl

# ---- libFuzzer harnesses (fuzz/*_fuzz.c): clang, with the core and the
# dtrace stages (not its main); `make fuzz` runs each for FUZZ_SECONDS.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR     ?= build/fuzz
FUZZ_FLAGS    = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_SRCS     = $(LIB_SRCS) $(filter-out tools/dtrace.c,$(DTRACE_SRCS))
FUZZERS       = $(patsubst fuzz/%.c,$(FUZZ_DIR)/%,$(wildcard fuzz/*_fuzz.c))

$(FUZZ_DIR)/obj/%.o: %.c VERSION
	@mkdir -p $(@D)
	$(FUZZ_CC) $(BASE_CFLAGS) $(FUZZ_FLAGS) -c -o $@ $<

$(FUZZ_DIR)/%_fuzz: $(FUZZ_DIR)/obj/fuzz/%_fuzz.o $(call objs,$(FUZZ_DIR)/obj,$(FUZZ_SRCS))
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $^

# The run-time library's harness: its API on the pure core, not dtrace's.
$(FUZZ_DIR)/runtime_fuzz: $(FUZZ_DIR)/obj/fuzz/runtime_fuzz.o \
                          $(call objs,$(FUZZ_DIR)/obj,$(RT_COMPAT_SRCS) $(RT_NATIVE_SRCS) $(RT_CORE_SRCS))
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $^ -ldl -lpthread

fuzz-build: $(FUZZERS)

fuzz: $(FUZZERS)
	fuzz/run $(FUZZ_SECONDS) $(FUZZ_DIR) $(FUZZERS)

# ---- Examples, demo, tests ---------------------------------------------

# The examples are built with this tree's dtrace and header, never the system's.
EXAMPLE_VARS = DTRACE=$(CURDIR)/tools/dtrace SDT_INCLUDE=$(CURDIR)/include \
               RUNTIME_LIBDIR=$(CURDIR)/build

examples: tools runtime
	$(MAKE) -C provider-examples $(EXAMPLE_VARS)

demo: examples
	@$(MAKE) -s -C provider-examples demo $(EXAMPLE_VARS)

# tests/run: every suite with the normal build, then the declared suites
# again with the sanitizer and musl builds, and one line for all passes:
# N passed, N failed, N skipped.  The suites build the examples in copies
# of their own: with SUITES given, the tree's examples are not rebuilt.
# The sanitizer and musl builds are made only when a suite of passes 2 to
# 4 (tests/sanitized-suites) is to run.  `make -j check` builds the
# prerequisites in parallel; the suites get no jobserver (MAKEFLAGS
# unset): the make runs of tests are their own.
SANITIZED_LIST   := $(shell awk '!/^\#/ && NF { print $$1 }' tests/sanitized-suites)
CHECK_SANITIZED   = $(if $(SUITES),$(filter $(SANITIZED_LIST),$(notdir $(SUITES))),all)
check: tools headers runtime $(if $(SUITES),,examples) \
       $(if $(CHECK_SANITIZED),$(ASAN_TOOLS) $(ASAN_RT_LIBS) \
         $(if $(shell command -v $(MUSL_CC) 2>/dev/null),musl))
	env -u MAKEFLAGS -u MFLAGS BATS=$(BATS) tests/run $(SUITES)

# ---- Installing ---------------------------------------------------------

HEADERS = include/sys/sdt.h include/sys/sdt-config.h include/sys/sdt-operands.h

# sdtkit.pc: `pkg-config --cflags sdtkit` finds the header and
# `pkg-config --variable=dtrace sdtkit` the program, for any PREFIX.  Paths
# under PREFIX are written relative to ${prefix} so --define-variable can
# move them.  Written at install time: the paths are those of this install.
pc_path = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))

install: tools headers install-runtime install-cmake
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(INCLUDEDIR)/sys $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(PKGCONFIGDIR)
	install -m 755 $(TOOLS) $(DESTDIR)$(BINDIR)/
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
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(PROGRAMS))
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
	    install -m 644 build/$$so $(DESTDIR)$(LIBDIR)/$$so.$(RT_MINOR) && \
	    ln -sfn $$so.$(RT_MINOR) $(DESTDIR)$(LIBDIR)/$$so && \
	    ln -sfn $$so $(DESTDIR)$(LIBDIR)/$${so%.so.*}.so || exit 1; \
	done
	install -m 644 build/libsdtkit.a build/libstapsdt.a $(DESTDIR)$(LIBDIR)/
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

# ---- The CMake packages -------------------------------------------------
#
# find_package(sdtkit): cmake/sdtkit-config.cmake.in (dtrace, the header,
# sdtkit_add_provider: nothing architecture-dependent, so in
# share/cmake/sdtkit, where a cross build finds it too) and
# cmake/sdtkit-runtime-config.cmake.in (the run-time libraries' targets, in
# LIBDIR/cmake/sdtkit-runtime, per architecture), written with this
# install's paths relative to PREFIX, so that a DESTDIR tree or a moved
# prefix is found where it is.  build/cmake holds both for this source tree
# (tools/dtrace, include/, build/), which the CMake example uses.

CMAKEDIR    ?= $(PREFIX)/share/cmake/sdtkit
RT_CMAKEDIR ?= $(LIBDIR)/cmake/sdtkit-runtime
CMAKE_IN     = $(wildcard cmake/*.in)
# rel PATH: PATH relative to PREFIX when under it, else as it is.
rel          = $(patsubst $(PREFIX)/%,%,$(1))
# up DIR: the way up from DIR to PREFIX (../../..), empty when not under it.
up           = $(if $(filter $(PREFIX)/%,$(1)),$(shell echo '$(call rel,$(1))' | sed 's|[^/][^/]*|..|g'))
# cmake_config NAME PREFIX UP CONFIG_DIR BINDIR INCLUDEDIR LIBDIR SO_SUFFIX OUTDIR:
# OUTDIR/NAME-config.cmake and NAME-config-version.cmake.
cmake_config = for f in $(1)-config:$(1)-config sdtkit-config-version:$(1)-config-version; do \
	  sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@PREFIX@|$(2)|g' -e 's|@UP@|$(3)|g' \
	      -e 's|@CONFIG_DIR@|$(4)|g' -e 's|@BINDIR@|$(5)|g' -e 's|@INCLUDEDIR@|$(6)|g' \
	      -e 's|@LIBDIR@|$(7)|g' -e 's|@SO_SUFFIX@|$(8)|g' -e 's|@SDTKIT_SONAME@|$(SDTKIT_SO)|g' \
	      -e 's|@STAPSDT_SONAME@|$(STAPSDT_SO)|g' cmake/$${f%%:*}.cmake.in > $(9)/$${f\#*:}.cmake && \
	  chmod 644 $(9)/$${f\#*:}.cmake || exit 1; done
CMAKE_FILES  = $(1)-config.cmake $(1)-config-version.cmake

install-cmake:
	install -d $(DESTDIR)$(CMAKEDIR) $(DESTDIR)$(RT_CMAKEDIR)
	$(call cmake_config,sdtkit,$(PREFIX),$(call up,$(CMAKEDIR)),$(CMAKEDIR),$(call \
	    rel,$(BINDIR)),$(call rel,$(INCLUDEDIR)),,,$(DESTDIR)$(CMAKEDIR))
	$(call cmake_config,sdtkit-runtime,$(PREFIX),$(call up,$(RT_CMAKEDIR)),$(RT_CMAKEDIR),,$(call \
	    rel,$(INCLUDEDIR)),$(call rel,$(LIBDIR)),.$(RT_MINOR),$(DESTDIR)$(RT_CMAKEDIR))

uninstall-cmake:
	rm -f $(addprefix $(DESTDIR)$(CMAKEDIR)/,$(call CMAKE_FILES,sdtkit))
	rm -f $(addprefix $(DESTDIR)$(RT_CMAKEDIR)/,$(call CMAKE_FILES,sdtkit-runtime))
	-rmdir $(DESTDIR)$(CMAKEDIR) $(DESTDIR)$(RT_CMAKEDIR) 2>/dev/null

build/cmake/sdtkit-config.cmake: $(CMAKE_IN) VERSION
	@mkdir -p $(@D)
	@$(call cmake_config,sdtkit,$(CURDIR),,$(@D),$(CURDIR)/tools,$(CURDIR)/include,,,$(@D))
	@$(call cmake_config,sdtkit-runtime,$(CURDIR),,$(@D),,$(CURDIR)/include,$(CURDIR)/build,,$(@D))

# The examples' CMake build uses build/cmake (provider-examples/Makefile).
examples check: build/cmake/sdtkit-config.cmake

.PHONY: install-cmake uninstall-cmake

# ---- Benchmarks, cleaning, packages -------------------------------------

# Performance figures, side by side with SystemTap (not part of make check);
# the output is committed as BENCHMARKS.md.
bench: tools
	bench/run -o BENCHMARKS.md

clean:
	rm -rf build $(TOOLS)
	@$(MAKE) -s -C provider-examples clean

# ---- The release tarball ------------------------------------------------
#
# make dist: $(DIST_DIR)/sdtkit-VERSION.tar.gz, the tracked files (git
# ls-files; in an unpacked tarball, the list it carries as MANIFEST) but
# those of the checkout's own machinery (DIST_EXCLUDE), plus MANIFEST.  The
# same bytes from any checkout of the same files: names sorted, owner and
# group 0, modes from the executable bit alone, every date the one of
# debian/changelog's entry (which must be for VERSION), gzip -n.
# make distcheck: unpack it in build/distcheck, make, make check (SUITES=
# as for make check; the provider corpus of ../shared is passed on as
# SDTKIT_CORPUS when there is one), make install and make uninstall into a
# DESTDIR (no file may be left), and make dist there must give the same bytes.

DIST_DIR     ?= build
DIST_NAME     = sdtkit-$(VERSION)
TARBALL       = $(DIST_DIR)/$(DIST_NAME).tar.gz
DIST_EXCLUDE  = .ci/% %.gitignore MANIFEST
DIST_FILES    = $(filter-out $(DIST_EXCLUDE),$(shell if [ -e .git ]; then git ls-files; \
                  elif [ -f MANIFEST ]; then cat MANIFEST; fi))
# The first entry of debian/changelog: its version (upstream-revision) and date.
CHANGELOG_VERSION = $(shell head -1 debian/changelog | tr -d '()' | cut -d' ' -f2)
SOURCE_EPOCH      = $(shell date -u -d "$$(sed -n 's/^ -- .*>  *//p' debian/changelog | \
                      head -1)" +%s)
check_changelog = v='$(CHANGELOG_VERSION)'; [ "$${v%-*}" = "$(VERSION)" ] || { echo \
	  "debian/changelog: version $$v, but VERSION says $(VERSION): add a changelog entry (dch -v $(VERSION)-1)" >&2; \
	  exit 1; }

dist:
	@$(check_changelog)
	@[ -n "$(DIST_FILES)" ] || { echo "make dist: no list of files: this is not a git checkout," \
	    "nor an unpacked tarball with its MANIFEST" >&2; exit 1; }
	rm -rf $(DIST_DIR)/$(DIST_NAME) && mkdir -p $(DIST_DIR)/$(DIST_NAME)
	@tar -c $(DIST_FILES) | tar -x -C $(DIST_DIR)/$(DIST_NAME)
	@printf '%s\n' $(DIST_FILES) MANIFEST | LC_ALL=C sort > $(DIST_DIR)/$(DIST_NAME)/MANIFEST
	tar -c -C $(DIST_DIR) --sort=name --format=gnu --owner=0 --group=0 --numeric-owner \
	    --mode=u=rwX,go=rX --mtime=@$(SOURCE_EPOCH) $(DIST_NAME) | gzip -9n > $(TARBALL).tmp
	mv $(TARBALL).tmp $(TARBALL)
	rm -rf $(DIST_DIR)/$(DIST_NAME)
	@echo "$(TARBALL)"

DISTCHECK = build/distcheck
distcheck: dist
	rm -rf $(DISTCHECK) && mkdir -p $(DISTCHECK)/inst
	tar -xzf $(TARBALL) -C $(DISTCHECK)
	+cd $(DISTCHECK)/$(DIST_NAME) && $(MAKE) DIST_DIR=build && \
	    SDTKIT_CORPUS="$${SDTKIT_CORPUS:-$(abspath $(wildcard ../shared/corpus/d))}" \
	        $(MAKE) check DIST_DIR=build && \
	    $(MAKE) install DIST_DIR=build DESTDIR=$(CURDIR)/$(DISTCHECK)/inst && \
	    $(MAKE) uninstall DIST_DIR=build DESTDIR=$(CURDIR)/$(DISTCHECK)/inst && \
	    $(MAKE) -s dist DIST_DIR=build
	@left=$$(cd $(DISTCHECK)/inst && find . ! -type d); [ -z "$$left" ] || \
	    { echo "distcheck: make uninstall left:" $$left >&2; exit 1; }
	@cmp $(TARBALL) $(DISTCHECK)/$(DIST_NAME)/build/$(DIST_NAME).tar.gz || \
	    { echo "distcheck: make dist in the unpacked tarball made other bytes" >&2; exit 1; }
	rm -rf $(DISTCHECK)
	@echo "$(TARBALL) is ready for distribution"

.PHONY: dist distcheck

# ---- The Debian packages ----------------------------------------------
#
# make deb: the release tarball becomes Debian's orig tarball
# (build/deb/sdtkit_VERSION.orig.tar.gz), unpacked beside it, and
# dpkg-buildpackage builds the source package and the binary packages
# (debian/control: sdtkit, libsdtkit1, libstapsdt0, libsdtkit-dev) there:
# nothing is written to the tree or beside it.  SOURCE_DATE_EPOCH comes
# from the changelog, so two builds give the same bytes.
DEB_ARCH = $(shell dpkg --print-architecture)
DEB      = build/deb/sdtkit_$(CHANGELOG_VERSION)_$(DEB_ARCH).deb
DEB_SRC  = build/deb/$(DIST_NAME)

deb: dist
	rm -rf build/deb && mkdir -p build/deb
	cp $(TARBALL) build/deb/sdtkit_$(VERSION).orig.tar.gz
	tar -xzf build/deb/sdtkit_$(VERSION).orig.tar.gz -C build/deb
	cd $(DEB_SRC) && DEB_BUILD_OPTIONS="nocheck $(DEB_BUILD_OPTIONS)" \
	    dpkg-buildpackage -us -uc --no-sign > ../build.log 2>&1 || \
	    { tail -n 30 ../build.log >&2; exit 1; }
	@echo "$(DEB)"

.PHONY: deb

# ---- The RPM packages -----------------------------------------------
#
# make rpm: rpmbuild -ta on the release tarball (sdtkit.spec is in it),
# under build/rpm: RPMS/ARCH/sdtkit-*.rpm and SRPMS/.  The spec's Version
# must be VERSION.  Build dependencies are not checked (--nodeps: on Debian
# rpm's database is empty); dates come from the changelog, as for make deb.
RPMBUILD ?= rpmbuild
RPM_VERSION = $(shell sed -n 's/^Version: *//p' sdtkit.spec)

rpm: dist
	@[ "$(RPM_VERSION)" = "$(VERSION)" ] || { echo "sdtkit.spec: Version $(RPM_VERSION)," \
	    "but VERSION says $(VERSION): update the spec (Version, %changelog)" >&2; exit 1; }
	rm -rf build/rpm && mkdir -p build/rpm
	SOURCE_DATE_EPOCH=$(SOURCE_EPOCH) $(RPMBUILD) -ta --nodeps \
	    --define '_topdir $(CURDIR)/build/rpm' --define '_buildhost reproducible' \
	    --define 'use_source_date_epoch_as_buildtime 1' \
	    --define 'clamp_mtime_to_source_date_epoch 1' \
	    $(TARBALL) > build/rpm/build.log 2>&1 || { tail -n 30 build/rpm/build.log >&2; exit 1; }
	@ls build/rpm/RPMS/*/*.rpm

.PHONY: rpm

# What each object was built from (-MMD).
ALL_SRCS = $(LIB_SRCS) $(DTRACE_SRCS) $(SDTLIST_SRCS) $(RT_NATIVE_SRCS) $(RT_COMPAT_SRCS)
-include $(patsubst %.o,%.d,$(call objs,build,$(ALL_SRCS)) $(call objs,build/asan,$(ALL_SRCS)) \
                            $(call objs,$(MUSL),$(ALL_SRCS)))
