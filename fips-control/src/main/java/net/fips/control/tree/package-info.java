/**
 * The spanning tree of the control plane (routing-session.md §1): this node's signed parent declaration and
 * coordinate, every direct peer's last accepted declaration, TreeAnnounce receive processing, parent evaluation
 * with link costs, hold-down, flap dampening and hysteresis, and the announce timing rules. {@link
 * net.fips.control.tree.SpanningTree} is pure logic: time comes in as arguments and through a {@link
 * net.fips.control.tree.WallClock}, signing through {@link net.fips.control.tree.TreeSigner}, and every outward
 * action goes through {@link net.fips.control.tree.TreeEffects}, so a simulator can run many instances in one JVM.
 */
package net.fips.control.tree;
