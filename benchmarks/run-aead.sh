#!/usr/bin/env bash
# AEAD benchmarks: the C baseline (same per-packet EVP steps as the Java libcrypto engine), `openssl speed` for
# context, the JMH AeadSealBenchmark for every backend with -prof gc, then the C loop in Java (AeadCpuTime) and
# the C baseline again. Both C and AeadCpuTime report thread CPU time next to wall time. Results: docs/benchmarks.md.
#
#   benchmarks/run-aead.sh                    # short run (-f 1 -wi 2 -i 3 -w 1s -r 1s)
#   JMH_ARGS="-f 2 -wi 5 -i 10" benchmarks/run-aead.sh
#   CRITICAL_COMPARE=1 benchmarks/run-aead.sh # also libcrypto with plain (non-critical) downcalls
set -euo pipefail
cd "$(dirname "$0")/.."
. bin/java-env.sh
fips_find_java25

out=benchmarks/target
mkdir -p "$out"
JMH_ARGS=${JMH_ARGS:--f 1 -wi 2 -i 3 -w 1s -r 1s}

echo "== machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), load: $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== C baseline: gcc -O2 benchmarks/c/aead_baseline.c -lcrypto"
gcc -O2 -Wall -o "$out/aead_baseline" benchmarks/c/aead_baseline.c -lcrypto
"$out/aead_baseline"

echo "== openssl speed -evp chacha20-poly1305 -bytes 1400"
openssl speed -evp chacha20-poly1305 -bytes 1400 2>&1 | tail -n 3

if [ ! -f "$out/benchmarks.jar" ]; then
    ./mvnw -q -B -o package -pl benchmarks -am -DskipTests
fi

echo "== JMH AeadSealBenchmark -prof gc $JMH_ARGS"
# shellcheck disable=SC2086
java -jar "$out/benchmarks.jar" AeadSealBenchmark -prof gc $JMH_ARGS -rf text -rff "$out/aead-jmh.txt"

if [ "${CRITICAL_COMPARE:-0}" = 1 ]; then
    echo "== JMH libcrypto with plain downcalls (-Dnet.fips.ffm.openssl.critical=false)"
    # shellcheck disable=SC2086
    java -jar "$out/benchmarks.jar" AeadSealBenchmark -p backend=libcrypto -p size=64,1400 -prof gc $JMH_ARGS \
        -jvmArgsAppend -Dnet.fips.ffm.openssl.critical=false -rf text -rff "$out/aead-jmh-noncritical.txt"
fi

# Wall time on a shared VM mostly measures the other tenants; thread CPU time of the same loop in C and in Java
# gives a libcrypto/C ratio that survives a loaded machine.
echo "== same loop in Java, wall and thread CPU time: $(cut -d' ' -f1-3 /proc/loadavg)"
java --enable-native-access=ALL-UNNAMED -cp "$out/benchmarks.jar" net.fips.bench.crypto.AeadCpuTime 1 libcrypto,jdk

echo "== C baseline again (load drifts on shared VMs): $(cut -d' ' -f1-3 /proc/loadavg)"
"$out/aead_baseline"
