package net.fips.control.config;

import java.util.Objects;
import java.util.Optional;

/**
 * One {@code transports.nym} instance (operator.md §1.16, transports.md §6.7): outbound only, through a separately
 * running {@code nym-socks5-client}. Defaults are the reference's.
 *
 * @param name               instance name when {@code transports.nym} is a map of named instances, else empty
 * @param socks5Addr         {@code socks5_addr}: {@code host:port} of {@code nym-socks5-client}
 * @param connectTimeoutMs   {@code connect_timeout_ms}: the budget of one SOCKS5 dial (the mixnet is slow)
 * @param mtu                {@code mtu}
 * @param startupTimeoutSecs {@code startup_timeout_secs}: how long the start waits for the proxy port to answer
 */
public record NymConfig(Optional<String> name, String socks5Addr, long connectTimeoutMs, int mtu,
        long startupTimeoutSecs) {
    /** Default proxy: {@code nym-socks5-client}'s default port. */
    public static final String DEFAULT_SOCKS5_ADDR = "127.0.0.1:1080";
    /** Default dial budget: 300 s. */
    public static final long DEFAULT_CONNECT_TIMEOUT_MS = 300_000;
    /** Default MTU, as TCP. */
    public static final int DEFAULT_MTU = 1400;
    /** Default start-up wait for the proxy: 120 s. */
    public static final long DEFAULT_STARTUP_TIMEOUT_SECS = 120;
    /** An unnamed instance with every default. */
    public static final NymConfig DEFAULTS = new NymConfig(Optional.empty(), DEFAULT_SOCKS5_ADDR,
            DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_MTU, DEFAULT_STARTUP_TIMEOUT_SECS);

    /** Checks nullness. */
    public NymConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(socks5Addr, "socks5Addr");
    }

    /** @return the name used in logs: the instance name or "nym" */
    public String displayName() {
        return name.orElse("nym");
    }
}
