package net.fips.control.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import net.fips.control.identity.TestIdentities;

/**
 * BIP-340 signing and verification.
 *
 * <p>The known answers are the shared official vectors, {@code ../shared/vectors/bip340-test-vectors.csv}
 * (bitcoin/bips {@code bip-0340/test-vectors.csv}, indices 0-14: the final BIP-340 that libsecp256k1, and so the
 * reference, implements); the conformance suite checks the same file through {@code Bip340TestVectors}.
 * Variable-length messages, which that file leaves out, are covered by round trips here.
 */
class SchnorrTest {
    private static final HexFormat HEX = HexFormat.of();

    /** The shared vectors directory, located as the conformance suite does ({@code -Dfips.vectors.dir}). */
    private static Path sharedVectors() {
        final String prop = System.getProperty("fips.vectors.dir");
        final Path file = Path.of(prop != null ? prop : "../../shared/vectors").resolve("bip340-test-vectors.csv");
        assertTrue(Files.isRegularFile(file), "official BIP-340 vectors not found at " + file.toAbsolutePath());
        return file;
    }

    @Test
    void officialVectorsSignAndVerify() throws IOException {
        final List<String> lines = Files.readAllLines(sharedVectors(), StandardCharsets.UTF_8);
        int signed = 0;
        int verified = 0;
        for (final String line : lines.subList(1, lines.size())) {
            final String[] f = line.split(",", 8);
            final byte[] pub = HEX.parseHex(f[2]);
            final byte[] msg = HEX.parseHex(f[4]);
            final byte[] sig = HEX.parseHex(f[5]);
            if (!f[1].isEmpty()) {
                final byte[] sk = HEX.parseHex(f[1]);
                assertArrayEquals(pub, Secp256k1.xOnly(sk), "index " + f[0] + " public key");
                assertArrayEquals(sig, Schnorr.sign(sk, msg, HEX.parseHex(f[3])), "index " + f[0] + " signature");
                signed++;
            }
            assertEquals(Boolean.parseBoolean(f[6].toLowerCase()), Schnorr.verify(pub, msg, sig),
                    "index " + f[0] + " " + f[7]);
            verified++;
        }
        assertEquals(15, verified);
        assertEquals(4, signed);
    }

    @Test
    void roundTripsForManyKeysAndMessageLengths() {
        final Random rnd = new Random(340);
        for (int i = 0; i < 40; i++) {
            final byte[] sk = TestIdentities.secret(rnd);
            final byte[] pub = Secp256k1.xOnly(sk);
            final byte[] msg = new byte[new int[] {0, 1, 32, 33, 100}[i % 5]];
            rnd.nextBytes(msg);
            final byte[] aux = new byte[32];
            rnd.nextBytes(aux);
            final byte[] sig = Schnorr.sign(sk, msg, aux);
            assertEquals(64, sig.length);
            assertTrue(Schnorr.verify(pub, msg, sig), "round trip " + i);
            assertArrayEquals(sig, Schnorr.sign(sk, msg, aux), "same aux, same signature");
        }
    }

    @Test
    void tamperedSignatureMessageOrKeyIsRejected() {
        final Random rnd = new Random(7);
        final byte[] sk = TestIdentities.secret(rnd);
        final byte[] pub = Secp256k1.xOnly(sk);
        final byte[] msg = new byte[32];
        rnd.nextBytes(msg);
        final byte[] sig = Schnorr.sign(sk, msg, new byte[32]);
        for (int bit = 0; bit < 512; bit += 7) {
            final byte[] bad = sig.clone();
            bad[bit / 8] ^= (byte) (1 << (bit % 8));
            assertFalse(Schnorr.verify(pub, msg, bad), "signature bit " + bit);
        }
        for (int bit = 0; bit < 256; bit += 5) {
            final byte[] bad = msg.clone();
            bad[bit / 8] ^= (byte) (1 << (bit % 8));
            assertFalse(Schnorr.verify(pub, bad, sig), "message bit " + bit);
        }
        assertFalse(Schnorr.verify(Secp256k1.xOnly(TestIdentities.secret(rnd)), msg, sig), "other key");
        assertFalse(Schnorr.verify(pub, Arrays.copyOf(msg, 33), sig), "longer message");
    }

    @Test
    void malformedInputsAreInvalidNotErrors() {
        final byte[] sk = TestIdentities.secret(new Random(1));
        final byte[] pub = Secp256k1.xOnly(sk);
        final byte[] msg = new byte[32];
        final byte[] sig = Schnorr.sign(sk, msg, new byte[32]);
        assertTrue(Schnorr.verify(pub, msg, sig));
        assertFalse(Schnorr.verify(pub, msg, Arrays.copyOf(sig, 63)));
        assertFalse(Schnorr.verify(pub, msg, Arrays.copyOf(sig, 65)));
        assertFalse(Schnorr.verify(Arrays.copyOf(pub, 31), msg, sig));
        assertFalse(Schnorr.verify(Arrays.copyOf(pub, 33), msg, sig));
        assertFalse(Schnorr.verify(null, msg, sig));
        assertFalse(Schnorr.verify(pub, null, sig));
        assertFalse(Schnorr.verify(pub, msg, null));
        // s + n encodes the same residue but is out of range; BIP-340 requires s < n.
        final BigInteger s = new BigInteger(1, Arrays.copyOfRange(sig, 32, 64));
        final BigInteger sPlusN = s.add(Secp256k1.N);
        if (sPlusN.bitLength() <= 256) {
            final byte[] bad = sig.clone();
            System.arraycopy(Secp256k1.to32(sPlusN), 0, bad, 32, 32);
            assertFalse(Schnorr.verify(pub, msg, bad));
        }
    }

    @Test
    void signRejectsInvalidSecretsAndAux() {
        final byte[] msg = new byte[32];
        assertThrows(IllegalArgumentException.class, () -> Schnorr.sign(new byte[32], msg, new byte[32]));
        assertThrows(IllegalArgumentException.class,
                () -> Schnorr.sign(Secp256k1.to32(Secp256k1.N), msg, new byte[32]));
        assertThrows(IllegalArgumentException.class, () -> Schnorr.sign(new byte[31], msg, new byte[32]));
        final byte[] sk = TestIdentities.secret(new Random(2));
        assertThrows(IllegalArgumentException.class, () -> Schnorr.sign(sk, msg, new byte[31]));
        assertThrows(IllegalArgumentException.class, () -> Schnorr.sign(sk, msg, null));
    }

    @Test
    void fipsRuleSignsTheSha256OfTheData() {
        final byte[] sk = TestIdentities.secret(new Random(3));
        final byte[] pub = Secp256k1.xOnly(sk);
        final byte[] data = "tree announce bytes".getBytes(StandardCharsets.UTF_8);
        final byte[] sig = Schnorr.signData(sk, data);
        assertTrue(Schnorr.verifyData(pub, data, sig));
        assertTrue(Schnorr.verify(pub, Secp256k1.sha256(data), sig), "BIP-340 message is the digest");
        assertFalse(Schnorr.verify(pub, data, sig), "not the raw data");
        assertFalse(Schnorr.verifyData(pub, Arrays.copyOf(data, data.length + 1), sig));
        assertFalse(Schnorr.verifyData(pub, null, sig));
        // Random aux: two signatures differ but both verify (why the vectors compare them by verification).
        final byte[] sig2 = Schnorr.signData(sk, data);
        assertFalse(Arrays.equals(sig, sig2));
        assertTrue(Schnorr.verifyData(pub, data, sig2));
        assertArrayEquals(Schnorr.signData(sk, data, new byte[32]), Schnorr.sign(sk, Secp256k1.sha256(data),
                new byte[32]));
    }

    @Test
    void oddYKeysSignWithTheNegatedScalar() {
        // n-1 has the same x as 1 but odd Y: both must produce signatures valid for that one x-only key.
        final byte[] one = Secp256k1.to32(BigInteger.ONE);
        final byte[] nMinus1 = Secp256k1.to32(Secp256k1.N.subtract(BigInteger.ONE));
        assertArrayEquals(Secp256k1.xOnly(one), Secp256k1.xOnly(nMinus1));
        final byte[] msg = new byte[32];
        final byte[] aux = new byte[32];
        assertArrayEquals(Schnorr.sign(one, msg, aux), Schnorr.sign(nMinus1, msg, aux));
        assertTrue(Schnorr.verify(Secp256k1.xOnly(one), msg, Schnorr.sign(nMinus1, msg, aux)));
    }
}
