package net.fips.dataplane.ethernet;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * A beacon heard on the medium: the sender's MAC and the x-only key it announced (a hint, unchecked here: the
 * control plane validates the key and the Noise handshake proves it).
 *
 * @param mac          the source MAC, low 48 bits
 * @param xOnlyKey     the 32-byte key from the beacon (a private copy)
 * @param receivedNanos {@link System#nanoTime()} when the newest beacon from this MAC arrived
 */
public record DiscoveredBeacon(long mac, byte[] xOnlyKey, long receivedNanos) {
    /** Copies the key. */
    public DiscoveredBeacon {
        xOnlyKey = xOnlyKey.clone();
    }

    @Override
    public byte[] xOnlyKey() {
        return xOnlyKey.clone();
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof DiscoveredBeacon b && b.mac == mac && Arrays.equals(b.xOnlyKey, xOnlyKey)
                && b.receivedNanos == receivedNanos;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(mac) * 31 + Arrays.hashCode(xOnlyKey);
    }

    @Override
    public String toString() {
        return "DiscoveredBeacon{" + MacAddress.format(mac) + ", key=" + HexFormat.of().formatHex(xOnlyKey) + "}";
    }
}
