/* SPDX-License-Identifier: MIT */
/* SdtkitBind: a Ruby C extension on libsdtkit's native API.  A status
   code raises SdtkitBind::Error, whose code is sdtkit_strerror's name and
   whose message is the provider's; a probe's fire calls sdtkit_probe_fire,
   traced or not (the library does nothing while unloaded). */
#include <ruby.h>
#include <stdint.h>
#include <string.h>
#include "sdtkit-calls.h"

typedef struct {
    sdtkit_provider *pv;
} provider_t;

static VALUE cProvider, cProbe, eError;

static void provider_free(void *ptr)
{
    provider_t *p = ptr;
    sdtkit_provider_destroy(p->pv);
    xfree(p);
}

static size_t provider_size(const void *ptr) { return sizeof(provider_t); }

static const rb_data_type_t provider_type = {
    .wrap_struct_name = "SdtkitBind::Provider",
    .function = {.dfree = provider_free, .dsize = provider_size},
    .flags = RUBY_TYPED_FREE_IMMEDIATELY};

static const rb_data_type_t probe_type = {
    .wrap_struct_name = "SdtkitBind::Probe",
    .function = {.dfree = RUBY_TYPED_DEFAULT_FREE},
    .flags = RUBY_TYPED_FREE_IMMEDIATELY};

/* Raise SdtkitBind::Error for status rc, with message msg. */
static void check(int rc, const char *msg)
{
    if (rc == 0)
        return;
    const char *s = sdtkit_strerror(rc);
    VALUE e = rb_exc_new_cstr(eError, msg);
    rb_iv_set(e, "@code", rb_str_new(s, (long)strcspn(s, ":")));
    rb_exc_raise(e);
}

static VALUE provider_alloc(VALUE klass)
{
    provider_t *p;
    return TypedData_Make_Struct(klass, provider_t, &provider_type, p);
}

static sdtkit_provider *get_provider(VALUE self)
{
    provider_t *p;
    TypedData_Get_Struct(self, provider_t, &provider_type, p);
    if (!p->pv)
        rb_raise(rb_eRuntimeError, "provider destroyed");
    return p->pv;
}

static VALUE provider_initialize(VALUE self, VALUE name)
{
    provider_t *p;
    TypedData_Get_Struct(self, provider_t, &provider_type, p);
    check(sdtkit_provider_create(StringValueCStr(name), &p->pv), "");
    return self;
}

static VALUE provider_add_probe(int argc, VALUE *argv, VALUE self)
{
    sdtkit_provider *pv = get_provider(self);
    if (argc < 1 || argc > SDTKIT_MAX_ARGS + 1)
        rb_raise(rb_eArgError, "a name and 0 to %d argument types", SDTKIT_MAX_ARGS);
    probe_t *pr;
    VALUE obj = TypedData_Make_Struct(cProbe, probe_t, &probe_type, pr);
    for (int i = 1; i < argc; i++) {
        VALUE s = rb_String(argv[i]);
        if (!(pr->types[i - 1] = bind_type(StringValueCStr(s))))
            rb_raise(rb_eArgError, "unknown argument type %s", StringValueCStr(s));
    }
    check(sdtkit_provider_add_probe(pv, StringValueCStr(argv[0]), pr->types, argc - 1, &pr->p),
          sdtkit_provider_error(pv));
    return obj;
}

static VALUE provider_load(VALUE self)
{
    sdtkit_provider *pv = get_provider(self);
    check(sdtkit_provider_load(pv), sdtkit_provider_error(pv));
    return Qtrue;
}

static VALUE provider_unload(VALUE self)
{
    sdtkit_provider *pv = get_provider(self);
    check(sdtkit_provider_unload(pv), sdtkit_provider_error(pv));
    return Qtrue;
}

static VALUE provider_destroy(VALUE self)
{
    provider_t *p;
    TypedData_Get_Struct(self, provider_t, &provider_type, p);
    sdtkit_provider_destroy(p->pv);
    p->pv = NULL;
    return Qnil;
}

static VALUE provider_path(VALUE self)
{
    const char *s = sdtkit_provider_path(get_provider(self));
    return s ? rb_str_new_cstr(s) : Qnil;
}

static probe_t *get_probe(VALUE self)
{
    probe_t *pr;
    TypedData_Get_Struct(self, probe_t, &probe_type, pr);
    return pr;
}

static VALUE probe_name(VALUE self)
{
    return rb_str_new_cstr(sdtkit_probe_name(get_probe(self)->p));
}

static VALUE probe_nargs(VALUE self) { return INT2NUM(sdtkit_probe_nargs(get_probe(self)->p)); }

static VALUE probe_enabled(VALUE self)
{
    return sdtkit_probe_enabled(get_probe(self)->p) ? Qtrue : Qfalse;
}

/* Fire, enabled or not (the library does nothing while unloaded); whether
   a tracer was attached. */
static VALUE probe_fire(int argc, VALUE *argv, VALUE self)
{
    probe_t *pr = get_probe(self);
    sdtkit_value v[SDTKIT_MAX_ARGS];
    VALUE enabled = sdtkit_probe_enabled(pr->p) ? Qtrue : Qfalse;
    for (int i = 0; i < argc && i < SDTKIT_MAX_ARGS; i++) {
        if (RB_TYPE_P(argv[i], T_STRING))
            v[i].p = StringValueCStr(argv[i]);
        else if (pr->types[i] < 0)
            v[i].i = NUM2LL(argv[i]);
        else
            v[i].u = NUM2ULL(argv[i]);
    }
    sdtkit_probe_fire(pr->p, v);
    return enabled;
}

void Init_sdtkit_bind(void)
{
    VALUE m = rb_define_module("SdtkitBind");
    eError = rb_define_class_under(m, "Error", rb_eStandardError);
    rb_define_attr(eError, "code", 1, 0);
    cProvider = rb_define_class_under(m, "Provider", rb_cObject);
    rb_define_alloc_func(cProvider, provider_alloc);
    rb_define_method(cProvider, "initialize", provider_initialize, 1);
    rb_define_method(cProvider, "add_probe", provider_add_probe, -1);
    rb_define_method(cProvider, "load", provider_load, 0);
    rb_define_method(cProvider, "unload", provider_unload, 0);
    rb_define_method(cProvider, "destroy", provider_destroy, 0);
    rb_define_method(cProvider, "path", provider_path, 0);
    cProbe = rb_define_class_under(m, "Probe", rb_cObject);
    rb_undef_alloc_func(cProbe);
    rb_define_method(cProbe, "name", probe_name, 0);
    rb_define_method(cProbe, "nargs", probe_nargs, 0);
    rb_define_method(cProbe, "enabled?", probe_enabled, 0);
    rb_define_method(cProbe, "fire", probe_fire, -1);
}
