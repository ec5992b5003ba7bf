package net.fips.control.config;

import java.nio.file.Path;
import java.util.Map;

import net.fips.control.identity.NodeIdentity;
import net.fips.control.identity.TestIdentities;

/** Shared helpers for the config tests. */
final class ConfigTestSupport {
    /** test-us01 from operator.md §1.20. */
    static final String TEST_US01 = "npub1qmc3cvfz0yu2hx96nq3gp55zdan2qclealn7xshgr448d3nh6lks7zel98";

    private ConfigTestSupport() {
    }

    /** @return a deterministic identity from a one-byte seed */
    static NodeIdentity identity(final int seed) {
        final byte[] secret = new byte[32];
        secret[31] = (byte) seed;
        secret[0] = 1;
        return TestIdentities.of(secret);
    }

    static String npub(final int seed) {
        return identity(seed).npub();
    }

    /** A host rooted in a temp dir with the given environment. */
    static HostEnvironment host(final Path root, final Map<String, String> env) {
        return new HostEnvironment(root, root.resolve("work"), env);
    }
}
