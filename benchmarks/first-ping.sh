#!/usr/bin/env bash
# The first pings through a freshly started tunnel, one RTT per packet: how much of the cold RTT is JIT warm-up
# (RTTs that fall with the packet count) and how much a floor (thread wake-ups). It follows the sequence of the
# comparison run's `fips` case (/work/shared/bench/tunnel-peers.sh): two fresh daemons (bin/fips, TUN on both, UDP
# over a veth pair between two namespaces), wait for the first successful ping (one ping of 1 s timeout, polled),
# then at once FIRST_PINGS pings (default 60) at 50 ms intervals. Prints every RTT, then the averages of pings
# 1-20 (what the comparison run reports), 21-40 and 41-60. Root; iproute2, ping. FIPS_JAVA_OPTS /
# FIPS_DAEMON_EXTRA_JAVA_OPTS reach bin/fips as usual, so options can be compared back to back. FIRST_JIT=1 adds
# how many data-plane methods node x's JIT had compiled (C2, C1) at the first ping and after the series (jcmd
# Compiler.codelist; the first jcmd delays the series by its own start-up, so RTT series are best taken without it).
# FIRST_CPU=1 sends the series as ping commands of 20 each (a few ms apart; FIRST_PINGS rounded up to 20s) and
# prints, for each block, the CPU that the two daemons' fips-dataplane threads used per ping
# (/proc/<pid>/task/<tid>/schedstat, the threads' whole CPU over the block, so their idle work is in it too: the CPU
# of one idle second just after the series is printed beside it), a figure that load on the machine moves much less
# than the RTT and that shows the interpreter's share; and the CPU the two daemons' C2 compiler threads used in each
# block (they compete with the pings for the cores).
# Usage: benchmarks/first-ping.sh            (FIRST_PINGS=60 FIRST_RUNS=1)
set -u
E2E_KEEP_WARMUP=1   # bin/fips's own start-up warm-up (default 10 s; FIPS_DAEMON_WARMUP=0: off) is part of what is measured
. "$(dirname "$0")/../tests/netns/lib.sh"
PINGS=${FIRST_PINGS:-60}
RUNS=${FIRST_RUNS:-1}
e2e_init first-ping
jit=0
[ "${FIRST_JIT:-0}" = 1 ] && command -v jcmd >/dev/null 2>&1 && jit=1
# dp_thread PID: the /proc task folder of the daemon's fips-dataplane thread.
dp_thread() {
    local t
    for t in /proc/"$1"/task/*; do
        [ "$(cat "$t/comm" 2>/dev/null)" = fips-dataplane ] && { echo "$t"; return; }
    done
}
# jit_threads PID: the /proc task folders of the daemon's C2 compiler threads.
jit_threads() {
    local t
    for t in /proc/"$1"/task/*; do
        case "$(cat "$t/comm" 2>/dev/null)" in C2\ Compiler*) echo "$t" ;; esac
    done
}
# cpu_of TASK...: "task nanoseconds" per line, the on-CPU time of each thread still alive.
cpu_of() {
    local t
    for t in "$@"; do echo "$t $(cut -d' ' -f1 "$t/schedstat" 2>/dev/null)"; done
}
# cpu_delta_ms BEFORE AFTER: milliseconds used between the two cpu_of readings by the threads alive in both.
cpu_delta_ms() {
    awk 'NR == FNR {a[$1] = $2; next}
        ($1 in a) && $2 != "" && a[$1] != "" {d += $2 - a[$1]}
        END {printf "%d", d / 1e6}' <(echo "$1") <(echo "$2")
}
# dp_cpu_ns TASK...: on-CPU nanoseconds of the given threads, summed.
dp_cpu_ns() {
    local s=0 t
    for t in "$@"; do s=$((s + $(cut -d' ' -f1 "$t/schedstat" 2>/dev/null || echo 0))); done
    echo "$s"
}
# jit_state WHEN: how many data-plane methods node x's JIT has compiled (live code only), by compiler.
jit_state() {
    jcmd "${E2E_PID[$x]}" Compiler.codelist 2>/dev/null | awk -v when="$1" '
        $2 >= 1 && $3 == 0 && $4 ~ /^net\.fips\.dataplane\./ {n[$2 == 4 ? "C2" : "C1"]++}
        END {printf "  node x JIT %s: net.fips.dataplane methods compiled by C2 %d, by C1 %d\n", when, n["C2"], n["C1"]}'
}

echo "machine: $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "daemon JVM extra options: ${FIPS_DAEMON_EXTRA_JAVA_OPTS:-none}${FIPS_JAVA_OPTS+; FIPS_JAVA_OPTS=$FIPS_JAVA_OPTS}"
for run in $(seq 1 "$RUNS"); do
    x=x$run y=y$run
    e2e_node "$x"
    e2e_node "$y"
    e2e_veth "$x" 10.203.$run.1 "$y" 10.203.$run.2
    e2e_config "$x" "$y:10.203.$run.2"
    e2e_config "$y" "$x:10.203.$run.1"
    # Both at once, as the comparison run does; e2e_start waits for each one's readiness in turn.
    e2e_start "$x" &
    sx=$!
    e2e_start "$y"
    wait "$sx" || e2e_fail "node $x did not start"
    # e2e_start ran in a subshell for x: find its pid again (the JVM in x's namespace).
    E2E_PID[$x]=$(ip netns pids "${E2E_NS[$x]}" | head -n1)
    t0=$SECONDS
    e2e_wait 30 e2e_ping_ok "$x" "$y" || e2e_fail "no ping reply $x -> $y within 30 s"
    [ "$jit" = 1 ] && jit_state "at the first ping"
    if [ "${FIRST_CPU:-0}" = 1 ]; then
        E2E_PID[$y]=$(ip netns pids "${E2E_NS[$y]}" | head -n1)
        tasks=("$(dp_thread "${E2E_PID[$x]}")" "$(dp_thread "${E2E_PID[$y]}")")
        out="" used=() jit_used=""
        for b in $(seq 1 $(( (PINGS + 19) / 20 ))); do
            mapfile -t jtasks < <(jit_threads "${E2E_PID[$x]}"; jit_threads "${E2E_PID[$y]}")
            c0=$(dp_cpu_ns "${tasks[@]}") j0=$(cpu_of "${jtasks[@]}")
            o=$(e2e_in "$x" ping -6 -n -c 20 -i 0.05 -W 1 "${E2E_NPUB[$y]}.fips" 2>&1)
            # the JVM starts and ends compiler threads as its queue grows and shrinks: the ones alive at both ends
            c1=$(dp_cpu_ns "${tasks[@]}") j1=$(cpu_of "${jtasks[@]}")
            jit_used+=" $(cpu_delta_ms "$j0" "$j1")"
            out+=$(sed -n 's/icmp_seq=\([0-9]*\) /icmp_seq=\1+'$(( (b - 1) * 20 ))' /p' <<<"$o")$'\n'
            used+=("$((c1 - c0))")
        done
        # a measuring window, not a synchronisation
        i0=$(dp_cpu_ns "${tasks[@]}"); sleep 1; i1=$(dp_cpu_ns "${tasks[@]}")
        cpu=""
        for u in "${used[@]}"; do
            cpu+=$(printf ' %d' $((u / 20000)))
        done
        out=$(awk '{ if (match($0, /icmp_seq=[0-9]+\+[0-9]+/)) { split(substr($0, RSTART + 9, RLENGTH - 9), a, "+");
            sub(/icmp_seq=[0-9]+\+[0-9]+/, "icmp_seq=" (a[1] + a[2])) } print }' <<<"$out")
    else
        out=$(e2e_in "$x" ping -6 -n -c "$PINGS" -i 0.05 -W 1 "${E2E_NPUB[$y]}.fips" 2>&1)
    fi
    series=$(sed -n 's/.*icmp_seq=\([0-9]*\) .*time=\([0-9.]*\) ms.*/\1 \2/p' <<<"$out")
    echo "run $run: first ping answered $((SECONDS - t0)) s after both were up; RTT (ms) per ping:"
    awk '{printf "%s%s", (NR % 10 == 1 ? "  " : " "), $2} NR % 10 == 0 {print ""} END {if (NR % 10) print ""}' <<<"$series"
    awk '{s[int(($1 - 1) / 20)] += $2; n[int(($1 - 1) / 20)]++}
        END {for (i = 0; i < 3; i++) if (n[i]) printf "  avg pings %d-%d: %.3f ms (%d answered)\n", 20*i+1, 20*i+20, s[i]/n[i], n[i]}' <<<"$series"
    [ "${FIRST_CPU:-0}" = 1 ] && echo "  fips-dataplane CPU per ping, both daemons, per block of 20 (us):$cpu" \
        "(idle: $(( (i1 - i0) / 1000 )) us/s); C2 compiler threads, both daemons, per block (ms):$jit_used"
    [ "$jit" = 1 ] && jit_state "after the series"
    # The daemon's own lines about its warm-ups (FIPS_DAEMON_WARMUP before the start, -Dfips.warmup.rounds after).
    sed -n 's/.*FipsDaemon: \(data path warm-up.*\|start-up warm-up.*\)/  node x: \1/p' "${E2E_LOG[$x]}"
    sed -n 's/.*FipsDaemon: \(start-up warm-up.*\)/  node y: \1/p' "${E2E_LOG[$y]}"
    e2e_stop "$x" TERM
    e2e_stop "$y" TERM
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
