// SPDX-License-Identifier: MIT

// A cgo binding to libsdtkit's native API: status codes become errors that
// carry sdtkit_strerror's name and the provider's message; is-enabled is the
// header's inline function (two loads, no call into the library).  What the
// bindings written in C share is ../sdtkit-calls.h.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/..
#cgo LDFLAGS: -lsdtkit
#include <stdlib.h>
#include <string.h>
#include <sdtkit.h>
#include "sdtkit-calls.h"

// The name before the colon of sdtkit_strerror's text.
static size_t bind_code_len(const char *s) { return strcspn(s, ":"); }
*/
import "C"

import (
	"fmt"
	"unsafe"
)

const apiName = "native"

type Error struct {
	Code    string
	Message string
}

func (e Error) Error() string { return e.Code + " <" + e.Message + ">" }

func code(rc C.int) string {
	s := C.sdtkit_strerror(rc)
	return C.GoStringN(s, C.int(C.bind_code_len(s)))
}

type Provider struct{ pv *C.sdtkit_provider }
type Probe struct {
	p     *C.sdtkit_probe
	nargs int
}

func NewProvider(name string) (*Provider, error) {
	c := C.CString(name)
	defer C.free(unsafe.Pointer(c))
	var pv *C.sdtkit_provider
	if rc := C.sdtkit_provider_create(c, &pv); rc != 0 {
		return nil, Error{code(rc), ""}
	}
	return &Provider{pv}, nil
}

func (p *Provider) check(rc C.int) error {
	if rc == 0 {
		return nil
	}
	return Error{code(rc), C.GoString(C.sdtkit_provider_error(p.pv))}
}

func (p *Provider) AddProbe(name string, argTypes ...string) (*Probe, error) {
	c := C.CString(name)
	defer C.free(unsafe.Pointer(c))
	t := make([]C.int, len(argTypes)+1)
	for i, s := range argTypes {
		cs := C.CString(s)
		t[i] = C.bind_type(cs)
		C.free(unsafe.Pointer(cs))
	}
	var pr *C.sdtkit_probe
	if err := p.check(C.sdtkit_provider_add_probe(p.pv, c, &t[0], C.int(len(argTypes)), &pr)); err != nil {
		return nil, err
	}
	return &Probe{pr, len(argTypes)}, nil
}

func (p *Provider) Load() error   { return p.check(C.sdtkit_provider_load(p.pv)) }
func (p *Provider) Unload() error { return p.check(C.sdtkit_provider_unload(p.pv)) }
func (p *Provider) Destroy()      { C.sdtkit_provider_destroy(p.pv) }

func (p *Provider) Path() string {
	s := C.sdtkit_provider_path(p.pv)
	if s == nil {
		return "NULL"
	}
	return C.GoString(s)
}

func (p *Probe) Name() string  { return C.GoString(C.sdtkit_probe_name(p.p)) }
func (p *Probe) Nargs() int    { return int(C.sdtkit_probe_nargs(p.p)) }
func (p *Probe) Enabled() bool { return C.sdtkit_probe_enabled(p.p) != 0 }

func (p *Probe) Fire(v []uint64) bool {
	if !p.Enabled() {
		return false
	}
	C.bind_fire(p.p, cArgs(v), C.int(len(v)))
	return true
}

// ---- what the driver reads of them -----------------------------------------

func newProvider(name string) (provider, string) {
	p, err := NewProvider(name)
	if err != nil {
		return nil, fmt.Sprintf("provider <%s> %s", name, err.(Error).Code)
	}
	return p, fmt.Sprintf("provider <%s> 0", name)
}

func status(verb string, err error) string {
	if err == nil {
		return verb + " 0"
	}
	return verb + " " + err.Error()
}

func (p *Provider) addProbe(name string, types []string) (probe, string) {
	pr, err := p.AddProbe(name, types...)
	if err != nil {
		return nil, status("probe", err)
	}
	return pr, fmt.Sprintf("probe <%s> nargs %d", pr.Name(), pr.Nargs())
}

func (p *Provider) load() string   { return status("load", p.Load()) }
func (p *Provider) unload() string { return status("unload", p.Unload()) }
func (p *Provider) cycle() bool    { return p.Unload() == nil && p.Load() == nil }
func (p *Provider) path() string   { return p.Path() }
func (p *Provider) destroy()       { p.Destroy() }

func (p *Probe) state(key string) string {
	return fmt.Sprintf("state <%s> nargs %d enabled %d", key, p.Nargs(), bit(p.Enabled()))
}

func (p *Probe) enabled() bool        { return p.Enabled() }
func (p *Probe) fire(v []uint64) bool { return p.Fire(v) }
func (p *Probe) fork(v []uint64) int {
	return int(C.bind_fork_worker(p.p, cArgs(v), C.int(len(v))))
}
