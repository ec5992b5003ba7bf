package net.fips.control.config;

import java.util.Objects;
import java.util.Optional;

/**
 * One {@code transports.udp} instance (operator.md §1.12). Defaults: bind {@code 0.0.0.0:2121}, MTU 1280, 2 MiB
 * socket buffers, not advertised, not public, inbound accepted.
 *
 * @param name              instance name when {@code transports.udp} is a map of named instances, else empty
 * @param bindAddr          {@code bind_addr} as configured; see {@link #effectiveBindAddr()}
 * @param mtu               {@code mtu}
 * @param recvBufSize       {@code recv_buf_size} (SO_RCVBUF)
 * @param sendBufSize       {@code send_buf_size} (SO_SNDBUF)
 * @param advertiseOnNostr  {@code advertise_on_nostr} as configured; see {@link #effectiveAdvertiseOnNostr()}
 * @param isPublic          {@code public}
 * @param externalAddr      {@code external_addr}
 * @param outboundOnly      {@code outbound_only}
 * @param acceptConnections {@code accept_connections}
 */
public record UdpConfig(Optional<String> name, String bindAddr, int mtu, int recvBufSize, int sendBufSize,
        boolean advertiseOnNostr, boolean isPublic, Optional<String> externalAddr, boolean outboundOnly,
        boolean acceptConnections) {
    /** {@code DEFAULT_UDP_BIND_ADDR}: all IPv4 interfaces, port 2121. */
    public static final String DEFAULT_BIND_ADDR = "0.0.0.0:2121";
    /** Where an outbound-only instance binds: any address, kernel-chosen port. */
    public static final String OUTBOUND_ONLY_BIND_ADDR = "0.0.0.0:0";
    /** Default transport MTU. */
    public static final int DEFAULT_MTU = 1280;
    /** Default SO_RCVBUF / SO_SNDBUF: 2 MiB. */
    public static final int DEFAULT_BUF_SIZE = 2 * 1024 * 1024;
    /** An unnamed instance with every default. */
    public static final UdpConfig DEFAULTS = new UdpConfig(Optional.empty(), DEFAULT_BIND_ADDR, DEFAULT_MTU,
            DEFAULT_BUF_SIZE, DEFAULT_BUF_SIZE, false, false, Optional.empty(), false, true);

    /** Checks nullness. */
    public UdpConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(bindAddr, "bindAddr");
        Objects.requireNonNull(externalAddr, "externalAddr");
    }

    /** @return the address to bind: {@code 0.0.0.0:0} when outbound-only, as the reference does */
    public String effectiveBindAddr() {
        return outboundOnly ? OUTBOUND_ONLY_BIND_ADDR : bindAddr;
    }

    /** @return whether to advertise; always false when outbound-only */
    public boolean effectiveAdvertiseOnNostr() {
        return !outboundOnly && advertiseOnNostr;
    }

    /** @return the name used in logs and {@code show_transports}: the instance name or "udp" */
    public String displayName() {
        return name.orElse("udp");
    }
}
