#!/usr/bin/env bash
# When the data path got its final optimised code: reads one daemon's JIT log, as benchmarks/ramp.sh writes it with
# RAMP_JITLOG (-Xlog:jit+compilation=debug,deoptimization=debug:file=...:uptime,tags), and prints for the methods of
# the packages matching PATTERN (default the data plane and the FFM bindings) that C2 compiled at all: how many, the
# JVM uptime by which 50 %, 90 % and all of them had their first C2 code (level 4; OSR compiles not counted), the
# ten that came last, how many were compiled by C2 again later (after a deoptimisation, or a recompile when a stream
# stops), how many C1 compiles (tiered levels 1-3) they had, and the C2 deoptimisations among them (make_not_entrant
# traps, by reason, counted where the trap's own method matches; a trap in an inlined JDK method is not counted).
# Compare the times with the stream's start in ramp.sh's output (its "JVM
# uptime" line) to see how long the packet path ran interpreted or in C1 under load. It also prints the first C2
# compile of a fixed list of the per-packet methods (KEY below; "-" where C2 never compiled one).
# Usage: benchmarks/jit-timeline.sh LOG [PATTERN]
set -euo pipefail
log=$1
pat=${2:-^net\\.fips\\.(dataplane|ffm)\\.}
KEY="WorkerAgent::doWork WorkerAgent::onInbound SessionPath::onOutbound SessionPath::onInbound LinkCrypto::seal"
KEY+=" LinkCrypto::open FspCrypto::seal FspCrypto::open AeadChaCha20Poly1305::cryptAt UdpReceiver::receiveDirect"
KEY+=" UdpSender::send TunReader::read TunWriter::write"
awk -v pat="$pat" -v key="$KEY" '
    /\[jit,compilation\]/ && !/made not entrant/ && !/made zombie/ {
        t = substr($1, 2, index($1, "s]") - 2) + 0
        m = ""; lvl = 4; osr = 0
        for (i = 3; i <= NF; i++) {
            if ($i ~ /::/) { m = $i; if ($(i - 1) ~ /^[0-4]$/) lvl = $(i - 1) + 0; break }
            if ($i ~ /%/) osr = 1
        }
        if (m == "" || m !~ pat || osr || $0 ~ /\(native\)/) next
        if (lvl == 4) { if (!(m in first)) first[m] = t; nc2[m]++ } else if (lvl >= 1) c1[m]++
    }
    /\[deoptimization *\]/ && /make_not_entrant/ {
        for (i = 1; i <= NF; i++) if ($i ~ /^net\.fips\./) { m = $i; break }
        if (m == "") next
        sub(/\(.*/, "", m); n = split(m, p, "."); mm = p[1]; for (j = 2; j < n; j++) mm = mm "." p[j]
        mm = mm "::" p[n]
        if (mm !~ pat) { m = ""; next }
        for (i = 1; i <= NF; i++) if ($i ~ /^trap_bci=/) { r = $(i + 1); break }
        deopt[r]++; ndeopt++; m = ""
    }
    END {
        n = 0
        for (m in first) { n++; ts[n] = first[m]; nm[n] = m; if (nc2[m] > 1) again++ }
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (ts[j] < ts[i]) {
            t = ts[i]; ts[i] = ts[j]; ts[j] = t; t = nm[i]; nm[i] = nm[j]; nm[j] = t }
        if (!n) { print "  no C2-compiled method matches " pat; exit }
        printf "  %d methods with C2 code; first C2 code of 50%% by %.1f s, 90%% by %.1f s, all by %.1f s (uptime);" \
            " %d compiled by C2 again later\n", n, ts[int((n + 1) / 2)], ts[int(n * 0.9 + 0.5)], ts[n], again
        c = 0; for (m in c1) c += c1[m]
        printf "  C1 compiles (levels 1-3) of matching methods: %d\n", c
        printf "  the last ten to get C2 code:"
        for (i = (n > 10 ? n - 9 : 1); i <= n; i++) printf " %s %.1fs;", nm[i], ts[i]
        print ""
        printf "  first C2 code of the per-packet methods:"
        nk = split(key, ks, " ")
        for (k = 1; k <= nk; k++) {
            best = "-"
            for (m in first) if (substr(m, length(m) - length(ks[k]) + 1) == ks[k] && \
                                substr(m, length(m) - length(ks[k]), 1) == ".") best = sprintf("%.1fs", first[m])
            printf " %s %s;", ks[k], best
        }
        print ""
        printf "  C2 deoptimisations (make_not_entrant) in matching methods: %d", ndeopt + 0
        for (r in deopt) printf " %s=%d", r, deopt[r]
        print ""
    }' "$log"
# Every trap in code compiled for a matching method (its compile id resolved to the method C2 compiled, so traps in
# JDK methods inlined into the data plane count too; any action, maybe_recompile included), by reason, and the sites
# (trapping method and bci) with their counts, the 25 most frequent: where the recompiles come from.
awk -v pat="$pat" '
    /\[jit,compilation\]/ && !/made not entrant/ {
        for (i = 3; i <= NF; i++) if ($i ~ /::/) { id = $2; gsub(/[^0-9]/, "", id); name[id] = $i; break }
    }
    /\[deoptimization *\]/ && /cid=/ {
        match($0, /cid= *[0-9]+/); c = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", c)
        if (!(c in name) || name[c] !~ pat) next
        site = ""; r = ""
        for (i = 1; i <= NF; i++) {
            if ($i ~ /^level=/) { site = $(i + 1); sub(/\(.*/, "", site) }
            if ($i ~ /^trap_bci=/) { site = site "@" substr($i, 10); r = $(i + 1); if (r ~ /^osr_bci=/) r = $(i + 2) }
        }
        n++; reason[r]++; sites[name[c] " <- " site " " r]++
    }
    END {
        printf "  traps in C2 code of matching methods (any action): %d", n + 0
        for (r in reason) printf " %s=%d", r, reason[r]
        print ""
        fflush()
        cmd = "sort -k1,1nr | head -25"
        for (s in sites) printf "    %3d  %s\n", sites[s], s | cmd
        close(cmd)
    }' "$log"
