# SPDX-License-Identifier: MIT
# packaging.mk, included by the Makefile: what turns the build into
# packages.  The CMake packages' templates (make install's and this
# tree's build/cmake), the release tarball (make dist, make distcheck) and
# the Debian and RPM packages (make deb, make rpm), which are built from
# that tarball.  The build itself, its variants and make install are the
# Makefile's.

# ---- The CMake packages -------------------------------------------------
#
# find_package(sdtkit): cmake/sdtkit-config.cmake.in (dtrace, the header,
# sdtkit_add_provider: nothing architecture-dependent, so in
# share/cmake/sdtkit, where a cross build finds it too) and
# cmake/sdtkit-runtime-config.cmake.in (the run-time libraries' targets, in
# LIBDIR/cmake/sdtkit-runtime, per architecture), written with this
# install's paths relative to PREFIX, so that a DESTDIR tree or a moved
# prefix is found where it is.  build/cmake holds both for this source tree
# (its build/bin/dtrace, include/, build/: variants.table's normal row),
# which the CMake example uses.

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
	@$(call cmake_config,sdtkit,$(CURDIR),,$(@D),$(CURDIR)/$(normal.bin),$(CURDIR)/include,,,$(@D))
	@$(call cmake_config,sdtkit-runtime,$(CURDIR),,$(@D),,$(CURDIR)/include,$(CURDIR)/$(normal.dir),,$(@D))

# The examples' CMake build uses build/cmake (provider-examples/Makefile).
examples check: build/cmake/sdtkit-config.cmake

.PHONY: install-cmake uninstall-cmake

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
# What distcheck's first make builds: everything (a test of the check of
# uninstall alone may ask for less: DISTCHECK_BUILD=tools).
DISTCHECK_BUILD ?= all
distcheck: dist
	rm -rf $(DISTCHECK) && mkdir -p $(DISTCHECK)/inst
	tar -xzf $(TARBALL) -C $(DISTCHECK)
	+cd $(DISTCHECK)/$(DIST_NAME) && $(MAKE) DIST_DIR=build $(DISTCHECK_BUILD) && \
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
