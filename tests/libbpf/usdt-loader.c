/* SPDX-License-Identifier: MIT */
/* usdt-loader BPF-OBJECT BINARY PROVIDER:NAME... -- COMMAND [ARGS...]

   A minimal libbpf consumer for the tests: loads usdt-args.bpf.o, attaches
   its program with bpf_program__attach_usdt() to each PROVIDER:NAME of
   BINARY (every process, cookie = position in the list), runs COMMAND,
   then prints one line per event, in order:

     PROVIDER:NAME ARG0 ARG1 ...      (each as a signed 64-bit decimal,
                                       `?' where bpf_usdt_arg failed)

   then "attached N" on stderr.  Exit status 0, or 1 with a message naming
   what failed (open, load, attach, run).  COMMAND's output goes to its
   own stdout, before the events. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#define MAX_PROBES 256
#define MAX_ARGS 12

struct event
{
  unsigned long long cookie;
  long long count;
  unsigned long long failed;
  long long value[MAX_ARGS];
};

static char *probe_names[MAX_PROBES];
static int probe_count;

static int
print_event (void *ctx, void *data, size_t size)
{
  const struct event *e = data;
  long long i;

  (void) ctx;
  if (size < sizeof (*e) || e->cookie >= (unsigned long long) probe_count)
    return 0;
  printf ("%s", probe_names[e->cookie]);
  for (i = 0; i < e->count && i < MAX_ARGS; i++)
    {
      if (e->failed & (1ULL << i))
        printf (" ?");
      else
        printf (" %lld", e->value[i]);
    }
  printf ("\n");
  return 0;
}

static int
run_command (char **argv)
{
  int status;
  pid_t pid;

  fflush (stdout);
  pid = fork ();
  if (pid < 0)
    return -1;
  if (pid == 0)
    {
      execvp (argv[0], argv);
      fprintf (stderr, "usdt-loader: %s: %s\n", argv[0], strerror (errno));
      _exit (127);
    }
  if (waitpid (pid, &status, 0) < 0)
    return -1;
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128;
}

static int
fail (const char *what, const char *arg, int err)
{
  fprintf (stderr, "usdt-loader: %s %s: %s\n", what, arg,
           strerror (err < 0 ? -err : err));
  return 1;
}

int
main (int argc, char **argv)
{
  struct bpf_link *links[MAX_PROBES];
  struct bpf_object *obj;
  struct bpf_program *prog;
  struct ring_buffer *rb;
  int i, n, dash = -1, status, err;

  for (i = 3; i < argc; i++)
    if (strcmp (argv[i], "--") == 0)
      {
        dash = i;
        break;
      }
  if (argc < 4 || dash < 0 || dash + 1 >= argc || dash - 3 > MAX_PROBES)
    {
      fprintf (stderr, "usage: usdt-loader BPF-OBJECT BINARY PROVIDER:NAME... -- COMMAND [ARGS...]\n");
      return 2;
    }
  obj = bpf_object__open_file (argv[1], NULL);
  if (!obj)
    return fail ("open", argv[1], errno);
  err = bpf_object__load (obj);
  if (err)
    return fail ("load", argv[1], err);
  prog = bpf_object__find_program_by_name (obj, "on_probe");
  if (!prog)
    return fail ("find program on_probe in", argv[1], ENOENT);

  n = 0;
  for (i = 3; i < dash; i++)
    {
      char *spec = argv[i], *colon = strchr (spec, ':');
      LIBBPF_OPTS (bpf_usdt_opts, opts, .usdt_cookie = (unsigned long long) n);

      if (!colon)
        return fail ("probe without PROVIDER:", spec, EINVAL);
      probe_names[n] = strdup (spec);
      *colon = '\0';
      links[n] = bpf_program__attach_usdt (prog, -1, argv[2], spec,
                                           colon + 1, &opts);
      *colon = ':';
      if (!links[n])
        return fail ("attach", spec, errno);
      n++;
    }
  probe_count = n;

  rb = ring_buffer__new (bpf_map__fd (bpf_object__find_map_by_name (obj, "events")),
                         print_event, NULL, NULL);
  if (!rb)
    return fail ("ring buffer of", argv[1], errno);
  status = run_command (argv + dash + 1);
  if (status < 0)
    return fail ("run", argv[dash + 1], errno);
  fflush (stdout);
  ring_buffer__consume (rb);
  fflush (stdout);
  fprintf (stderr, "attached %d\n", n);
  ring_buffer__free (rb);
  for (i = 0; i < n; i++)
    bpf_link__destroy (links[i]);
  bpf_object__close (obj);
  return status == 0 ? 0 : 1;
}
