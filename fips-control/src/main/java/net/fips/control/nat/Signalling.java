package net.fips.control.nat;

import java.io.IOException;

/**
 * How offers and answers travel (discovery-gateway.md §1.11): the node's Nostr runtime gift-wraps a payload to an
 * npub on that npub's signal relays and hands back the rumor content of every signal addressed to us, with the
 * seal's signer as sender. {@link TraversalCoordinator} needs nothing more; tests use an in-memory one.
 */
public interface Signalling {
    /** Receives signals. */
    @FunctionalInterface
    interface Listener {
        /**
         * Called on any thread; must not block.
         *
         * @param senderNpub the npub that signed the seal (the actual sender)
         * @param payload    the rumor content (offer or answer JSON)
         */
        void onSignal(String senderNpub, String payload);
    }

    /**
     * Sends one payload.
     *
     * @param recipientNpub the peer
     * @param payload       offer or answer JSON
     * @throws IOException when it cannot be sent (no relay, not connected); the attempt then fails
     */
    void send(String recipientNpub, String payload) throws IOException;

    /** @param listener where signals addressed to us go from now on */
    void onSignal(Listener listener);
}
