package net.fips.dataplane.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.Test;

/** The {@link AeadCipher} contract plus what only the native (FFM) backends promise: wiping, many keys, close. */
abstract class NativeAeadCipherContractTest extends AeadCipherContractTest {
    @Test
    void failedOpenWipesTheUnauthenticatedPlaintext() {
        final Packet p = Packet.sealed(arena, cipher, 200, 9);
        flip(p.buf(), 200);
        assertEquals(AeadCipher.AUTH_FAILED, cipher.open(p.key(), p.nonce(), p.aad(), 0, AAD_LEN, p.buf(), 0, 216));
        assertArrayEquals(new byte[200], p.buf().asSlice(0, 200).toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void oneEngineServesManyKeysAndBothDirections() {
        // Interleaving seal and open under different keys on one engine must not leak state between packets.
        final Packet a = Packet.sealed(arena, cipher, 300, 11);
        final Packet b = Packet.sealed(arena, cipher, 500, 12);
        assertEquals(300, cipher.open(a.key(), a.nonce(), a.aad(), 0, AAD_LEN, a.buf(), 0, 316));
        final Packet c = Packet.sealed(arena, cipher, 64, 13);
        assertEquals(500, cipher.open(b.key(), b.nonce(), b.aad(), 0, AAD_LEN, b.buf(), 0, 516));
        assertEquals(64, cipher.open(c.key(), c.nonce(), c.aad(), 0, AAD_LEN, c.buf(), 0, 80));
        assertArrayEquals(a.plaintext(), a.buf().asSlice(0, 300).toArray(ValueLayout.JAVA_BYTE));
        assertArrayEquals(b.plaintext(), b.buf().asSlice(0, 500).toArray(ValueLayout.JAVA_BYTE));
        assertArrayEquals(c.plaintext(), c.buf().asSlice(0, 64).toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void useAfterCloseThrowsInsteadOfTouchingFreedMemory() {
        final AeadCipher c = newCipher();
        c.close();
        c.close();
        assertThrows(IllegalStateException.class, () -> c.seal(seg(A5_KEY), seg(A5_NONCE), seg(A5_AAD), 0, 12,
                arena.allocate(64), 0, 10));
    }
}
