#!/usr/bin/env bash
# CPU per ping of a warm tunnel, at two gaps: two namespaces joined by a veth (198.18.0.0/24, the RFC 2544 benchmarking
# range, only inside the namespaces made here), one fips daemon in each (bin/fips, TUN on both; WHAT=wg: wireguard-go
# instead), a WARMSECS-second iperf3 stream (default 20), 5 s idle, then 200 pings 50 ms apart and 1000 pings 2 ms
# apart. Prints the RTTs and the CPU per ping of both daemons (all their threads, then, for fips, only the
# fips-dataplane threads), from /proc/<pid>/task/*/schedstat, with the idle rate of the 5 s before subtracted.
# wireguard-go's Go runtime spins between packets, so its CPU is not comparable with ours; its RTTs are. The all-threads
# figure at 50 ms gaps is dominated by the JVM's idle work (control ticks) and may even come out negative; the
# fips-dataplane figure is the one to read.
# Options: PERF=1 also profiles the two fips-dataplane threads (perf record -e cpu-clock -c 10000, the JIT's symbols
# from jcmd Compiler.perfmap) over each ping series and prints the shares by DSO and symbol (PERFG=-g adds call
# graphs and writes the interpreter's callers to /tmp/ping-cpu-interp-callers-<gap>.txt; add
# FIPS_DAEMON_EXTRA_JAVA_OPTS=-XX:+PreserveFramePointer); JITDIR=DIR lists what the JIT compiled during the pings
# (needs FIPS_DAEMON_EXTRA_JAVA_OPTS=-Xlog:jit+compilation=debug:file=DIR/jit-%p.log:uptime); JFRDIR=DIR records
# JFREV (default jdk.ExecutionSample#period=1ms; jdk.Deoptimization#enabled=true names the traps) during a ping
# series into DIR; CODELIST=PREFIX writes each daemon's jcmd Compiler.codelist; PERFDATA=PREFIX keeps each series'
# perf.data (for benchmarks/perf-interp-callers.py on its perf script output).
# Root; iproute2, iperf3, ping, perf for PERF=1. docs/benchmarks.md, "The warm-up by default".
# Usage: benchmarks/ping-cpu.sh      (FIPS_HOME defaults to this checkout)
set -euo pipefail
FIPS_HOME=${FIPS_HOME:-$(cd "$(dirname "$0")/.." && pwd)}
. "$FIPS_HOME/bin/java-env.sh"
fips_find_java25
JDKBIN=$(dirname "$(readlink -f "$(command -v java)")")
WHAT=${WHAT:-fips}
NA=ppA; NB=ppB; VA=198.18.0.1; VB=198.18.0.2
PIDS=(); TMP=$(mktemp -d)
cleanup() { for p in "${PIDS[@]:-}"; do kill "$p" 2>/dev/null || true; done; sleep 0.3; for p in "${PIDS[@]:-}"; do kill -9 "$p" 2>/dev/null || true; done
  ip netns del $NA 2>/dev/null || true; ip netns del $NB 2>/dev/null || true; rm -rf "$TMP"; }
trap cleanup EXIT
ip netns add $NA; ip netns add $NB
ip link add vppA type veth peer name vppB
ip link set vppA netns $NA; ip link set vppB netns $NB
ip -n $NA addr add $VA/24 dev vppA; ip -n $NB addr add $VB/24 dev vppB
for n in $NA $NB; do ip -n $n link set lo up; done
ip -n $NA link set vppA up; ip -n $NB link set vppB up
ip netns exec $NB iperf3 -s -p 5201 >/dev/null 2>&1 & PIDS+=($!)
# sum of schedstat runtime (ns) of the tasks of the given pids whose comm matches $MATCH (all when empty)
cpu() { local s=0 t; for p in "$@"; do for t in /proc/$p/task/*; do
  if [ -z "${MATCH:-}" ] || grep -q -x "$MATCH" $t/comm 2>/dev/null; then s=$((s + $(cut -d' ' -f1 $t/schedstat 2>/dev/null || echo 0))); fi; done; done; echo $s; }
measure() { # label dst pids...
  local label=$1 dst=$2; shift 2
  local c0 c1 t0 t1
  c0=$(cpu "$@"); t0=$(date +%s%N); sleep 5; c1=$(cpu "$@"); t1=$(date +%s%N)
  local idle=$(( (c1 - c0) * 1000 / ((t1 - t0) / 1000000) ))   # ns per s
  for spec in "200 0.05" "1000 0.002"; do set -- $spec; local n=$1 gap=$2
    c0=$(MATCH=${MATCH:-} cpu $PP); t0=$(date +%s%N)
    local out; out=$(ip netns exec $NA ping -q -c $n -i $gap -W 1 $dst 2>&1 | tail -1)
    c1=$(MATCH=${MATCH:-} cpu $PP); t1=$(date +%s%N)
    local dur_ms=$(( (t1 - t0) / 1000000 ))
    echo "$label gap $gap n $n: rtt $out; cpu per ping $(( ((c1 - c0) - idle * dur_ms / 1000) / n / 1000 )) us (raw $(( (c1 - c0) / n / 1000 )) us, idle $((idle/1000)) us/s)"
  done
}
case ${WHAT:-fips} in
fips)
  read -r sa pa <<<"$("$FIPS_HOME/bin/fipsctl" keygen -s | tr '\n' ' ')"; read -r sb pb <<<"$("$FIPS_HOME/bin/fipsctl" keygen -s | tr '\n' ' ')"
  pr() { printf 'node:\n  identity: { nsec: "%s" }\n  control: { socket_path: "%s" }\ntun: { enabled: true }\ndns: { enabled: false }\ntransports:\n  udp: { bind_addr: "%s" }\npeers:\n  - npub: "%s"\n    addresses: [ { transport: udp, addr: "%s" } ]\n' "$@"; }
  pr "$sa" "$TMP/a.sock" "$VA:2121" "$pb" "$VB:2121" > $TMP/a.yaml; pr "$sb" "$TMP/b.sock" "$VB:2121" "$pa" "$VA:2121" > $TMP/b.yaml
  ip netns exec $NA "$FIPS_HOME/bin/fips" -c $TMP/a.yaml >$TMP/a.log 2>&1 & PIDS+=($!); fa=$!
  ip netns exec $NB "$FIPS_HOME/bin/fips" -c $TMP/b.yaml >$TMP/b.log 2>&1 & PIDS+=($!); fb=$!
  ib=""; for i in $(seq 1 60); do ib=$("$FIPS_HOME/bin/fipsctl" --json -s "$TMP/b.sock" show status 2>/dev/null | python3 -c "import json,sys;d=json.load(sys.stdin);d=d.get('data',d);print(d['ipv6_addr'])" 2>/dev/null) && break; sleep 0.5; done
  for i in $(seq 1 60); do ip netns exec $NA ping -c 1 -W 1 "$ib" >/dev/null 2>&1 && break; sleep 0.5; done
  dst=$ib; PP="$fa $fb" ;;
wg)
  umask 077; wg genkey > $TMP/ka; wg genkey > $TMP/kb; wg pubkey < $TMP/ka > $TMP/pa; wg pubkey < $TMP/kb > $TMP/pb
  ip netns exec $NA wireguard-go -f ppwgA >/dev/null 2>&1 & PIDS+=($!); fa=$!
  ip netns exec $NB wireguard-go -f ppwgB >/dev/null 2>&1 & PIDS+=($!); fb=$!
  for i in $(seq 1 50); do ip -n $NA link show ppwgA >/dev/null 2>&1 && ip -n $NB link show ppwgB >/dev/null 2>&1 && break; sleep 0.1; done
  ip netns exec $NA wg set ppwgA private-key $TMP/ka listen-port 51820 peer "$(cat $TMP/pb)" allowed-ips 198.18.1.2/32 endpoint $VB:51820
  ip netns exec $NB wg set ppwgB private-key $TMP/kb listen-port 51820 peer "$(cat $TMP/pa)" allowed-ips 198.18.1.1/32 endpoint $VA:51820
  ip -n $NA addr add 198.18.1.1/24 dev ppwgA; ip -n $NB addr add 198.18.1.2/24 dev ppwgB
  ip -n $NA link set ppwgA up; ip -n $NB link set ppwgB up
  ip netns exec $NA ping -c 3 -i 0.2 -W 1 198.18.1.2 >/dev/null || echo "wg: no ping"
  dst=198.18.1.2; PP="$fa $fb" ;;
esac
ip netns exec $NA iperf3 -c "$dst" -p 5201 -t ${WARMSECS:-20} >/dev/null 2>&1 || echo "iperf3 failed"
sleep 1
if [ -n "${JITDIR:-}" ]; then for f in $JITDIR/jit-*.log; do wc -l < $f > $f.mark; done; fi
if [ -n "${JFRDIR:-}" ]; then for p in $PP; do $JDKBIN/jcmd $p JFR.start name=pings "${JFREV:-jdk.ExecutionSample#period=1ms}" >/dev/null 2>&1 || echo "JFR.start failed"; done
  ip netns exec $NA ping -q -c 1000 -i 0.002 -W 1 $dst >/dev/null; ip netns exec $NA ping -q -c 200 -i 0.05 -W 1 $dst >/dev/null
  for p in $PP; do $JDKBIN/jcmd $p JFR.dump name=pings filename=$JFRDIR/pings-$p.jfr >/dev/null 2>&1 || echo "JFR.dump failed"; done; fi
measure "$WHAT all-threads" $dst $PP
if [ -n "${JITDIR:-}" ]; then for f in $JITDIR/jit-*.log; do echo "== compiles during the pings: $f"; tail -n +$(( $(cat $f.mark) + 1 )) $f | grep -v "made not entrant" | sed 's/^.*\] *//' | head -80; done; fi
[ "$WHAT" = fips ] && MATCH=fips-dataplane measure "fips dataplane-thread" $dst $PP
if [ -n "${CODELIST:-}" ]; then for p in $PP; do $JDKBIN/jcmd $p Compiler.codelist > $CODELIST-$p.txt 2>&1; done; fi
if [ -n "${PERF:-}" ]; then
  tids=$(for p in $PP; do for t in /proc/$p/task/*; do [ "$WHAT" = wg ] || grep -q -x fips-dataplane $t/comm && echo ${t##*/} || true; done; done | paste -sd,)
  for spec in "200 0.05" "1000 0.002"; do set -- $spec
    perf record -q ${PERFG:-} -e cpu-clock -c 10000 -t $tids -o $TMP/perf.data -- ip netns exec $NA ping -q -c $1 -i $2 -W 1 $dst >/dev/null 2>&1
    [ "$WHAT" = fips ] && for p in $PP; do $JDKBIN/jcmd $p Compiler.perfmap >/dev/null 2>&1 || true; done
    echo "== perf gap $2 n $1 (samples of 10 us cpu-clock, threads $tids)"
    [ -n "${PERFDATA:-}" ] && cp $TMP/perf.data "$PERFDATA-$2.data"
    perf report -i $TMP/perf.data --stdio --sort dso 2>/dev/null | grep -v "^#" | grep -v "^$" | head -12 || true
    perf report -i $TMP/perf.data --stdio --sort sym 2>/dev/null | grep -v "^#" | grep -v "^$" | head -${SYMS:-25} || true
    [ -n "${PERFG:-}" ] && { perf report -i $TMP/perf.data --stdio --no-children -S Interpreter -G --percent-limit 2 2>/dev/null | grep -v "^#" | grep -v "^$" | head -150 > /tmp/ping-cpu-interp-callers-$2.txt || true; }
  done
fi
true
