#!/usr/bin/env bash
# LAN discovery over mDNS between real daemons (discovery-gateway.md §3, §7.4): three namespaces on one bridge (in a
# fourth namespace of the test's own), one fips daemon in each with node.discovery.lan.enabled and NO peers
# configured; a and b keep the default scope (fips-overlay-v1), c is in scope "elsewhere". Asserts: a and b link
# within 30 s and a pings b by name through fips0; c links to nobody and nobody lists it as a LAN peer; `fipsctl show
# lan` on a lists b with its address and a dial (on a or b). Then, where Debian's python3-zeroconf is installed
# (skipped with a note otherwise), an independent mDNS browser in a's namespace sees b's and c's services with the
# reference's instance names and TXT (npub, scope, v=1) on UDP port 2121.
# Then IPv6 (ADR 0059): a, b and c stop; d and e start on a bridge of their own that carries no IPv4 at all (IPv6
# link-local addresses only), UDP bound to [::]:2121. Asserts: d and e link over mDNS within 30 s and d pings e; `show
# lan` on d lists e at e's link-local address with d's interface as scope; the link runs over link-local IPv6; and
# python3-zeroconf in d's namespace, browsing on ff02::fb only, resolves e's service with e's address from an AAAA
# record and the reference's TXT.
set -u
. "$(dirname "$0")/lib.sh"
e2e_init lan-nodes

br="fe2e${E2E_ID}x"
ip netns add "$br" || e2e_fail "ip netns add $br"
E2E_NETNS+=("$br")
ip -n "$br" link add br0 type bridge || e2e_fail "no bridge in $br"
ip -n "$br" link set br0 up
i=0
for n in a b c; do
    i=$((i + 1))
    e2e_node "$n"
    ip link add "f${E2E_ID}$n" netns "${E2E_NS[$n]}" type veth peer name "p${E2E_ID}$n" netns "$br" \
        || e2e_fail "ip link add f${E2E_ID}$n"
    ip -n "$br" link set "p${E2E_ID}$n" master br0 up
    ip -n "${E2E_NS[$n]}" addr add "10.202.1.$i/24" dev "f${E2E_ID}$n"
    ip -n "${E2E_NS[$n]}" link set "f${E2E_ID}$n" up
    # The mDNS group is link-local; the route lets a sender that names no interface reach it too.
    ip -n "${E2E_NS[$n]}" route add 224.0.0.0/4 dev "f${E2E_ID}$n"
    E2E_IP[$n]=10.202.1.$i
done

lan='  discovery:\n    lan:\n      enabled: true'
E2E_NODE_EXTRA=$lan e2e_config a
E2E_NODE_EXTRA=$lan e2e_config b
E2E_NODE_EXTRA="$lan\n      scope: elsewhere" e2e_config c
for n in a b c; do grep -q '^peers:$' "${E2E_CFG[$n]}" || e2e_fail "node $n has peers configured"; done
e2e_launch a
e2e_launch b
e2e_launch c
e2e_await a
e2e_await b
e2e_await c
e2e_log "nodes up, no peers configured: a=${E2E_ADDR[a]} b=${E2E_ADDR[b]} c=${E2E_ADDR[c]}"

has_peer() { e2e_ctl "$1" show peers | grep -q "\"npub\" *: *\"${E2E_NPUB[$2]}\""; }
t=$SECONDS
e2e_wait 30 has_peer a b || e2e_fail "a and b did not link over mDNS within 30 s: $(e2e_ctl a show lan)"
e2e_wait 10 has_peer b a || e2e_fail "b does not list a as a peer"
e2e_log "a and b linked $((SECONDS - t)) s after start, found over mDNS"
e2e_wait 30 e2e_ping_ok a b || e2e_fail "no ping reply from b within 30 s"

# Whichever dialled first, each browser also resolves the other's announcement (it re-queries).
lists() { e2e_ctl "$1" show lan | grep -q "\"npub\" *: *\"${E2E_NPUB[$2]}\""; }
e2e_wait 30 lists a b || e2e_fail "a does not list b as a LAN peer: $(e2e_ctl a show lan)"
lan_a=$(e2e_ctl a show lan) || e2e_fail "fipsctl show lan failed: $lan_a"
grep -q '"running" *: *true' <<<"$lan_a" || e2e_fail "a's LAN discovery does not run: $lan_a"
grep -q "\"npub\" *: *\"${E2E_NPUB[b]}\"" <<<"$lan_a" || e2e_fail "a does not list b: $lan_a"
grep -q '"address" *: *"10.202.1.2:2121"' <<<"$lan_a" || e2e_fail "a lists b at another address: $lan_a"
dials=$(( $(sed -n 's/.*"dials_started" *: *\([0-9]*\).*/\1/p' <<<"$lan_a") \
    + $(e2e_ctl b show lan | sed -n 's/.*"dials_started" *: *\([0-9]*\).*/\1/p') ))
[ "$dials" -ge 1 ] || e2e_fail "no LAN dial counted on a or b"
e2e_log "show lan on a: b at 10.202.1.2:2121, $dials dial(s) started by a and b"

# c announced as long as a and b did: once a and b have each refused an announcement (c's), nobody links it.
refused_some() { e2e_ctl "$1" show lan | grep -q '"announcements_refused" *: *[1-9]'; }
e2e_wait 30 refused_some a || e2e_fail "a refused no announcement: $(e2e_ctl a show lan)"
e2e_wait 30 refused_some b || e2e_fail "b refused no announcement: $(e2e_ctl b show lan)"
for n in a b; do
    has_peer "$n" c && e2e_fail "$n linked c, whose scope is another"
    e2e_ctl "$n" show lan | grep -q "${E2E_NPUB[c]}" && e2e_fail "$n lists c as a LAN peer"
done
e2e_ctl c show peers | grep -q '"npub"' && e2e_fail "c linked someone: $(e2e_ctl c show peers)"
refused=$(e2e_ctl c show lan | sed -n 's/.*"announcements_refused" *: *\([0-9]*\).*/\1/p')
[ "${refused:-0}" -ge 1 ] || e2e_fail "c refused no announcement: $(e2e_ctl c show lan)"
e2e_log "c (scope elsewhere) linked nobody and was listed by nobody; it refused $refused announcement(s)"

if /usr/bin/python3 -c 'import zeroconf' 2>/dev/null; then
    out=$(e2e_in a timeout 30 /usr/bin/python3 "$(dirname "$0")/mdns_browse.py" _fips._udp.local. 4 2>&1) \
        || e2e_fail "python3-zeroconf browse failed: $out"
    for n in b:fips-overlay-v1:10.202.1.2 c:elsewhere:10.202.1.3; do
        IFS=: read -r tag scope ip <<<"$n"
        want="fips-${E2E_NPUB[$tag]:0:16}._fips._udp.local. 2121 "
        line=$(grep -F "$want" <<<"$out") || e2e_fail "zeroconf did not resolve $tag ($want): $out"
        grep -q "$ip" <<<"$line" || e2e_fail "zeroconf: $tag is not at $ip: $line"
        grep -q " npub=${E2E_NPUB[$tag]},scope=$scope,v=1\$" <<<"$line" \
            || e2e_fail "zeroconf: $tag's TXT is not the reference's (npub, scope, v=1): $line"
    done
    e2e_log "python3-zeroconf in a's namespace resolves b and c with the reference's TXT"
else
    e2e_log "python3-zeroconf is not installed: the independent browser check is skipped"
fi

# IPv6 only: a, b and c stop (fewer JVMs on the machine); d and e get a bridge of their own with no IPv4 on it.
for n in a b c; do e2e_stop "$n" TERM; done
br6="fe2e${E2E_ID}y"
ip netns add "$br6" || e2e_fail "ip netns add $br6"
E2E_NETNS+=("$br6")
ip -n "$br6" link add br0 type bridge || e2e_fail "no bridge in $br6"
ip -n "$br6" link set br0 up
for n in d e; do
    e2e_node "$n"
    # No duplicate address detection: the link-local address is usable as soon as the link is up.
    e2e_in "$n" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 \
        || e2e_fail "sysctl accept_dad in $n"
    ip link add "f${E2E_ID}$n" netns "${E2E_NS[$n]}" type veth peer name "p${E2E_ID}$n" netns "$br6" \
        || e2e_fail "ip link add f${E2E_ID}$n"
    ip -n "$br6" link set "p${E2E_ID}$n" master br0 up
    ip -n "${E2E_NS[$n]}" link set "f${E2E_ID}$n" up
    E2E_IP[$n]="[::]"
done
E2E_NODE_EXTRA=$lan e2e_config d
E2E_NODE_EXTRA=$lan e2e_config e
grep -q 'bind_addr: "\[::\]:2121"' "${E2E_CFG[d]}" || e2e_fail "d's UDP transport is not bound to [::]:2121"
e2e_launch d
e2e_launch e
e2e_await d
e2e_await e
for n in d e; do
    ip -n "${E2E_NS[$n]}" -4 addr show dev "f${E2E_ID}$n" | grep -q inet && e2e_fail "$n's link has IPv4"
done
# e's link-local address, compressed (as ip and zeroconf write it) and in the JDK's uncompressed form (show lan).
ll_e=$(ip -n "${E2E_NS[e]}" -6 addr show dev "f${E2E_ID}e" scope link | sed -n 's/.*inet6 \([0-9a-f:]*\)\/.*/\1/p')
[ -n "$ll_e" ] || e2e_fail "e has no IPv6 link-local address"
jdk_e=$(/usr/bin/python3 -c 'import ipaddress, sys
print(":".join(format(int(g, 16), "x") for g in ipaddress.IPv6Address(sys.argv[1]).exploded.split(":")))' "$ll_e")
e2e_log "IPv6-only link: d=${E2E_ADDR[d]} e=${E2E_ADDR[e]}, e's link-local $ll_e, UDP on [::]:2121"

t=$SECONDS
e2e_wait 30 has_peer d e || e2e_fail "d and e did not link over IPv6 mDNS within 30 s: $(e2e_ctl d show lan)"
e2e_wait 10 has_peer e d || e2e_fail "e does not list d as a peer"
e2e_log "d and e linked $((SECONDS - t)) s after start, found over mDNS on IPv6"
e2e_wait 30 e2e_ping_ok d e || e2e_fail "no ping reply from e within 30 s"
e2e_wait 30 lists d e || e2e_fail "d does not list e as a LAN peer: $(e2e_ctl d show lan)"
lan_d=$(e2e_ctl d show lan) || e2e_fail "fipsctl show lan failed: $lan_d"
grep -qF "\"[$jdk_e%f${E2E_ID}d]:2121\"" <<<"$lan_d" \
    || e2e_fail "d does not list e at [$jdk_e%f${E2E_ID}d]:2121: $lan_d"
peers_d=$(e2e_ctl d show peers)
grep -q '"transport_addr" *: *"\[fe80:' <<<"$peers_d" || e2e_fail "d's link to e is not over link-local IPv6: $peers_d"
e2e_log "show lan on d: e at [$jdk_e%f${E2E_ID}d]:2121; the link runs over link-local IPv6"

if /usr/bin/python3 -c 'import zeroconf' 2>/dev/null; then
    out=$(e2e_in d timeout 30 /usr/bin/python3 "$(dirname "$0")/mdns_browse.py" _fips._udp.local. 4 v6 2>&1) \
        || e2e_fail "python3-zeroconf IPv6 browse failed: $out"
    want="fips-${E2E_NPUB[e]:0:16}._fips._udp.local. 2121 "
    line=$(grep -F "$want" <<<"$out") || e2e_fail "zeroconf on ff02::fb did not resolve e ($want): $out"
    grep -qF "$ll_e" <<<"$line" || e2e_fail "zeroconf: no AAAA record with e's address $ll_e: $line"
    grep -q " npub=${E2E_NPUB[e]},scope=fips-overlay-v1,v=1\$" <<<"$line" \
        || e2e_fail "zeroconf: e's TXT over IPv6 is not the reference's: $line"
    e2e_log "python3-zeroconf on ff02::fb in d's namespace resolves e at $ll_e (AAAA) with the reference's TXT"
fi

e2e_pass
