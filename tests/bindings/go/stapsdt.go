// SPDX-License-Identifier: MIT

// A cgo binding to libstapsdt's API, as Go bindings for libstapsdt are
// written: the structures used as Go types, their members read directly
// (name, argCount, errno and error for errors, _filename, and _fire, whose
// first byte says on x86-64 whether a tracer's breakpoint is on the probe:
// no call needed), and C wrappers for the variadic functions
// (../stapsdt-calls.h, shared with the bindings written in C).
package main

/*
#cgo CFLAGS: -I${SRCDIR}/..
#cgo LDFLAGS: -lstapsdt
#include <stdlib.h>
#include <libstapsdt.h>
#include "stapsdt-calls.h"

#if MAX_ARGUMENTS != 6
#error "libstapsdt's MAX_ARGUMENTS is not 6"
#endif
*/
import "C"

import (
	"fmt"
	"unsafe"
)

const apiName = "compat"

// Provider and Probe are libstapsdt's own structures.
type Provider = C.struct_SDTProvider
type Probe = C.struct_SDTProbe

type stapsdtError struct {
	code int
	msg  string
}

func (e stapsdtError) Error() string { return fmt.Sprintf("errno %d error %s", e.code, e.msg) }

func cText(s *C.char) string {
	if s == nil {
		return "NULL"
	}
	return "<" + C.GoString(s) + ">"
}

func NewProvider(name string) *Provider {
	c := C.CString(name)
	defer C.free(unsafe.Pointer(c))
	return C.providerInit(c)
}

// err: what libstapsdt says of the provider's last failed call.
func (p *Provider) err() error {
	return stapsdtError{int(p.errno), cText(p.error)}
}

func (p *Provider) AddProbe(name string, types ...string) (*Probe, error) {
	c := C.CString(name)
	defer C.free(unsafe.Pointer(c))
	t := make([]C.ArgType_t, C.MAX_ARGUMENTS)
	for i, s := range types {
		cs := C.CString(s)
		t[i] = C.bind_arg_type(cs)
		C.free(unsafe.Pointer(cs))
	}
	pp := C.bind_add_probe(p, c, C.int(len(types)), &t[0])
	if pp == nil {
		return nil, p.err()
	}
	return pp, nil
}

func (p *Provider) Load() error {
	if C.providerLoad(p) != 0 {
		return p.err()
	}
	return nil
}

func (p *Provider) Unload() error {
	if C.providerUnload(p) != 0 {
		return p.err()
	}
	return nil
}

func (p *Provider) Dispose() { C.providerDestroy(p) }

// Enabled reads the first byte of the probe: a nop (0x90) until a tracer
// puts its breakpoint there.
func (p *Probe) Enabled() bool {
	return p._fire != nil && *(*uint8)(p._fire)&0x90 != 0x90
}

func (p *Probe) Fire(v []uint64) bool {
	if !p.Enabled() {
		return false
	}
	C.bind_fire(p, cArgs(v))
	return true
}

// ---- what the driver reads of them -----------------------------------------

type compatProvider struct{ p *Provider }

func newProvider(name string) (provider, string) {
	p := NewProvider(name)
	if p == nil {
		return nil, "provider NULL"
	}
	return compatProvider{p}, fmt.Sprintf("provider %s errno %d error %s filename %s",
		cText(p.name), p.errno, cText(p.error), cText(p._filename))
}

func fireByte(p *Probe) string {
	if p._fire == nil {
		return "NULL"
	}
	return fmt.Sprintf("%02x", *(*uint8)(p._fire))
}

func status(verb string, err error) string {
	if err == nil {
		return verb + " 0"
	}
	return verb + " -1 " + err.Error()
}

func (c compatProvider) addProbe(name string, types []string) (probe, string) {
	pr, err := c.p.AddProbe(name, types...)
	if err != nil {
		return nil, "probe NULL " + err.Error()
	}
	return pr, fmt.Sprintf("probe %s argCount %d fire %s", cText(pr.name), pr.argCount, fireByte(pr))
}

func (c compatProvider) load() string   { return status("load", c.p.Load()) }
func (c compatProvider) unload() string { return status("unload", c.p.Unload()) }
func (c compatProvider) cycle() bool    { return c.p.Unload() == nil && c.p.Load() == nil }
func (c compatProvider) destroy()       { c.p.Dispose() }

func (c compatProvider) path() string {
	if c.p._filename == nil {
		return "NULL"
	}
	return C.GoString(c.p._filename)
}

func (p *Probe) state(key string) string {
	return fmt.Sprintf("state <%s> argCount %d fire %s enabled %d", key, p.argCount, fireByte(p), bit(p.Enabled()))
}

func (p *Probe) enabled() bool        { return p.Enabled() }
func (p *Probe) fire(v []uint64) bool { return p.Fire(v) }
func (p *Probe) fork(v []uint64) int  { return int(C.bind_fork_worker(p, cArgs(v))) }
