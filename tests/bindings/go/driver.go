// SPDX-License-Identifier: MIT

// The Go binding's driver: the commands of tests/bindings.bats, read
// from stdin, one reply line each, through stapsdt.go (libstapsdt's API) or
// sdtkit.go (the native API): one program is built with each, which
// defines apiName and newProvider.
package main

/*
#include <stdint.h>
#include <stdlib.h>
*/
import "C"

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// provider and probe: what each API's binding gives the driver, with the
// replies it prints.
type provider interface {
	addProbe(name string, types []string) (probe, string) // nil, and why, on failure
	load() string
	unload() string
	cycle() bool // unload, then load: whether both worked
	path() string
	destroy()
}

type probe interface {
	state(key string) string
	enabled() bool
	fire(v []uint64) bool
	fork(v []uint64) int
}

// name: the token of the empty name is two single quotes.
func name(token string) string {
	if token == "''" {
		return ""
	}
	return token
}

// values: each argument as the 64 bits a probe is fired with, a string as
// a C string, freed by free.
func values(tokens []string) (v []uint64, free func()) {
	var cs []unsafe.Pointer
	v = make([]uint64, 12)
	for i, t := range tokens {
		if n, err := strconv.ParseInt(t, 10, 64); err == nil {
			v[i] = uint64(n)
		} else if u, err := strconv.ParseUint(t, 10, 64); err == nil {
			v[i] = u
		} else {
			c := C.CString(t)
			cs = append(cs, unsafe.Pointer(c))
			v[i] = uint64(uintptr(unsafe.Pointer(c)))
		}
	}
	return v[:len(tokens)], func() {
		for _, c := range cs {
			C.free(c)
		}
	}
}

// cArgs: values as the array the C calls take (up to 12, the native API's
// most; libstapsdt's reads 6).
func cArgs(v []uint64) *C.uint64_t {
	a := make([]C.uint64_t, 12)
	for i := range v {
		a[i] = C.uint64_t(v[i])
	}
	return &a[0]
}

// usage: the process's open files, mappings and resident size (kB).
func usage() (fds, maps, rss int) {
	entries, _ := os.ReadDir("/proc/self/fd")
	fds = len(entries)
	if b, err := os.ReadFile("/proc/self/maps"); err == nil {
		maps = strings.Count(string(b), "\n")
	}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) > 1 && f[0] == "VmRSS:" {
				rss, _ = strconv.Atoi(f[1])
			}
		}
	}
	return
}

func toggle(p provider, count int) string {
	f0, m0, r0 := usage()
	failed := 0
	for i := 0; i < count; i++ {
		if !p.cycle() {
			failed++
		}
	}
	f1, m1, r1 := usage()
	return fmt.Sprintf("toggle %d failed %d fds %d %d maps %d %d rss %d %d",
		count, failed, f0, f1, m0, m1, r0, r1)
}

// hang bounds a wait on a tracer, only against a hang: the suite's bound.
func hang() time.Duration {
	if s, err := strconv.Atoi(os.Getenv("SDTKIT_HANG_SECONDS")); err == nil {
		return time.Duration(s) * time.Second
	}
	return 300 * time.Second
}

// waitEnabled: poll until a tracer attaches (hang() at most).
func waitEnabled(pr probe) bool {
	for deadline := time.Now().Add(hang()); !pr.enabled(); {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}

// serve: fire pr with v every millisecond while a tracer is attached (a
// tracer raises the semaphore before its breakpoint is in; one that exits on
// its first event has gone when this returns): how many times, -1 when it
// had not gone after hang().
func serve(pr probe, v []uint64) int {
	n := 0
	for deadline := time.Now().Add(hang()); pr.enabled(); {
		if time.Now().After(deadline) {
			return -1
		}
		n += bit(pr.fire(v))
		time.Sleep(time.Millisecond)
	}
	return n
}

func bit(b bool) int {
	if b {
		return 1
	}
	return 0
}

var providers = map[string]provider{}
var probes = map[string]probe{}
var worker int

func run(cmd string, args []string) string {
	switch cmd {
	case "provider":
		p, reply := newProvider(name(args[0]))
		providers[args[0]] = p
		return reply
	case "probe", "load", "unload", "destroy", "path", "toggle":
		p := providers[args[0]]
		if p == nil {
			return cmd + " NULL"
		}
		switch cmd {
		case "probe":
			pr, reply := p.addProbe(name(args[1]), args[2:])
			probes[args[1]] = pr
			return reply
		case "load":
			return p.load()
		case "unload":
			return p.unload()
		case "destroy":
			p.destroy()
			return "destroy"
		case "path":
			return "path " + p.path()
		}
		n, _ := strconv.Atoi(args[1])
		return toggle(p, n)
	}
	pr := probes[args[0]]
	if pr == nil {
		return cmd + " NULL"
	}
	v, free := values(args[1:])
	defer free()
	switch cmd {
	case "state":
		return pr.state(args[0])
	case "fire":
		return fmt.Sprintf("fire <%s> %d", args[0], bit(pr.fire(v)))
	case "wait":
		if waitEnabled(pr) {
			return fmt.Sprintf("wait <%s> enabled", args[0])
		}
		return fmt.Sprintf("wait <%s> timeout", args[0])
	case "serve":
		if n := serve(pr, v); n >= 0 {
			return fmt.Sprintf("serve <%s> %d", args[0], n)
		}
		return fmt.Sprintf("serve <%s> timeout", args[0])
	case "fork":
		// a pre-fork server's worker: Go cannot run in a forked child, so
		// the child stays in C (../fork-worker.h)
		worker = pr.fork(v)
		return fmt.Sprintf("worker %d", worker)
	}
	return "unknown command " + cmd
}

func main() {
	if len(os.Args) != 2 || os.Args[1] != apiName {
		fmt.Fprintf(os.Stderr, "usage: %s %s\n", os.Args[0], apiName)
		os.Exit(2)
	}
	fmt.Printf("ready %d\n", os.Getpid())
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<16), 1<<20)
	for in.Scan() {
		words := strings.Fields(in.Text())
		if len(words) == 0 {
			continue
		}
		if words[0] == "reap" {
			var ws syscall.WaitStatus
			syscall.Wait4(worker, &ws, 0, nil)
			fmt.Printf("reaped %d\n", ws.ExitStatus())
		} else {
			fmt.Println(run(words[0], words[1:]))
		}
	}
}
