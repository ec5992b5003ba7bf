#!/usr/bin/env bash
# Longer chaos runs: tests/netns/chaos.sh (real daemons in namespaces, two disjoint paths s..d, impaired links,
# transits killed with SIGKILL and restarted while a checksummed TCP stream crosses) with knobs for longer runs,
# preceded by the machine, load and commit. Per kill it prints the outage (longest gap between ping replies s -> d,
# one ping every 200 ms), the time until every live daemon names one live root again, after the kill and after
# the restart, and the stream's longest stall; then the medians and maxima. The test's assertions still hold (whole
# stream, one root at the end, no stack trace); a failed run prints the daemons' last log lines and keeps its
# directory (logs, fipsctl state). The 1-minute load is sampled every 5 s and summarised at the end (min, median,
# max); above CAPACITY (3) daemons per CPU, or on a machine loaded above its CPU count at the start, the run warns
# that a stall may be the machine's (eight daemons on 2 vCPUs at load 30+ starve). A stream stalled after the chaos
# gets RESUME_LIMIT (150) s to move again (TCP's back-off), with the sender's TCP state and 20 pings on record.
# Knobs (environment, defaults here; the test's own defaults are the CI run's): NODES (8), LOSS (% per direction
# and veth, 1), DELAY (ms, 2), JITTER (ms, 1), CHURN (kills/min, 4), DURATION (s, 240), DOWN (s each transit
# stays dead, 3), RATE (bytes/s of the stream, 65536), IMPAIR (auto: tc netem where the kernel has sch_netem, else
# the TAP relay tests/netns/netem_relay.py; the run says which), CHAOS_SAVE (copy the run's directory there).
# Usage: sudo benchmarks/chaos.sh            e.g. NODES=10 CHURN=6 DURATION=600 sudo -E benchmarks/chaos.sh
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
export NODES=${NODES:-8} LOSS=${LOSS:-1} DELAY=${DELAY:-2} JITTER=${JITTER:-1} CHURN=${CHURN:-4}
export DURATION=${DURATION:-240} DOWN=${DOWN:-3} RATE=${RATE:-65536}
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
echo "benchmarks/chaos.sh: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); $(nproc) CPUs ($cpu);" \
    "load $(cut -d' ' -f1-3 /proc/loadavg); commit $(git -C "$root" rev-parse --short HEAD)"
echo "NODES=$NODES LOSS=$LOSS DELAY=$DELAY JITTER=$JITTER CHURN=$CHURN DURATION=$DURATION DOWN=$DOWN RATE=$RATE" \
    "IMPAIR=${IMPAIR:-auto}"
exec "$root/tests/netns/chaos.sh"
