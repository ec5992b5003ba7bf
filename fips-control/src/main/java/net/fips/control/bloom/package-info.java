/**
 * Bloom-filter reachability of the control plane (routing-session.md §2): per-peer inbound filters with sequence
 * and anti-poison checks, the split-horizon, tree-only outgoing filter per peer, changed-only update marking, the
 * tick-driven debounced sender and the mesh-size estimate. {@link net.fips.control.bloom.BloomRouting} is pure
 * logic driven with explicit time, like the spanning tree it reads.
 */
package net.fips.control.bloom;
