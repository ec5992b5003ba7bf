#!/usr/bin/env bash
# Coverage-guided fuzzing of the decoders of network and operator bytes (issue 18 §4): runs each Jazzer @FuzzTest
# target in Jazzer's fuzzing mode (JAZZER_FUZZ=1), one target per JVM (Jazzer fuzzes one test per run), for
# FUZZ_SECONDS each, then prints per target the executions, coverage (libFuzzer's "cov:" edges and "ft:" features)
# and exec/s from Jazzer's final "#N DONE" line. Jazzer's corpus grows in <module>/.cifuzz-corpus/ (ignored by git);
# a crash is written to <module>/src/test/resources/<package>/<Class>Inputs/<method>/ (commit it with the fix: every
# plain test run then replays it) and fails that target's run.
# Usage: benchmarks/fuzz.sh [target...]   (FUZZ_SECONDS=60; FUZZ_RUNS=<n> also stops a target after n executions,
#   libFuzzer's -runs, e.g. FUZZ_RUNS=10000000 with a generous FUZZ_SECONDS)
#   target: Class#method, Class the simple or fully qualified name of a test class in any module (for example
#   DnsJazzerTest#decode, Socks5JazzerTest#handshake), or a bare method name of WireJazzerTest (fips-dataplane);
#   by default every target of WireJazzerTest.
# Full logs: target/fuzz/<target>.log under the checkout (<Class>.<method>.log for Class#method targets).
# FUZZ_JFR=1 also records the fuzzing JVM with JDK Flight Recorder (method sampling every 10 ms) into
# target/fuzz/<label>.jfr; `jfr view hot-methods <file>` then shows where the executions spend their time.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
. bin/java-env.sh
fips_find_java25 || exit 1
secs=${FUZZ_SECONDS:-60}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(fmpMsg1 fmpMsg2 sessionDatagram sessionSetup sessionAck sessionMsg3 treeAnnounce filterAnnounce
        lookupRequest lookupResponse ipv6ShimDecompress)
fi
mkdir -p target/fuzz
# Jazzer instruments every class under the test JVM's class-path directories, the test trees' too: the harness's
# own loops (checksums, packet builders, sealing) then pay for coverage and comparison tracing on every execution
# and feed the fuzzer edges of the test code, not of the daemon's. Every class of a src/test/java tree (and its
# nested classes) is left out; the decoders under test stay instrumented. FUZZ_INSTRUMENT_TESTS=1 keeps the old
# behaviour (for comparing).
excludes=()
if [ -z "${FUZZ_INSTRUMENT_TESTS:-}" ]; then
    globs=$(find . -path ./target -prune -o -path '*/src/test/java/*.java' -print |
        sed -E 's#^.*/src/test/java/##; s#\.java$##; s#/#.#g' | sort -u | sed -E 's#^(.*)$#\1:\1$**#' | paste -sd:)
    excludes=("-Djazzer.instrumentation_excludes=$globs")
fi
failed=0
printf '%-36s %12s %6s %6s %10s %s\n' target executions cov ft exec/s result
for t in "${targets[@]}"; do
    if [[ $t == *'#'* ]]; then
        cls=${t%%#*}
        method=${t#*#}
        label=${cls##*.}.$method
    else
        cls=WireJazzerTest
        method=$t
        label=$t
    fi
    # The test class's source names its module and fully qualified name.
    src=$(find . -path ./target -prune -o -path "*/src/test/java/*" -name "${cls##*.}.java" -print |
        grep -F "/$(tr . / <<<"$cls").java" | head -1)
    if [ -z "$src" ]; then
        printf '%-36s %12s %6s %6s %10s %s\n' "$label" - - - - "FAILED (no test class $cls)"
        failed=1
        continue
    fi
    module=$(cut -d/ -f2 <<<"$src")
    fqcn=$(sed -E 's#^.*/src/test/java/##; s#\.java$##; s#/#.#g' <<<"$src")
    log=target/fuzz/$label.log
    # The surefire fork's argLine starts with ${fips.native.access}; a recording rides on that property.
    runs=()
    if [ -n "${FUZZ_RUNS:-}" ]; then
        runs=("-Djazzer.internal.arg.2=-runs=$FUZZ_RUNS")
    fi
    jfr=()
    if [ -n "${FUZZ_JFR:-}" ]; then
        rm -f "target/fuzz/$label.jfr"
        jfr=("-Dfips.native.access=--enable-native-access=net.fips.ffm -XX:StartFlightRecording=settings=profile,filename=$root/target/fuzz/$label.jfr")
    fi
    # The libFuzzer arguments after the fake argv[0] (jazzer.internal.arg.0) come last and so override the
    # @FuzzTest's maxDuration (-max_total_time).
    JAZZER_FUZZ=1 ./mvnw -B -pl "$module" -am test -Djcstress.skip=true \
        -Dtest="$fqcn#$method" -Dsurefire.failIfNoSpecifiedTests=false \
        -Djazzer.internal.arg.0=fuzz -Djazzer.internal.arg.1=-max_total_time="$secs" "${runs[@]}" "${jfr[@]}" "${excludes[@]}" >"$log" 2>&1
    rc=$?
    done_line=$(grep -a -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1)
    execs=$(sed -E 's/^#([0-9]+).*/\1/' <<<"$done_line")
    cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$done_line")
    ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$done_line")
    eps=$(sed -nE 's/.* exec\/s: ([0-9]+).*/\1/p' <<<"$done_line")
    if [ $rc -eq 0 ]; then result=ok; else result="FAILED (rc $rc, see $log)"; failed=1; fi
    printf '%-36s %12s %6s %6s %10s %s\n' "$label" "${execs:--}" "${cov:--}" "${ft:--}" "${eps:--}" "$result"
done
exit $failed
