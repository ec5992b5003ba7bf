#!/usr/bin/env bash
# BoringSSL's EVP_AEAD in C (benchmarks/c/aead_boringssl.c) and the same loop through our FFM backend
# (AeadCpuTime, backend boringssl), run alternately REPS times at SIZES, so that load drifts on a shared VM hit
# both alike; prints every repetition's thread CPU ns/op and the median per size and op, and the Java/C ratio of
# the medians. Needs benchmarks/target/benchmarks.jar (benchmarks/run-aead.sh builds it) and
# android-libboringssl(-dev).
#
#   REPS=5 SIZES="1190 1280 1400" SECS=1 benchmarks/aead-alternate.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. bin/java-env.sh
fips_find_java25
REPS=${REPS:-5}
SIZES=${SIZES:-1190 1280 1400}
SECS=${SECS:-1}
out=benchmarks/target
lib=/usr/lib/x86_64-linux-gnu/android
mkdir -p "$out"
gcc -O2 -Wall -I/usr/include/android -o "$out/aead_boringssl" benchmarks/c/aead_boringssl.c -L"$lib" \
    -Wl,-rpath,"$lib" -lcrypto
[ -f "$out/benchmarks.jar" ] || ./mvnw -q -B -o package -pl benchmarks -am -DskipTests
sizes_csv=$(echo "$SIZES" | tr ' ' ',')
echo "== machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
for rep in $(seq 1 "$REPS"); do
    echo "== rep $rep, load $(cut -d' ' -f1-3 /proc/loadavg)"
    # C: size, seal wall, seal cpu, open wall, open cpu
    # shellcheck disable=SC2086
    "$out/aead_boringssl" "$SECS" $SIZES | awk -v r="$rep" '/^[0-9]/ { print "C", r, $1, $3, $5 }' | tee -a "$raw"
    # Java: backend, size, seal wall, seal cpu, seal B, open wall, open cpu, open B
    java --enable-native-access=ALL-UNNAMED -cp "$out/benchmarks.jar" net.fips.bench.crypto.AeadCpuTime "$SECS" \
        boringssl "$sizes_csv" | awk -v r="$rep" '$1 == "boringssl" { print "J", r, $2, $4, $7 }' | tee -a "$raw"
done
echo "== end, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$raw" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
print("size  op    C median  Java median  Java/C   (thread CPU ns/op, median of %d alternating runs)"
      % len({r[1] for r in rows}))
for size in sorted({int(r[2]) for r in rows}):
    for op, col in (("seal", 3), ("open", 4)):
        c = statistics.median(float(r[col]) for r in rows if r[0] == "C" and int(r[2]) == size)
        j = statistics.median(float(r[col]) for r in rows if r[0] == "J" and int(r[2]) == size)
        print("%-5d %-5s %9.1f %12.1f %8.2f" % (size, op, c, j, j / c))
PY
