/* SPDX-License-Identifier: MIT */
/* The BPF side of tests/libbpf/usdt-loader.c: at every USDT probe it is
   attached to, send the attachment's cookie, the argument count and every
   argument as libbpf's bpf_usdt_arg() decodes it. */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/usdt.bpf.h>

#define MAX_ARGS 12

struct event
{
  __u64 cookie;
  __s64 count;
  __u64 failed;                 /* bit i: bpf_usdt_arg (i) failed */
  __s64 value[MAX_ARGS];
};

struct
{
  __uint (type, BPF_MAP_TYPE_RINGBUF);
  __uint (max_entries, 1 << 18);
} events SEC (".maps");

SEC ("usdt")
int
on_probe (struct pt_regs *ctx)
{
  struct event *e = bpf_ringbuf_reserve (&events, sizeof (*e), 0);
  int i;

  if (!e)
    return 0;
  e->cookie = bpf_usdt_cookie (ctx);
  e->count = bpf_usdt_arg_cnt (ctx);
  e->failed = 0;
  for (i = 0; i < MAX_ARGS; i++)
    {
      long v = 0;
      if (i < e->count && bpf_usdt_arg (ctx, i, &v) != 0)
        e->failed |= 1ULL << i;
      e->value[i] = v;
    }
  bpf_ringbuf_submit (e, 0);
  return 0;
}

char LICENSE[] SEC ("license") = "GPL";
