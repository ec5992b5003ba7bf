package net.fips.control.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

import net.fips.control.crypto.Secp256k1;

/** The spec's own NIP-44 KATs (discovery-gateway.md §1.5); the official vector file is in the conformance suite. */
class Nip44Test {
    private static final HexFormat HEX = HexFormat.of();
    /** §1.4's 449-byte example offer. */
    static final String OFFER = "{\"type\":\"offer\",\"sessionId\":\"1700000000000-00000000000000ff\",\"issuedAt\":"
            + "1700000000000,\"expiresAt\":1700000120000,\"nonce\":\"1700000000000-00000000000000ff\",\"senderNpub\":"
            + "\"npub10xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqpkge6d\",\"recipientNpub\":"
            + "\"npub1ccz8l9zpa47k6vz9gphftsrumpw80rjt3nhnefat4symjhrsnmjs38mnyd\",\"reflexiveAddress\":"
            + "{\"protocol\":\"udp\",\"ip\":\"203.0.113.10\",\"port\":62000},\"localAddresses\":[],\"stunServer\":"
            + "\"stun:stun.l.google.com:19302\"}";

    @Test
    void specKats() throws Exception {
        final byte[] ck = Nip44.conversationKey(NostrEventTest.SK1, Secp256k1.xOnly(NostrEventTest.SK2));
        assertEquals("c41c775356fd92eadc63ff5a0dc1da211b268cbea22316767095b2871ea1412d", HEX.formatHex(ck));
        final byte[] nonce1 = new byte[32];
        nonce1[31] = 1;
        assertEquals("AgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABee0G5VSK0/9YypIObAtDKfYEAjD35uVkHyB0F4DwrcNaCXlCWZKaA"
                + "rsGrY6M9wnuTMxWfp1RTN9Xga8no+kF5Vsb",
                Nip44.encrypt(ck, "a".getBytes(StandardCharsets.UTF_8), nonce1));
        assertEquals(449, OFFER.length());
        final byte[] nonce11 = new byte[32];
        Arrays.fill(nonce11, (byte) 0x11);
        final String payload = Nip44.encrypt(ck, OFFER.getBytes(StandardCharsets.UTF_8), nonce11);
        assertEquals(772, payload.length());
        assertEquals(579, Base64.getDecoder().decode(payload).length);
        assertEquals("47f80ca4bd1211f4348ad57f09bd51a5a79ed456f196440e0814cecf773dcbce",
                HEX.formatHex(Secp256k1.sha256(payload.getBytes(StandardCharsets.US_ASCII))));
        assertEquals(OFFER, Nip44.decrypt(ck, payload));
    }

    @Test
    void paddingTable() {
        final int[][] table = {{1, 32}, {32, 32}, {33, 64}, {64, 64}, {65, 96}, {100, 128}, {256, 256}, {257, 320},
            {300, 320}, {1000, 1024}, {1024, 1024}, {1025, 1280}, {65407, 65536}};
        for (final int[] row : table) {
            assertEquals(row[1], Nip44.paddedLength(row[0]), "pad(" + row[0] + ")");
        }
        assertThrows(IllegalArgumentException.class, () -> Nip44.paddedLength(0));
    }

    @Test
    void randomNonceRoundTripsAndDiffers() throws Exception {
        final String a = Nip44.encrypt(NostrEventTest.SK1, Secp256k1.xOnly(NostrEventTest.SK2), "hello ☃");
        final String b = Nip44.encrypt(NostrEventTest.SK1, Secp256k1.xOnly(NostrEventTest.SK2), "hello ☃");
        assertNotEquals(a, b);
        assertEquals("hello ☃", Nip44.decrypt(NostrEventTest.SK2, Secp256k1.xOnly(NostrEventTest.SK1), a));
        assertEquals("hello ☃", Nip44.decrypt(NostrEventTest.SK2, Secp256k1.xOnly(NostrEventTest.SK1), b));
    }

    @Test
    void flippedBitsAreRefusedAsMac() throws Exception {
        final byte[] ck = Nip44.conversationKey(NostrEventTest.SK1, Secp256k1.xOnly(NostrEventTest.SK2));
        final byte[] raw = Base64.getDecoder().decode(Nip44.encrypt(ck, "some text"));
        for (final int at : new int[] {1, 40, raw.length - 1}) {
            final byte[] bad = raw.clone();
            bad[at] ^= 1;
            assertEquals(Nip44Exception.Reason.INVALID_MAC, assertThrows(Nip44Exception.class,
                    () -> Nip44.decrypt(ck, Base64.getEncoder().encodeToString(bad))).reason());
        }
        final byte[] otherCk = ck.clone();
        otherCk[0] ^= 1;
        assertEquals(Nip44Exception.Reason.INVALID_MAC, assertThrows(Nip44Exception.class,
                () -> Nip44.decrypt(otherCk, Base64.getEncoder().encodeToString(raw))).reason());
    }

    @Test
    void nonUtf8PlaintextIsATypedError() throws Exception {
        final byte[] ck = new byte[32];
        final String payload = Nip44.encrypt(ck, new byte[] {(byte) 0xff, (byte) 0xfe}, new byte[32]);
        assertEquals(Nip44Exception.Reason.INVALID_UTF8,
                assertThrows(Nip44Exception.class, () -> Nip44.decrypt(ck, payload)).reason());
        assertEquals(2, Nip44.decryptBytes(ck, payload).length);
    }
}
