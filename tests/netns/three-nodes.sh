#!/usr/bin/env bash
# Three namespaces chained a - b - c by two veth pairs (10.201.1.0/24 a-b, 10.201.2.0/24 b-c; b does not forward
# IP, so a and c have no underlay path to each other). a's only peer is b, c's only peer is b, b has both.
# Asserts:
#  1. a cannot reach c's underlay address directly;
#  2. a pings c by name (c's npub.fips through a's DNS responder), routed through b;
#  3. b killed with SIGKILL and started again: a's pings to c succeed again within 30 s of the restart;
#  4. c stopped with SIGTERM: a's ping to c is answered with ICMPv6 Destination Unreachable within 15 s (no
#     silent hang).
set -u
. "$(dirname "$0")/lib.sh"
e2e_init three-nodes

e2e_node a
e2e_node b
e2e_node c
e2e_veth a 10.201.1.1 b 10.201.1.2
e2e_veth b 10.201.2.2 c 10.201.2.3
e2e_config a b:10.201.1.2
e2e_config b a:10.201.1.1 c:10.201.2.3
e2e_config c b:10.201.2.2
e2e_start a
e2e_start b
e2e_start c
e2e_log "nodes up: a=${E2E_ADDR[a]} b=${E2E_ADDR[b]} c=${E2E_ADDR[c]}"

# 1. No underlay path a -> c.
if e2e_in a ping -n -c 1 -W 1 10.201.2.3 >/dev/null 2>&1; then
    e2e_fail "a reaches c's underlay address 10.201.2.3 directly: the topology is not a chain"
fi

# 2. a -> c by name, through b.
t=$SECONDS
e2e_wait 30 e2e_ping_ok a c || e2e_fail "no ping reply from c within 30 s"
e2e_log "first ping reply a->c after $((SECONDS - t)) s"
out=$(e2e_in a ping -6 -n -c 3 -i 0.2 -W 2 "${E2E_NPUB[c]}.fips" 2>&1) || e2e_fail "ping a->c failed: $out"
grep -q ' 3 received, 0% packet loss' <<<"$out" || e2e_fail "ping a->c lost packets: $out"
e2e_log "ping a->c: $(grep rtt <<<"$out")"

# 3. b dies without a goodbye and comes back: the path heals within 30 s of the restart.
e2e_stop b KILL
e2e_log "b killed (SIGKILL)"
if e2e_ping_ok a c >/dev/null 2>&1; then
    e2e_fail "a still reaches c with b dead: the path does not go through b"
fi
t=$SECONDS
e2e_start b
e2e_log "b restarted (daemon up after $((SECONDS - t)) s)"
e2e_wait $((t + 30 - SECONDS)) e2e_ping_ok a c \
    || e2e_fail "path a->c did not heal within 30 s of b's restart (to see why, rerun with" \
        "E2E_LOG_LEVEL=debug E2E_KEEP=1; e.g. a logging 'Discovery skipped, <c> not in any peer bloom filter'" \
        "means b never got c's FilterAnnounce after its restart)"
e2e_log "path a->c healed $((SECONDS - t)) s after b's restart"

# 4. c leaves (SIGTERM): a must get Destination Unreachable rather than silence.
e2e_stop c TERM
e2e_log "c stopped (SIGTERM)"
t=$SECONDS
unreachable=
attempts=()
while [ $((SECONDS - t)) -lt 15 ]; do
    out=$(e2e_in a ping -6 -n -c 1 -W 2 "${E2E_NPUB[c]}.fips" 2>&1)
    rc=$?
    attempts+=("+$((SECONDS - t))s rc=$rc: $(grep -i -m1 'unreachable\|received\|bytes from' <<<"$out")")
    [ $rc = 0 ] && e2e_fail "c answered a ping after it stopped: $out"
    if grep -qi 'Destination unreachable' <<<"$out"; then
        unreachable=$out
        break
    fi
    sleep 0.2
done
printf '  %s\n' "${attempts[@]}"
[ -n "$unreachable" ] || e2e_fail "no ICMPv6 Destination Unreachable for c within 15 s of its stop"
e2e_log "a got Destination Unreachable $((SECONDS - t)) s after c stopped: $(grep -i -m1 unreachable <<<"$unreachable")"

e2e_pass
