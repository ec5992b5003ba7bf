#!/usr/bin/env bash
# The netem stand-in (tests/netns/netem_relay.py) checked with ping and iperf3 between two namespaces, no daemons:
#  1. a plain veth pair: the base RTT;
#  2. the relay without impairment (delay 0, jitter 0, loss 0): the relay's own RTT cost, and its ceiling with
#     iperf3 (TCP, one stream, SECS s) and the relay's CPU seconds meanwhile;
#  3. the relay with DELAY ms, JITTER ms and LOSS % per direction: the RTT (should rise by about 2 x DELAY, its
#     spread by the jitter: two uniform draws of +-JITTER give a standard deviation of JITTER x 0.82), the ping
#     loss (about 1 - (1 - LOSS/100)^2 for a round trip) next to the relay's own counters, and iperf3 again;
#  4. the same under the ordinary scheduler instead of SCHED_FIFO (E2E_RELAY_SCHED=normal), to show what a loaded
#     machine does to a relay that waits for a CPU.
# Phases 2 and 3 run the relay as the tests do (SCHED_FIFO priority 1 where chrt works).
# Pings: COUNT at 10 ms intervals. Prints the machine, load and commit first.
# Knobs (environment): DELAY (ms, 2), JITTER (ms, 1), LOSS (%, 1), COUNT (1000), SECS (10).
# Usage: sudo benchmarks/netem-relay.sh
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/netns/lib.sh"
DELAY=${DELAY:-2}
JITTER=${JITTER:-1}
LOSS=${LOSS:-1}
COUNT=${COUNT:-1000}
SECS=${SECS:-10}
E2E_NAME=netem-relay
E2E_T0=$SECONDS
[ "$(id -u)" = 0 ] || e2e_skip "needs root"
for c in ip ping iperf3 python3; do command -v "$c" >/dev/null 2>&1 || e2e_skip "$c is not installed"; done
E2E_DIR=$(mktemp -d /tmp/fips-netem-relay.XXXXXX)
trap e2e_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
echo "benchmarks/netem-relay.sh: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); $(nproc) CPUs ($cpu);" \
    "load $(cut -d' ' -f1-3 /proc/loadavg); commit $(git -C "$root" rev-parse --short HEAD)"
echo "DELAY=$DELAY JITTER=$JITTER LOSS=$LOSS COUNT=$COUNT SECS=$SECS; kernel $(uname -r)," \
    "sch_netem: $(e2e_netem_ok && echo yes || echo no)"

# Namespaces x and y; three links between them, one per phase, on their own subnets.
for n in x y; do
    ns="fnr${E2E_ID}$n"
    ip netns add "$ns" || e2e_fail "ip netns add $ns"
    E2E_NETNS+=("$ns")
    E2E_NS[$n]=$ns
    ip -n "$ns" link set lo up
done
# Tags name the devices (f<id><tag1><tag2>): v w for the veth, x y, X Y and P Q for the relays.
E2E_NS[v]=${E2E_NS[x]}
E2E_NS[w]=${E2E_NS[y]}
E2E_NS[X]=${E2E_NS[x]}
E2E_NS[Y]=${E2E_NS[y]}
E2E_NS[P]=${E2E_NS[x]}
E2E_NS[Q]=${E2E_NS[y]}

pings() {  # pings DEST: COUNT pings from x; prints the loss and rtt lines
    ip netns exec "${E2E_NS[x]}" ping -n -q -i 0.01 -c "$COUNT" -w $((COUNT / 50 + 20)) "$1" \
        | grep -E 'packet loss|rtt'
}
relay_cpu() {  # the relay's user+system CPU seconds so far
    awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$E2E_RELAY/stat"
}
iperf() {  # iperf DEST: SECS s of TCP from x to DEST; prints the receiver's rate
    ip netns exec "${E2E_NS[y]}" iperf3 -s -1 -p 5209 > "$E2E_DIR/iperf-s.log" 2>&1 &
    E2E_BG+=($!)
    e2e_wait 10 sh -c "ip netns exec '${E2E_NS[y]}' ss -Htln | grep -q ':5209\\b'" || e2e_fail "iperf3 server"
    ip netns exec "${E2E_NS[x]}" iperf3 -c "$1" -p 5209 -t "$SECS" -f m 2>&1 | grep -E 'receiver$' \
        || e2e_fail "iperf3 client failed"
}

echo "== 1. veth, no relay"
e2e_veth v 10.209.1.1 w 10.209.1.2
pings 10.209.1.2

e2e_relay_links 0 0 0 1 "x 10.209.2.1 y 10.209.2.2"
echo "== 2. relay ($E2E_RELAY_HOW), delay 0 jitter 0 loss 0"
pings 10.209.2.2
c0=$(relay_cpu)
iperf 10.209.2.2
echo "relay CPU during iperf3: $(awk -v a="$c0" -v b="$(relay_cpu)" 'BEGIN { printf "%.2f", b - a }') s in $SECS s"
e2e_relay_counters

echo "== 3. relay ($E2E_RELAY_HOW), delay $DELAY ms jitter $JITTER ms loss $LOSS %"
e2e_relay_links "$DELAY" "$JITTER" "$LOSS" 2 "X 10.209.3.1 Y 10.209.3.2"
pings 10.209.3.2
c0=$(relay_cpu)
iperf 10.209.3.2
echo "relay CPU during iperf3: $(awk -v a="$c0" -v b="$(relay_cpu)" 'BEGIN { printf "%.2f", b - a }') s in $SECS s"
e2e_relay_counters

E2E_RELAY_SCHED=normal e2e_relay_links "$DELAY" "$JITTER" "$LOSS" 2 "P 10.209.4.1 Q 10.209.4.2"
echo "== 4. relay ($E2E_RELAY_HOW), delay $DELAY ms jitter $JITTER ms loss $LOSS %"
pings 10.209.4.2
e2e_relay_counters
e2e_pass
