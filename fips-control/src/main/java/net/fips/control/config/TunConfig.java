package net.fips.control.config;

import java.util.Objects;

/**
 * {@code tun.*} (operator.md §1.11): whether the node opens its IPv6 adapter (the TUN device), its name and MTU.
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
