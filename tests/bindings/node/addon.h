/* SPDX-License-Identifier: MIT */
/* addon.h: what both N-API addons (stapsdt.c, sdtkit.c) share: reading
   arguments, throwing, and the values a probe fires with. */
#ifndef ADDON_H
#define ADDON_H

#include <node_api.h>
#include <stdint.h>
#include <stdlib.h>

#define CHECK(call)                                                                               \
    do {                                                                                          \
        if ((call) != napi_ok) {                                                                  \
            napi_throw_error(env, NULL, #call " failed");                                         \
            return NULL;                                                                          \
        }                                                                                         \
    } while (0)

/* A method: name, function, and what it is called with as data. */
#define METHOD(name, fn, data) {name, NULL, fn, NULL, NULL, NULL, napi_default, data}

/* The callback's this, its data and up to max arguments (the rest undefined). */
static inline napi_status args_of(napi_env env, napi_callback_info info, size_t max,
                                  napi_value *argv, size_t *argc, napi_value *self, void **data)
{
    *argc = max;
    return napi_get_cb_info(env, info, argc, argv, self, data);
}

/* The data a method was defined with (METHOD), and its first argument in
   *argv when argv is not NULL (*argc: whether there was one). */
static inline void *data_of(napi_env env, napi_callback_info info, napi_value *argv, size_t *argc)
{
    void *data = NULL;
    size_t n = 0;
    napi_value self;
    args_of(env, info, argv ? 1 : 0, argv, argc ? argc : &n, &self, &data);
    return data;
}

/* The native object wrapped in this. */
static inline void *this_of(napi_env env, napi_callback_info info)
{
    napi_value self;
    size_t n = 0;
    void *p = NULL;
    if (args_of(env, info, 0, NULL, &n, &self, NULL) == napi_ok)
        napi_unwrap(env, self, &p);
    return p;
}

/* An object whose methods are d[0 .. n-1]. */
static inline napi_value object_of(napi_env env, const napi_property_descriptor *d, size_t n)
{
    napi_value o;
    if (napi_create_object(env, &o) != napi_ok || napi_define_properties(env, o, n, d) != napi_ok)
        return NULL;
    return o;
}

/* exports.NAME, a class whose constructor is ctor and methods d[0 .. n-1]. */
static inline napi_value export_class(napi_env env, napi_value exports, const char *name,
                                      napi_callback ctor, const napi_property_descriptor *d,
                                      size_t n)
{
    napi_value cls;
    CHECK(napi_define_class(env, name, NAPI_AUTO_LENGTH, ctor, NULL, n, d, &cls));
    CHECK(napi_set_named_property(env, exports, name, cls));
    return exports;
}

/* A JavaScript string as a malloc'd C string, or NULL (an exception thrown). */
static inline char *c_string(napi_env env, napi_value v)
{
    size_t n;
    if (napi_get_value_string_utf8(env, v, NULL, 0, &n) != napi_ok) {
        napi_throw_type_error(env, NULL, "a string was expected");
        return NULL;
    }
    char *s = malloc(n + 1);
    if (s)
        napi_get_value_string_utf8(env, v, s, n + 1, &n);
    return s;
}

/* A constructor's start: a zeroed native object of size bytes wrapped in
   this (*self), freed by finalize when collected, and the name it was
   given as a malloc'd C string in *name; NULL, an exception thrown, when
   there is no name. */
static inline void *construct(napi_env env, napi_callback_info info, size_t size,
                              napi_finalize finalize, napi_value *self, char **name)
{
    napi_value argv[1];
    size_t argc;
    if (args_of(env, info, 1, argv, &argc, self, NULL) != napi_ok || argc != 1) {
        napi_throw_type_error(env, NULL, "Must give provider name as argument");
        return NULL;
    }
    void *p = calloc(1, size);
    if (!p || !(*name = c_string(env, argv[0])) ||
        napi_wrap(env, *self, p, finalize, NULL, NULL) != napi_ok) {
        free(p);
        return NULL;
    }
    return p;
}

static inline napi_value js_string(napi_env env, const char *s)
{
    napi_value v;
    if (!s)
        napi_get_null(env, &v);
    else
        napi_create_string_utf8(env, s, NAPI_AUTO_LENGTH, &v);
    return v;
}

static inline napi_value js_int(napi_env env, int64_t n)
{
    napi_value v;
    napi_create_int64(env, n, &v);
    return v;
}

static inline napi_value js_bool(napi_env env, int b)
{
    napi_value v;
    napi_get_boolean(env, b, &v);
    return v;
}

/* The values a probe fires with, as node-usdt's fire takes them: a callback
   called only while the probe is enabled returns them as an array.  Each
   becomes its 64 bits: a BigInt or Number as an integer (signed when
   is_signed says so), a string as a pointer to a copy in strings[i] (to be
   freed).  0, or -1 with an exception thrown. */
static inline int fire_values(napi_env env, napi_value array, int n, int (*is_signed)(int, void *),
                              void *probe, uint64_t *out, char **strings)
{
    for (int i = 0; i < n; i++) {
        napi_value v;
        napi_valuetype t;
        bool lossless;
        strings[i] = NULL;
        if (napi_get_element(env, array, (uint32_t)i, &v) != napi_ok ||
            napi_typeof(env, v, &t) != napi_ok)
            return -1;
        if (t == napi_string) {
            if (!(strings[i] = c_string(env, v)))
                return -1;
            out[i] = (uint64_t)(uintptr_t)strings[i];
        } else if (t == napi_bigint && is_signed(i, probe)) {
            int64_t x;
            napi_get_value_bigint_int64(env, v, &x, &lossless);
            out[i] = (uint64_t)x;
        } else if (t == napi_bigint) {
            napi_get_value_bigint_uint64(env, v, &out[i], &lossless);
        } else {
            int64_t x;
            napi_get_value_int64(env, v, &x);
            out[i] = (uint64_t)x;
        }
    }
    return 0;
}

/* Call the fire callback: its array, or NULL (nothing to fire). */
static inline napi_value fire_array(napi_env env, napi_value cb)
{
    napi_value global, array;
    bool is_array;
    if (napi_get_global(env, &global) != napi_ok ||
        napi_call_function(env, global, cb, 0, NULL, &array) != napi_ok ||
        napi_is_array(env, array, &is_array) != napi_ok || !is_array)
        return NULL;
    return array;
}

#endif
