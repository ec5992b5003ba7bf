package net.fips.dataplane.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import java.util.Map;

import org.junit.jupiter.api.Test;

import net.fips.ffm.boringssl.Boringssl;
import net.fips.ffm.openssl.Libcrypto;

/** The backend choice and the FIPS nonce layout. */
class AeadCiphersTest {
    @Test
    void defaultIsTheFirstAvailableOfTheOrder() {
        final String first = AeadCiphers.available().getFirst();
        if (System.getProperty(AeadCiphers.BACKEND_PROPERTY) == null) {
            assertEquals(first, AeadCiphers.defaultBackend());
            assertEquals(first.equals(AeadCiphers.DEFAULT_ORDER.getFirst()), AeadCiphers.fallbackReason().isEmpty(),
                    AeadCiphers.fallbackReason().toString());
        }
        try (AeadCipher c = AeadCiphers.create()) {
            assertEquals(AeadCiphers.defaultBackend(), c.backend());
            final Class<? extends AeadCipher> type = switch (c.backend()) {
                case AeadCiphers.LIBCRYPTO -> LibcryptoAeadCipher.class;
                case AeadCiphers.BORINGSSL -> BoringsslAeadCipher.class;
                default -> JdkAeadCipher.class;
            };
            assertInstanceOf(type, c);
        }
    }

    @Test
    void fallbacksFollowTheOrderAndNameEveryReason() {
        final Map<String, String> none = Map.of();
        assertArrayEquals(new String[] {AeadCiphers.BORINGSSL, null}, AeadCiphers.choose(null, none::get));
        final Map<String, String> noBoring = Map.of(AeadCiphers.BORINGSSL, "not installed");
        assertArrayEquals(new String[] {AeadCiphers.LIBCRYPTO, "boringssl unavailable: not installed"},
                AeadCiphers.choose(null, noBoring::get));
        final Map<String, String> neither = Map.of(AeadCiphers.BORINGSSL, "b gone", AeadCiphers.LIBCRYPTO, "l gone");
        assertArrayEquals(new String[] {AeadCiphers.JDK,
            "boringssl unavailable: b gone; libcrypto unavailable: l gone"}, AeadCiphers.choose(null, neither::get));
        assertArrayEquals(new String[] {AeadCiphers.LIBCRYPTO, "forced by -Dfips.aead.backend=libcrypto"},
                AeadCiphers.choose(AeadCiphers.LIBCRYPTO, none::get));
        assertArrayEquals(new String[] {AeadCiphers.BORINGSSL, null}, AeadCiphers.choose(AeadCiphers.BORINGSSL,
                none::get));
        // A forced backend that cannot load falls back along the order, saying so once.
        assertArrayEquals(new String[] {AeadCiphers.LIBCRYPTO,
            "-Dfips.aead.backend=boringssl unavailable: not installed"},
                AeadCiphers.choose(AeadCiphers.BORINGSSL, noBoring::get));
    }

    @Test
    void availableFollowsTheProbes() {
        assertEquals(Libcrypto.isAvailable(), AeadCiphers.available().contains(AeadCiphers.LIBCRYPTO));
        assertEquals(Boringssl.isAvailable(), AeadCiphers.available().contains(AeadCiphers.BORINGSSL));
        assertTrue(AeadCiphers.available().contains(AeadCiphers.JDK));
        for (final String b : AeadCiphers.available()) {
            try (AeadCipher c = AeadCiphers.create(b)) {
                assertEquals(b, c.backend());
            }
        }
    }

    @Test
    void libcryptoReportsAnOpenSsl3Version() {
        LibcryptoAeadCipherTest.assumeLibcrypto();
        assertTrue(Libcrypto.version().startsWith("OpenSSL 3."), Libcrypto.version());
        assertEquals(null, Libcrypto.unavailableReason());
    }

    @Test
    void namedBackendsAndUnknownNames() {
        try (AeadCipher c = AeadCiphers.create(AeadCiphers.JDK)) {
            assertEquals(AeadCiphers.JDK, c.backend());
        }
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AeadCiphers.create("openssl"));
        assertTrue(e.getMessage().contains("openssl"), e.getMessage());
    }

    @Test
    void fipsNonceIsFourZeroBytesThenLittleEndianCounter() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment nonce = arena.allocate(AeadCipher.NONCE_BYTES);
            nonce.fill((byte) 0x55);
            AeadCipher.fipsNonce(nonce, 0x0102030405060708L);
            assertArrayEquals(HexFormat.of().parseHex("000000000807060504030201"),
                    nonce.toArray(ValueLayout.JAVA_BYTE));
            AeadCipher.fipsNonce(nonce, -1L);
            assertArrayEquals(HexFormat.of().parseHex("00000000ffffffffffffffff"),
                    nonce.toArray(ValueLayout.JAVA_BYTE));
        }
    }
}
