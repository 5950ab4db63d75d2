/* SPDX-License-Identifier: MIT */
/* StapsdtBind: a Ruby C extension on libstapsdt's API, as Ruby's tracing
   gems wrap it: Provider (providerInit; enable and disable load and unload
   and say whether that worked; path reads _filename, which disable clears
   first) and Tracepoint (fire calls probeFire, traced or not, as that gem
   does).  The members bindings read are methods too.  <errno.h> is not
   included: the member errno is read by its name. */
#include <ruby.h>
#include <stdint.h>
#include "stapsdt-calls.h"

typedef struct {
    SDTProvider_t *sdt;
} provider_t;

typedef struct {
    SDTProbe_t *sdt;
} tracepoint_t;

static VALUE cProvider, cTracepoint;

/* The provider goes with its Ruby object (at exit too): providerDestroy. */
static void provider_free(void *ptr)
{
    provider_t *p = ptr;
    if (p->sdt)
        providerDestroy(p->sdt);
    xfree(p);
}

static size_t provider_size(const void *ptr) { return sizeof(provider_t); }

static const rb_data_type_t provider_type = {
    .wrap_struct_name = "StapsdtBind::Provider",
    .function = {.dfree = provider_free, .dsize = provider_size},
    .flags = RUBY_TYPED_FREE_IMMEDIATELY};

static const rb_data_type_t tracepoint_type = {
    .wrap_struct_name = "StapsdtBind::Tracepoint",
    .function = {.dfree = RUBY_TYPED_DEFAULT_FREE},
    .flags = RUBY_TYPED_FREE_IMMEDIATELY};

static VALUE provider_alloc(VALUE klass)
{
    provider_t *p;
    return TypedData_Make_Struct(klass, provider_t, &provider_type, p);
}

static SDTProvider_t *get_provider(VALUE self)
{
    provider_t *p;
    TypedData_Get_Struct(self, provider_t, &provider_type, p);
    if (!p->sdt)
        rb_raise(rb_eRuntimeError, "no provider");
    return p->sdt;
}

/* nil when providerInit returned NULL: null? says so. */
static VALUE provider_initialize(VALUE self, VALUE name)
{
    provider_t *p;
    TypedData_Get_Struct(self, provider_t, &provider_type, p);
    p->sdt = providerInit(StringValueCStr(name));
    return self;
}

static VALUE provider_null(VALUE self)
{
    provider_t *p;
    TypedData_Get_Struct(self, provider_t, &provider_type, p);
    return p->sdt ? Qfalse : Qtrue;
}

static VALUE provider_add_tracepoint(int argc, VALUE *argv, VALUE self)
{
    SDTProvider_t *sdt = get_provider(self);
    ArgType_t t[MAX_ARGUMENTS] = {noarg};
    if (argc < 1 || argc > MAX_ARGUMENTS + 1)
        rb_raise(rb_eArgError, "a name and 0 to %d argument types", MAX_ARGUMENTS);
    for (int i = 1; i < argc; i++) {
        VALUE s = rb_String(argv[i]);
        if ((t[i - 1] = bind_arg_type(StringValueCStr(s))) == noarg)
            rb_raise(rb_eArgError, "unknown argument type %s", StringValueCStr(s));
    }
    SDTProbe_t *probe = bind_add_probe(sdt, StringValueCStr(argv[0]), argc - 1, t);
    tracepoint_t *tp;
    VALUE obj = TypedData_Make_Struct(cTracepoint, tracepoint_t, &tracepoint_type, tp);
    tp->sdt = probe;
    return obj;
}

static VALUE provider_enable(VALUE self)
{
    return providerLoad(get_provider(self)) == 0 ? Qtrue : Qfalse;
}

/* As Ruby's tracing gem: _filename cleared first (libstapsdt freed it in
   providerUnload without clearing it). */
static VALUE provider_disable(VALUE self)
{
    SDTProvider_t *sdt = get_provider(self);
    sdt->_filename = NULL;
    return providerUnload(sdt) == 0 ? Qtrue : Qfalse;
}

static VALUE provider_destroy(VALUE self)
{
    provider_t *p;
    TypedData_Get_Struct(self, provider_t, &provider_type, p);
    if (p->sdt)
        providerDestroy(p->sdt);
    p->sdt = NULL;
    return Qnil;
}

static VALUE str_or_nil(const char *s) { return s ? rb_str_new_cstr(s) : Qnil; }

static VALUE provider_path(VALUE self) { return str_or_nil(get_provider(self)->_filename); }
static VALUE provider_name(VALUE self) { return str_or_nil(get_provider(self)->name); }
static VALUE provider_errno(VALUE self) { return INT2NUM(get_provider(self)->errno); }
static VALUE provider_error(VALUE self) { return str_or_nil(get_provider(self)->error); }

static SDTProbe_t *get_probe(VALUE self)
{
    tracepoint_t *tp;
    TypedData_Get_Struct(self, tracepoint_t, &tracepoint_type, tp);
    if (!tp->sdt)
        rb_raise(rb_eRuntimeError, "no probe");
    return tp->sdt;
}

static VALUE tracepoint_null(VALUE self)
{
    tracepoint_t *tp;
    TypedData_Get_Struct(self, tracepoint_t, &tracepoint_type, tp);
    return tp->sdt ? Qfalse : Qtrue;
}

static VALUE tracepoint_enabled(VALUE self)
{
    return probeIsEnabled(get_probe(self)) == 1 ? Qtrue : Qfalse;
}

/* Fire, enabled or not, as Ruby's tracing gem does (libstapsdt's probeFire
   does nothing while unloaded); whether a tracer was attached. */
static VALUE tracepoint_fire(int argc, VALUE *argv, VALUE self)
{
    SDTProbe_t *probe = get_probe(self);
    uint64_t a[MAX_ARGUMENTS] = {0};
    VALUE enabled = probeIsEnabled(probe) == 1 ? Qtrue : Qfalse;
    for (int i = 0; i < argc && i < MAX_ARGUMENTS; i++) {
        if (RB_TYPE_P(argv[i], T_STRING))
            a[i] = (uint64_t)(uintptr_t)StringValueCStr(argv[i]);
        else if (probe->argFmt[i] < 0)
            a[i] = (uint64_t)NUM2LL(argv[i]);
        else
            a[i] = (uint64_t)NUM2ULL(argv[i]);
    }
    bind_fire(probe, a);
    return enabled;
}

static VALUE tracepoint_name(VALUE self) { return str_or_nil(get_probe(self)->name); }
static VALUE tracepoint_arg_count(VALUE self) { return INT2NUM(get_probe(self)->argCount); }

/* _fire's first byte, nil while it is NULL. */
static VALUE tracepoint_fire_byte(VALUE self)
{
    const void *fire = get_probe(self)->_fire;
    return fire ? INT2NUM(*(const unsigned char *)fire) : Qnil;
}

void Init_stapsdt_bind(void)
{
    VALUE m = rb_define_module("StapsdtBind");
    cProvider = rb_define_class_under(m, "Provider", rb_cObject);
    rb_define_alloc_func(cProvider, provider_alloc);
    rb_define_method(cProvider, "initialize", provider_initialize, 1);
    rb_define_method(cProvider, "null?", provider_null, 0);
    rb_define_method(cProvider, "add_tracepoint", provider_add_tracepoint, -1);
    rb_define_method(cProvider, "enable", provider_enable, 0);
    rb_define_method(cProvider, "disable", provider_disable, 0);
    rb_define_method(cProvider, "destroy", provider_destroy, 0);
    rb_define_method(cProvider, "path", provider_path, 0);
    rb_define_method(cProvider, "name", provider_name, 0);
    rb_define_method(cProvider, "errno", provider_errno, 0);
    rb_define_method(cProvider, "error", provider_error, 0);
    cTracepoint = rb_define_class_under(m, "Tracepoint", rb_cObject);
    rb_undef_alloc_func(cTracepoint);
    rb_define_method(cTracepoint, "null?", tracepoint_null, 0);
    rb_define_method(cTracepoint, "enabled?", tracepoint_enabled, 0);
    rb_define_method(cTracepoint, "fire", tracepoint_fire, -1);
    rb_define_method(cTracepoint, "name", tracepoint_name, 0);
    rb_define_method(cTracepoint, "arg_count", tracepoint_arg_count, 0);
    rb_define_method(cTracepoint, "fire_byte", tracepoint_fire_byte, 0);
}
