# SPDX-License-Identifier: MIT
# The native extension's Makefile: ruby extconf.rb --with-sdtkit-dir=PREFIX && make
require "mkmf"

# what the bindings written in C share: tests/bindings/*-calls.h
$INCFLAGS << " -I#{File.expand_path('../..', __dir__)}"

dir_config("sdtkit")
abort "sdtkit.h is missing" unless have_header("sdtkit.h")
abort "libsdtkit is missing" unless have_library("sdtkit", "sdtkit_provider_create", "sdtkit.h")
$CFLAGS << " -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter"
create_makefile("sdtkit_bind")
