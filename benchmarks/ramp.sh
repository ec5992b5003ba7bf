#!/usr/bin/env bash
# The JIT ramp of a freshly started tunnel: how fast the packet path reaches its steady rate and RTT. For each
# configuration in RAMP_CONFIGS, RAMP_REPS times (configurations alternated within each rep, so load drifts hit all
# alike): two fresh daemons (bin/fips, TUN on both, UDP over a veth pair between two namespaces, started together as
# the comparison run /work/shared/bench/tunnel-peers.sh does), wait for the first successful ping (1 s timeout,
# polled), then at once 20 cold pings (-i 0.05, as the comparison run), then one TCP stream x -> y for RAMP_SECS
# seconds (default 30) with iperf3 -i 1 (per-second figures: the sender's interval lines, which track the
# receiver's within one window of TCP data), then 20 warm pings. Prints per run: the daemons' JVM options (read from
# the JVM's own command line), per-second Mbit/s, each daemon's CPU over the stream (% of one core), the cold and
# warm ping RTTs, and a summary line: the first 10 s mean, the best later 10 s window (10-20 or 20-30 s), their ratio
# (issue 22's target: >= 0.85), cold/warm ping averages. A final table gives each configuration's medians.
# Root; iproute2, ping, iperf3, /dev/net/tun.
# Configurations (names in RAMP_CONFIGS, default "c2 tiered tiered-t01 aot"):
#   c2          bin/fips's defaults as they are (FIPS_DEFAULT_JAVA_OPTS)
#   c2-t01      the defaults plus -XX:CompileThresholdScaling=0.1 (C2 only, thresholds / 10)
#   tiered      the defaults plus -XX:+TieredCompilation (the JDK's default mode)
#   tiered-t01  tiered plus -XX:CompileThresholdScaling=0.1
#   tiered-t4   tiered with only C2's (tier 4) thresholds lowered to a tenth (Tier4InvocationThreshold=500,
#               Tier4MinInvocationThreshold=60, Tier4CompileThreshold=1500, Tier4BackEdgeThreshold=4000)
#   aot         the defaults plus FIPS_DAEMON_AOT=1 (JDK 25 AOT cache with profiles, trained by DaemonTraining:
#               a TCP stream through two nodes with TUN stand-ins)
# RAMP_JITLOG=DIR: each daemon also writes -Xlog:jit+compilation=debug (with uptime) to DIR/<config>-<rep>-<node>.log,
# and -Xlog:deoptimization=debug beside it; benchmarks/jit-timeline.sh reads them (docs/benchmarks.md, "The JIT
# ramp").
# Usage: benchmarks/ramp.sh      (RAMP_CONFIGS="c2 tiered tiered-t01 aot" RAMP_REPS=2 RAMP_SECS=30)
set -u
# A short id (veth names are f<id><tag1><tag2>, at most 15 characters; the tags here are x<n> and y<n>).
E2E_ID=${E2E_ID:-$(( $$ % 10000 ))}
E2E_KEEP_WARMUP=1   # bin/fips's own start-up warm-up (default 10 s; FIPS_DAEMON_WARMUP=0: off) is part of what is measured
. "$(dirname "$0")/../tests/netns/lib.sh"
CONFIGS=${RAMP_CONFIGS:-c2 tiered tiered-t01 aot}
REPS=${RAMP_REPS:-2}
SECS=${RAMP_SECS:-30}
JITLOG=${RAMP_JITLOG:-}
HZ=$(getconf CLK_TCK)
e2e_init ramp
[ -n "$JITLOG" ] && mkdir -p "$JITLOG"

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# jvm_uptime PID: seconds since the process started (the -Xlog uptime decorator's clock, within a few ms).
jvm_uptime() { awk -v hz="$HZ" -v up="$(cut -d' ' -f1 /proc/uptime)" '{printf "%.1f", up - $22 / hz}' "/proc/$1/stat"; }
now() { date +%s.%N; }

# config_env NAME: prints the environment assignments (KEY=VALUE words) of configuration NAME.
config_env() {
    local t4="-XX:Tier4InvocationThreshold=500 -XX:Tier4MinInvocationThreshold=60 -XX:Tier4CompileThreshold=1500"
    t4+=" -XX:Tier4BackEdgeThreshold=4000"
    case "$1" in
        c2) echo "" ;;
        c2-t01) echo "-XX:CompileThresholdScaling=0.1" ;;
        tiered) echo "-XX:+TieredCompilation" ;;
        tiered-t01) echo "-XX:+TieredCompilation -XX:CompileThresholdScaling=0.1" ;;
        tiered-t4) echo "-XX:+TieredCompilation $t4" ;;
        aot) echo "" ;;
        *) e2e_fail "unknown configuration $1" ;;
    esac
}

# ping_series NODE TO: 20 pings at 50 ms; prints "avg max n" and the RTTs on the next line.
ping_series() {
    local out
    out=$(e2e_in "$1" ping -6 -n -c 20 -i 0.05 -W 1 "${E2E_NPUB[$2]}.fips" 2>&1)
    sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' <<<"$out" \
        | awk '{s += $1; if ($1 > m) m = $1; r = r (NR > 1 ? " " : "") $1} END {
            if (NR) printf "%.3f %.3f %d\n%s\n", s / NR, m, NR, r; else print "- - 0\n" }'
}

# run_one CONFIG REP: one fresh pair, cold pings, the ramp, warm pings; appends a summary line to $E2E_DIR/summary.
run_one() {
    local cfg=$1 rep=$2 x y extra aot=0 out t0 t1 c0x c0y c1x c1y
    x="x$RAMP_NET" y="y$RAMP_NET"
    extra=$(config_env "$cfg")
    [[ "$cfg" == aot* ]] && aot=1
    e2e_node "$x"
    e2e_node "$y"
    e2e_veth "$x" "10.204.$RAMP_NET.1" "$y" "10.204.$RAMP_NET.2"
    e2e_config "$x" "$y:10.204.$RAMP_NET.2"
    e2e_config "$y" "$x:10.204.$RAMP_NET.1"
    RAMP_NET=$((RAMP_NET + 1))
    local ex=$extra ey=$extra
    if [ -n "$JITLOG" ]; then
        ex+=" -Xlog:jit+compilation=debug,deoptimization=debug:file=$JITLOG/$cfg-$rep-x.log:uptime,tags"
        ey+=" -Xlog:jit+compilation=debug,deoptimization=debug:file=$JITLOG/$cfg-$rep-y.log:uptime,tags"
    fi
    FIPS_DAEMON_AOT=$aot FIPS_DAEMON_EXTRA_JAVA_OPTS="$ex" e2e_launch "$x"
    FIPS_DAEMON_AOT=$aot FIPS_DAEMON_EXTRA_JAVA_OPTS="$ey" e2e_launch "$y"
    e2e_await "$x" 120
    e2e_await "$y" 120
    t0=$SECONDS
    e2e_wait 30 e2e_ping_ok "$x" "$y" || e2e_fail "$cfg: no ping reply $x -> $y within 30 s"
    local cold warm
    cold=$(ping_series "$x" "$y")
    echo "== $cfg rep $rep (load average $(cut -d' ' -f1-3 /proc/loadavg)); tunnel answered $((SECONDS - t0)) s" \
        "after both were up"
    echo "  JVM options (x): $(tr '\0' ' ' < "/proc/${E2E_PID[$x]}/cmdline" | sed 's/ -p .*//; s/^java //')"
    echo "  cold pings (ms): $(sed -n 2p <<<"$cold")"
    e2e_in "$y" iperf3 -s -1 -p 5201 > "$E2E_DIR/iperf-server-$x.log" 2>&1 &
    E2E_BG+=($!)
    e2e_wait 10 sh -c "ip netns exec '${E2E_NS[$y]}' ss -Htln | grep -q ':5201\\b'" \
        || e2e_fail "$cfg: iperf3 server did not listen"
    c0x=$(cpu_ticks "${E2E_PID[$x]}") c0y=$(cpu_ticks "${E2E_PID[$y]}") t0=$(now)
    echo "  JVM uptime at the stream's start: x $(jvm_uptime "${E2E_PID[$x]}") s, y $(jvm_uptime "${E2E_PID[$y]}") s"
    out=$(e2e_in "$x" timeout $((SECS + 30)) iperf3 -c "${E2E_NPUB[$y]}.fips" -p 5201 -t "$SECS" -i 1 -f m 2>&1) \
        || e2e_fail "$cfg: iperf3 failed: $out"
    t1=$(now) c1x=$(cpu_ticks "${E2E_PID[$x]}") c1y=$(cpu_ticks "${E2E_PID[$y]}")
    # Per-second interval lines "[  5]   3.00-4.00   sec  ...  MBytes  123 Mbits/sec ..." (not the summary lines).
    local per
    per=$(awk '/^\[ *[0-9]+\] +[0-9.]+-[0-9.]+ +sec/ && !/sender|receiver/ {
            for (i = 1; i <= NF; i++) if ($i == "Mbits/sec") printf "%s ", $(i - 1) }' <<<"$out")
    echo "  Mbit/s per second: $per"
    warm=$(ping_series "$x" "$y")
    echo "  warm pings (ms): $(sed -n 2p <<<"$warm")"
    local cpu
    cpu=$(awk -v a=$((c1x - c0x)) -v b=$((c1y - c0y)) -v hz="$HZ" -v t="$(awk -v a="$t0" -v b="$t1" \
        'BEGIN {print b - a}')" 'BEGIN {printf "x=%.0f%% y=%.0f%%", 100 * a / hz / t, 100 * b / hz / t}')
    local line
    line=$(awk -v cfg="$cfg" -v rep="$rep" -v c="$(head -n1 <<<"$cold")" -v w="$(head -n1 <<<"$warm")" \
        -v cpu="$cpu" -v la="$(cut -d' ' -f1 /proc/loadavg)" '{
            n = split($0, v, " "); f = 0; b = 0
            for (i = 1; i <= 10 && i <= n; i++) f += v[i]
            for (s = 11; s + 9 <= n; s += 10) { t = 0; for (i = s; i < s + 10; i++) t += v[i]; if (t > b) b = t }
            split(c, cc, " "); split(w, ww, " ")
            # With a stream under 20 s there is no later window: the ratio is "-", not a number.
            printf "%-10s rep %d: first 10 s %.2f Gbit/s, best later 10 s %.2f, ratio %s; cold ping avg %s ms" \
                " (max %s), warm %s ms; CPU %s; load %s\n", cfg, rep, f / 10000, b / 10000, \
                (b ? sprintf("%.2f", f / b) : "-"), \
                cc[1], cc[2], ww[1], cpu, la }' <<<"$per")
    echo "  $line"
    echo "$line" >> "$E2E_DIR/summary"
    e2e_stop "$x" TERM
    e2e_stop "$y" TERM
}

echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1);" \
    "load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "fips: $("$E2E_ROOT/bin/fipsctl" --version); $(iperf3 --version | head -n1)"
echo "configurations: $CONFIGS; $REPS reps; $SECS s stream per run"
# Train the AOT cache before the first run (bin/fips would do it on the aot run's first start, inside the timing).
if [[ " $CONFIGS " == *" aot "* ]]; then
    FIPS_DAEMON_AOT=1 "$E2E_ROOT/bin/fips" --help >/dev/null 2>&1
    ls -l "$E2E_ROOT/fips-cli/target/fips.aot" 2>/dev/null | awk '{print "AOT cache: " $5 " bytes, " $6 " " $7 " " $8}'
fi
RAMP_NET=1
for rep in $(seq 1 "$REPS"); do
    for cfg in $CONFIGS; do
        run_one "$cfg" "$rep"
    done
done
echo "== summary (load average after: $(cut -d' ' -f1-3 /proc/loadavg))"
cat "$E2E_DIR/summary"
echo "== medians per configuration (first 10 s / best 10 s ratio; cold, warm ping avg ms)"
for cfg in $CONFIGS; do
    grep "^$cfg " "$E2E_DIR/summary" \
        | sed -E 's/.*first 10 s ([0-9.]*) .*ratio ([0-9.]*); cold ping avg ([0-9.]*) .*warm ([0-9.]*).*/\1 \2 \3 \4/' \
        | awk -v cfg="$cfg" '{f[NR] = $1; r[NR] = $2; c[NR] = $3; w[NR] = $4}
            function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
                if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
            END { if (NR) printf "%-10s first 10 s %.2f Gbit/s, ratio %.2f, cold ping %.2f ms, warm %.2f ms" \
                " (%d runs)\n", cfg, med(f, NR), med(r, NR), med(c, NR), med(w, NR), NR }'
done
