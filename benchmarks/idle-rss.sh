#!/usr/bin/env bash
# Measures the idle resident set of the fips daemon with one peer: starts two nodes through bin/fips on
# 127.0.0.1 (each the other's configured peer, own control sockets, nothing else), waits until both show the
# peer, lets them idle for IDLE seconds (default 20), then reads VmRSS (and VmHWM, the peak) from
# /proc/<pid>/status and prints them, and the CPU each daemon used while idle (utime+stime over the idle window, % of
# one core; the window starts IDLE_WARMUP seconds, default 10, after the link is up), with the JVM options used (bin/fips's defaults unless FIPS_JAVA_OPTS is set).
# With FIPS_RSS_NMT=1 (and -XX:NativeMemoryTracking=summary in FIPS_JAVA_OPTS) it also prints node a's
# native memory summary (jcmd VM.native_memory), to see where the resident set goes.
# With IDLE_THREADS=1 it also prints node a's threads by the CPU each used over the idle window (/proc/<pid>/task).
# Usage: benchmarks/idle-rss.sh [IDLE_SECONDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
idle=${1:-20}
. "$root/bin/java-env.sh"
fips_find_java25
dir=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$dir"
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
keys() { "$root/bin/fipsctl" keygen -s 2>/dev/null; }   # prints the nsec, then the npub

mapfile -t ka < <(keys)
mapfile -t kb < <(keys)
pa=$(free_port)
pb=$(free_port)
config() { # name nsec port peer-npub peer-port
    cat > "$dir/$1.yaml" <<YAML
node:
  identity: { nsec: "$2" }
  control: { socket_path: "$dir/$1.sock" }
transports:
  udp: { bind_addr: "127.0.0.1:$3" }
peers:
  - npub: "$4"
    addresses: [ { transport: udp, addr: "127.0.0.1:$5" } ]
YAML
}
config a "${ka[0]}" "$pa" "${kb[1]}" "$pb"
config b "${kb[0]}" "$pb" "${ka[1]}" "$pa"

"$root/bin/fips" -c "$dir/a.yaml" > "$dir/a.log" 2>&1 &
pids+=($!)
"$root/bin/fips" -c "$dir/b.yaml" > "$dir/b.log" 2>&1 &
pids+=($!)

peers() { "$root/bin/fipsctl" -s "$dir/$1.sock" show peers 2>/dev/null | grep -c '"npub"' || true; }
for _ in $(seq 60); do
    [ "$(peers a)" = 1 ] && [ "$(peers b)" = 1 ] && break
    sleep 0.5
done
if [ "$(peers a)" != 1 ] || [ "$(peers b)" != 1 ]; then
    echo "the two nodes did not link up:" >&2
    cat "$dir/a.log" "$dir/b.log" >&2
    exit 1
fi
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }   # utime + stime of the whole process, in clock ticks
sleep "${IDLE_WARMUP:-10}"   # start-up work (JIT compilation, the first announces) is not idle time
# Per thread (IDLE_THREADS=1): utime+stime of each of node a's threads, keyed by tid, with its name.
thread_ticks() {
    local t
    for t in /proc/"$1"/task/*; do
        [ -r "$t/stat" ] || continue
        # the name (field 2) may hold spaces and parentheses: cut at the last ')'
        awk -v tid="${t##*/}" '{s=$0; sub(/^.*\) /, "", s); split(s, f, " "); c=$0; sub(/^[^(]*\(/, "", c); sub(/\) [^)]*$/, "", c);
            printf "%s %d %s\n", tid, f[12] + f[13], c}' "$t/stat" 2>/dev/null || true
    done
}
cpu0=($(ticks "${pids[0]}") $(ticks "${pids[1]}"))
[ "${IDLE_THREADS:-0}" = 1 ] && thread_ticks "${pids[0]}" > "$dir/threads0"
sleep "$idle"
cpu1=($(ticks "${pids[0]}") $(ticks "${pids[1]}"))
[ "${IDLE_THREADS:-0}" = 1 ] && thread_ticks "${pids[0]}" > "$dir/threads1"
hz=$(getconf CLK_TCK)

kib() { sed -n "s/^$2:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$1/status"; }
opts=$(fips_daemon_java_opts)
echo "== machine: $(nproc) CPUs, $(java -version 2>&1 | head -n1), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== JVM options: ${opts}"
for i in 0 1; do
    name=$([ "$i" = 0 ] && echo a || echo b)
    p=${pids[$i]}
    printf 'idle-rss: node %s pid %s VmRSS %d MiB (VmHWM %d MiB) after %s s idle with one peer\n' "$name" "$p" \
        $(( $(kib "$p" VmRSS) / 1024 )) $(( $(kib "$p" VmHWM) / 1024 )) "$idle"
    awk -v d=$(( ${cpu1[$i]} - ${cpu0[$i]} )) -v hz="$hz" -v s="$idle" -v n="$name" \
        'BEGIN{printf "idle-cpu: node %s used %d ticks in %s s idle: %.2f %% of one core\n", n, d, s, 100 * d / hz / s}'
done
if [ "${IDLE_THREADS:-0}" = 1 ]; then
    echo "== node a's threads by CPU over the idle window (ticks of 1/$hz s; threads that used none left out)"
    awk 'NR==FNR{t0[$1]=$2; next} {tid=$1; d=$2-(tid in t0 ? t0[tid] : 0); $1=""; $2=""; sub(/^  /, "");
        if (d > 0) printf "%6d %s%s\n", d, $0, (tid in t0 ? "" : " (new)")}' "$dir/threads0" "$dir/threads1" | sort -rn
fi
if [ "${FIPS_RSS_NMT:-0}" = 1 ]; then
    echo "== node a's mappings by resident size (kB: Rss, of which private dirty; anonymous mappings unnamed)"
    awk '/^[0-9a-f]+-[0-9a-f]+ /{name=$6} /^Rss:/{rss[name]+=$2} /^Private_Dirty:/{pd[name]+=$2}
        END{for (n in rss) printf "%8d %8d %s\n", rss[n], pd[n], n}' "/proc/${pids[0]}/smaps" | sort -rn | head -n 8
    jcmd "${pids[0]}" GC.heap_info | sed -n '2,6p'
    jcmd "${pids[0]}" GC.class_histogram | sed -n '3,12p'
    jcmd "${pids[0]}" VM.native_memory summary | grep -E '^-|committed' | grep -E 'Total|Java Heap|Class|Thread|Code|GC|Compiler|Internal|Other|Symbol|Metaspace|Arena|Native' || true
fi
