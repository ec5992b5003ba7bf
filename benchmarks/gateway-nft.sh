#!/usr/bin/env bash
# How long fips-gateway's table replacement takes through the nft tool (ADR 0050): in a scratch network namespace,
# builds the table text fips-gateway writes (NftRuleset: per mapping one DNAT, one SNAT and one counter rule, plus
# one port forward) for N mappings and times REPEAT whole-table replacements (`nft -f -` with add/delete/table, one
# transaction each, as Nft.Tool runs it) and REPEAT counter reads (`nft -j list chain ... traffic`). Prints the
# median and the 90th percentile per size. Needs root and nft.
#
#     sudo benchmarks/gateway-nft.sh [REPEAT(20)] [SIZES("1 100 1000 5000")]
set -euo pipefail
repeat=${1:-20}
sizes=${2:-1 100 1000 5000}
[ "$(id -u)" = 0 ] || { echo "needs root" >&2; exit 1; }
command -v nft >/dev/null || { echo "needs nft" >&2; exit 1; }
ns="fgwbench$$"
ip netns add "$ns"
trap 'ip netns del "$ns" 2>/dev/null' EXIT
echo "# gateway-nft: $(nft --version), kernel $(uname -r), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# commit $(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null || echo unknown), repeat $repeat"
printf '%-9s %-22s %-22s\n' mappings "replace ms (p50 p90)" "read counters ms (p50 p90)"
for n in $sizes; do
    text=$(python3 - "$n" <<'PY'
import sys
n = int(sys.argv[1])
vip = lambda i: "fd01::%x" % (i + 1)
mesh = lambda i: "fd12:3456::%x:%x" % (i >> 16, i & 0xffff)
out = ["add table inet fips_gateway", "delete table inet fips_gateway", "table inet fips_gateway {",
       "  chain prerouting {", "    type nat hook prerouting priority -100; policy accept;"]
out += ["    meta nfproto ipv6 ip6 daddr %s dnat ip6 to %s" % (vip(i), mesh(i)) for i in range(n)]
out += ['    iifname "fips0" meta nfproto ipv6 meta l4proto tcp th dport 8080 dnat ip6 to [2001:2::20]:80', "  }",
        "  chain postrouting {", "    type nat hook postrouting priority 100; policy accept;", '    oifname "fips0" masquerade']
out += ["    meta nfproto ipv6 ip6 saddr %s snat ip6 to %s" % (mesh(i), vip(i)) for i in range(n)]
out += ['    iifname "fips0" oifname "lan0" meta nfproto ipv6 masquerade', "  }", "  chain traffic {",
        "    type filter hook forward priority 0; policy accept;"]
out += ['    ct original ip6 daddr %s counter comment "%s"' % (vip(i), vip(i)) for i in range(n)]
out += ["  }", "}"]
print("\n".join(out))
PY
)
    rep=() rd=()
    for _ in $(seq "$repeat"); do
        t0=$(date +%s%N)
        ip netns exec "$ns" nft -f - <<<"$text"
        t1=$(date +%s%N)
        ip netns exec "$ns" nft -j list chain inet fips_gateway traffic >/dev/null
        t2=$(date +%s%N)
        rep+=($(( (t1 - t0) / 1000 ))) rd+=($(( (t2 - t1) / 1000 )))
    done
    stats() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {printf "%.1f %.1f", a[int((NR + 1) / 2)] / 1000, a[int(NR * 0.9 + 0.5)] / 1000}'; }
    printf '%-9s %-22s %-22s\n' "$n" "$(stats "${rep[@]}")" "$(stats "${rd[@]}")"
done
