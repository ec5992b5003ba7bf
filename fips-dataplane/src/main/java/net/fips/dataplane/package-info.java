/**
 * The narrow interface between the control plane and the data plane.
 *
 * <p>The control thread drives the data plane only through {@link net.fips.dataplane.DataPlaneCommands}; the
 * data plane reports back only through {@link net.fips.dataplane.DataPlaneEvent}s placed in a bounded queue that
 * the control thread drains (a full queue is a counted drop, never a block), plus per-link statistics it
 * publishes for reading ({@link net.fips.dataplane.LinkStats}). Datagrams addressed to this node are handed to a
 * {@link net.fips.dataplane.LocalDelivery} hook on the data-plane thread that opened them. The data plane never
 * calls into the control plane and never waits for it.
 */
package net.fips.dataplane;
