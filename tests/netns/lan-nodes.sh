#!/usr/bin/env bash
# LAN discovery over mDNS between real daemons (discovery-gateway.md §3, §7.4): three namespaces on one bridge (in a
# fourth namespace of the test's own), one fips daemon in each with node.discovery.lan.enabled and NO peers
# configured; a and b keep the default scope (fips-overlay-v1), c is in scope "elsewhere". Asserts: a and b link
# within 30 s and a pings b by name through fips0; c links to nobody and nobody lists it as a LAN peer; `fipsctl show
# lan` on a lists b with its address and a dial (on a or b). Then, where Debian's python3-zeroconf is installed
# (skipped with a note otherwise), an independent mDNS browser in a's namespace sees b's and c's services with the
# reference's instance names and TXT (npub, scope, v=1) on UDP port 2121.
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

e2e_pass
