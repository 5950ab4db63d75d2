/* SPDX-License-Identifier: MIT */
/*
 * lttng-abi.h: the part of LTTng-UST's ABI that lttng.c uses, as
 * liblttng-ust.so.1 and liblttng-ust-tracepoint.so.1 define it (LTTng-UST
 * 2.13 to 2.15: the soname 1 libraries, tracepoint provider ABI 3).
 *
 * The facts come from LTTng-UST's public headers (lttng/ust-events.h,
 * lttng/tracepoint-types.h, lttng/ust-ringbuffer-context.h); the
 * declarations are ours, so that the library builds without them and
 * links only libc.  tests/runtime-lttng.bats compiles this header beside
 * the installed ones and compares every size and offset.
 *
 * LTTng's rules for these structures: each starts with struct_size,
 * fields are only ever added at the end (read past the base ABI only
 * after checking struct_size), and a provider of an older major version
 * (ours: 3) registers with a newer library of the same soname.
 */
#ifndef SDTKIT_LTTNG_ABI_H
#define SDTKIT_LTTNG_ABI_H

#include <stddef.h>
#include <stdint.h>

/* The sonames: liblttng-ust.so.1 has the probe registration,
 * liblttng-ust-tracepoint.so.1 the tracepoints and their RCU. */
#define UST_LIB_SONAME "liblttng-ust.so.1"
#define UST_TRACEPOINT_LIB_SONAME "liblttng-ust-tracepoint.so.1"
/* LTTng-UST's fork helper: the child of a fork is traced when it is
 * preloaded (LTTng-UST's own rule). */
#define UST_FORK_LIB_SONAME "liblttng-ust-fork.so.1"
/* LTTng-UST 2.12 and older: another ABI, which we do not speak. */
#define UST_OLD_LIB_SONAME "liblttng-ust.so.0"

/* The provider ABI we build descriptions for (LTTNG_UST_PROVIDER_MAJOR,
 * _MINOR of LTTng-UST 2.13). */
enum {
    UST_PROVIDER_MAJOR = 3,
    UST_PROVIDER_MINOR = 0,
};

/* "provider:event" and its NUL fit in this (LTTNG_UST_ABI_SYM_NAME_LEN);
 * a longer one is refused, and fails its whole provider's registration. */
enum {
    UST_SYM_NAME_LEN = 256
};

/* enum lttng_ust_type */
enum {
    UST_TYPE_INTEGER = 0,
    UST_TYPE_STRING = 1,
    UST_TYPE_FLOAT = 2,
};

/* enum lttng_ust_string_encoding */
enum {
    UST_ENCODING_NONE = 0,
    UST_ENCODING_UTF8 = 1,
};

/* enum lttng_ust_event_type; a newer library may add types (2.16:
 * counters), which a probe callback ignores. */
enum {
    UST_EVENT_RECORDER = 0,
    UST_EVENT_NOTIFIER = 1,
};

/* enum lttng_ust_event_filter_result */
enum {
    UST_FILTER_ACCEPT = 0
};

struct ust_type_common {
    int type; /* enum lttng_ust_type */
};

struct ust_type_integer {
    struct ust_type_common parent;
    uint32_t struct_size;
    unsigned int size;        /* bits */
    unsigned short alignment; /* bits */
    unsigned int signedness : 1;
    unsigned int reverse_byte_order : 1;
    unsigned int base; /* 10, 16: how a reader prints it */
};

struct ust_type_float {
    struct ust_type_common parent;
    uint32_t struct_size;
    unsigned int exp_dig;  /* bits */
    unsigned int mant_dig; /* bits */
    unsigned short alignment;
    unsigned int reverse_byte_order : 1;
};

struct ust_type_string {
    struct ust_type_common parent;
    uint32_t struct_size;
    int encoding; /* enum lttng_ust_string_encoding */
};

struct ust_event_field {
    uint32_t struct_size;
    const char *name;
    const struct ust_type_common *type;
    unsigned int nowrite : 1, nofilter : 1;
};

struct ust_probe_desc;

struct ust_tracepoint_class {
    uint32_t struct_size;
    const struct ust_event_field *const *fields;
    size_t nr_fields;
    void (*probe_callback)(void);
    const char *signature;
    const struct ust_probe_desc *probe_desc;
};

struct ust_event_desc {
    uint32_t struct_size;
    const char *event_name;
    const struct ust_probe_desc *probe_desc;
    const struct ust_tracepoint_class *tp_class;
    const int **loglevel;       /* NULL: the default loglevel */
    const char **model_emf_uri; /* NULL: none */
};

struct ust_probe_desc {
    uint32_t struct_size;
    const char *provider_name;
    const struct ust_event_desc *const *event_desc;
    unsigned int nr_events;
    uint32_t major;
    uint32_t minor;
};

/* What the tracer hands a probe callback, and what it reads back. */

struct ust_probe_ctx {
    uint32_t struct_size;
    void *ip; /* the caller's address (the ip context) */
};

struct ust_event_common {
    uint32_t struct_size;
    void *priv;
    int type; /* enum lttng_ust_event_type */
    void *child;
    int enabled;
    int eval_filter;
    int (*run_filter)(const struct ust_event_common *event, const char *stack_data,
                      struct ust_probe_ctx *probe_ctx, void *filter_ctx);
};

struct ust_channel_buffer;

struct ust_event_recorder {
    uint32_t struct_size;
    struct ust_event_common *parent;
    void *priv;
    struct ust_channel_buffer *chan;
};

struct ust_notification_ctx {
    uint32_t struct_size;
    int eval_capture;
};

struct ust_event_notifier {
    uint32_t struct_size;
    struct ust_event_common *parent;
    void *priv;
    int eval_capture;
    void (*notification_send)(const struct ust_event_notifier *notifier, const char *stack_data,
                              struct ust_probe_ctx *probe_ctx,
                              struct ust_notification_ctx *notif_ctx);
};

struct ust_ring_buffer_ctx {
    uint32_t struct_size;
    void *client_priv; /* the event recorder */
    size_t data_size;  /* of the payload */
    int largest_align;
    struct ust_probe_ctx *probe_ctx;
    void *priv; /* set by event_reserve */
};

struct ust_channel_buffer_ops {
    uint32_t struct_size;
    void *priv;
    int (*event_reserve)(struct ust_ring_buffer_ctx *ctx);
    void (*event_commit)(struct ust_ring_buffer_ctx *ctx);
    void (*event_write)(struct ust_ring_buffer_ctx *ctx, const void *src, size_t len,
                        size_t alignment);
    void (*event_strcpy)(struct ust_ring_buffer_ctx *ctx, const char *src, size_t len);
    void (*event_pstrcpy_pad)(struct ust_ring_buffer_ctx *ctx, const char *src, size_t len);
};

struct ust_session {
    uint32_t struct_size;
    void *priv;
    int active;
};

struct ust_channel_common {
    uint32_t struct_size;
    void *priv;
    int type;
    void *child;
    int enabled;
    struct ust_session *session;
};

struct ust_channel_buffer {
    uint32_t struct_size;
    struct ust_channel_common *parent;
    void *priv;
    struct ust_channel_buffer_ops *ops;
};

/* lttng/tracepoint-types.h: a call site, which the tracer arms (state,
 * probes) while a session records its event. */

struct ust_tracepoint_probe {
    void (*func)(void);
    void *data;
};

struct ust_tracepoint {
    uint32_t struct_size;
    const char *provider_name;
    const char *event_name;
    int state;
    struct ust_tracepoint_probe *probes; /* RCU: read inside its read side */
    int *tracepoint_provider_ref;        /* NULL: not linked to a provider */
    const char *signature;
};

#endif
