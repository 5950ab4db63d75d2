# SPDX-License-Identifier: MIT
# The Ruby binding's driver: the commands of tests/bindings.bats,
# read from stdin, one reply line each, through the extension stapsdt_bind
# (libstapsdt's API, argument "compat") or sdtkit_bind (native).

API = ARGV.fetch(0)
require(API == "compat" ? "stapsdt_bind" : "sdtkit_bind")
$stdout.sync = true
# Waits on a tracer are bounded only against a hang: the suite's bound.
HANG = Integer(ENV.fetch("SDTKIT_HANG_SECONDS", "300"))
# what run rescues, in the compat driver too
SdtkitBind = Module.new.tap { |m| m.const_set(:Error, Class.new(StandardError)) } unless defined?(SdtkitBind)

def name_of(token) = token == "''" ? "" : token

def value(token) = Integer(token, exception: false) || token

def text(s) = s.nil? ? "NULL" : "<#{s}>"

def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

def usage
  fds = Dir.children("/proc/self/fd").size
  maps = File.foreach("/proc/self/maps").count
  rss = File.foreach("/proc/self/status").find { |l| l.start_with?("VmRSS:") }.split[1].to_i
  [fds, maps, rss]
end

# Until a tracer attaches to probe: false after HANG seconds.
def wait_enabled(probe)
  deadline = now + HANG
  until probe.enabled?
    return false if now > deadline

    sleep 0.001
  end
  true
end

# Fire probe with values every millisecond while a tracer is attached (a
# tracer raises the semaphore before its breakpoint is in; one that exits on
# its first event has gone when this returns): how many times, nil when it
# had not gone after HANG seconds.
def serve(probe, values)
  deadline = now + HANG
  n = 0
  while probe.enabled?
    return nil if now > deadline

    n += 1 if probe.fire(*values)
    sleep 0.001
  end
  n
end

# libstapsdt's API: the members bindings read.
module Compat
  module_function

  def create(key)
    p = StapsdtBind::Provider.new(name_of(key))
    return [nil, "provider NULL"] if p.null?

    [p, "provider #{text(p.name)} errno #{p.errno} error #{text(p.error)} filename #{text(p.path)}"]
  end

  def fire_byte(tp) = tp.fire_byte.nil? ? "NULL" : format("%02x", tp.fire_byte)

  def probe(p, key, types)
    tp = p.add_tracepoint(name_of(key), *types)
    return [nil, "probe NULL errno #{p.errno} error #{text(p.error)}"] if tp.null?

    [tp, "probe #{text(tp.name)} argCount #{tp.arg_count} fire #{fire_byte(tp)}"]
  end

  def status(verb, p, ok) = ok ? "#{verb} 0" : "#{verb} -1 errno #{p.errno} error #{text(p.error)}"

  def load(p) = status("load", p, p.enable)
  def unload(p) = status("unload", p, p.disable)
  def load?(p) = p.enable
  def unload?(p) = p.disable

  def state(key, tp)
    "state <#{key}> argCount #{tp.arg_count} fire #{fire_byte(tp)} enabled #{tp.enabled? ? 1 : 0}"
  end
end

# The native API: status codes raise SdtkitBind::Error.
module Native
  module_function

  def create(key)
    [SdtkitBind::Provider.new(name_of(key)), "provider <#{name_of(key)}> 0"]
  rescue SdtkitBind::Error => e
    [nil, "provider <#{name_of(key)}> #{e.code}"]
  end

  def probe(p, key, types)
    pr = p.add_probe(name_of(key), *types)
    [pr, "probe <#{pr.name}> nargs #{pr.nargs}"]
  end

  def load(p) = p.load.then { "load 0" }
  def unload(p) = p.unload.then { "unload 0" }
  def load?(p) = (p.load rescue false)
  def unload?(p) = (p.unload rescue false)
  def state(key, pr) = "state <#{key}> nargs #{pr.nargs} enabled #{pr.enabled? ? 1 : 0}"
end

A = API == "compat" ? Compat : Native
$providers = {}
$probes = {}
$worker = nil

def toggle(p, count)
  before = usage
  failed = 0
  count.times { failed += 1 unless A.unload?(p) && A.load?(p) }
  after = usage
  "toggle #{count} failed #{failed} fds #{before[0]} #{after[0]} maps #{before[1]} #{after[1]} " \
    "rss #{before[2]} #{after[2]}"
end

def provider_command(cmd, p, args)
  case cmd
  when "probe"
    $probes[args[1]] = nil
    $probes[args[1]], reply = A.probe(p, args[1], args[2..])
    reply
  when "load" then A.load(p)
  when "unload" then A.unload(p)
  when "path" then "path #{p.path || 'NULL'}"
  when "destroy" then p.destroy.then { "destroy" }
  when "toggle" then toggle(p, Integer(args[1]))
  end
end

def probe_command(cmd, key, probe, values)
  case cmd
  when "state" then A.state(key, probe)
  when "fire" then "fire <#{key}> #{probe.fire(*values) ? 1 : 0}"
  when "wait" then "wait <#{key}> #{wait_enabled(probe) ? 'enabled' : 'timeout'}"
  when "serve" then "serve <#{key}> #{serve(probe, values) || 'timeout'}"
  when "fork"
    # a pre-fork server's worker: traced on its own pid, it serves the probe
    # it inherited, then exits as Ruby does, finalisers and all
    $worker = fork { exit(wait_enabled(probe) && serve(probe, values)&.positive? ? 0 : 3) }
    "worker #{$worker}"
  else raise ArgumentError, "unknown command #{cmd}"
  end
end

def run(cmd, args)
  if cmd == "provider"
    $providers[args[0]], reply = A.create(args[0])
    reply
  elsif %w[probe load unload destroy path toggle].include?(cmd)
    p = $providers[args[0]]
    p.nil? ? "#{cmd} NULL" : provider_command(cmd, p, args)
  else
    probe = $probes[args[0]]
    probe.nil? ? "#{cmd} NULL" : probe_command(cmd, args[0], probe, args[1..].map { |a| value(a) })
  end
rescue SdtkitBind::Error => e
  "#{cmd} #{e.code} <#{e.message}>"
end

puts "ready #{Process.pid}"
$stdin.each_line do |line|
  words = line.split
  next if words.empty?

  if words[0] == "reap"
    _, status = Process.wait2($worker)
    puts "reaped #{status.exitstatus}"
  else
    puts run(words[0], words[1..])
  end
end
