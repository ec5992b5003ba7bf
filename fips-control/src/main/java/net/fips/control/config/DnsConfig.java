package net.fips.control.config;

import java.util.Objects;

/**
 * {@code dns.*} (operator.md §1.11): the {@code .fips} responder. Parsed and checked; the responder is not
 * supported yet.
 *
 * @param enabled  {@code enabled} (true in the reference)
 * @param bindAddr {@code bind_addr} (::1)
 * @param port     {@code port} (5354)
 * @param ttl      {@code ttl} (300)
 */
public record DnsConfig(boolean enabled, String bindAddr, int port, long ttl) {
    /** Enabled, [::1]:5354, TTL 300. */
    public static final DnsConfig DEFAULTS = new DnsConfig(true, "::1", 5354, 300);

    /** Checks nullness. */
    public DnsConfig {
        Objects.requireNonNull(bindAddr, "bindAddr");
    }
}
