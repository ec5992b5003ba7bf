#!/usr/bin/env bash
# Runs every namespace end-to-end test (two-nodes, three-nodes, rekey, tcp-nodes, ethernet-nodes, ethernet-udp-nodes,
# lan-nodes, chaos, firewall, gateway) one after another and prints a summary with each test's time. Exit status: 0
# when every test passed or skipped, 1 when any failed. Each test skips by itself (exit 0, "SKIP: ...") when not root
# or when ip, ping, iperf3 or TUN are missing (firewall also without nft or python3, gateway without nft, dig or
# python3). The UDP tests (two-nodes, three-nodes, rekey) run twice: with the node's TUN offloads (tun.offload: auto)
# and without (E2E_TUN_OFFLOAD=off); the transport tests, lan-nodes, chaos, firewall and gateway run once with auto.
# Set E2E_TUN_OFFLOAD to run one mode only. E2E_THREADING=compact (or dedicated) runs every test with that
# node.dataplane.threading (default: the node's, auto); when it is unset, two-nodes and three-nodes also run once
# with each explicit threading (auto picks one of them by the processor count, so both get an end-to-end run).
set -u
dir=$(cd "$(dirname "$0")" && pwd)
start=$SECONDS
log=$(mktemp /tmp/fips-netns-run.XXXXXX)
trap 'rm -f "$log"' EXIT
failed=()
summary=()
modes=${E2E_TUN_OFFLOAD:-auto off}
# one entry per run: test offload threading ("-": the node's own, or E2E_THREADING)
runs=()
for run in two-nodes three-nodes rekey tcp-nodes ethernet-nodes ethernet-udp-nodes lan-nodes chaos firewall gateway; do
  case $run in
    two-nodes|three-nodes|rekey) run_modes=$modes ;;
    *) run_modes=${E2E_TUN_OFFLOAD:-auto} ;;
  esac
  for mode in $run_modes; do
    runs+=("$run $mode -")
  done
done
if [ -z "${E2E_THREADING:-}" ]; then
  for threading in dedicated compact; do
    for run in two-nodes three-nodes; do
      runs+=("$run ${E2E_TUN_OFFLOAD:-auto} $threading")
    done
  done
fi
for entry in "${runs[@]}"; do
    read -r run mode threading <<<"$entry"
    t="$run (offload $mode)"
    [ "$threading" = - ] || t="$run (offload $mode, threading $threading)"
    echo "=== netns: $t"
    t0=$SECONDS
    if [ "$threading" = - ]; then
        E2E_TUN_OFFLOAD=$mode "$dir/$run.sh" 2>&1 | tee "$log"
    else
        E2E_TUN_OFFLOAD=$mode E2E_THREADING=$threading "$dir/$run.sh" 2>&1 | tee "$log"
    fi
    rc=${PIPESTATUS[0]}
    out=$(cat "$log")
    if [ $rc != 0 ]; then
        failed+=("$t")
        summary+=("FAIL $t ($((SECONDS - t0)) s, exit $rc)")
    elif grep -q '^SKIP: ' <<<"$out"; then
        summary+=("SKIP $t: $(sed -n 's/^SKIP: [^:]*: //p' <<<"$out" | head -n1)")
    else
        summary+=("PASS $t ($((SECONDS - t0)) s)")
    fi
done
echo "=== netns summary ($((SECONDS - start)) s)"
printf '  %s\n' "${summary[@]}"
[ ${#failed[@]} = 0 ] || { echo "netns: FAILED: ${failed[*]}"; exit 1; }
