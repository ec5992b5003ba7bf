#!/usr/bin/env bash
# Runs the JMH suites whose numbers docs/benchmarks.md records, each with -prof gc, and prints the machine and
# load first so every figure says how it was run. AEAD against the C baseline has its own script: run-aead.sh.
#
#   benchmarks/run.sh                 # all suites, short (-f 1 -wi 2 -i 3 -w 2s -r 2s)
#   benchmarks/run.sh udp link        # only some: udp link hotpath noise handshake codec route transit ipv6 session
#                                     # sessionpath tunoffload (sessionpath prints cpu-ns/packet, handshake cpu-us/op:
#                                     # see docs/benchmarks.md)
#   JMH_ARGS="-f 2 -wi 5 -i 10" benchmarks/run.sh
#   JAVA=/path/to/java benchmarks/run.sh   # another JDK 25 (e.g. a jlinked runtime)
set -euo pipefail
cd "$(dirname "$0")/.."
out=benchmarks/target
if [ -z "${JAVA:-}" ]; then
    . bin/java-env.sh
    fips_find_java25
    JAVA=java
    if [ ! -f "$out/benchmarks.jar" ]; then
        ./mvnw -q -B package -pl benchmarks -am -DskipTests
    fi
fi
JMH_ARGS=${JMH_ARGS:--f 1 -wi 2 -i 3 -w 2s -r 2s}
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(udp link hotpath noise codec)

echo "== machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
     "load: $(cut -d' ' -f1-3 /proc/loadavg), $("$JAVA" -version 2>&1 | head -1)"
for s in "${suites[@]}"; do
    case "$s" in
        udp) pattern=UdpLoopbackBenchmark ;;
        link) pattern=LinkThroughputBenchmark ;;
        hotpath) pattern='SealSendBenchmark|RecvOpenBenchmark' ;;
        noise) pattern=NoiseHandshakeBenchmark ;;
        handshake) pattern=HandshakeSideBenchmark ;;
        codec) pattern=CodecBenchmark ;;
        ipv6) pattern=Ipv6AdapterBenchmark ;;
        route) pattern=RouteBenchmark ;;
        transit) pattern=TransitThroughputBenchmark ;;
        session) pattern=SessionThroughputBenchmark ;;
        sessionpath) pattern=SessionPathBenchmark ;;
        tunoffload) pattern=TunOffloadBenchmark ;;
        *) echo "unknown suite: $s (udp link hotpath noise handshake codec route transit ipv6 session sessionpath tunoffload)" >&2; exit 64 ;;
    esac
    echo "== $s: JMH $pattern -prof gc $JMH_ARGS (load $(cut -d' ' -f1 /proc/loadavg))"
    # shellcheck disable=SC2086
    "$JAVA" -jar "$out/benchmarks.jar" "$pattern" -prof gc $JMH_ARGS -rf json -rff "$out/jmh-$s.json" \
        | grep -E '^(Benchmark|[A-Za-z0-9]+Benchmark\.|[a-z]+: cpu-ns/packet|[A-Za-z]+ [a-z0-9]+: cpu-us/op)' | grep -vE ':(gc\.count|gc\.time|gc\.alloc\.rate) '
done
