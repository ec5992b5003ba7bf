/**
 * The data plane's routing decision: the coordinate cache ({@link net.fips.dataplane.route.CoordCache}), tree
 * distance ({@link net.fips.dataplane.route.TreeDistance}), the immutable per-publication
 * {@link net.fips.dataplane.route.ForwardingTable} the control plane builds, and
 * {@link net.fips.dataplane.route.NextHop}, the one implementation of {@code find_next_hop} (routing-session.md §4.3)
 * shared by the data plane's transit path, the control plane and simulators.
 */
package net.fips.dataplane.route;
