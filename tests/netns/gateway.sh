#!/usr/bin/env bash
# The LAN gateway end to end (discovery-gateway.md §4, §7.5): three namespaces in a line,
#   LAN host (no FIPS; 2001:2::10, its resolver the gateway) -- gateway (daemon + fips-gateway; LAN 2001:2::1, UDP
#   198.18.0.1) -- mesh node (daemon; UDP 198.18.0.2; an iperf3 TCP service).
# Asserts: the LAN host resolves <npub>.fips through the gateway (dig: an AAAA from the pool fd01::/112; A gets
# NODATA with an SOA; a non-.fips name is REFUSED), pings the mesh node at that address and runs an iperf3 TCP test to
# it; the nft table holds the mapping's DNAT, the pool route and the proxy-NDP entry exist; show_mappings on the
# gateway's control socket lists the mapping; the mesh node reaches an iperf3 server on the LAN host through the
# inbound port forward <gateway>.fips:8080 -> [2001:2::10]:8081; with lifetimes of 3 s (dns.ttl and grace, ticks of
# 1 s) a mapping that was only resolved is reclaimed while one carrying a continuous ping is kept, and reclaimed once
# the ping stops; SIGTERM removes the table, the route and the proxy-NDP entries. Skips without nft or dig.
set -u
. "$(dirname "$0")/lib.sh"
e2e_init gateway
for c in nft dig python3; do
    command -v "$c" >/dev/null 2>&1 || e2e_skip "$c is not installed"
done

e2e_node g
e2e_node m
e2e_veth g 198.18.0.1 m 198.18.0.2
e2e_config g m:198.18.0.2
e2e_config m g:198.18.0.1

# The LAN host: a bare namespace, no FIPS, IPv6 only, its resolver the gateway's DNS proxy.
lan_ns="fe2e${E2E_ID}l"
ip netns add "$lan_ns" || e2e_fail "ip netns add $lan_ns"
E2E_NETNS+=("$lan_ns")
ip -n "$lan_ns" link set lo up
mkdir -p "/etc/netns/$lan_ns"
echo "nameserver 2001:2::1" > "/etc/netns/$lan_ns/resolv.conf"
lan_if="gl${E2E_ID}"
ip link add "$lan_if" netns "${E2E_NS[g]}" type veth peer name "gh${E2E_ID}" netns "$lan_ns" \
    || e2e_fail "ip link add $lan_if"
ip -n "${E2E_NS[g]}" addr add 2001:2::1/64 dev "$lan_if" nodad
ip -n "$lan_ns" addr add 2001:2::10/64 dev "gh${E2E_ID}" nodad
ip -n "${E2E_NS[g]}" link set "$lan_if" up
ip -n "$lan_ns" link set "gh${E2E_ID}" up
ip -n "$lan_ns" -6 route add fd01::/112 via 2001:2::1 || e2e_fail "route to the pool on the LAN host"
e2e_in g sysctl -qw net.ipv6.conf.all.forwarding=1 || e2e_fail "sysctl forwarding in the gateway namespace"
e2e_in g sysctl -qw net.ipv6.conf.all.proxy_ndp=1
# A finished ping's conntrack entry lives 30 s (the kernel's default), and conntrack entries keep a mapping
# (ADR 0049): 3 s here keeps the test short.
e2e_in g sysctl -qw net.netfilter.nf_conntrack_icmpv6_timeout=3 2>/dev/null \
    || { e2e_in g modprobe nf_conntrack 2>/dev/null; e2e_in g sysctl -qw net.netfilter.nf_conntrack_icmpv6_timeout=3; } \
    || e2e_log "cannot shorten nf_conntrack_icmpv6_timeout; the last reclaim waits for the 30 s default"

cat >> "${E2E_CFG[g]}" <<YAML
gateway:
  enabled: true
  pool: "fd01::/112"
  lan_interface: "$lan_if"
  pool_grace_period: 3
  dns:
    listen: "[2001:2::1]:53"
    upstream: "[::1]:53"
    ttl: 3
  port_forwards:
    - { listen_port: 8080, proto: tcp, target: "[2001:2::10]:8081" }
YAML

e2e_start g
e2e_start m
e2e_log "nodes up: g=${E2E_ADDR[g]} m=${E2E_ADDR[m]}"
e2e_wait 30 e2e_ping_ok g m || e2e_fail "the gateway's daemon cannot ping the mesh node"

gw_log=$E2E_DIR/gateway.log
gw_sock=$E2E_DIR/gateway.sock
ip netns exec "${E2E_NS[g]}" "$E2E_ROOT/bin/fips-gateway" -c "${E2E_CFG[g]}" --control-socket "$gw_sock" --tick-interval 1 -l debug \
    >> "$gw_log" 2>&1 &
gw_pid=$!
E2E_BG+=("$gw_pid")
disown "$gw_pid"
E2E_LOG[gateway]=$gw_log
e2e_wait 60 grep -q 'fips-gateway running' "$gw_log" || e2e_fail "fips-gateway did not start"
[ "$(cat "/proc/$gw_pid/comm" 2>/dev/null)" = java ] || e2e_fail "pid $gw_pid is not the gateway's JVM"
e2e_log "$(grep -o 'fips-gateway running.*' "$gw_log")"

# gw_json COMMAND: one request on the gateway's control socket, the response line on stdout.
gw_json() {
    python3 - "$gw_sock" "$1" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(5)
s.connect(sys.argv[1])
s.sendall((json.dumps({"command": sys.argv[2]}) + "\n").encode())
print(s.makefile().readline().strip())
PY
}
# mapping_state NAME: the state of NAME's mapping, or "none".
mapping_state() {
    gw_json show_mappings | python3 -c '
import json, sys
d = json.load(sys.stdin)["data"]["mappings"]
print(next((m["state"] for m in d if m["dns_name"] == sys.argv[1]), "none"))' "$1"
}

export gw_sock
export -f gw_json mapping_state e2e_alive

name_m="${E2E_NPUB[m]}.fips"
name_g="${E2E_NPUB[g]}.fips"
vip=$(ip netns exec "$lan_ns" dig +short +time=5 +tries=1 @2001:2::1 AAAA "$name_m")
case "$vip" in
    fd01::*) e2e_log "LAN host: $name_m -> $vip" ;;
    *) e2e_fail "dig AAAA $name_m via the gateway gave '$vip', expected an address of fd01::/112" ;;
esac
out=$(ip netns exec "$lan_ns" dig +time=5 +tries=1 @2001:2::1 A "$name_m")
grep -q 'status: NOERROR' <<<"$out" && grep -q 'ANSWER: 0, AUTHORITY: 1' <<<"$out" \
    && grep -q 'SOA.*gateway\.fips\. nobody\.fips\.' <<<"$out" || e2e_fail "A query: expected NODATA with an SOA: $out"
out=$(ip netns exec "$lan_ns" dig +time=5 +tries=1 @2001:2::1 AAAA example.com)
grep -q 'status: REFUSED' <<<"$out" || e2e_fail "a non-.fips name was not refused: $out"
e2e_log "dig: A -> NODATA + SOA, example.com -> REFUSED"

nft_table=$(e2e_in g nft list table inet fips_gateway) || e2e_fail "no nft table inet fips_gateway"
grep -q "ip6 daddr $vip dnat ip6 to ${E2E_ADDR[m]}" <<<"$nft_table" || e2e_fail "no DNAT for $vip: $nft_table"
grep -q 'tcp dport 8080 dnat ip6 to \[2001:2::10\]:8081' <<<"$nft_table" || e2e_fail "no port forward: $nft_table"
e2e_in g ip -6 route show table local | grep -q '^local fd01::/112 dev lo' || e2e_fail "no local route for the pool"
e2e_in g ip -6 neigh show proxy | grep -q "^$vip dev $lan_if" || e2e_fail "no proxy-NDP entry for $vip"

# ping by name: the LAN host's resolver is the gateway
out=$(ip netns exec "$lan_ns" ping -6 -n -c 3 -i 0.2 -W 3 "$name_m" 2>&1) || e2e_fail "LAN ping by name failed: $out"
grep -q ' 3 received' <<<"$out" || e2e_fail "LAN ping lost packets: $out"
e2e_log "LAN ping $name_m ($vip): $(grep rtt <<<"$out")"

e2e_iperf_server m 5201
out=$(ip netns exec "$lan_ns" timeout 30 iperf3 -c "$vip" -p 5201 -t 2 -f m 2>&1) || e2e_fail "LAN iperf3 TCP: $out"
mbps=$(awk '/receiver/ {for (i = 1; i <= NF; i++) if ($i == "Mbits/sec") print $(i - 1)}' <<<"$out")
[ -n "$mbps" ] || e2e_fail "no receiver line in iperf3 output: $out"
e2e_log "iperf3 TCP LAN host -> mesh node through the gateway, 2 s: $mbps Mbit/s"

e2e_wait 5 bash -c '[ "$(mapping_state "$1")" = Active ]' _ "$name_m" 2>/dev/null || true
state=$(mapping_state "$name_m")
[ "$state" = Active ] || e2e_fail "mapping of $name_m is $state after traffic, expected Active: $(gw_json show_mappings)"
gw_json show_gateway | grep -q '"pool_total":65535' || e2e_fail "show_gateway: $(gw_json show_gateway)"

# Inbound: the mesh node reaches the LAN host's service through the gateway's port forward.
ip netns exec "$lan_ns" iperf3 -s -1 -p 8081 > "$E2E_DIR/iperf-lan.log" 2>&1 &
E2E_BG+=($!)
e2e_wait 10 sh -c "ip netns exec '$lan_ns' ss -Htln | grep -q ':8081\\b'" || e2e_fail "LAN iperf3 server did not listen"
out=$(e2e_in m timeout 30 iperf3 -c "$name_g" -p 8080 -t 2 -f m 2>&1) || e2e_fail "inbound port forward: $out"
grep -q receiver <<<"$out" || e2e_fail "inbound iperf3 gave no result: $out"
e2e_log "mesh node -> $name_g:8080 -> [2001:2::10]:8081: $(awk '/receiver/ {print $(NF-2), $(NF-1)}' <<<"$out")"

# Lifetimes: the gateway's own name is resolved and left idle; the mesh node's carries a continuous ping.
ip netns exec "$lan_ns" ping -6 -n -i 0.2 "$vip" > "$E2E_DIR/ping-busy.log" 2>&1 &
busy_ping=$!
E2E_BG+=("$busy_ping")
vip_g=$(ip netns exec "$lan_ns" dig +short +time=5 +tries=1 @2001:2::1 AAAA "$name_g")
case "$vip_g" in fd01::*) ;; *) e2e_fail "dig AAAA $name_g gave '$vip_g'" ;; esac
[ "$(mapping_state "$name_g")" = Allocated ] || e2e_fail "idle mapping not Allocated: $(gw_json show_mappings)"
t=$SECONDS
e2e_wait 30 bash -c '[ "$(mapping_state "$1")" = none ]' _ "$name_g" \
    || e2e_fail "the idle mapping was not reclaimed within 30 s: $(gw_json show_mappings)"
e2e_log "idle mapping $vip_g reclaimed after $((SECONDS - t)) s (ttl 3 s + grace 3 s)"
e2e_in g ip -6 neigh show proxy | grep -q "^$vip_g " && e2e_fail "proxy-NDP entry of the reclaimed $vip_g is still there"
# The busy one outlives several idle lifetimes.
until [ $((SECONDS - t)) -ge 15 ]; do
    state=$(mapping_state "$name_m")
    [ "$state" = Active ] || e2e_fail "the busy mapping became $state while the ping ran: $(gw_json show_mappings)"
    sleep 1
done
e2e_log "busy mapping $vip still Active after $((SECONDS - t)) s of continuous ping"
kill "$busy_ping"
t=$SECONDS
e2e_wait 60 bash -c '[ "$(mapping_state "$1")" = none ]' _ "$name_m" \
    || e2e_fail "the mapping was not reclaimed within 60 s after its traffic stopped: $(gw_json show_mappings)"
e2e_log "once the ping stopped, $vip was reclaimed after $((SECONDS - t)) s"
e2e_in g nft list table inet fips_gateway | grep -q "dnat ip6 to ${E2E_ADDR[m]}" \
    && e2e_fail "the DNAT of the reclaimed mapping is still in the table"

# SIGTERM removes everything the gateway installed.
kill -TERM "$gw_pid"
e2e_wait 15 bash -c '! e2e_alive "$1"' _ "$gw_pid" || e2e_fail "fips-gateway did not exit within 15 s"
e2e_in g nft list table inet fips_gateway >/dev/null 2>&1 && e2e_fail "the nft table survived SIGTERM"
e2e_in g ip -6 route show table local | grep -q '^local fd01::/112' && e2e_fail "the pool route survived SIGTERM"
[ -z "$(e2e_in g ip -6 neigh show proxy)" ] || e2e_fail "proxy-NDP entries survived SIGTERM"
grep -q 'stopped' "$gw_log" || e2e_fail "no clean stop in the gateway log"
e2e_log "SIGTERM: table, route and proxy-NDP entries removed"

e2e_pass
