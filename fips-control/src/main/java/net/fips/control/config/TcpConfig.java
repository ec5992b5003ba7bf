package net.fips.control.config;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One {@code transports.tcp} instance (operator.md §1.13, transports.md §3). Without {@code bind_addr} the
 * transport only dials (no listener, no stranger's handshake admitted).
 *
 * @param name                  instance name when {@code transports.tcp} is a map of named instances, else empty
 * @param bindAddr              {@code bind_addr}, or empty for outbound only
 * @param mtu                   {@code mtu} (default 1400)
 * @param connectTimeoutMs      {@code connect_timeout_ms} (default 5000)
 * @param nodelay               {@code nodelay} (default true)
 * @param keepaliveSecs         {@code keepalive_secs} (default 30, 0 = off)
 * @param recvBufSize           {@code recv_buf_size} (default 2 MiB)
 * @param sendBufSize           {@code send_buf_size} (default 2 MiB)
 * @param maxInboundConnections {@code max_inbound_connections}, empty when unset (then
 *                              {@code node.limits.max_connections})
 * @param advertiseOnNostr      {@code advertise_on_nostr} (Nostr adverts are not implemented)
 * @param externalAddr          {@code external_addr}
 */
public record TcpConfig(Optional<String> name, Optional<String> bindAddr, int mtu, int connectTimeoutMs,
        boolean nodelay, int keepaliveSecs, int recvBufSize, int sendBufSize, OptionalInt maxInboundConnections,
        boolean advertiseOnNostr, Optional<String> externalAddr) {
    public static final int DEFAULT_MTU = 1400;
    public static final int DEFAULT_CONNECT_TIMEOUT_MS = 5000;
    public static final int DEFAULT_KEEPALIVE_SECS = 30;
    public static final int DEFAULT_BUF_SIZE = 2 * 1024 * 1024;
    /** An unnamed, outbound-only instance with every default. */
    public static final TcpConfig DEFAULTS = new TcpConfig(Optional.empty(), Optional.empty(), DEFAULT_MTU,
            DEFAULT_CONNECT_TIMEOUT_MS, true, DEFAULT_KEEPALIVE_SECS, DEFAULT_BUF_SIZE, DEFAULT_BUF_SIZE,
            OptionalInt.empty(), false, Optional.empty());

    /** Checks nullness. */
    public TcpConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(bindAddr, "bindAddr");
        Objects.requireNonNull(maxInboundConnections, "maxInboundConnections");
        Objects.requireNonNull(externalAddr, "externalAddr");
    }

    /** @return the name used in logs: the instance name or "tcp" */
    public String displayName() {
        return name.orElse("tcp");
    }
}
