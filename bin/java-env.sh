# Sourced by the launchers and .ci/run: points JAVA_HOME at a JDK 25 (JAVA_HOME if it is one, else
# /usr/lib/jvm/*25*), or explains what is missing.
fips_find_java25() {
    local cand v
    for cand in "${JAVA_HOME:-}" /usr/lib/jvm/*25* /usr/lib/jvm/*; do
        [ -n "$cand" ] && [ -x "$cand/bin/java" ] && [ -x "$cand/bin/javac" ] || continue
        # The JDK's release file says its version without starting a JVM (≈ 90 ms saved per launch).
        if [ -f "$cand/release" ]; then
            v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$cand/release")
        else
            v=$("$cand/bin/java" -XshowSettings:properties -version 2>&1 \
                | sed -n 's/^ *java.specification.version = //p')
        fi
        if [ "$v" = "25" ]; then
            export JAVA_HOME="$cand"
            export PATH="$JAVA_HOME/bin:$PATH"
            return 0
        fi
    done
    echo "error: FIPS needs a JDK 25 (FFM is final there). Install one (e.g. Temurin 25 under /usr/lib/jvm)" \
         "or set JAVA_HOME to it." >&2
    return 1
}

# Prints the path of the newest jar matching $1 (a glob under the checkout), building the project first when there
# is none, when a source file or pom is newer than it (so a `git pull` never runs stale code), or when
# FIPS_REBUILD=1. $2 names the caller in the build message.
fips_fresh_jar() {
    local root pattern who jar
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    pattern=$1
    who=$2
    # One build at a time: two launchers started together (two test daemons) must not build into the same
    # target directories at once; the second waits, then finds the jar fresh.
    mkdir -p "$root/target"
    exec 9>"$root/target/.build.lock"
    command -v flock >/dev/null 2>&1 && flock 9
    jar=$(ls $root/$pattern 2>/dev/null | head -n1 || true)
    if [ -z "$jar" ] || [ "${FIPS_REBUILD:-0}" = 1 ] \
        || [ -n "$(find "$root" -maxdepth 4 \( -path "$root/*/src" -prune -o -name pom.xml \) -newer "$jar" -print -quit 2>/dev/null)" ] \
        || [ -n "$(find "$root"/*/src -newer "$jar" -type f -print -quit 2>/dev/null)" ]; then
        echo "$who: building (./mvnw -q -B -o package -DskipTests) ..." >&2
        (cd "$root" && { ./mvnw -q -B -o package -DskipTests >&2 || ./mvnw -q -B package -DskipTests >&2; })
        jar=$(ls $root/$pattern | head -n1)
        # Maven leaves a jar whose content did not change untouched; mark it fresh, or every later call would see
        # sources newer than it and build again.
        touch "$jar"
    fi
    exec 9>&-
    printf '%s\n' "$jar"
}

# Prints the JVM options of the fips daemon: $FIPS_JAVA_OPTS when it is set (even to nothing: it replaces the
# defaults, it does not add to them), else defaults sized for a small router (docs/benchmarks.md, "Idle memory").
fips_daemon_java_opts() {
    if [ -n "${FIPS_JAVA_OPTS+set}" ]; then
        printf '%s\n' "$FIPS_JAVA_OPTS"
        return
    fi
    printf '%s\n' "${FIPS_DEFAULT_JAVA_OPTS}"
}
# G1 with a periodic collection every 5 s of idleness returns the start-up peak to the OS (the serial collector
# keeps it committed); the heap cap leaves room for full coordinate/identity caches; a small concurrent-mark stack,
# code cache and metaspace cap, compact object headers and a periodic trim of the C heap keep the rest small.
FIPS_DEFAULT_JAVA_OPTS="-XX:+UseG1GC -Xms8m -Xmx128m -XX:G1PeriodicGCInterval=5000 -XX:MinHeapFreeRatio=10"
FIPS_DEFAULT_JAVA_OPTS+=" -XX:MaxHeapFreeRatio=30 -XX:MarkStackSize=256k -XX:MaxMetaspaceSize=96m"
FIPS_DEFAULT_JAVA_OPTS+=" -XX:ReservedCodeCacheSize=32m -XX:CICompilerCount=2 -Xss512k -XX:+UseCompactObjectHeaders"
FIPS_DEFAULT_JAVA_OPTS+=" -XX:TrimNativeHeapInterval=5000 -XX:-UsePerfData"
