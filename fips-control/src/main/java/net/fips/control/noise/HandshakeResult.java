package net.fips.control.noise;

/**
 * What a completed handshake yields (spec crypto-link §4.6). Arrays are owned by the record's holder; nothing
 * copies them again, so treat them as read-only and wipe the keys when they are handed on.
 *
 * @param pattern       IK (FMP link) or XK (FSP session)
 * @param role          our role
 * @param remoteStatic  the peer's 33-byte compressed static key: for a responder the key the initiator sent (real
 *                      parity), for an initiator the key it was configured with
 * @param remoteEpoch   the peer's 8-byte startup epoch (both patterns carry it in both directions)
 * @param sendKey       32-byte transport key for what we send
 * @param recvKey       32-byte transport key for what we receive
 * @param handshakeHash the final h (the reference computes it but no wire byte depends on it)
 */
public record HandshakeResult(HandshakeState.Pattern pattern, HandshakeState.Role role, byte[] remoteStatic,
                              byte[] remoteEpoch, byte[] sendKey, byte[] recvKey, byte[] handshakeHash) {

    /** @return Split's first key, which protects initiator-to-responder traffic */
    public byte[] initiatorToResponderKey() {
        return role == HandshakeState.Role.INITIATOR ? sendKey : recvKey;
    }

    /** @return Split's second key, which protects responder-to-initiator traffic */
    public byte[] responderToInitiatorKey() {
        return role == HandshakeState.Role.INITIATOR ? recvKey : sendKey;
    }

    /**
     * @return a transport session over these keys with both counters at 0 and a fresh replay window
     * @throws NoiseException never for a result made by {@link HandshakeState#finish()}
     */
    public TransportSession newTransportSession() throws NoiseException {
        return new TransportSession(sendKey, recvKey);
    }

    @Override
    public String toString() {
        return "HandshakeResult[" + pattern + " " + role + ", keys redacted]";
    }
}
