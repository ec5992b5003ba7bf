#!/usr/bin/env bash
# AEAD benchmarks, side by side in one run: the C baselines of both native libraries (OpenSSL's EVP steps as the
# Java libcrypto engine makes them, BoringSSL's one-call EVP_AEAD as the boringssl engine makes it), `openssl speed`
# for context, the JMH AeadSealBenchmark for every backend with -prof gc, then the C loop in Java (AeadCpuTime) and
# the C baselines again. Both C programs and AeadCpuTime report thread CPU time next to wall time. Results:
# docs/benchmarks.md.
#
#   benchmarks/run-aead.sh                    # short run (-f 1 -wi 2 -i 3 -w 1s -r 1s), sizes 1190 1280 1400
#   JMH_ARGS="-f 2 -wi 5 -i 10" SIZES="64 1400 8192" benchmarks/run-aead.sh
#   BACKENDS=libcrypto,boringssl benchmarks/run-aead.sh   # default libcrypto,boringssl,jdk
#   CRITICAL_COMPARE=1 benchmarks/run-aead.sh # also libcrypto with plain (non-critical) downcalls
#   JMH_JSON=docs/jmh/<date>-aead.json benchmarks/run-aead.sh   # also keep JMH's JSON there
# The BoringSSL parts need Debian's android-libboringssl and android-libboringssl-dev; without them they are
# skipped with a note.
set -euo pipefail
cd "$(dirname "$0")/.."
. bin/java-env.sh
fips_find_java25

out=benchmarks/target
mkdir -p "$out"
JMH_ARGS=${JMH_ARGS:--f 1 -wi 2 -i 3 -w 1s -r 1s}
SIZES=${SIZES:-1190 1280 1400}
BACKENDS=${BACKENDS:-libcrypto,boringssl,jdk}
boring_lib=/usr/lib/x86_64-linux-gnu/android
load() { cut -d' ' -f1-3 /proc/loadavg; }

echo "== machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), load: $(load)"
echo "== commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (dirty)')"

echo "== C baseline OpenSSL: gcc -O2 benchmarks/c/aead_baseline.c -lcrypto"
gcc -O2 -Wall -o "$out/aead_baseline" benchmarks/c/aead_baseline.c -lcrypto
boring=0
if [ -f /usr/include/android/openssl/aead.h ] && [ -f "$boring_lib/libcrypto.so" ]; then
    echo "== C baseline BoringSSL: gcc -O2 -I/usr/include/android benchmarks/c/aead_boringssl.c -L$boring_lib -lcrypto"
    gcc -O2 -Wall -I/usr/include/android -o "$out/aead_boringssl" benchmarks/c/aead_boringssl.c \
        -L"$boring_lib" -Wl,-rpath,"$boring_lib" -lcrypto
    boring=1
else
    echo "== (no android-libboringssl-dev: BoringSSL C baseline skipped)"
fi
if [ ! -f "$boring_lib/libcrypto.so.0" ]; then
    echo "== (no android-libboringssl: backend boringssl left out of the Java runs)"
    BACKENDS=$(echo "$BACKENDS" | tr ',' '\n' | grep -vx boringssl | paste -sd, -)
fi

c_baselines() {
    # shellcheck disable=SC2086
    "$out/aead_baseline" 1 $SIZES
    if [ "$boring" = 1 ]; then
        # shellcheck disable=SC2086
        "$out/aead_boringssl" 1 $SIZES
    fi
}
c_baselines

echo "== openssl speed -evp chacha20-poly1305 -bytes 1400"
openssl speed -evp chacha20-poly1305 -bytes 1400 2>&1 | tail -n 3

if [ ! -f "$out/benchmarks.jar" ]; then
    ./mvnw -q -B -o package -pl benchmarks -am -DskipTests
fi

sizes_csv=$(echo "$SIZES" | tr ' ' ',')
echo "== JMH AeadSealBenchmark -p backend=$BACKENDS -p size=$sizes_csv -prof gc $JMH_ARGS, load: $(load)"
json_args=()
if [ -n "${JMH_JSON:-}" ]; then
    json_args=(-rf json -rff "$JMH_JSON")
fi
# shellcheck disable=SC2086
java -jar "$out/benchmarks.jar" AeadSealBenchmark -p backend="$BACKENDS" -p size="$sizes_csv" -prof gc $JMH_ARGS \
    "${json_args[@]}"

if [ "${CRITICAL_COMPARE:-0}" = 1 ]; then
    echo "== JMH libcrypto with plain downcalls (-Dnet.fips.ffm.openssl.critical=false)"
    # shellcheck disable=SC2086
    java -jar "$out/benchmarks.jar" AeadSealBenchmark -p backend=libcrypto -p size=64,1400 -prof gc $JMH_ARGS \
        -jvmArgsAppend -Dnet.fips.ffm.openssl.critical=false -rf text -rff "$out/aead-jmh-noncritical.txt"
fi

# Wall time on a shared VM mostly measures the other tenants; thread CPU time of the same loop in C and in Java
# gives a Java/C ratio that survives a loaded machine.
echo "== same loop in Java, wall and thread CPU time: $(load)"
java --enable-native-access=ALL-UNNAMED -cp "$out/benchmarks.jar" net.fips.bench.crypto.AeadCpuTime 1 \
    "$BACKENDS" "$sizes_csv"

echo "== C baselines again (load drifts on shared VMs): $(load)"
c_baselines
echo "== end, load: $(load)"
