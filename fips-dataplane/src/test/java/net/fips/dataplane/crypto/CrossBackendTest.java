package net.fips.dataplane.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Packets sealed by one backend open with every other, and all produce identical bytes. */
class CrossBackendTest {
    /** @return every ordered pair of distinct available backends, at several sizes */
    static List<Arguments> pairs() {
        final List<Arguments> out = new ArrayList<>();
        for (final String sealer : AeadCiphers.available()) {
            for (final String opener : AeadCiphers.available()) {
                if (!sealer.equals(opener)) {
                    for (final int len : new int[] {0, 1, 64, 1190, 1400, 8192}) {
                        out.add(Arguments.of(sealer, opener, len));
                    }
                }
            }
        }
        return out;
    }

    @Test
    void atLeastTwoBackendsToCompare() {
        LibcryptoAeadCipherTest.assumeLibcrypto();
        assertTrue(AeadCiphers.available().size() >= 2, AeadCiphers.available().toString());
    }

    @ParameterizedTest(name = "{0} seals, {1} opens, {2} bytes")
    @MethodSource("pairs")
    void sealedByOneOpenedByAnother(final String sealerName, final String openerName, final int len) {
        try (Arena arena = Arena.ofConfined(); AeadCipher sealer = AeadCiphers.create(sealerName);
             AeadCipher opener = AeadCiphers.create(openerName)) {
            final AeadCipherContractTest.Packet p = AeadCipherContractTest.Packet.sealed(arena, sealer, len,
                    1000 + len);
            // The other backend sealing the same packet must give the same ciphertext and tag.
            final MemorySegment again = arena.allocate(len + AeadCipher.TAG_BYTES);
            MemorySegment.copy(p.plaintext(), 0, again, ValueLayout.JAVA_BYTE, 0, len);
            try (AeadCipher fresh = AeadCiphers.create(openerName)) {
                fresh.seal(p.key(), p.nonce(), p.aad(), 0, AeadCipherContractTest.AAD_LEN, again, 0, len);
            }
            assertArrayEquals(p.buf().toArray(ValueLayout.JAVA_BYTE), again.toArray(ValueLayout.JAVA_BYTE));

            assertEquals(len, opener.open(p.key(), p.nonce(), p.aad(), 0, AeadCipherContractTest.AAD_LEN, p.buf(),
                    0, len + AeadCipher.TAG_BYTES));
            assertArrayEquals(p.plaintext(), p.buf().asSlice(0, len).toArray(ValueLayout.JAVA_BYTE));
        }
    }
}
