#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# <sys/sdt.h> under strict warnings: -Wall -Wextra -Wpedantic -Werror for
# gcc and clang in five C standards and four C++ standards (18 builds).

load helpers

SRC="$ROOT/tests/header/strict.c"

# strict COMPILER LANG STD INCLUDE
strict() {
    local extra=""
    [ "$2" = c++ ] && extra=-Wold-style-cast
    "$1" -x "$2" -std="$3" -Wall -Wextra -Wpedantic -Werror $extra \
        -c -I "$4" "$SRC" -o /dev/null
}

@test "C builds are warning-free with gcc in gnu89, c99, c11, c17 and c2x" {
    for std in gnu89 c99 c11 c17 c2x; do strict gcc c $std "$INCLUDE"; done
}

@test "C builds are warning-free with clang in gnu89, c99, c11, c17 and c2x" {
    for std in gnu89 c99 c11 c17 c2x; do strict clang c $std "$INCLUDE"; done
}

@test "C++ builds are warning-free with g++ in c++98, c++11, c++17 and c++20" {
    for std in c++98 c++11 c++17 c++20; do strict g++ c++ $std "$INCLUDE"; done
}

@test "C++ builds are warning-free with clang++ in c++98, c++11, c++17 and c++20" {
    for std in c++98 c++11 c++17 c++20; do strict clang++ c++ $std "$INCLUDE"; done
}

@test "the strict test source is not trivially clean: SystemTap's header fails it" {
    need_stap_header
    inc=$(stap_include)
    passed=0
    for cc in gcc clang; do
        for std in gnu89 c99 c11 c17 c2x; do strict $cc c $std "$inc" 2>/dev/null && passed=$((passed + 1)); done
    done
    for cxx in g++ clang++; do
        for std in c++98 c++11 c++17 c++20; do strict $cxx c++ $std "$inc" 2>/dev/null && passed=$((passed + 1)); done
    done
    echo "# SystemTap's header passes $passed of 18 strict builds" >&3
    [ "$passed" -lt 18 ]
}
