package net.fips.dataplane.ble;

import net.fips.dataplane.wire.NodeAddr;

/**
 * What the BLE pre-handshake needs to know about x-only keys, supplied by the control plane (which owns the curve
 * arithmetic and the one NodeAddr derivation): whether 32 bytes are a valid x-only secp256k1 key, and its
 * {@link NodeAddr}. Called once per connection, never per packet.
 */
public interface PeerKeys {
    /** @return whether {@code xOnly} (32 bytes) lifts to a curve point */
    boolean isValidXOnly(byte[] xOnly);

    /** @return SHA-256(xOnly)[0..16] */
    NodeAddr nodeAddr(byte[] xOnly);
}
