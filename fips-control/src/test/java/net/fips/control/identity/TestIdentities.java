package net.fips.control.identity;

import java.util.Arrays;
import java.util.Random;

import net.fips.control.crypto.Secp256k1;

/**
 * Deterministic identities for the control plane's tests, in one place. It lives in fips-control's own test tree
 * rather than in fips-test-fixtures because it needs {@link NodeIdentity}: a module that depends on fips-control
 * cannot be a test dependency of fips-control.
 */
public final class TestIdentities {
    private TestIdentities() {
    }

    /**
     * Draws 32 bytes from {@code rnd} until they are a valid secp256k1 secret (1 &lt;= k &lt; n), so the same
     * {@code rnd} state always gives the same secret.
     *
     * @param rnd the test's random source
     * @return a valid secret key
     */
    public static byte[] secret(final Random rnd) {
        return Secp256k1.randomSecret(rnd);
    }

    /** @return the identity of {@link #secret(Random)} drawn from {@code rnd} */
    public static NodeIdentity random(final Random rnd) {
        return of(secret(rnd));
    }

    /** @return the identity of the first secret drawn from {@code new Random(seed)} */
    public static NodeIdentity seeded(final long seed) {
        return random(new Random(seed));
    }

    /** @return the identity whose 32 secret bytes are all {@code fill} (not 0) */
    public static NodeIdentity filled(final byte fill) {
        final byte[] secret = new byte[32];
        Arrays.fill(secret, fill);
        return of(secret);
    }

    /**
     * @param secret a secret key the test knows to be valid
     * @return its identity
     * @throws AssertionError when it is not valid (a broken test, not a result)
     */
    public static NodeIdentity of(final byte[] secret) {
        try {
            return NodeIdentity.fromSecret(secret);
        } catch (final IdentityFormatException e) {
            throw new AssertionError("not a valid test secret", e);
        }
    }
}
