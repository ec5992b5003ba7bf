package net.fips.dataplane.crypto;

/** Runs the {@link AeadCipher} contract against the JDK backend. */
class JdkAeadCipherTest extends AeadCipherContractTest {
    @Override
    AeadCipher newCipher() {
        return new JdkAeadCipher();
    }

    @Override
    String expectedBackend() {
        return AeadCiphers.JDK;
    }
}
