package net.fips.ffm.boringssl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import net.fips.ffm.openssl.ChaCha20Poly1305;
import net.fips.ffm.openssl.Libcrypto;

/**
 * The probe's two outcomes, the engine against RFC 8439 §2.8.2 directly, its keyed contexts, and BoringSSL and
 * OpenSSL's libcrypto loaded side by side in one JVM (many of their exported names are the same).
 */
class BoringsslTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final byte[] PLAINTEXT = ("Ladies and Gentlemen of the class of '99: If I could offer you only one "
            + "tip for the future, sunscreen would be it.").getBytes(StandardCharsets.US_ASCII);

    static void assumeBoringssl() {
        assumeTrue(Boringssl.isAvailable(), () -> "BoringSSL unavailable: " + Boringssl.unavailableReason());
    }

    @Test
    void aMissingLibraryIsReportedNotThrown() {
        final String reason = Boringssl.Probe.probe("/nonexistent/libfips-no-such-crypto.so.0");
        assertTrue(reason.startsWith("/nonexistent/libfips-no-such-crypto.so.0 could not be loaded"), reason);
    }

    @Test
    void engineSealsTheRfc8439Example() {
        assumeBoringssl();
        assertNull(Boringssl.unavailableReason());
        try (Arena arena = Arena.ofConfined(); AeadChaCha20Poly1305 engine = new AeadChaCha20Poly1305()) {
            final MemorySegment key = bytes(arena, "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f");
            final MemorySegment nonce = bytes(arena, "070000004041424344454647");
            final MemorySegment aad = bytes(arena, "50515253c0c1c2c3c4c5c6c7");
            final MemorySegment buf = arena.allocate(PLAINTEXT.length + AeadChaCha20Poly1305.TAG_BYTES);
            MemorySegment.copy(PLAINTEXT, 0, buf, ValueLayout.JAVA_BYTE, 0, PLAINTEXT.length);
            assertEquals(130, engine.seal(key, nonce, aad, 0, 12, buf, 0, PLAINTEXT.length));
            assertEquals("d31a8d34648e60db7b86afbc53ef7ec2", HEX.formatHex(buf.asSlice(0, 16).toArray(
                    ValueLayout.JAVA_BYTE)));
            assertEquals("1ae10b594f09e26a7e902ecbd0600691", HEX.formatHex(buf.asSlice(114, 16).toArray(
                    ValueLayout.JAVA_BYTE)));
            assertEquals(114, engine.open(key, nonce, aad, 0, 12, buf, 0, 130));
            assertArrayEquals(PLAINTEXT, buf.asSlice(0, 114).toArray(ValueLayout.JAVA_BYTE));
            // opening the plaintext again fails and wipes the would-be plaintext
            assertEquals(AeadChaCha20Poly1305.AUTH_FAILED, engine.open(key, nonce, aad, 0, 12, buf, 0, 130));
            assertArrayEquals(new byte[114], buf.asSlice(0, 114).toArray(ValueLayout.JAVA_BYTE));
            assertThrows(IllegalArgumentException.class, () -> engine.seal(key, nonce, aad, 0, 12, buf, 0, -1));
            assertThrows(IndexOutOfBoundsException.class, () -> engine.seal(key, nonce, aad, 0, 12, buf, 0, 115));
        }
    }

    @Test
    void heapSegmentsGiveTheSameBytesAsNativeOnes() {
        assumeBoringssl();
        try (Arena arena = Arena.ofConfined(); AeadChaCha20Poly1305 engine = new AeadChaCha20Poly1305()) {
            final byte[] k = HEX.parseHex("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f");
            final byte[] n = HEX.parseHex("070000004041424344454647");
            final byte[] a = HEX.parseHex("50515253c0c1c2c3c4c5c6c7");
            final byte[] heap = new byte[PLAINTEXT.length + 16];
            System.arraycopy(PLAINTEXT, 0, heap, 0, PLAINTEXT.length);
            assertEquals(130, engine.seal(MemorySegment.ofArray(k), MemorySegment.ofArray(n), MemorySegment.ofArray(a),
                    0, 12, MemorySegment.ofArray(heap), 0, PLAINTEXT.length));
            final MemorySegment buf = arena.allocate(130);
            MemorySegment.copy(PLAINTEXT, 0, buf, ValueLayout.JAVA_BYTE, 0, PLAINTEXT.length);
            engine.seal(arena.allocateFrom(ValueLayout.JAVA_BYTE, k), arena.allocateFrom(ValueLayout.JAVA_BYTE, n),
                    arena.allocateFrom(ValueLayout.JAVA_BYTE, a), 0, 12, buf, 0, PLAINTEXT.length);
            assertArrayEquals(buf.toArray(ValueLayout.JAVA_BYTE), heap);
            assertEquals(114, engine.open(MemorySegment.ofArray(k), MemorySegment.ofArray(n), MemorySegment.ofArray(a),
                    0, 12, MemorySegment.ofArray(heap), 0, 130));
            assertArrayEquals(PLAINTEXT, Arrays.copyOf(heap, 114));
        }
    }

    @Test
    void moreKeysThanContextsAndANewKeyAtAReusedAddress() {
        assumeBoringssl();
        final int keys = AeadChaCha20Poly1305.KEYED_CONTEXTS * 2 + 3;
        try (Arena arena = Arena.ofConfined(); AeadChaCha20Poly1305 engine = new AeadChaCha20Poly1305()) {
            final SplittableRandom rnd = new SplittableRandom(5);
            final MemorySegment key = arena.allocate(32);
            final MemorySegment nonce = arena.allocate(12);
            final byte[][] keyBytes = new byte[keys][32];
            final byte[][] sealed = new byte[keys][];
            final MemorySegment buf = arena.allocate(100 + 16);
            // Seal under many keys written into one segment, so every key sits at the same address.
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < keys; i++) {
                    if (round == 0) {
                        rnd.nextBytes(keyBytes[i]);
                    }
                    MemorySegment.copy(keyBytes[i], 0, key, ValueLayout.JAVA_BYTE, 0, 32);
                    buf.fill((byte) 7);
                    engine.seal(key, nonce, MemorySegment.NULL, 0, 0, buf, 0, 100);
                    final byte[] out = buf.toArray(ValueLayout.JAVA_BYTE);
                    if (round == 0) {
                        sealed[i] = out;
                    } else {
                        assertArrayEquals(sealed[i], out, "key " + i + " sealed differently the second time");
                    }
                }
            }
            for (int i = 1; i < keys; i++) {
                assertTrue(!Arrays.equals(sealed[0], sealed[i]), "keys 0 and " + i + " sealed alike");
            }
        }
    }

    @Test
    void sideBySideWithOpensslsLibcrypto() {
        assumeBoringssl();
        assumeTrue(Libcrypto.isAvailable(), () -> "libcrypto unavailable: " + Libcrypto.unavailableReason());
        final SplittableRandom rnd = new SplittableRandom(11);
        try (Arena arena = Arena.ofConfined(); AeadChaCha20Poly1305 boring = new AeadChaCha20Poly1305();
             ChaCha20Poly1305 openssl = new ChaCha20Poly1305()) {
            final MemorySegment key = random(arena, rnd, 32);
            final MemorySegment nonce = random(arena, rnd, 12);
            final MemorySegment aad = random(arena, rnd, 16);
            for (final int len : new int[] {0, 1, 63, 64, 1190, 1400, 8192}) {
                final MemorySegment plain = random(arena, rnd, len);
                final MemorySegment a = arena.allocate(len + 16);
                final MemorySegment b = arena.allocate(len + 16);
                a.copyFrom(plain);
                b.copyFrom(plain);
                boring.seal(key, nonce, aad, 0, 16, a, 0, len);
                openssl.seal(key, nonce, aad, 0, 16, b, 0, len);
                assertEquals(-1L, a.mismatch(b), "ciphertexts differ at " + len + " bytes");
                assertEquals(len, openssl.open(key, nonce, aad, 0, 16, a, 0, len + 16));
                assertEquals(len, boring.open(key, nonce, aad, 0, 16, b, 0, len + 16));
                assertEquals(-1L, a.asSlice(0, len).mismatch(plain));
                assertEquals(-1L, b.asSlice(0, len).mismatch(plain));
            }
        }
    }

    @Test
    void useAfterCloseThrows() {
        assumeBoringssl();
        final AeadChaCha20Poly1305 engine = new AeadChaCha20Poly1305();
        engine.close();
        engine.close();
        try (Arena arena = Arena.ofConfined()) {
            assertThrows(IllegalStateException.class, () -> engine.seal(arena.allocate(32), arena.allocate(12),
                    MemorySegment.NULL, 0, 0, arena.allocate(64), 0, 10));
        }
    }

    private static MemorySegment bytes(final Arena arena, final String hex) {
        return arena.allocateFrom(ValueLayout.JAVA_BYTE, HEX.parseHex(hex));
    }

    private static MemorySegment random(final Arena arena, final SplittableRandom rnd, final int n) {
        final byte[] b = new byte[n];
        rnd.nextBytes(b);
        final MemorySegment s = arena.allocate(Math.max(n, 1));
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, 0, n);
        return s.asSlice(0, n);
    }
}
