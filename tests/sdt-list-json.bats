#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# sdt-list --json: the listing and the comparison as JSON (schema 1 of
# sdt-list(1)), read back with Python's json module, a strict parser (no
# trailing comma, no raw control byte, nothing after the value), and
# checked against readelf.

load dtrace-helpers

setup() {
    need_cmd python3
}

# prog: a program with a semaphore (dtrace -h/-G) and a build-id.
prog() {
    printf 'provider app {\n    probe start(int, long, char *);\n    probe tick();\n};\n' >app.d
    "$DTRACE" -h -s app.d -o app.h
    cat >app.c <<'EOF'
#include "app.h"
__attribute__((noinline)) int work(int n, long m, char *s)
{
    if (APP_START_ENABLED())
        APP_START(n, m, s);
    APP_TICK();
    return n;
}
int main(int argc, char **argv) { return work(argc, 7, argv[0]) == 0; }
EOF
    gcc -O2 -I "$INCLUDE" -I . -c app.c -o app.o
    "$DTRACE" -G -s app.d -o app-probes.o app.o
    gcc -Wl,--build-id app.o app-probes.o -o app
}

@test "--json lists each probe, its sites and arguments as readelf shows them" {
    prog
    run --separate-stderr "$SDT_LIST" --json app
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    printf '%s\n' "$output" >app.json
    python3 -m json.tool app.json >/dev/null
    [ "$(json_get app.json 'j["schema"]')" = 1 ]
    [ "$(json_get app.json 'j["kind"]')" = listing ]
    [ "$(json_get app.json 'len(j["files"])')" = 1 ]
    local f='j["files"][0]'
    [ "$(json_get app.json "$f[\"file\"]")" = app ]
    [ "$(json_get app.json "$f[\"member\"]")" = null ]
    [ "$(json_get app.json "[$f[k] for k in ('class', 'byte_order', 'machine', 'e_machine', 'type')]")" = \
        '[64, "little", "x86-64", 62, "dyn"]' ]
    [ "$(json_get app.json "$f[\"build_id\"]")" = "$(readelf -n app | sed -n 's/.*Build ID: //p')" ]
    [ "$(json_get app.json "[p['provider'] + ':' + p['name'] for p in $f['probes']]")" = \
        "$(note_probes app | cut -f1 | python3 -c 'import json, sys; print(json.dumps(sys.stdin.read().split()))')" ]
    local p probe
    for probe in app:start app:tick; do
        p="[p for p in $f['probes'] if p['provider'] + ':' + p['name'] == '$probe'][0]"
        [ "$(json_get app.json "$p['sites'][0]['pc']")" = "$(printf '0x%x' "$(note_field app "$probe" Location)")" ]
        [ "$(json_get app.json "$p['sites'][0]['base']")" = "$(printf '0x%x' "$(note_field app "$probe" Base)")" ]
        [ "$(json_get app.json "$p['semaphore']")" = "$(printf '0x%x' "$(note_field app "$probe" Semaphore)")" ]
        [ "$(json_get app.json "$p['sites'][0]['argument_string']")" = "$(note_args app "$probe")" ]
        [ "$(json_get app.json "' '.join(a['text'] for a in $p['sites'][0]['arguments'])")" = "$(note_args app "$probe")" ]
    done
    p="[p for p in $f['probes'] if p['name'] == 'start'][0]['sites'][0]"
    [ "$(json_get app.json "$p['argument_count']")" = 3 ]
    [ "$(json_get app.json "[[a['size'], a['signed'], a['float']] for a in $p['arguments']]")" = \
        '[[4, true, false], [8, true, false], [8, false, false]]' ]
    [ "$(json_get app.json "[a['operand'] for a in $p['arguments']]")" = \
        "$(note_args app app:start | python3 -c 'import json, sys; print(json.dumps([a.split("@", 1)[1] for a in sys.stdin.read().split()]))')" ]
}

@test "objects, archives and files without probes: the semaphore of an object, members, empty lists" {
    prog
    printf 'int nothing;\n' >n.c
    gcc -c n.c -o n.o
    ar rcs lib.a n.o app.o
    echo 'int main(void) { return 0; }' >plain.c
    gcc plain.c -o plain
    "$SDT_LIST" --json app.o lib.a plain >all.json
    python3 -m json.tool all.json >/dev/null
    [ "$(json_get all.json '[(f["file"], f["member"], f["type"], len(f["probes"])) for f in j["files"]]')" = \
        '[["app.o", null, "rel", 2], ["lib.a(n.o)", "n.o", "rel", 0], ["lib.a(app.o)", "app.o", "rel", 2], ["plain", null, "dyn", 0]]' ]
    # in an object the addresses are zero until linked; the semaphore is
    # known by its relocation ("0x0"), and a probe without one has null
    [ "$(json_get all.json '[p["semaphore"] for p in j["files"][0]["probes"]]')" = '["0x0", "0x0"]' ]
    printf '#include <sys/sdt.h>\nvoid f(void) { DTRACE_PROBE(plain, hit); }\n' >nosem.c
    gcc -O2 -I "$INCLUDE" -c nosem.c -o nosem.o
    [ "$("$SDT_LIST" --json nosem.o | json_get /dev/stdin 'j["files"][0]["probes"][0]["semaphore"]')" = null ]
    # no file with a probe at all is still a whole document
    "$SDT_LIST" --json plain | python3 -m json.tool >/dev/null
}

@test "every byte of a note and of a file name comes back from the JSON" {
    # provider, name and arguments holding every byte from 1 to 255
    local every
    every=$(awk 'BEGIN { for (i = 1; i < 256; i++) printf "\\%03o", i }')
    note all.s "$every" '\042\134\012\011\177\200\377' "4@%eax $every"
    local name=$'x\n"\\\t\001\xc3\xa9\xff.o'
    gcc -c all.s -o "$name"
    run --separate-stderr "$SDT_LIST" --json "$name"
    [ "$status" -eq 0 ]
    printf '%s\n' "$output" >all.json
    ! LC_ALL=C grep -q '[^ -~]' all.json || false
    python3 -m json.tool all.json >/dev/null
    python3 - all.json "$name" <<'EOF'
import json, os, sys
j = json.load(open(sys.argv[1], encoding="ascii"))
b = lambda s: s.encode("latin-1")
f = j["files"][0]
every = bytes(range(1, 256))
assert b(f["file"]) == os.fsencode(sys.argv[2]), f["file"]
p = f["probes"][0]
assert b(p["provider"]) == every, p["provider"]
assert b(p["name"]) == b'"\\\n\t\x7f\x80\xff', p["name"]
assert b(p["sites"][0]["argument_string"]) == b"4@%eax " + every
EOF
}

@test "an object that cannot be read leaves the others' JSON whole, and exit status 1" {
    prog
    head -c 100 app >cut
    run --separate-stderr "$SDT_LIST" --json app cut app.o
    [ "$status" -eq 1 ]
    [ "$stderr" = "sdt-list: error: cut: bad section header table" ]
    printf '%s\n' "$output" >part.json
    [ "$(json_get part.json '[f["file"] for f in j["files"]]')" = '["app", "cut", "app.o"]' ]
}

@test "--provider and --ignore-probe filter the listing too" {
    prog
    [ "$("$SDT_LIST" --ignore-probe 'app:st*' app | cut -f3)" = tick ]
    [ -z "$("$SDT_LIST" --provider other app)" ]
    "$SDT_LIST" --json --provider 'a*' --ignore-probe app:tick app >f.json
    [ "$(json_get f.json '[p["name"] for p in j["files"][0]["probes"]]')" = '["start"]' ]
}

@test "--diff --json has a change for each line of the text, and its summary the exit status" {
    local d="$ROOT/tests/cases/sdt-list-diff/several-changes-are-one-line-each-sorted-by-probe"
    mkdir w
    cp "$d"/*.c w/
    build_side w old
    build_side w new
    cd w
    run --separate-stderr "$SDT_LIST" --diff old new
    [ "$status" -eq 2 ]
    local text=("${lines[@]}")
    run --separate-stderr "$SDT_LIST" --diff --json old new
    [ "$status" -eq 2 ]
    [ -z "$stderr" ]
    printf '%s\n' "$output" >d.json
    python3 -m json.tool d.json >/dev/null
    [ "$(json_get d.json '[j["schema"], j["kind"], j["old"], j["new"]]')" = '[1, "diff", "old", "new"]' ]
    [ "$(json_get d.json 'j["summary"]')" = \
        '{"files": 1, "probes": 5, "added": 1, "removed": 1, "changed": 2, "verdict": "incompatible", "status": 2}' ]
    local f='j["files"][0]'
    [ "$(json_get d.json "[$f['file'], $f['matched_by'], $f['old']['file'], $f['new']['probes']]")" = \
        '["new", "path", "old", 4]' ]
    # the message of each change is the text of its line
    [ "$(json_get d.json "len($f['changes'])")" -eq $((${#text[@]} - 1)) ]
    json_get d.json "'\n'.join('%s: %s:%s: %s' % ($f['file'], c['provider'], c['name'], c['message']) for c in $f['changes'])" >messages
    printf '%s\n' "${text[@]:0:${#text[@]}-1}" | cut -c3- | diff - messages
    [ "$(json_get d.json "[(c['change'], c['compatible']) for c in $f['changes']]")" = \
        '[["added", true], ["removed", false], ["argument", false], ["argument", false], ["argument", false], ["argument", false]]' ]
    [ "$(json_get d.json "[c.get('argument') for c in $f['changes']]")" = '[null, null, 0, 1, 0, 2]' ]
    [ "$(json_get d.json "$f['changes'][2]")" = \
        '{"provider": "beta", "name": "wide", "change": "argument", "compatible": false, "argument": 0, "old": "-4", "new": "-8", "message": "arg0 -4 -> -8 (int32 -> int64)"}' ]
    [ "$(json_get d.json "$f['changes'][1]['old']")" = \
        '{"sites": 1, "argument_count": "2", "arguments": ["-4", "-8"], "semaphore": "none"}' ]
    run "$SDT_LIST" --diff --json -q old new
    [ "$status" -eq 2 ]
    [ -z "$output" ]
    # no change: an empty list and its verdict
    "$SDT_LIST" --diff --json old old >same.json
    [ "$(json_get same.json '[len(j["files"][0]["changes"]), j["summary"]["verdict"], j["summary"]["status"]]')" = \
        '[0, "no change", 0]' ]
}

# Cross compilers: sdt-list's reading of their objects is the same code
# the sanitizer pass runs on the host's.
# bats test_tags=normal-pass-only,cross
@test "the JSON of 32-bit and big-endian objects gives their class, byte order and machine" {
    for arch in armhf s390x powerpc; do need_arch "$arch"; done
    printf '#include <sys/sdt.h>\nvoid f(int a, long b) { DTRACE_PROBE2(p, two, a, b); }\n' >p.c
    local arch want
    for arch in armhf s390x powerpc; do
        "$(arch_gcc "$arch")" -O2 -I "$INCLUDE" -c p.c -o "p-$arch.o"
        "$SDT_LIST" --json "p-$arch.o" >"$arch.json"
        case $arch in
            armhf) want='[32, "little", "ARM", 40, ["-4", "-4"]]' ;;
            s390x) want='[64, "big", "S/390", 22, ["-4", "-8"]]' ;;
            powerpc) want='[32, "big", "PowerPC", 20, ["-4", "-4"]]' ;;
        esac
        [ "$(json_get "$arch.json" '[j["files"][0][k] for k in ("class", "byte_order", "machine", "e_machine")] + [[str(-a["size"] if a["signed"] else a["size"]) for a in j["files"][0]["probes"][0]["sites"][0]["arguments"]]]')" = "$want" ] ||
            { echo "$arch: $(cat "$arch.json")"; false; }
    done
}
