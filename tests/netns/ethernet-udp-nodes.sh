#!/usr/bin/env bash
# Three nodes in a chain over two media: a -ethernet- b -udp- c. a has only an Ethernet transport (veth without IP
# addresses to b); c has only UDP (veth with IPv4 to b, b its configured peer); b has both and forwards. b and a
# find each other by beacons (announce, auto_connect, accept_connections). Asserts: a pings c by name 3 of 3 through
# b; a's only peer is b (so the traffic crossed from b's Ethernet link to its UDP link); b's show transports lists
# an ethernet and a udp transport, both with frames/packets moved both ways.
set -u
. "$(dirname "$0")/lib.sh"
e2e_init ethernet-udp-nodes

# mixed_config TAG ETH_IFACE UDP_IP [PEER_TAG:PEER_IP]: ETH_IFACE or UDP_IP may be "-" (not configured).
mixed_config() {
    local n=$1 iface=$2 ip=$3 peer=${4:-}
    {
        echo "node:"
        echo "  identity:"
        echo "    nsec: \"${E2E_NSEC[$n]}\""
        echo "  control:"
        echo "    socket_path: \"${E2E_SOCK[$n]}\""
        echo "tun:"
        echo "  enabled: true"
        echo "  name: fips0"
        echo "dns:"
        echo "  enabled: true"
        echo "  bind_addr: \"::1\""
        echo "  port: 53"
        echo "transports:"
        if [ "$iface" != - ]; then
            echo "  ethernet:"
            echo "    interface: $iface"
            echo "    announce: true"
            echo "    auto_connect: true"
            echo "    accept_connections: true"
            echo "    beacon_interval_secs: 10"
        fi
        if [ "$ip" != - ]; then
            echo "  udp:"
            echo "    bind_addr: \"$ip:2121\""
        fi
        if [ -n "$peer" ]; then
            echo "peers:"
            echo "  - npub: \"${E2E_NPUB[${peer%%:*}]}\""
            echo "    alias: \"${peer%%:*}\""
            echo "    addresses:"
            echo "      - transport: udp"
            echo "        addr: \"${peer#*:}:2121\""
        fi
    } > "${E2E_CFG[$n]}"
}

counter() { grep -o "\"$2\" *: *[0-9]*" <<<"$1" | grep -o '[0-9]*$' | head -n1; }

e2e_node a
e2e_node b
e2e_node c
ea="e${E2E_ID}ab" eb="e${E2E_ID}ba"
ip link add "$ea" netns "${E2E_NS[a]}" type veth peer name "$eb" netns "${E2E_NS[b]}" || e2e_fail "ip link add $ea"
ip -n "${E2E_NS[a]}" link set "$ea" up
ip -n "${E2E_NS[b]}" link set "$eb" up
e2e_veth b 10.203.1.1 c 10.203.1.2
mixed_config a "$ea" -
mixed_config b "$eb" 10.203.1.1 c:10.203.1.2
mixed_config c - 10.203.1.2 b:10.203.1.1
e2e_start c
e2e_start b
e2e_start a
e2e_log "nodes up: a=${E2E_ADDR[a]} (ethernet) b=${E2E_ADDR[b]} (ethernet+udp) c=${E2E_ADDR[c]} (udp)"

t=$SECONDS
e2e_wait 60 e2e_ping_ok a c || e2e_fail "no ping reply from c within 60 s"
e2e_log "first ping reply a -> c after $((SECONDS - t)) s"
out=$(e2e_in a ping -6 -n -c 3 -i 0.2 -W 2 "${E2E_NPUB[c]}.fips" 2>&1) || e2e_fail "ping -c 3 a -> c failed: $out"
grep -q ' 3 received, 0% packet loss' <<<"$out" || e2e_fail "ping lost packets: $out"
e2e_log "ping a -> c: $(grep rtt <<<"$out")"

peers=$(e2e_ctl a show peers) || e2e_fail "show peers on a failed: $peers"
grep -q "\"npub\" *: *\"${E2E_NPUB[b]}\"" <<<"$peers" || e2e_fail "a is not linked to b: $peers"
! grep -q "\"npub\" *: *\"${E2E_NPUB[c]}\"" <<<"$peers" || e2e_fail "a has a direct link to c: $peers"

tr=$(e2e_ctl b show transports) || e2e_fail "show transports on b failed: $tr"
grep -q '"type" *: *"ethernet"' <<<"$tr" && grep -q '"type" *: *"udp"' <<<"$tr" \
    || e2e_fail "b does not list an ethernet and a udp transport: $tr"
for c in frames_sent frames_recv packets_sent packets_recv; do
    v=$(counter "$tr" "$c")
    [ -n "$v" ] && [ "$v" -gt 0 ] || e2e_fail "b's show transports: $c is '${v:-missing}', expected > 0: $tr"
done
e2e_log "b forwards between its ethernet and udp links (a's only peer is b)"
e2e_pass
