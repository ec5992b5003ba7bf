package net.fips.ffm.openssl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** The probe's two outcomes, and the engine against RFC 8439 §2.8.2 directly (no data-plane types). */
class LibcryptoTest {
    @Test
    void aMissingLibraryIsReportedNotThrown() {
        final String[] outcome = Libcrypto.Probe.probe("libfips-no-such-crypto.so.9");
        assertNull(outcome[0]);
        assertTrue(outcome[1].startsWith("libfips-no-such-crypto.so.9 could not be loaded"), outcome[1]);
    }

    @Test
    void theInstalledLibcryptoIsUsable() {
        assumeTrue(Libcrypto.isAvailable(), () -> "libcrypto unavailable: " + Libcrypto.unavailableReason());
        assertNull(Libcrypto.unavailableReason());
        assertTrue(Libcrypto.version().startsWith("OpenSSL 3."), Libcrypto.version());
    }

    @Test
    void engineSealsTheRfc8439Example() {
        assumeTrue(Libcrypto.isAvailable(), () -> "libcrypto unavailable: " + Libcrypto.unavailableReason());
        final HexFormat hex = HexFormat.of();
        final byte[] plaintext = ("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for "
                + "the future, sunscreen would be it.").getBytes(StandardCharsets.US_ASCII);
        try (Arena arena = Arena.ofConfined(); ChaCha20Poly1305 engine = new ChaCha20Poly1305()) {
            final MemorySegment key = arena.allocateFrom(ValueLayout.JAVA_BYTE,
                    hex.parseHex("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"));
            final MemorySegment nonce = arena.allocateFrom(ValueLayout.JAVA_BYTE,
                    hex.parseHex("070000004041424344454647"));
            final MemorySegment aad = arena.allocateFrom(ValueLayout.JAVA_BYTE,
                    hex.parseHex("50515253c0c1c2c3c4c5c6c7"));
            final MemorySegment buf = arena.allocate(plaintext.length + ChaCha20Poly1305.TAG_BYTES);
            MemorySegment.copy(plaintext, 0, buf, ValueLayout.JAVA_BYTE, 0, plaintext.length);
            assertEquals(130, engine.seal(key, nonce, aad, 0, 12, buf, 0, plaintext.length));
            // Spot-check the first ciphertext block and the tag; the data-plane contract test checks every byte.
            assertEquals("d31a8d34648e60db7b86afbc53ef7ec2",
                    hex.formatHex(buf.asSlice(0, 16).toArray(ValueLayout.JAVA_BYTE)));
            assertEquals("1ae10b594f09e26a7e902ecbd0600691",
                    hex.formatHex(buf.asSlice(114, 16).toArray(ValueLayout.JAVA_BYTE)));
            assertEquals(114, engine.open(key, nonce, aad, 0, 12, buf, 0, 130));
            assertEquals(-1, engine.open(key, nonce, aad, 0, 12, buf, 0, 130));
            assertThrows(IllegalArgumentException.class, () -> engine.seal(key, nonce, aad, 0, 12, buf, 0, -1));
        }
    }
}
