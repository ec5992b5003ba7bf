#!/usr/bin/env bash
# Ethernet receive batching: JMH EthernetVethBenchmark (recvmmsg of 32 against one call per frame) over a veth pair
# whose two ends sit in one scratch network namespace (root; iproute2). The namespace is deleted on exit.
#   benchmarks/ethernet-rx.sh                       # -f 1 -wi 2 -i 3 -w 2s -r 2s, with -prof gc
#   JMH_ARGS="-f 2 -wi 5 -i 10" benchmarks/ethernet-rx.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. bin/java-env.sh
fips_find_java25
out=benchmarks/target
[ -f "$out/benchmarks.jar" ] || ./mvnw -q -B package -pl benchmarks -am -DskipTests
ns="fips-ethbench-$$"
ip netns add "$ns"
trap 'ip netns del "$ns" 2>/dev/null || true' EXIT
ip -n "$ns" link set lo up   # the JMH fork talks to its parent over loopback
ip -n "$ns" link add fb0 type veth peer name fb1
for i in fb0 fb1; do
    ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$i.disable_ipv6=1"
    ip -n "$ns" link set "$i" up
done
JMH_ARGS=${JMH_ARGS:--f 1 -wi 2 -i 3 -w 2s -r 2s}
echo "== machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
     "load: $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1)"
# shellcheck disable=SC2086
ip netns exec "$ns" java -jar "$out/benchmarks.jar" EthernetVethBenchmark -prof gc $JMH_ARGS \
    -rf json -rff "$out/jmh-ethernet.json" \
    | grep -E '^(Benchmark|[A-Za-z]+Benchmark\.|recvmmsg:|perFrame:)' | grep -vE ':(gc\.count|gc\.time) '
