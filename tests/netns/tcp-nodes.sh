#!/usr/bin/env bash
# Two namespaces joined by a veth, one fips daemon in each with a TCP transport only (listening on its address,
# port 8443; no UDP transport), each the other's configured peer over tcp. Asserts: A pings B by name 3 of 3
# through fips0; a 5 s iperf3 TCP run A->B through the tunnel completes (its Mbit/s printed); `fipsctl show
# transports` on A reports one tcp transport with at least one pooled connection and no framing errors; `fipsctl
# show peers` on A lists B.
set -u
. "$(dirname "$0")/lib.sh"
e2e_init tcp-nodes

export E2E_TRANSPORT=tcp
e2e_node a
e2e_node b
e2e_veth a 10.202.1.1 b 10.202.1.2
e2e_config a b:10.202.1.2
e2e_config b a:10.202.1.1
grep -q '^  tcp:' "${E2E_CFG[a]}" && ! grep -q '^  udp:' "${E2E_CFG[a]}" || e2e_fail "config is not TCP-only"
e2e_start a
e2e_start b
e2e_log "nodes up: a=${E2E_ADDR[a]} b=${E2E_ADDR[b]}"

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
e2e_log "iperf3 TCP a->b through fips0 over the TCP transport, 5 s: $mbps Mbit/s"

tr=$(e2e_ctl a show transports) || e2e_fail "fipsctl show transports failed: $tr"
grep -q '"type" *: *"tcp"' <<<"$tr" || e2e_fail "no tcp transport: $tr"
grep -q '"type" *: *"udp"' <<<"$tr" && e2e_fail "a udp transport is configured: $tr"
grep -q '"recv_errors" *: *0' <<<"$tr" || e2e_fail "recv_errors on a's tcp transport: $tr"
pooled=$(sed -n 's/.*"pool_\(in\|out\)bound" *: *\([0-9]*\).*/\2/p' <<<"$tr" | awk '{s += $1} END {print s + 0}')
[ "${pooled:-0}" -ge 1 ] || e2e_fail "no pooled TCP connection: $tr"
e2e_log "show transports on a: tcp, $pooled pooled connection(s)"

peers=$(e2e_ctl a show peers) || e2e_fail "fipsctl show peers failed: $peers"
grep -q "\"npub\" *: *\"${E2E_NPUB[b]}\"" <<<"$peers" || e2e_fail "b is not a peer of a: $peers"

e2e_pass
