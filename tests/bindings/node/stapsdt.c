/* SPDX-License-Identifier: MIT */
/* An N-API addon on libstapsdt's API, as Node's USDT addons are written:
   USDTProvider (providerInit; enable and disable throw when providerLoad or
   providerUnload fail; providerDestroy when the object is collected) and
   the probes addProbe returns, whose fire(callback) calls the callback for
   the arguments only while a tracer is attached.  members() read what
   bindings read.  <errno.h> is not included: the member errno is read by
   its name. */
#include "addon.h"
#include "stapsdt-calls.h"

typedef struct {
    SDTProvider_t *sdt;
} provider_t;

static void provider_finalize(napi_env env, void *data, void *hint)
{
    provider_t *p = data;
    if (p->sdt)
        providerDestroy(p->sdt);
    free(p);
}

static napi_value provider_new(napi_env env, napi_callback_info info)
{
    napi_value self;
    char *name;
    provider_t *p = construct(env, info, sizeof *p, provider_finalize, &self, &name);
    if (!p)
        return NULL;
    p->sdt = providerInit(name);
    free(name);
    if (!p->sdt)
        napi_throw_error(env, NULL, "providerInit failed");
    return self;
}

/* ---- the probes ------------------------------------------------------------ */

static napi_value probe_is_null(napi_env env, napi_callback_info info)
{
    return js_bool(env, data_of(env, info, NULL, NULL) == NULL);
}

static napi_value probe_is_enabled(napi_env env, napi_callback_info info)
{
    return js_bool(env, probeIsEnabled(data_of(env, info, NULL, NULL)) == 1);
}

static int is_signed(int i, void *probe) { return ((SDTProbe_t *)probe)->argFmt[i] < 0; }

static napi_value probe_fire(napi_env env, napi_callback_info info)
{
    napi_value argv[1], array;
    size_t argc;
    SDTProbe_t *probe = data_of(env, info, argv, &argc);
    if (probeIsEnabled(probe) != 1 || argc < 1 || !(array = fire_array(env, argv[0])))
        return js_bool(env, 0);
    uint64_t a[MAX_ARGUMENTS] = {0};
    char *strings[MAX_ARGUMENTS];
    int n = probe->argCount;
    if (fire_values(env, array, n, is_signed, probe, a, strings) == 0)
        bind_fire(probe, a);
    for (int i = 0; i < n; i++)
        free(strings[i]);
    return js_bool(env, 1);
}

static napi_value probe_members(napi_env env, napi_callback_info info)
{
    SDTProbe_t *probe = data_of(env, info, NULL, NULL);
    napi_value o, fire;
    CHECK(napi_create_object(env, &o));
    if (probe->_fire)
        fire = js_int(env, *(const unsigned char *)probe->_fire);
    else
        napi_get_null(env, &fire);
    napi_set_named_property(env, o, "name", js_string(env, probe->name));
    napi_set_named_property(env, o, "argCount", js_int(env, probe->argCount));
    napi_set_named_property(env, o, "fireByte", fire);
    return o;
}

/* ---- the provider's methods ------------------------------------------------ */

static napi_value provider_add_probe(napi_env env, napi_callback_info info)
{
    napi_value argv[MAX_ARGUMENTS + 1], self;
    size_t argc;
    CHECK(args_of(env, info, MAX_ARGUMENTS + 1, argv, &argc, &self, NULL));
    provider_t *p = this_of(env, info);
    if (argc < 1) {
        napi_throw_type_error(env, NULL, "Must give probe name as argument");
        return NULL;
    }
    ArgType_t t[MAX_ARGUMENTS] = {noarg};
    for (size_t i = 1; i < argc; i++) {
        char *s = c_string(env, argv[i]);
        if (!s)
            return NULL;
        t[i - 1] = bind_arg_type(s);
        free(s);
    }
    char *name = c_string(env, argv[0]);
    if (!name)
        return NULL;
    SDTProbe_t *probe = bind_add_probe(p->sdt, name, (int)argc - 1, t);
    free(name);
    napi_property_descriptor d[] = {
        METHOD("isNull", probe_is_null, probe),
        METHOD("isEnabled", probe_is_enabled, probe),
        METHOD("fire", probe_fire, probe),
        METHOD("members", probe_members, probe),
    };
    return object_of(env, d, sizeof d / sizeof d[0]);
}

static SDTProvider_t *this_provider(napi_env env, napi_callback_info info)
{
    return ((provider_t *)this_of(env, info))->sdt;
}

static napi_value provider_enable(napi_env env, napi_callback_info info)
{
    if (providerLoad(this_provider(env, info)) != 0)
        napi_throw_error(env, NULL, "Unable to load provider");
    return NULL;
}

static napi_value provider_disable(napi_env env, napi_callback_info info)
{
    if (providerUnload(this_provider(env, info)) != 0)
        napi_throw_error(env, NULL, "Unable to unload provider");
    return NULL;
}

static napi_value provider_destroy(napi_env env, napi_callback_info info)
{
    provider_t *p = this_of(env, info);
    providerDestroy(p->sdt);
    p->sdt = NULL;
    return NULL;
}

static napi_value provider_members(napi_env env, napi_callback_info info)
{
    SDTProvider_t *sdt = this_provider(env, info);
    napi_value o;
    CHECK(napi_create_object(env, &o));
    napi_set_named_property(env, o, "name", js_string(env, sdt->name));
    napi_set_named_property(env, o, "errno", js_int(env, sdt->errno));
    napi_set_named_property(env, o, "error", js_string(env, sdt->error));
    napi_set_named_property(env, o, "filename", js_string(env, sdt->_filename));
    return o;
}

NAPI_MODULE_INIT()
{
    napi_property_descriptor d[] = {
        METHOD("addProbe", provider_add_probe, NULL),  METHOD("enable", provider_enable, NULL),
        METHOD("disable", provider_disable, NULL),     METHOD("destroy", provider_destroy, NULL),
        METHOD("members", provider_members, NULL),
    };
    return export_class(env, exports, "USDTProvider", provider_new, d, sizeof d / sizeof d[0]);
}
