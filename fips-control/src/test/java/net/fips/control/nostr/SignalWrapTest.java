package net.fips.control.nostr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import net.fips.control.crypto.Secp256k1;

/** FIPS's NIP-59 variant (discovery-gateway.md §1.5). */
class SignalWrapTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final long NOW_MS = 1_700_000_000_500L;
    private static final byte[] ALICE = NostrEventTest.SK1;
    private static final byte[] BOB = NostrEventTest.SK2;

    @Test
    void wrapHasTheReferencesLayersKindsTagsAndTimestamps() throws Exception {
        final NostrEvent wrap = SignalWrap.wrap(ALICE, Secp256k1.xOnly(BOB), Nip44Test.OFFER, NOW_MS, 120_000, RANDOM);
        assertEquals(21059, wrap.kind());
        assertEquals(1_700_000_000L, wrap.createdAt());
        assertEquals(List.of(List.of("p", HEX.formatHex(Secp256k1.xOnly(BOB))), List.of("expiration", "1700000120")),
                wrap.tags());
        assertNotEquals(HEX.formatHex(Secp256k1.xOnly(ALICE)), wrap.pubkey());
        NostrEvent.parse(wrap.toJson()).verify();

        final SignalWrap.Unwrapped u = SignalWrap.unwrap(BOB, NostrEvent.parse(wrap.toJson()));
        assertArrayEquals(Secp256k1.xOnly(ALICE), u.sender());
        assertEquals(Nip44Test.OFFER, u.content());
        assertEquals(13, u.seal().kind());
        assertEquals(List.of(), u.seal().tags());
        assertTrue(u.seal().createdAt() <= 1_700_000_000L && u.seal().createdAt() > 1_700_000_000L - 172_800,
                "seal created_at " + u.seal().createdAt());
        assertEquals(14, u.rumor().kind());
        assertEquals(1_700_000_000L, u.rumor().createdAt());
        assertEquals(List.of(List.of("p", HEX.formatHex(Secp256k1.xOnly(BOB)))), u.rumor().tags());
        assertEquals(u.rumor().id(), HEX.formatHex(NostrEvent.computeId(u.rumor().pubkey(), u.rumor().createdAt(),
                14, u.rumor().tags(), u.rumor().content())));
    }

    @Test
    void everyWrapHasAFreshKeyAndTheSealIsBackDated() throws Exception {
        final Set<String> wrapKeys = new HashSet<>();
        final Set<Long> sealTimes = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            final NostrEvent wrap = SignalWrap.wrap(ALICE, Secp256k1.xOnly(BOB), "x", NOW_MS, 1000, RANDOM);
            wrapKeys.add(wrap.pubkey());
            sealTimes.add(SignalWrap.unwrap(BOB, wrap).seal().createdAt());
        }
        assertEquals(20, wrapKeys.size());
        // 20 uniform draws from 172 800 values: all equal only with probability about 1e-99.
        assertTrue(sealTimes.size() > 1, "seal timestamps not randomised: " + sealTimes);
    }

    @Test
    void onlyTheRecipientCanUnwrap() throws Exception {
        final NostrEvent wrap = SignalWrap.wrap(ALICE, Secp256k1.xOnly(BOB), "x", NOW_MS, 1000, RANDOM);
        final byte[] carol = HEX.parseHex("0000000000000000000000000000000000000000000000000000000000000003");
        assertEquals(NostrFormatException.Problem.DECRYPTION_FAILED,
                assertThrows(NostrFormatException.class, () -> SignalWrap.unwrap(carol, wrap)).problem());
    }

    @Test
    void wrongKindTamperingAndForgedRumorsAreRefused() throws Exception {
        final NostrEvent wrap = SignalWrap.wrap(ALICE, Secp256k1.xOnly(BOB), "x", NOW_MS, 1000, RANDOM);
        final NostrEvent other = NostrEvent.sign(ALICE, 1, 1059, wrap.tags(), wrap.content());
        assertEquals(NostrFormatException.Problem.WRONG_KIND,
                assertThrows(NostrFormatException.class, () -> SignalWrap.unwrap(BOB, other)).problem());
        final NostrEvent tampered = new NostrEvent(wrap.id(), wrap.pubkey(), wrap.createdAt() + 1, wrap.kind(),
                wrap.tags(), wrap.content(), wrap.sig());
        assertEquals(NostrFormatException.Problem.ID_MISMATCH,
                assertThrows(NostrFormatException.class, () -> SignalWrap.unwrap(BOB, tampered)).problem());

        // Alice seals a rumor that claims Carol as its author: the seal's signer is the sender (ADR 0037).
        final byte[] carolPub = Secp256k1.xOnly(
                HEX.parseHex("0000000000000000000000000000000000000000000000000000000000000003"));
        final NostrEvent rumor = NostrEvent.rumor(carolPub, 1, 14, List.of(), "x");
        final NostrEvent seal = NostrEvent.sign(ALICE, 1, 13, List.of(),
                Nip44.encrypt(ALICE, Secp256k1.xOnly(BOB), rumor.toJson()));
        final byte[] eph = HEX.parseHex("0000000000000000000000000000000000000000000000000000000000000009");
        final NostrEvent forged = NostrEvent.sign(eph, 1, 21059, List.of(),
                Nip44.encrypt(eph, Secp256k1.xOnly(BOB), seal.toJson()));
        assertEquals(NostrFormatException.Problem.SENDER_MISMATCH,
                assertThrows(NostrFormatException.class, () -> SignalWrap.unwrap(BOB, forged)).problem());

        // A seal whose signature does not verify.
        final NostrEvent badSeal = new NostrEvent(seal.id(), seal.pubkey(), seal.createdAt(), seal.kind(),
                seal.tags(), seal.content(), "00".repeat(64));
        final NostrEvent badWrap = NostrEvent.sign(eph, 1, 21059, List.of(),
                Nip44.encrypt(eph, Secp256k1.xOnly(BOB), badSeal.toJson()));
        assertEquals(NostrFormatException.Problem.BAD_SIGNATURE,
                assertThrows(NostrFormatException.class, () -> SignalWrap.unwrap(BOB, badWrap)).problem());
        // Garbage inside a valid wrap.
        final NostrEvent garbage = NostrEvent.sign(eph, 1, 21059, List.of(),
                Nip44.encrypt(eph, Secp256k1.xOnly(BOB), "not an event"));
        assertEquals(NostrFormatException.Problem.MALFORMED_JSON,
                assertThrows(NostrFormatException.class, () -> SignalWrap.unwrap(BOB, garbage)).problem());
    }
}
