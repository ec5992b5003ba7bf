package net.fips.control.link;

import net.fips.control.identity.PeerIdentity;

/**
 * The peer ACL as the link layer consults it (operator.md §4.3). It is asked at the reference's three enforcement
 * points, each named by a {@link Context}; a refusal is counted as a handshake reject and nothing is sent back.
 */
@FunctionalInterface
public interface PeerFilter {

    /** Where the decision is asked. */
    enum Context {
        /** Before we dial: configured peers, operator {@code connect}, reconnects. */
        OUTBOUND_CONNECT,
        /** After an inbound msg1 decrypted (so the identity is proven) and passed the rate limiter. */
        INBOUND_HANDSHAKE,
        /** After msg2 of our own dial decrypted. */
        OUTBOUND_HANDSHAKE
    }

    /** Lets everyone in: the reference's "default_open" mode. */
    PeerFilter ALLOW_ALL = (peer, context) -> true;

    /**
     * @param peer    the authenticated (or, for {@link Context#OUTBOUND_CONNECT}, intended) peer
     * @param context the enforcement point
     * @return true to let the link proceed
     */
    boolean allows(PeerIdentity peer, Context context);
}
