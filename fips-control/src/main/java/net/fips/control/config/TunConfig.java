package net.fips.control.config;

import java.util.Objects;

/**
 * {@code tun.*} (operator.md §1.11): whether the node opens its IPv6 adapter (the TUN device), its name and MTU,
 * and (ours, not the reference's) whether it asks the kernel for TUN offloads.
 *
 * @param enabled {@code enabled} (false)
 * @param name    {@code name} (fips0)
 * @param mtu     {@code mtu} (1280)
 * @param offload {@code offload} (auto): virtio-net header, TSO super-segments split before sealing and
 *                received TCP segments coalesced into one write, with a fallback to plain packets when the kernel
 *                refuses; {@code off}: one plain packet per read and write
 */
public record TunConfig(boolean enabled, String name, int mtu, Offload offload) {
    /** {@code tun.offload}. */
    public enum Offload { AUTO, OFF }

    /** Disabled, fips0, 1280, offload auto. */
    public static final TunConfig DEFAULTS = new TunConfig(false, "fips0", 1280, Offload.AUTO);

    /** Checks nullness. */
    public TunConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(offload, "offload");
    }

    /** The first three keys with {@code offload: auto}. */
    public TunConfig(final boolean enabled, final String name, final int mtu) {
        this(enabled, name, mtu, Offload.AUTO);
    }
}
