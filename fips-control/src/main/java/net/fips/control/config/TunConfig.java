package net.fips.control.config;

import java.util.Objects;

/**
 * {@code tun.*} (operator.md §1.11). Parsed and checked; creating the adapter is not supported yet, so
 * {@code enabled: true} only produces a warning.
 *
 * @param enabled {@code enabled} (false)
 * @param name    {@code name} (fips0)
 * @param mtu     {@code mtu} (1280)
 */
public record TunConfig(boolean enabled, String name, int mtu) {
    /** Disabled, fips0, 1280. */
    public static final TunConfig DEFAULTS = new TunConfig(false, "fips0", 1280);

    /** Checks nullness. */
    public TunConfig {
        Objects.requireNonNull(name, "name");
    }
}
