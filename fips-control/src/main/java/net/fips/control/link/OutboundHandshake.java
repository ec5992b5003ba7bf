package net.fips.control.link;

import net.fips.dataplane.transport.TransportAddr;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.noise.HandshakeState;

/** One of our dials waiting for msg2 (crypto-link §5.8, outbound steps 2-4). */
final class OutboundHandshake {
    final PeerIdentity peer;
    final int transportId;
    final TransportAddr address;
    final int ourIndex;
    final HandshakeState handshake;
    /** The stored packet; retransmissions resend exactly these bytes. */
    final byte[] msg1;
    final long createdNanos;
    int resends;
    long nextResendNanos;
    /** msg2 failed to decrypt: dropped on the next tick. */
    boolean failed;

    OutboundHandshake(final PeerIdentity peer, final int transportId, final TransportAddr address,
                      final int ourIndex, final HandshakeState handshake, final byte[] msg1, final long createdNanos,
                      final long nextResendNanos) {
        this.peer = peer;
        this.transportId = transportId;
        this.address = address;
        this.ourIndex = ourIndex;
        this.handshake = handshake;
        this.msg1 = msg1;
        this.createdNanos = createdNanos;
        this.nextResendNanos = nextResendNanos;
    }
}
