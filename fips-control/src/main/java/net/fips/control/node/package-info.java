/**
 * A runnable FIPS node: {@link net.fips.control.node.Node} wires the identity, the UDP transports, the data plane,
 * the link layer, the peer ACL and the control socket together from one loaded configuration, and runs the single
 * {@code fips-control} thread that owns all link state.
 */
package net.fips.control.node;
