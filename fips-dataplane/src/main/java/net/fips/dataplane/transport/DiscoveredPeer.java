package net.fips.dataplane.transport;

/**
 * A peer a transport found on its medium (Ethernet beacons, BLE scans), drained by
 * {@link Transport#drainDiscovered()}.
 *
 * @param transportId   the transport that found it
 * @param address       where it can be reached on that transport
 * @param xOnlyPubkey   the 32-byte x-only public key hint, or null when the medium gave none
 */
public record DiscoveredPeer(int transportId, TransportAddr address, byte[] xOnlyPubkey) {
}
