#!/usr/bin/env bash
# Tunnel throughput, daemon CPU and RTT through real fips daemons in network namespaces (root; iproute2, ping,
# iperf3, /dev/net/tun). Two set-ups, one after the other, each in its own namespaces joined by veth pairs:
#   pair:  x - y          (neighbours; traffic x -> y)
#   chain: a - b - c      (a and c only reach each other through b; traffic a -> c)
# For each: one TCP stream through fips0 (iperf3, BENCH_RUNS runs of BENCH_SECS s; the median in Gbit/s), each
# daemon's CPU during those runs (utime+stime deltas from /proc/<pid>/stat, as % of one core), and the average
# RTT of BENCH_PINGS pings through the tunnel. For context, one run of the same TCP stream over the pair's bare
# veth (no fips). Usage: benchmarks/tunnel.sh   (BENCH_SECS=10 BENCH_RUNS=3 BENCH_PINGS=20 BENCH_WARMUP=3 by
# default, the last the seconds of an unmeasured iperf3 run before them; E2E_TRANSPORT=tcp: the daemons use a TCP
# transport on port 8443 instead of UDP; E2E_THREADING=dedicated or compact: node.dataplane.threading of every
# daemon, default the node's own, auto)
# BENCH_SETUPS picks the set-ups (default "pair chain"); "ethpair" is the pair again with only an Ethernet transport
# on a veth without IP addresses (links from beacons), e.g. BENCH_SETUPS="pair ethpair" for UDP against Ethernet.
# BENCH_PROFILE=NODE (e.g. b, the chain's transit): during the measured runs, from 2 s in for BENCH_PROFILE_SECS
# (default: the runs' length less 4 s), perf samples that daemon (perf record -F 499, JIT symbols from jcmd
# Compiler.perfmap), perf stat counts its data-plane syscalls, and the datagrams it forwarded in the same window
# are read from its control socket; the report (per-thread and per-DSO shares, top symbols,
# syscalls and CPU per forwarded datagram) goes to BENCH_PROFILE_OUT (default $E2E_DIR/profile-NODE.txt).
set -u
. "$(dirname "$0")/../tests/netns/lib.sh"
SECS=${BENCH_SECS:-10}
RUNS=${BENCH_RUNS:-3}
PINGS=${BENCH_PINGS:-20}
WARMUP=${BENCH_WARMUP:-3}
HZ=$(getconf CLK_TCK)
SETUPS=" ${BENCH_SETUPS:-pair chain} "
want() { [[ "$SETUPS" == *" $1 "* ]]; }
e2e_init tunnel-bench

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
now() { date +%s.%N; }
PROFILE=${BENCH_PROFILE:-}
PROFILE_SECS=${BENCH_PROFILE_SECS:-$((SECS * RUNS - 4))}
SYSCALLS="recvmmsg recvmsg recvfrom sendmmsg sendmsg sendto poll ppoll epoll_wait read write readv writev futex"
SYSCALLS+=" sched_yield"
# forwarded NODE: the datagrams NODE has forwarded (show routing: forwarding.forwarded_packets).
forwarded() { e2e_ctl "$1" show routing 2>/dev/null | jq -r '.forwarding.forwarded_packets // 0'; }
# net_packets NODE: "rx tx" packets summed over the non-loopback interfaces of NODE's namespace (skbs: a GSO train
# counts once).
net_packets() {
    ip netns exec "${E2E_NS[$1]}" cat /proc/net/dev \
        | awk 'NR > 2 {sub(/:/, " "); if ($1 != "lo") {rx += $3; tx += $11}} END {print rx + 0, tx + 0}'
}

# profile_start NODE: perf record, perf stat and packet counts of NODE in the background (see BENCH_PROFILE).
profile_start() {
    local n=$1 pid=${E2E_PID[$1]} ev="" s
    for s in $SYSCALLS; do ev+="${ev:+,}syscalls:sys_enter_$s"; done
    (
        sleep 2
        net_packets "$n" > "$E2E_DIR/prof-net0"
        forwarded "$n" > "$E2E_DIR/prof-fwd0"
        echo "$(cpu_ticks "$pid") $(now)" > "$E2E_DIR/prof-cpu0"
        perf stat -x, -e "$ev" -p "$pid" -o "$E2E_DIR/prof-stat" -- sleep "$PROFILE_SECS" 2>/dev/null &
        perf record -q -F 499 -p "$pid" -o "$E2E_DIR/prof.data" -- sleep "$PROFILE_SECS" >/dev/null 2>&1
        wait
        net_packets "$n" > "$E2E_DIR/prof-net1"
        forwarded "$n" > "$E2E_DIR/prof-fwd1"
        echo "$(cpu_ticks "$pid") $(now)" > "$E2E_DIR/prof-cpu1"
    ) &
    PROFILE_BG=$!
}

# profile_report NODE: waits for the recording, then writes the report.
profile_report() {
    local n=$1 pid=${E2E_PID[$1]} out=${BENCH_PROFILE_OUT:-$E2E_DIR/profile-$1.txt}
    wait "$PROFILE_BG"
    jcmd "$pid" Compiler.perfmap >/dev/null 2>&1 || true
    local rx0 tx0 rx1 tx1 c0 t0 c1 t1 f0 f1 fwd
    read -r rx0 tx0 < "$E2E_DIR/prof-net0"; read -r rx1 tx1 < "$E2E_DIR/prof-net1"
    read -r c0 t0 < "$E2E_DIR/prof-cpu0"; read -r c1 t1 < "$E2E_DIR/prof-cpu1"
    read -r f0 < "$E2E_DIR/prof-fwd0"; read -r f1 < "$E2E_DIR/prof-fwd1"
    fwd=$((f1 - f0))
    {
        echo "# profile of $n (pid $pid) for $PROFILE_SECS s during the measured runs; $(date -u +%FT%TZ)"
        echo "# load average $(cut -d' ' -f1-3 /proc/loadavg)"
        awk -v rx=$((rx1 - rx0)) -v tx=$((tx1 - tx0)) -v f="$fwd" -v c=$((c1 - c0)) -v hz="$HZ" -v t0="$t0" \
            -v t1="$t1" 'BEGIN {printf "datagrams forwarded %d (%.0f/s); interface skbs received %d, sent %d;" \
                " daemon CPU %.1f%% of a core; %.2f us of CPU per forwarded datagram\n", f, f / (t1 - t0), rx, tx,
                100 * c / hz / (t1 - t0), 1e6 * c / hz / (f > 0 ? f : 1)}'
        echo "## syscalls (count, per forwarded datagram)"
        awk -F, -v f="$fwd" '$3 ~ /syscalls/ && $1 + 0 > 0 {sub("syscalls:sys_enter_", "", $3);
            printf "  %-12s %10d  %.3f\n", $3, $1, $1 / (f > 0 ? f : 1)}' "$E2E_DIR/prof-stat"
        echo "## samples by thread and DSO"
        perf report -i "$E2E_DIR/prof.data" --stdio --no-children --sort comm,dso 2>/dev/null \
            | grep -v '^#' | grep -v '^$' | head -25
        echo "## top 60 symbols"
        perf report -i "$E2E_DIR/prof.data" --stdio --no-children --sort dso,sym 2>/dev/null \
            | grep -v '^#' | grep -v '^$' | head -60
    } > "$out"
    echo "profile of $n: $out"
}

# measure NAME FROM TO "NODES...": iperf3 runs FROM -> TO's npub.fips, CPU of each node in NODES, ping RTT.
measure() {
    local name=$1 from=$2 to=$3 nodes=$4 n i out mbps t0 t1
    e2e_wait 30 e2e_ping_ok "$from" "$to" || e2e_fail "$name: no ping reply $from -> $to within 30 s"
    e2e_in "$to" iperf3 -s -p 5201 > "$E2E_DIR/iperf-server-$name.log" 2>&1 &
    E2E_BG+=($!)
    e2e_wait 10 sh -c "ip netns exec '${E2E_NS[$to]}' ss -Htln | grep -q ':5201\\b'" \
        || e2e_fail "$name: iperf3 server did not listen"
    # A short warm-up run so the JIT has compiled the data path before the measured runs.
    e2e_in "$from" timeout $((WARMUP + 30)) iperf3 -c "${E2E_NPUB[$to]}.fips" -p 5201 -t "$WARMUP" >/dev/null 2>&1 \
        || e2e_fail "$name: warm-up iperf3 run failed"
    declare -A c0 c1
    for n in $nodes; do c0[$n]=$(cpu_ticks "${E2E_PID[$n]}"); done
    local profiling=""
    if [ -n "$PROFILE" ] && [[ " $nodes " == *" $PROFILE "* ]]; then
        profiling=$PROFILE
        profile_start "$profiling"
    fi
    t0=$(now)
    local results=() retr=()
    for i in $(seq 1 "$RUNS"); do
        out=$(e2e_in "$from" timeout $((SECS + 30)) iperf3 -c "${E2E_NPUB[$to]}.fips" -p 5201 -t "$SECS" -f m 2>&1) \
            || e2e_fail "$name: iperf3 run $i failed: $out"
        mbps=$(awk '/receiver/ {for (i = 1; i <= NF; i++) if ($i == "Mbits/sec") print $(i - 1)}' <<<"$out")
        [ -n "$mbps" ] || e2e_fail "$name: no receiver line: $out"
        results+=("$mbps")
        retr+=("$(awk '/sender/ {for (i = 1; i <= NF; i++) if ($i == "Mbits/sec") print $(i + 1)}' <<<"$out")")
    done
    t1=$(now)
    for n in $nodes; do c1[$n]=$(cpu_ticks "${E2E_PID[$n]}"); done
    [ -z "$profiling" ] || profile_report "$profiling"
    local sorted median runs cpu=""
    sorted=$(printf '%s\n' "${results[@]}" | sort -n)
    median=$(sed -n "$(( (RUNS + 1) / 2 ))p" <<<"$sorted")
    runs=$(printf '%s\n' "${results[@]}" | awk '{printf "%s%.2f", (NR > 1 ? " " : ""), $1 / 1000}')
    for n in $nodes; do
        cpu+=$(awk -v d=$(( ${c1[$n]} - ${c0[$n]} )) -v hz="$HZ" -v t0="$t0" -v t1="$t1" -v n="$n" \
            'BEGIN {printf " %s=%.0f%%", n, 100 * d / hz / (t1 - t0)}')
    done
    out=$(e2e_in "$from" ping -6 -n -c "$PINGS" -i 0.2 -W 2 "${E2E_NPUB[$to]}.fips" 2>&1) \
        || e2e_fail "$name: ping failed: $out"
    local rtt loss
    rtt=$(sed -n 's|^rtt min/avg/max/mdev = [0-9.]*/\([0-9.]*\)/.*|\1|p' <<<"$out")
    loss=$(sed -n 's/.* \([0-9.]*%\) packet loss.*/\1/p' <<<"$out")
    printf '%-6s TCP 1 stream %s -> %s: median %.2f Gbit/s (runs: %s Gbit/s, %d x %d s; TCP retransmits: %s)\n' \
        "$name" "$from" "$to" "$(awk -v m="$median" 'BEGIN {print m / 1000}')" "$runs" "$RUNS" "$SECS" "${retr[*]}"
    printf '%-6s daemon CPU during the runs (%% of one core):%s\n' "$name" "$cpu"
    printf '%-6s ping RTT through the tunnel: avg %s ms over %d pings (loss %s)\n' "$name" "$rtt" "$PINGS" "$loss"
}

echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)" \
    "(family $(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -n1)," \
    "model $(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -n1)); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "fips: $("$E2E_ROOT/bin/fipsctl" --version); $(iperf3 --version | head -n1)"

# --- pair x - y
if want pair; then
e2e_node x
e2e_node y
e2e_veth x 10.202.1.1 y 10.202.1.2
e2e_config x y:10.202.1.2
e2e_config y x:10.202.1.1
e2e_start x
e2e_start y
measure pair x y "x y"

# The same TCP stream over the bare veth, for context.
e2e_in y iperf3 -s -1 -p 5301 > "$E2E_DIR/iperf-veth.log" 2>&1 &
E2E_BG+=($!)
e2e_wait 10 sh -c "ip netns exec '${E2E_NS[y]}' ss -Htln | grep -q ':5301\\b'" || e2e_fail "veth iperf3 server"
out=$(e2e_in x timeout $((SECS + 30)) iperf3 -c 10.202.1.2 -p 5301 -t "$SECS" -f m 2>&1) || e2e_fail "veth run: $out"
printf 'veth   TCP 1 stream x -> y without fips (one %d s run): %.2f Gbit/s\n' "$SECS" \
    "$(awk '/receiver/ {for (i = 1; i <= NF; i++) if ($i == "Mbits/sec") print $(i - 1) / 1000}' <<<"$out")"
e2e_stop x TERM
e2e_stop y TERM
fi

# --- ethpair p - q: the pair over Ethernet only
if want ethpair; then
e2e_node p
e2e_node q
ip link add "e${E2E_ID}pq" netns "${E2E_NS[p]}" type veth peer name "e${E2E_ID}qp" netns "${E2E_NS[q]}" \
    || e2e_fail "ip link add e${E2E_ID}pq"
ip -n "${E2E_NS[p]}" link set "e${E2E_ID}pq" up
ip -n "${E2E_NS[q]}" link set "e${E2E_ID}qp" up
E2E_IP[p]=0.0.0.0 E2E_IP[q]=0.0.0.0   # e2e_config writes a UDP block; it is replaced below
for n in p:"e${E2E_ID}pq" q:"e${E2E_ID}qp"; do
    e2e_config "${n%%:*}"
    # No UDP, no peers: one Ethernet transport that announces, dials what it hears and accepts strangers.
    sed -i '/^transports:/,$d' "${E2E_CFG[${n%%:*}]}"
    printf 'transports:\n  ethernet:\n    interface: %s\n    announce: true\n    auto_connect: true\n    accept_connections: true\n' \
        "${n#*:}" >> "${E2E_CFG[${n%%:*}]}"
done
e2e_start p
e2e_start q
measure ethpair p q "p q"
e2e_stop p TERM
e2e_stop q TERM
fi

# --- chain a - b - c
if want chain; then
e2e_node a
e2e_node b
e2e_node c
e2e_veth a 10.202.2.1 b 10.202.2.2
e2e_veth b 10.202.3.2 c 10.202.3.3
e2e_config a b:10.202.2.2
e2e_config b a:10.202.2.1 c:10.202.3.3
e2e_config c b:10.202.3.2
e2e_start a
e2e_start b
e2e_start c
measure chain a c "a b c"
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
