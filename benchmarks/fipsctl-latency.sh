#!/usr/bin/env bash
# Measures how long one fipsctl call takes against a running node (wall time of the whole process, JVM start
# included): starts a node on a loopback port with its own control socket, runs `fipsctl show status` N times
# through bin/fipsctl (or $FIPSCTL, e.g. FIPSCTL=/usr/bin/fipsctl for the installed package) and prints every
# time, the median and the load before and after. Usage: [FIPSCTL=...] benchmarks/fipsctl-latency.sh [N]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-20}
ctl=${FIPSCTL:-$root/bin/fipsctl}
dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
cat > "$dir/fips.yaml" <<YAML
node:
  control:
    socket_path: "$dir/control.sock"
transports:
  udp:
    bind_addr: "127.0.0.1:0"
YAML
"$root/bin/fips" -c "$dir/fips.yaml" > "$dir/node.log" 2>&1 &
pid=$!
for _ in $(seq 600); do [ -S "$dir/control.sock" ] && break; sleep 0.1; done   # up to 60 s on a busy machine
[ -S "$dir/control.sock" ] || { echo "node did not start:" >&2; cat "$dir/node.log" >&2; exit 1; }
"$ctl" -s "$dir/control.sock" show status > /dev/null   # the first call may train the start-up cache
echo "== $ctl; machine: $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
times=()
cpus=()
TIMEFORMAT='%R %U %S'
for _ in $(seq "$n"); do
    # bash's time: wall seconds, then the user and system CPU seconds of the launcher and the JVM together.
    t=$( { time "$ctl" -s "$dir/control.sock" show status > /dev/null; } 2>&1 | tail -n1)
    read -r wall user sys <<<"$t"
    times+=($(awk -v w="$wall" 'BEGIN {printf "%d", w * 1000}'))
    cpus+=($(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%d", (u + s) * 1000}'))
done
echo "ms: ${times[*]}"
echo "cpu ms: ${cpus[*]}"
printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "median %d ms, min %d ms, max %d ms over %d calls\n", a[int((NR+1)/2)], a[1], a[NR], NR}'
printf '%s\n' "${cpus[@]}" | sort -n | awk '{a[NR]=$1} END {printf "CPU time (user+sys) median %d ms\n", a[int((NR+1)/2)]}'
echo "== load after: $(cut -d' ' -f1-3 /proc/loadavg)"
