package net.fips.dataplane.crypto;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.BeforeAll;

import net.fips.ffm.openssl.Libcrypto;

/** Runs the {@link AeadCipher} contract against libcrypto, plus what only this backend promises. */
class LibcryptoAeadCipherTest extends NativeAeadCipherContractTest {
    @BeforeAll
    static void needsLibcrypto() {
        assumeLibcrypto();
    }

    static void assumeLibcrypto() {
        assumeTrue(Libcrypto.isAvailable(), () -> "skipping libcrypto tests: " + Libcrypto.unavailableReason());
    }

    @Override
    AeadCipher newCipher() {
        return new LibcryptoAeadCipher();
    }

    @Override
    String expectedBackend() {
        return AeadCiphers.LIBCRYPTO;
    }
}
