#!/usr/bin/env bash
# Two namespaces joined by a veth, one fips daemon in each (TUN fips0, .fips DNS on [::1]:53, each the other's
# configured peer). Asserts: A pings B by name (<npub>.fips resolved by A's own DNS responder) 3 of 3; a 5 s iperf3
# TCP run A->B through the tunnel completes without error (its Mbit/s printed); `fipsctl show sessions` on A lists
# exactly one session, established, with B. Unlike the other namespace tests, both daemons run bin/fips's default
# start-up warm-up (ADR 0068): each logs its one-line summary before "running".
set -u
unset FIPS_DAEMON_WARMUP
E2E_KEEP_WARMUP=1
. "$(dirname "$0")/lib.sh"
e2e_init two-nodes

e2e_node a
e2e_node b
e2e_veth a 10.201.1.1 b 10.201.1.2
e2e_config a b:10.201.1.2
e2e_config b a:10.201.1.1
e2e_launch a
e2e_launch b
e2e_await a
e2e_await b
e2e_log "nodes up: a=${E2E_ADDR[a]} b=${E2E_ADDR[b]}"
for n in a b; do
    line=$(grep -m1 -E 'start-up warm-up: [0-9.]+ s; TCP stream through two loopback nodes' "${E2E_LOG[$n]}") \
        || e2e_fail "node $n logged no start-up warm-up summary"
    e2e_log "node $n: ${line#*FipsDaemon: }"
done

# The name must resolve through the node's own responder to B's FIPS address.
got=$(e2e_in a getent ahostsv6 "${E2E_NPUB[b]}.fips" | awk 'NR==1 {print $1}')
[ "$got" = "${E2E_ADDR[b]}" ] || e2e_fail "${E2E_NPUB[b]}.fips resolved to '$got', expected ${E2E_ADDR[b]}"

# First packets may meet ICMPv6 unreachable while links and filters settle: wait for one answered ping.
t=$SECONDS
e2e_wait 30 e2e_ping_ok a b || e2e_fail "no ping reply from b within 30 s"
e2e_log "first ping reply after $((SECONDS - t)) s"

out=$(e2e_in a ping -6 -n -c 3 -i 0.2 -W 2 "${E2E_NPUB[b]}.fips" 2>&1) \
    || e2e_fail "ping -c 3 by name failed: $out"
grep -q ' 3 received, 0% packet loss' <<<"$out" || e2e_fail "ping lost packets: $out"
e2e_log "ping: $(grep rtt <<<"$out")"

e2e_iperf_server b 5201
out=$(e2e_in a timeout 30 iperf3 -c "${E2E_NPUB[b]}.fips" -p 5201 -t 5 -f m 2>&1) \
    || e2e_fail "iperf3 TCP failed: $out"
mbps=$(awk '/receiver/ {for (i = 1; i <= NF; i++) if ($i == "Mbits/sec") print $(i - 1)}' <<<"$out")
[ -n "$mbps" ] || e2e_fail "no receiver line in iperf3 output: $out"
e2e_log "iperf3 TCP a->b through fips0, 5 s: $mbps Mbit/s"

sessions=$(e2e_ctl a show sessions) || e2e_fail "fipsctl show sessions failed: $sessions"
count=$(grep -c '"remote_addr"' <<<"$sessions")
established=$(grep -c '"state" *: *"established"' <<<"$sessions")
[ "$count" = 1 ] && [ "$established" = 1 ] \
    || e2e_fail "expected one established session, got $count session(s), $established established: $sessions"
grep -q "\"npub\" *: *\"${E2E_NPUB[b]}\"" <<<"$sessions" || e2e_fail "the session is not with b: $sessions"
e2e_log "show sessions on a: one established session with b"

e2e_pass
