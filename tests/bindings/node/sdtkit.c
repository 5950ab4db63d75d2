/* SPDX-License-Identifier: MIT */
/* An N-API addon on libsdtkit's native API: Provider (a status code throws
   an Error whose code is sdtkit_strerror's name and whose message is the
   provider's) and the probes addProbe returns, whose fire(callback) calls
   the callback for the arguments only while a tracer is attached. */
#include "addon.h"
#include "sdtkit-calls.h"

#include <stdio.h>

typedef struct {
    sdtkit_provider *pv;
} provider_t;

/* Throw for status rc with message msg: NULL, or the napi_value undefined. */
static napi_value check(napi_env env, int rc, const char *msg)
{
    napi_value undefined;
    napi_get_undefined(env, &undefined);
    if (rc == 0)
        return undefined;
    const char *s = sdtkit_strerror(rc);
    char code[64];
    snprintf(code, sizeof code, "%.*s", (int)strcspn(s, ":"), s);
    napi_throw_error(env, code, msg);
    return NULL;
}

static void provider_finalize(napi_env env, void *data, void *hint)
{
    provider_t *p = data;
    sdtkit_provider_destroy(p->pv);
    free(p);
}

static napi_value provider_new(napi_env env, napi_callback_info info)
{
    napi_value self;
    char *name;
    provider_t *p = construct(env, info, sizeof *p, provider_finalize, &self, &name);
    if (!p)
        return NULL;
    int rc = sdtkit_provider_create(name, &p->pv);
    free(name);
    return check(env, rc, "") ? self : NULL;
}

/* ---- the probes ------------------------------------------------------------ */

static sdtkit_probe *probe_of(napi_env env, napi_callback_info info)
{
    return ((probe_t *)data_of(env, info, NULL, NULL))->p;
}

static napi_value probe_name(napi_env env, napi_callback_info info)
{
    return js_string(env, sdtkit_probe_name(probe_of(env, info)));
}

static napi_value probe_nargs(napi_env env, napi_callback_info info)
{
    return js_int(env, sdtkit_probe_nargs(probe_of(env, info)));
}

static napi_value probe_is_enabled(napi_env env, napi_callback_info info)
{
    return js_bool(env, sdtkit_probe_enabled(probe_of(env, info)));
}

static int is_signed(int i, void *probe) { return ((probe_t *)probe)->types[i] < 0; }

static napi_value probe_fire(napi_env env, napi_callback_info info)
{
    napi_value argv[1], array;
    size_t argc;
    probe_t *pr = data_of(env, info, argv, &argc);
    if (!sdtkit_probe_enabled(pr->p) || argc < 1 || !(array = fire_array(env, argv[0])))
        return js_bool(env, 0);
    uint64_t a[SDTKIT_MAX_ARGS];
    char *strings[SDTKIT_MAX_ARGS];
    int n = sdtkit_probe_nargs(pr->p);
    if (fire_values(env, array, n, is_signed, pr, a, strings) == 0)
        bind_fire(pr->p, a, n);
    for (int i = 0; i < n; i++)
        free(strings[i]);
    return js_bool(env, 1);
}

static void probe_finalize(napi_env env, void *data, void *hint) { free(data); }

/* ---- the provider's methods ------------------------------------------------ */

static napi_value provider_add_probe(napi_env env, napi_callback_info info)
{
    napi_value argv[SDTKIT_MAX_ARGS + 1], self, o;
    size_t argc;
    CHECK(args_of(env, info, SDTKIT_MAX_ARGS + 1, argv, &argc, &self, NULL));
    provider_t *p = this_of(env, info);
    if (argc < 1) {
        napi_throw_type_error(env, NULL, "Must give probe name as argument");
        return NULL;
    }
    probe_t *pr = calloc(1, sizeof *pr);
    char *name = NULL;
    for (size_t i = 1; i < argc; i++) {
        char *s = c_string(env, argv[i]);
        if (!s)
            goto fail;
        pr->types[i - 1] = bind_type(s);
        free(s);
    }
    if (!(name = c_string(env, argv[0])) ||
        !check(env, sdtkit_provider_add_probe(p->pv, name, pr->types, (int)argc - 1, &pr->p),
               sdtkit_provider_error(p->pv)))
        goto fail;
    free(name);
    napi_property_descriptor d[] = {
        METHOD("name", probe_name, pr),
        METHOD("nargs", probe_nargs, pr),
        METHOD("isEnabled", probe_is_enabled, pr),
        METHOD("fire", probe_fire, pr),
    };
    o = object_of(env, d, sizeof d / sizeof d[0]);
    CHECK(napi_add_finalizer(env, o, pr, probe_finalize, NULL, NULL));
    return o;
fail:
    free(name);
    free(pr);
    return NULL;
}

static napi_value provider_load(napi_env env, napi_callback_info info)
{
    provider_t *p = this_of(env, info);
    return check(env, sdtkit_provider_load(p->pv), sdtkit_provider_error(p->pv));
}

static napi_value provider_unload(napi_env env, napi_callback_info info)
{
    provider_t *p = this_of(env, info);
    return check(env, sdtkit_provider_unload(p->pv), sdtkit_provider_error(p->pv));
}

static napi_value provider_destroy(napi_env env, napi_callback_info info)
{
    provider_t *p = this_of(env, info);
    sdtkit_provider_destroy(p->pv);
    p->pv = NULL;
    return NULL;
}

static napi_value provider_path(napi_env env, napi_callback_info info)
{
    return js_string(env, sdtkit_provider_path(((provider_t *)this_of(env, info))->pv));
}

NAPI_MODULE_INIT()
{
    napi_property_descriptor d[] = {
        METHOD("addProbe", provider_add_probe, NULL), METHOD("load", provider_load, NULL),
        METHOD("unload", provider_unload, NULL),      METHOD("destroy", provider_destroy, NULL),
        METHOD("path", provider_path, NULL),
    };
    return export_class(env, exports, "Provider", provider_new, d, sizeof d / sizeof d[0]);
}
