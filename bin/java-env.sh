# Sourced by the launchers and .ci/run: points JAVA_HOME at a JDK 25 (JAVA_HOME if it is one, else
# /usr/lib/jvm/*25*), or explains what is missing.
fips_find_java25() {
    local cand v line
    for cand in "${JAVA_HOME:-}" /usr/lib/jvm/*25* /usr/lib/jvm/*; do
        [ -n "$cand" ] && [ -x "$cand/bin/java" ] && [ -x "$cand/bin/javac" ] || continue
        v=
        # The JDK's release file says its version without starting a JVM (about 90 ms saved per launch); read with
        # the shell's own read, as a launcher's every extra process costs most on a loaded machine.
        if [ -f "$cand/release" ]; then
            while IFS= read -r line; do
                case "$line" in
                    JAVA_VERSION=\"*) v=${line#JAVA_VERSION=\"}; v=${v%%[!0-9]*}; break ;;
                esac
            done < "$cand/release"
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
# FIPS_REBUILD=1. $2 names the caller in the build message. The fresh case, every call's, costs one `find`.
fips_fresh_jar() {
    local root pattern who jar
    root=${BASH_SOURCE[0]%/bin/java-env.sh}
    if [ "$root" = "${BASH_SOURCE[0]}" ] || [ "${root#/}" = "$root" ]; then
        root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    fi
    pattern=$1
    who=$2
    jar=$(_fips_first_match "$root/$pattern")
    if _fips_jar_stale "$root" "$jar"; then
        # One build at a time: two launchers started together (two test daemons) must not build into the same
        # target directories at once; the second waits, then finds the jar fresh.
        mkdir -p "$root/target"
        exec 9>"$root/target/.build.lock"
        command -v flock >/dev/null 2>&1 && flock 9
        jar=$(_fips_first_match "$root/$pattern")
        if _fips_jar_stale "$root" "$jar"; then
            # Checkstyle is left to the tests (bin/test): a style slip must not keep a node from starting.
            echo "$who: building (./mvnw -q -B -o package -DskipTests -Dcheckstyle.skip) ..." >&2
            (cd "$root" && { ./mvnw -q -B -o package -DskipTests -Dcheckstyle.skip >&2 \
                || ./mvnw -q -B package -DskipTests -Dcheckstyle.skip >&2; })
            jar=$(_fips_first_match "$root/$pattern")
            # Maven leaves a jar whose content did not change untouched; mark it fresh, or every later call would
            # see sources newer than it and build again.
            touch "$jar"
        fi
        exec 9>&-
    fi
    printf '%s\n' "$jar"
}

# Prints the first path matching glob $1, or nothing.
_fips_first_match() {
    local m
    for m in $1; do
        [ -e "$m" ] && printf '%s\n' "$m"
        return 0
    done
}

# Succeeds when jar $2 of checkout $1 is missing, FIPS_REBUILD=1, or a pom or a file under a module's src/ is newer.
_fips_jar_stale() {
    [ -z "$2" ] || [ "${FIPS_REBUILD:-0}" = 1 ] && return 0
    [ -n "$(find "$1"/pom.xml "$1"/*/pom.xml "$1"/*/src -type f -newer "$2" -print -quit 2>/dev/null)" ]
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
# The serial collector: the node's heap is small (about 9 MiB live), the packet path allocates nothing and the idle
# control plane little (tens of kB/s), so one collector thread with no concurrent work fits it. Against G1 with a
# 5 s periodic collection (the previous default) it idles at less CPU (no concurrent mark cycle every 10 s) and in
# less memory (no remembered sets or refinement threads): docs/benchmarks.md, "Idle: the serial collector". The
# daemon collects once after start (FipsDaemon), which returns the start-up peak; the free-ratio bounds make later
# full collections give back what the heap does not need. The heap cap leaves room for full coordinate/identity
# caches; a code cache and metaspace cap, compact object headers and a periodic trim of the C heap keep the rest small.
# C2 only (no tiered C1 stage): the idle node's 1 s tick code otherwise keeps crossing the tiered thresholds for many
# minutes, and every profiled C1 version and its replacement stays in the committed code cache; without tiers an idle
# node holds about 9 MiB less at the same idle CPU, tunnel rate and first-ping times (docs/benchmarks.md, same section).
FIPS_DEFAULT_JAVA_OPTS="-XX:+UseSerialGC -Xms8m -Xmx128m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30"
FIPS_DEFAULT_JAVA_OPTS+=" -XX:MaxMetaspaceSize=96m -XX:-TieredCompilation"
FIPS_DEFAULT_JAVA_OPTS+=" -XX:ReservedCodeCacheSize=32m -XX:CICompilerCount=2 -Xss512k -XX:+UseCompactObjectHeaders"
FIPS_DEFAULT_JAVA_OPTS+=" -XX:TrimNativeHeapInterval=5000 -XX:-UsePerfData"

# fipsctl's JVM options (bin/fipsctl; packaging/common/fipsctl.launcher and postinst spell the same set): a
# short-lived client, so C1 only, the serial collector, a small heap, no hsperfdata file, and the AOT/CDS logs off
# (their warnings would go to stdout, which scripts parse).
FIPS_CTL_JAVA_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx64m -Xss512k -XX:-UsePerfData"
FIPS_CTL_JAVA_OPTS+=" -Xlog:aot=off -Xlog:cds=off"

# Trains fipsctl's ahead-of-time cache $1 for module path $2 with the training run net.fips.cli.CtlTraining (a
# stand-in daemon on a temporary socket, the common command lines against it), one trainer at a time, written to a
# temporary file and moved into place. Prints one line to stderr; fails (and leaves no cache) when the JVM does.
fips_train_ctl_cache() {
    local cache=$1 modpath=$2 tmp rc
    exec 8>"$cache.lock"
    command -v flock >/dev/null 2>&1 && flock 8
    if [ -f "$cache" ] && [ "$cache" -nt "${modpath%%:*}" ] && [ ! "${modpath#*:}" -nt "$cache" ]; then
        exec 8>&-
        return 0    # another launcher trained it while this one waited
    fi
    echo "fipsctl: training the start-up cache (once per build) ..." >&2
    tmp="$cache.tmp.$$"
    rc=0
    # shellcheck disable=SC2086
    java --enable-native-access=net.fips.ffm $FIPS_CTL_JAVA_OPTS -XX:AOTCacheOutput="$tmp" -p "$modpath" \
        -m net.fips.cli/net.fips.cli.CtlTraining >/dev/null 2>&1 || rc=$?
    if [ "$rc" = 0 ] && [ -s "$tmp" ]; then
        mv -f "$tmp" "$cache"
    else
        rm -f "$tmp" "$tmp.config"
        echo "fipsctl: training failed (exit $rc); running without the cache" >&2
        rc=1
    fi
    exec 8>&-
    return "$rc"
}

# Trains the daemon's ahead-of-time cache $1 for module path $2 with JVM options $3 (the daemon's own: the cache is
# only used by a JVM with the same collector and object layout) through the training run net.fips.cli.DaemonTraining
# (two nodes link on 127.0.0.1, each with a socket-pair stand-in for fips0, and a TCP stream runs through both TUN
# sides and the session path for 10-30 s; about 45 s in all on the loaded 2-vCPU VM, docs/benchmarks.md "The JIT
# ramp"), one trainer at a time, written to a temporary file and moved into place. Prints one line to stderr; fails
# (and leaves no cache) when the JVM does, and the daemon then starts without one.
fips_train_daemon_cache() {
    local cache=$1 modpath=$2 opts=$3 tmp rc
    exec 7>"$cache.lock"
    command -v flock >/dev/null 2>&1 && flock 7
    if [ -f "$cache" ] && [ "$cache" -nt "${modpath%%:*}" ] && [ ! "${modpath#*:}" -nt "$cache" ]; then
        exec 7>&-
        return 0    # another launcher trained it while this one waited
    fi
    echo "fips: training the daemon's start-up cache (FIPS_DAEMON_AOT=1, once per build) ..." >&2
    tmp="$cache.tmp.$$"
    rc=0
    # shellcheck disable=SC2086
    java --enable-native-access=net.fips.ffm $opts -Xlog:aot=off -Xlog:cds=off -XX:AOTCacheOutput="$tmp" \
        -p "$modpath" -m net.fips.cli/net.fips.cli.DaemonTraining >/dev/null 2>&1 || rc=$?
    if [ "$rc" = 0 ] && [ -s "$tmp" ]; then
        mv -f "$tmp" "$cache"
    else
        rm -f "$tmp" "$tmp.config"
        echo "fips: training failed (exit $rc); running without the cache" >&2
        rc=1
    fi
    exec 7>&-
    return "$rc"
}
