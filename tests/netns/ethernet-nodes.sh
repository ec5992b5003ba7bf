#!/usr/bin/env bash
# Two namespaces joined by a veth with no IP addresses, one fips daemon in each with only an Ethernet transport on
# its veth end (announce, auto_connect, accept_connections; no configured peers, no UDP). Asserts: the beacons bring
# a link up without any peer in the config; A pings B by name (<npub>.fips) 3 of 3; a 5 s iperf3 TCP run A->B
# through fips0 completes (its Mbit/s printed); `fipsctl show transports` on A lists the ethernet transport with
# beacons sent and received and frames both ways; `fipsctl show peers` on A lists B over ethernet.
set -u
. "$(dirname "$0")/lib.sh"
e2e_init ethernet-nodes

# eth_config TAG IFACE: node TAG's fips.yaml with one Ethernet transport on IFACE that announces, dials what it
# hears and accepts strangers; beacons every 10 s (the minimum), the first at start.
eth_config() {
    local n=$1 iface=$2
    cat > "${E2E_CFG[$n]}" <<YAML
node:
  identity:
    nsec: "${E2E_NSEC[$n]}"
  control:
    socket_path: "${E2E_SOCK[$n]}"
tun:
  enabled: true
  name: fips0
dns:
  enabled: true
  bind_addr: "::1"
  port: 53
transports:
  ethernet:
    interface: $iface
    announce: true
    auto_connect: true
    accept_connections: true
    beacon_interval_secs: 10
YAML
}

e2e_node a
e2e_node b
ea="e${E2E_ID}ab" eb="e${E2E_ID}ba"
ip link add "$ea" netns "${E2E_NS[a]}" type veth peer name "$eb" netns "${E2E_NS[b]}" || e2e_fail "ip link add $ea"
ip -n "${E2E_NS[a]}" link set "$ea" up
ip -n "${E2E_NS[b]}" link set "$eb" up
eth_config a "$ea"
eth_config b "$eb"
e2e_start a
e2e_start b
e2e_log "nodes up: a=${E2E_ADDR[a]} b=${E2E_ADDR[b]} (Ethernet only, no configured peers)"

peer_over_ethernet() { e2e_ctl a show peers | grep -q "\"npub\" *: *\"${E2E_NPUB[b]}\""; }
t=$SECONDS
e2e_wait 30 peer_over_ethernet || e2e_fail "no link to b from beacons within 30 s: $(e2e_ctl a show peers)"
e2e_log "link a-b up from beacons after $((SECONDS - t)) s"

t=$SECONDS
e2e_wait 30 e2e_ping_ok a b || e2e_fail "no ping reply from b within 30 s"
e2e_log "first ping reply after $((SECONDS - t)) s"
out=$(e2e_in a ping -6 -n -c 3 -i 0.2 -W 2 "${E2E_NPUB[b]}.fips" 2>&1) || e2e_fail "ping -c 3 by name failed: $out"
grep -q ' 3 received, 0% packet loss' <<<"$out" || e2e_fail "ping lost packets: $out"
e2e_log "ping: $(grep rtt <<<"$out")"

e2e_iperf_server b 5201
out=$(e2e_in a timeout 30 iperf3 -c "${E2E_NPUB[b]}.fips" -p 5201 -t 5 -f m 2>&1) || e2e_fail "iperf3 TCP failed: $out"
mbps=$(awk '/receiver/ {for (i = 1; i <= NF; i++) if ($i == "Mbits/sec") print $(i - 1)}' <<<"$out")
[ -n "$mbps" ] || e2e_fail "no receiver line in iperf3 output: $out"
e2e_log "iperf3 TCP a->b through fips0 over Ethernet, 5 s: $mbps Mbit/s"

tr=$(e2e_ctl a show transports) || e2e_fail "fipsctl show transports failed: $tr"
grep -q '"type" *: *"ethernet"' <<<"$tr" || e2e_fail "no ethernet transport in show transports: $tr"
for c in beacons_sent beacons_recv frames_sent frames_recv bytes_sent bytes_recv; do
    v=$(grep -o "\"$c\" *: *[0-9]*" <<<"$tr" | grep -o '[0-9]*$' | head -n1)
    [ -n "$v" ] && [ "$v" -gt 0 ] || e2e_fail "show transports: $c is '${v:-missing}', expected > 0: $tr"
done
e2e_log "show transports on a: ethernet with beacons and frames both ways"
e2e_pass
