package net.fips.control.config;

import java.util.Objects;
import java.util.Optional;

/**
 * One {@code transports.ethernet} instance (operator.md §1.14; transports.md §4). Defaults follow the reference:
 * EtherType 0x2121, MTU = interface MTU − 3, 2 MiB socket buffers, beacons processed ({@code listen}, spelled
 * {@code discovery} in v0.4.1), none sent, discovered peers not dialled, inbound handshakes from strangers refused,
 * a beacon every 30 s (values below 10 are raised to 10).
 *
 * @param name               instance name when {@code transports.ethernet} is a map of named instances, else empty
 * @param interfaceName      {@code interface} (required)
 * @param etherType          {@code ethertype}
 * @param mtu                {@code mtu}, empty for the interface's MTU − 3 (a larger value is capped at that)
 * @param recvBufSize        {@code recv_buf_size}
 * @param sendBufSize        {@code send_buf_size}
 * @param listen             {@code listen} / {@code discovery}: keep received beacons
 * @param announce           {@code announce}: send beacons
 * @param autoConnect        {@code auto_connect}: dial peers whose beacons carry a key
 * @param acceptConnections  {@code accept_connections}: admit handshakes from addresses that are not yet peers
 * @param beaconIntervalSecs {@code beacon_interval_secs} as configured; see {@link #effectiveBeaconIntervalSecs()}
 */
public record EthernetConfig(Optional<String> name, String interfaceName, int etherType, Optional<Integer> mtu,
        int recvBufSize, int sendBufSize, boolean listen, boolean announce, boolean autoConnect,
        boolean acceptConnections, long beaconIntervalSecs) {
    /** The reference's EtherType. */
    public static final int DEFAULT_ETHERTYPE = 0x2121;
    /** 2 MiB. */
    public static final int DEFAULT_BUF_SIZE = 2 * 1024 * 1024;
    /** Seconds between beacons by default. */
    public static final long DEFAULT_BEACON_INTERVAL_SECS = 30;
    /** The shortest beacon interval; smaller settings are raised to it. */
    public static final long MIN_BEACON_INTERVAL_SECS = 10;

    /** Checks nullness. */
    public EthernetConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(interfaceName, "interfaceName");
        Objects.requireNonNull(mtu, "mtu");
    }

    /** @return an unnamed instance on {@code interfaceName} with every default */
    public static EthernetConfig defaults(final String interfaceName) {
        return new EthernetConfig(Optional.empty(), interfaceName, DEFAULT_ETHERTYPE, Optional.empty(),
                DEFAULT_BUF_SIZE, DEFAULT_BUF_SIZE, true, false, false, false, DEFAULT_BEACON_INTERVAL_SECS);
    }

    /** @return the interval beacons are sent at: the configured one, at least {@value #MIN_BEACON_INTERVAL_SECS} s */
    public long effectiveBeaconIntervalSecs() {
        return Math.max(beaconIntervalSecs, MIN_BEACON_INTERVAL_SECS);
    }

    /** @return the name used in logs and {@code show_transports}: the instance name or "ethernet" */
    public String displayName() {
        return name.orElse("ethernet");
    }
}
