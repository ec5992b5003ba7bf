package net.fips.dataplane.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Packets sealed by one backend open with the other, and both produce identical bytes. */
class CrossBackendTest {
    private Arena arena;
    private AeadCipher libcrypto;
    private AeadCipher jdk;

    @BeforeAll
    static void needsLibcrypto() {
        LibcryptoAeadCipherTest.assumeLibcrypto();
    }

    @BeforeEach
    void create() {
        arena = Arena.ofConfined();
        libcrypto = AeadCiphers.create(AeadCiphers.LIBCRYPTO);
        jdk = AeadCiphers.create(AeadCiphers.JDK);
    }

    @AfterEach
    void close() {
        libcrypto.close();
        jdk.close();
        arena.close();
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {0, 1, 64, 1400, 8192})
    void libcryptoSealsJdkOpens(final int len) {
        check(libcrypto, jdk, len);
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {0, 1, 64, 1400, 8192})
    void jdkSealsLibcryptoOpens(final int len) {
        check(jdk, libcrypto, len);
    }

    private void check(final AeadCipher sealer, final AeadCipher opener, final int len) {
        final AeadCipherContractTest.Packet p = AeadCipherContractTest.Packet.sealed(arena, sealer, len, 1000 + len);
        // The other backend sealing the same packet must give the same ciphertext and tag.
        final MemorySegment again = arena.allocate(len + AeadCipher.TAG_BYTES);
        MemorySegment.copy(p.plaintext(), 0, again, ValueLayout.JAVA_BYTE, 0, len);
        try (AeadCipher fresh = AeadCiphers.create(opener.backend())) {
            fresh.seal(p.key(), p.nonce(), p.aad(), 0, AeadCipherContractTest.AAD_LEN, again, 0, len);
        }
        assertArrayEquals(p.buf().toArray(ValueLayout.JAVA_BYTE), again.toArray(ValueLayout.JAVA_BYTE));

        assertEquals(len, opener.open(p.key(), p.nonce(), p.aad(), 0, AeadCipherContractTest.AAD_LEN, p.buf(), 0,
                len + AeadCipher.TAG_BYTES));
        assertArrayEquals(p.plaintext(), p.buf().asSlice(0, len).toArray(ValueLayout.JAVA_BYTE));
    }
}
