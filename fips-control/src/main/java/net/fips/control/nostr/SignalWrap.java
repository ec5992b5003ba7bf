package net.fips.control.nostr;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

import net.fips.control.crypto.Secp256k1;

/**
 * FIPS's NIP-59 variant for offers and answers (discovery-gateway.md §1.5): an unsigned kind-14 rumor carrying the
 * payload, inside a kind-13 seal signed by our identity with a back-dated {@code created_at}, inside a kind-21059
 * wrap (FIPS's own ephemeral kind, not NIP-59's 1059) signed by a fresh key per event and tagged for the recipient
 * with a NIP-40 expiration. Time comes from the caller ({@code nowMs}); randomness from the {@link SecureRandom}
 * the caller passes.
 */
public final class SignalWrap {
    /** The wrap's kind: FIPS's signal kind, in the ephemeral range. */
    public static final int WRAP_KIND = 21059;
    /** The seal's kind (NIP-59). */
    public static final int SEAL_KIND = 13;
    /** The rumor's kind (NIP-17's direct-message kind, used only as the rumor kind). */
    public static final int RUMOR_KIND = 14;
    /** The seal's {@code created_at} is now minus a uniform random value below this many seconds (two days). */
    public static final long SEAL_BACKDATE_RANGE_SECS = 172_800;

    private static final HexFormat HEX = HexFormat.of();

    private SignalWrap() {
    }

    /**
     * What {@link #unwrap} found.
     *
     * @param sender the sender's 32-byte x-only identity key (the seal's signer)
     * @param wrap   the outer event
     * @param seal   the verified seal
     * @param rumor  the rumor, whose content is the payload
     */
    public record Unwrapped(byte[] sender, NostrEvent wrap, NostrEvent seal, NostrEvent rumor) {
        /** @return the rumor's content: the offer or answer JSON */
        public String content() {
            return rumor.content();
        }
    }

    /**
     * Builds the wrap for one payload.
     *
     * @param identitySk  our identity's secret key (signs the seal; the rumor's author)
     * @param recipient   the recipient's 32-byte x-only key
     * @param content     the payload (offer or answer JSON)
     * @param nowMs       the wall clock, Unix ms
     * @param signalTtlMs how long the wrap lives ({@code signal_ttl_secs} in ms): its NIP-40 expiration
     * @param random      source of the ephemeral key, the seal's back-dating and the NIP-44 nonces
     * @return the signed kind-21059 event
     * @throws Nip44Exception when the recipient key is not on the curve or the payload is too long
     */
    public static NostrEvent wrap(final byte[] identitySk, final byte[] recipient, final String content,
            final long nowMs, final long signalTtlMs, final SecureRandom random) throws Nip44Exception {
        Objects.requireNonNull(random, "random");
        final long nowSecs = Math.floorDiv(nowMs, 1000);
        final String recipientHex = HEX.formatHex(recipient);
        final NostrEvent rumor = NostrEvent.rumor(Secp256k1.xOnly(identitySk), nowSecs, RUMOR_KIND,
                List.of(List.of("p", recipientHex)), content);
        final String sealContent = encrypt(identitySk, recipient, rumor.toJson(), random);
        final long sealCreated = nowSecs - random.nextLong(SEAL_BACKDATE_RANGE_SECS);
        final NostrEvent seal = NostrEvent.sign(identitySk, Math.max(0, sealCreated), SEAL_KIND, List.of(),
                sealContent, aux(random));
        final byte[] ephemeral = ephemeralKey(random);
        try {
            final String wrapContent = encrypt(ephemeral, recipient, seal.toJson(), random);
            final long expiration = Math.floorDiv(nowMs + signalTtlMs, 1000);
            return NostrEvent.sign(ephemeral, nowSecs, WRAP_KIND,
                    List.of(List.of("p", recipientHex), List.of("expiration", Long.toString(expiration))),
                    wrapContent, aux(random));
        } finally {
            Arrays.fill(ephemeral, (byte) 0);
        }
    }

    /**
     * Opens a wrap addressed to us, in the reference's order: kind, decrypt the wrap, parse and verify the seal,
     * decrypt the seal, parse the rumor; then (ADR 0037) the rumor's author must be the seal's signer. The wrap's
     * own id and signature are checked first (the reference's relay pool does so for every event).
     *
     * @param ourSk our identity's secret key
     * @param wrap  a kind-21059 event
     * @return the sender and the layers
     * @throws NostrFormatException naming the failed step
     */
    public static Unwrapped unwrap(final byte[] ourSk, final NostrEvent wrap) throws NostrFormatException {
        if (wrap.kind() != WRAP_KIND) {
            throw new NostrFormatException(NostrFormatException.Problem.WRONG_KIND,
                    "not a traversal signal (kind " + wrap.kind() + ")");
        }
        wrap.verify();
        final NostrEvent seal = NostrEvent.parse(decrypt(ourSk, wrap.pubkeyBytes(), wrap.content(), "wrap"));
        seal.verify();
        final NostrEvent rumor = NostrEvent.parseRumor(decrypt(ourSk, seal.pubkeyBytes(), seal.content(), "seal"));
        if (!rumor.pubkey().equals(seal.pubkey())) {
            throw new NostrFormatException(NostrFormatException.Problem.SENDER_MISMATCH,
                    "rumor author " + rumor.pubkey() + " is not the seal's signer " + seal.pubkey());
        }
        return new Unwrapped(seal.pubkeyBytes(), wrap, seal, rumor);
    }

    private static String encrypt(final byte[] sk, final byte[] recipient, final String text,
            final SecureRandom random) throws Nip44Exception {
        final byte[] nonce = new byte[Nip44.NONCE_LENGTH];
        random.nextBytes(nonce);
        return Nip44.encrypt(Nip44.conversationKey(sk, recipient), text.getBytes(StandardCharsets.UTF_8), nonce);
    }

    private static String decrypt(final byte[] sk, final byte[] from, final String payload, final String layer)
            throws NostrFormatException {
        try {
            return Nip44.decrypt(sk, from, payload);
        } catch (final Nip44Exception e) {
            throw new NostrFormatException(NostrFormatException.Problem.DECRYPTION_FAILED,
                    layer + ": " + e.reason() + ": " + e.getMessage(), e);
        }
    }

    private static byte[] ephemeralKey(final SecureRandom random) {
        return Secp256k1.randomSecret(random);
    }

    private static byte[] aux(final SecureRandom random) {
        final byte[] aux = new byte[32];
        random.nextBytes(aux);
        return aux;
    }
}
