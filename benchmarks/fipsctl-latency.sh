#!/usr/bin/env bash
# Measures how long one fipsctl call takes against a running node (wall time of the whole process, JVM start
# included): starts a node on a loopback port with its own control socket, runs `fipsctl show status` N times
# through bin/fipsctl and prints every time, the median and the load. Usage: benchmarks/fipsctl-latency.sh [N]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-20}
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
for _ in $(seq 100); do [ -S "$dir/control.sock" ] && break; sleep 0.1; done
[ -S "$dir/control.sock" ] || { echo "node did not start:" >&2; cat "$dir/node.log" >&2; exit 1; }
"$root/bin/fipsctl" -s "$dir/control.sock" show status > /dev/null   # first call may build the class-data archive
echo "== machine: $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
times=()
for _ in $(seq "$n"); do
    s=$(date +%s%N)
    "$root/bin/fipsctl" -s "$dir/control.sock" show status > /dev/null
    times+=($(( ($(date +%s%N) - s) / 1000000 )))
done
echo "ms: ${times[*]}"
printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "median %d ms, min %d ms, max %d ms over %d calls\n", a[int((NR+1)/2)], a[1], a[NR], NR}'
echo "== load after: $(cut -d' ' -f1-3 /proc/loadavg)"
