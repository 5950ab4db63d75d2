# SPDX-License-Identifier: MIT
# sdtkit: a drop-in <sys/sdt.h> and dtrace -h/-G, in C with libc only.
#
#   make                  build the tools and the provider examples, run the demo
#   make check            run every test suite (and the tools under ASan/UBSan)
#   make install PREFIX=/usr/local DESTDIR=   (also sdtkit.pc for pkg-config)
#   make uninstall, make clean, make bench, make fuzz (FUZZ_SECONDS=60 each)
#   make deb              the Debian package, build/deb/sdtkit_VERSION_ARCH.deb

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
# sdtkit.pc holds no architecture-dependent path: share/pkgconfig.
PKGCONFIGDIR ?= $(PREFIX)/share/pkgconfig
DESTDIR    ?=

CC      ?= cc
CFLAGS  ?= -O2 -g
# The one source of the version: VERSION (the tools and the .deb).
VERSION    := $(shell cat $(dir $(lastword $(MAKEFILE_LIST)))VERSION)
# Flags the project itself insists on; CFLAGS stays the user's to change.
TOOL_CFLAGS = -std=c11 -Wall -Wextra -Wpedantic -Werror -D_POSIX_C_SOURCE=200809L \
              -DSDTKIT_VERSION=\"$(VERSION)\"
SAN_FLAGS   = -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
              -fno-omit-frame-pointer

BATS ?= bats

# Every tools/*.c except the programs' own mains is shared by all programs.
TOOL_MAINS  = tools/main.c tools/sdt-list.c
TOOL_COMMON = $(filter-out $(TOOL_MAINS),$(sort $(wildcard tools/*.c)))
TOOL_HDRS   = $(wildcard tools/*.h)
PROGRAMS    = $(patsubst tools/%.c,%,$(filter-out tools/main.c,$(wildcard $(TOOL_MAINS)))) dtrace
TOOLS       = $(addprefix tools/,$(PROGRAMS))
ASAN_TOOLS  = $(addprefix build/asan/,$(PROGRAMS))

.PHONY: all tools examples demo check install uninstall clean bench fuzz fuzz-build
.DELETE_ON_ERROR:

all: tools examples demo

tools: $(TOOLS)

tools/dtrace: tools/main.c $(TOOL_COMMON) $(TOOL_HDRS) VERSION
	$(CC) $(TOOL_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ tools/main.c $(TOOL_COMMON)

tools/%: tools/%.c $(TOOL_COMMON) $(TOOL_HDRS) VERSION
	$(CC) $(TOOL_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(TOOL_COMMON)

# The same programs under AddressSanitizer and UndefinedBehaviorSanitizer.
build/asan/dtrace: tools/main.c $(TOOL_COMMON) $(TOOL_HDRS) VERSION
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(SAN_FLAGS) -o $@ tools/main.c $(TOOL_COMMON)

build/asan/%: tools/%.c $(TOOL_COMMON) $(TOOL_HDRS) VERSION
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(SAN_FLAGS) -o $@ $< $(TOOL_COMMON)

# libFuzzer harnesses (fuzz/*_fuzz.c, with the tools' common sources) need
# clang; `make fuzz` runs each for FUZZ_SECONDS and prints what it found.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR     ?= build/fuzz
FUZZ_FLAGS    = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZERS       = $(patsubst fuzz/%.c,$(FUZZ_DIR)/%,$(wildcard fuzz/*_fuzz.c))

$(FUZZ_DIR)/%_fuzz: fuzz/%_fuzz.c $(TOOL_COMMON) $(TOOL_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(TOOL_CFLAGS) $(FUZZ_FLAGS) -o $@ $< $(TOOL_COMMON)

fuzz-build: $(FUZZERS)

fuzz: $(FUZZERS)
	fuzz/run $(FUZZ_SECONDS) $(FUZZ_DIR) $(FUZZERS)

# The examples are built with this tree's dtrace and header, never the system's.
EXAMPLE_VARS = DTRACE=$(CURDIR)/tools/dtrace SDT_INCLUDE=$(CURDIR)/include

examples: tools
	$(MAKE) -C provider-examples $(EXAMPLE_VARS)

demo: examples
	@$(MAKE) -s -C provider-examples demo $(EXAMPLE_VARS)

# tests/run: every suite with the normal build, then the dtrace suites again
# with the sanitizer build, and one line for both: N passed, N failed, N
# skipped.  SUITES=tests/x.bats runs only those.
check: tools $(ASAN_TOOLS) examples
	BATS=$(BATS) tests/run $(SUITES)

install: tools
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(INCLUDEDIR)/sys $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(TOOLS) $(DESTDIR)$(BINDIR)/
	install -m 644 include/sys/sdt.h include/sys/sdt-config.h include/sys/sdt-operands.h $(DESTDIR)$(INCLUDEDIR)/sys/
	install -m 644 include/usdt.h $(DESTDIR)$(INCLUDEDIR)/usdt.h
	install -m 644 $(wildcard man/*.1) $(DESTDIR)$(MANDIR)/man1/

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(PROGRAMS))
	rm -f $(DESTDIR)$(INCLUDEDIR)/sys/sdt.h $(DESTDIR)$(INCLUDEDIR)/sys/sdt-config.h $(DESTDIR)$(INCLUDEDIR)/sys/sdt-operands.h
	rm -f $(DESTDIR)$(INCLUDEDIR)/usdt.h
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(wildcard man/*.1)))
	-rmdir $(DESTDIR)$(INCLUDEDIR)/sys 2>/dev/null

# sdtkit.pc: `pkg-config --cflags sdtkit` finds the header and
# `pkg-config --variable=dtrace sdtkit` the program, for any PREFIX.  Paths
# under PREFIX are written relative to ${prefix} so --define-variable can
# move them.  Version: from VERSION, as everywhere.
pc_path = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))

# Written at install time: the paths are those of this install.
install-pc:
	install -d $(DESTDIR)$(PKGCONFIGDIR)
	printf '%s\n' 'prefix=$(PREFIX)' 'bindir=$(call pc_path,$(BINDIR))' \
	  'includedir=$(call pc_path,$(INCLUDEDIR))' 'dtrace=$${bindir}/dtrace' '' \
	  'Name: sdtkit' \
	  'Description: USDT probes: <sys/sdt.h> and dtrace -h/-G, in C with libc only' \
	  'Version: $(VERSION)' 'Cflags: -I$${includedir}' \
	  >$(DESTDIR)$(PKGCONFIGDIR)/sdtkit.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/sdtkit.pc

uninstall-pc:
	rm -f $(DESTDIR)$(PKGCONFIGDIR)/sdtkit.pc

install: install-pc
uninstall: uninstall-pc
.PHONY: install-pc uninstall-pc

# Performance figures, side by side with SystemTap (not part of make check);
# the output is committed as BENCHMARKS.md.
bench: tools
	bench/run -o BENCHMARKS.md

clean:
	rm -rf build $(TOOLS)
	@$(MAKE) -s -C provider-examples clean

# The Debian package (debian/, debhelper), built from a copy of the tree
# under build/deb so that nothing is written to the tree or its parent:
# build/deb/sdtkit_$(VERSION)_$(DEB_ARCH).deb.  debian/changelog must name
# the version in VERSION.  SOURCE_DATE_EPOCH comes from the changelog, so two
# builds give the same bytes.
DEB_ARCH = $(shell dpkg --print-architecture)
DEB      = build/deb/sdtkit_$(VERSION)_$(DEB_ARCH).deb
DEB_SRC  = build/deb/sdtkit-$(VERSION)

.PHONY: deb
deb:
	@v=$$(dpkg-parsechangelog -S Version); [ "$$v" = "$(VERSION)" ] || \
	    { echo "debian/changelog: version $$v, but VERSION says $(VERSION): add a changelog entry (dch -v $(VERSION))" >&2; exit 1; }
	rm -rf build/deb
	mkdir -p $(DEB_SRC)
	tar -c --exclude=./build --exclude=./.git --exclude='./debian/sdtkit' . | tar -x -C $(DEB_SRC)
	cd $(DEB_SRC) && DEB_BUILD_OPTIONS="nocheck $(DEB_BUILD_OPTIONS)" \
	    dpkg-buildpackage -b -us -uc --no-sign > ../build.log 2>&1 || \
	    { tail -n 30 ../build.log >&2; exit 1; }
	@echo "$(DEB)"
