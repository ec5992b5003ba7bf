/**
 * A runnable FIPS node: {@link net.fips.control.node.Node} holds one running node's state, reloads it and stops it;
 * the composition root {@code NodeAssembly} builds it from one loaded configuration, opening the transports through
 * one {@code TransportFactory} per type ({@code TransportFactories.REGISTERED}) and wiring the identity, the data
 * plane, the link layer, the routing and session layers, the peer ACL and the control socket together around the
 * single {@code fips-control} thread that owns all link state.
 */
package net.fips.control.node;
