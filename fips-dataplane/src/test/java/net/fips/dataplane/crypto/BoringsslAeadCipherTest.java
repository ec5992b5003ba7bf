package net.fips.dataplane.crypto;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.BeforeAll;

import net.fips.ffm.boringssl.Boringssl;

/** Runs the {@link AeadCipher} contract against BoringSSL, plus what only the native backends promise. */
class BoringsslAeadCipherTest extends NativeAeadCipherContractTest {
    @BeforeAll
    static void needsBoringssl() {
        assumeBoringssl();
    }

    static void assumeBoringssl() {
        assumeTrue(Boringssl.isAvailable(), () -> "skipping BoringSSL tests: " + Boringssl.unavailableReason());
    }

    @Override
    AeadCipher newCipher() {
        return new BoringsslAeadCipher();
    }

    @Override
    String expectedBackend() {
        return AeadCiphers.BORINGSSL;
    }
}
