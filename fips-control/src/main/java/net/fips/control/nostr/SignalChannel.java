package net.fips.control.nostr;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The runtime's signalling service for NAT traversal (discovery-gateway.md §1.11, §1.12), for the offer/answer
 * state machines to call: send a gift-wrapped payload to a node, and hear the offers and answers addressed to us.
 * Incoming kind-21059 wraps have already been verified, de-duplicated across relays and unwrapped (the sender is the
 * seal's signer, ADR 0037); an answer is passed on when its {@code recipientNpub} is ours, an offer only after
 * {@link SignalValidation#validateOffer} (fresh, sender and recipient right) and the replay cache (a session id
 * seen within {@code replay_window_secs} is dropped). Rejections are counted in the runtime's status, never thrown.
 */
public interface SignalChannel {
    /**
     * Wraps {@code content} (an offer or answer JSON) for {@code recipient} and sends it to the signal relays of
     * §1.6: {@code extraRelays} (the target advert's {@code signalRelays}, initiator only) and our {@code dm_relays},
     * duplicates dropped, only relays of the pool that are connected.
     *
     * @param recipient   the recipient's 32-byte x-only key
     * @param content     the rumor content
     * @param extraRelays relays besides our {@code dm_relays}, may be empty
     * @return the wrap sent and the relays that accepted it (none accepted: an empty list, not a failure)
     */
    CompletableFuture<Sent> send(byte[] recipient, String content, Collection<String> extraRelays);

    /**
     * Registers the receiver of incoming signals (one at a time; a new one replaces the old).
     *
     * @param listener called on a relay thread; it must not block
     */
    void onSignal(Listener listener);

    /**
     * One sent wrap.
     *
     * @param wrapId     the kind-21059 event id
     * @param acceptedBy the relays that answered OK true
     */
    record Sent(String wrapId, List<String> acceptedBy) {
        /** Freezes the list. */
        public Sent {
            acceptedBy = List.copyOf(acceptedBy);
        }
    }

    /** Receives the signals addressed to us. */
    interface Listener {
        /**
         * A validated offer whose session id was not seen before.
         *
         * @param senderNpub the seal's signer
         * @param offer      the offer
         * @param freshness  strict or within the skew tolerance
         * @param receivedMs the wall clock when it arrived, Unix ms
         */
        void onOffer(String senderNpub, TraversalOffer offer, SignalValidation.Freshness freshness, long receivedMs);

        /**
         * An answer addressed to us (the initiator validates it against its own offer, {@link
         * SignalValidation#validateAnswer}).
         *
         * @param senderNpub the seal's signer
         * @param answer     the answer
         * @param receivedMs the wall clock when it arrived, Unix ms
         */
        void onAnswer(String senderNpub, TraversalAnswer answer, long receivedMs);
    }
}
