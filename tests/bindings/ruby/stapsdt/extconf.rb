# SPDX-License-Identifier: MIT
# The compat extension's Makefile, as a gem builds its C extension against
# an installed libstapsdt: ruby extconf.rb --with-stapsdt-dir=PREFIX && make
require "mkmf"

# what the bindings written in C share: tests/bindings/*-calls.h
$INCFLAGS << " -I#{File.expand_path('../..', __dir__)}"

dir_config("stapsdt")
abort "libstapsdt.h is missing" unless have_header("libstapsdt.h")
abort "libstapsdt is missing" unless have_library("stapsdt", "providerInit", "libstapsdt.h")
$CFLAGS << " -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter"
create_makefile("stapsdt_bind")
