package net.fips.control.ethernet;

import java.util.Objects;

import net.fips.control.config.EthernetAddress;
import net.fips.control.identity.PeerIdentity;

/**
 * A peer found by its beacon (transports.md §1.6): where it is and who it says it is (a hint; the Noise handshake
 * proves it).
 *
 * @param address  the interface and MAC the beacon came from
 * @param identity the key the beacon carried, checked to be a valid x-only secp256k1 key
 */
public record DiscoveredPeer(EthernetAddress address, PeerIdentity identity) {
    /** Checks nullness. */
    public DiscoveredPeer {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(identity, "identity");
    }
}
