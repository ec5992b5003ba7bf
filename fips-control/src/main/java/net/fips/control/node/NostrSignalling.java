package net.fips.control.node;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.List;

import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.Nip19;
import net.fips.control.nat.Signalling;
import net.fips.control.nostr.NostrRuntime;
import net.fips.control.nostr.SignalChannel;
import net.fips.control.nostr.SignalValidation;
import net.fips.control.nostr.TraversalAnswer;
import net.fips.control.nostr.TraversalOffer;

/**
 * The Nostr runtime's {@link SignalChannel} as the traversal coordinator's {@link Signalling}
 * (discovery-gateway.md §1.11): a payload goes out gift-wrapped to our {@code dm_relays} and the recipient's
 * advertised {@code signalRelays} (when its advert is cached); the offers (validated,
 * past the replay cache) and answers addressed to us come back as their JSON with the seal's signer as sender.
 */
final class NostrSignalling implements Signalling {
    private static final System.Logger LOG = System.getLogger(NostrSignalling.class.getName());

    private final NostrRuntime runtime;

    /** @param runtime the node's Nostr runtime */
    NostrSignalling(final NostrRuntime runtime) {
        this.runtime = runtime;
    }

    @Override
    public void send(final String recipientNpub, final String payload) throws IOException {
        final byte[] recipient;
        try {
            recipient = Nip19.decodeNpub(recipientNpub);
        } catch (final IdentityFormatException e) {
            throw new IOException("not an npub: " + recipientNpub, e);
        }
        if (!runtime.signalRelayConnected()) {
            throw new IOException("no dm relay connected");
        }
        // Also to the peer's advertised signal relays (§1.11 step 3); the pool sends only to relays it is
        // configured with, so a relay of theirs that is not ours is skipped (logged at DEBUG).
        final List<String> theirs = runtime.advert(recipientNpub).map(c -> c.advert().signalRelays())
                .orElse(null);
        runtime.send(recipient, payload, theirs == null ? List.of() : theirs).whenComplete((sent, err) -> {
            if (err != null || sent.acceptedBy().isEmpty()) {
                LOG.log(Level.DEBUG, "nostr: signal to {0} accepted by no relay{1}", recipientNpub,
                        err == null ? "" : " (" + err + ")");
            }
        });
    }

    @Override
    public void onSignal(final Listener listener) {
        runtime.onSignal(new SignalChannel.Listener() {
            @Override
            public void onOffer(final String senderNpub, final TraversalOffer offer,
                    final SignalValidation.Freshness freshness, final long receivedMs) {
                listener.onSignal(senderNpub, offer.toJson());
            }

            @Override
            public void onAnswer(final String senderNpub, final TraversalAnswer answer, final long receivedMs) {
                listener.onSignal(senderNpub, answer.toJson());
            }
        });
    }
}
