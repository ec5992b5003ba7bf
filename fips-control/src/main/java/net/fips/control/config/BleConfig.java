package net.fips.control.config;

import java.util.Objects;
import java.util.Optional;

/**
 * One {@code transports.ble} instance (operator.md §1.17, transports.md §5): BLE L2CAP connection-oriented
 * channels through BlueZ.
 *
 * @param name              instance name when {@code transports.ble} is a map of named instances, else empty
 * @param adapter           {@code adapter}: a BlueZ adapter name such as {@code hci0}, or {@code default} for the
 *                          first adapter BlueZ lists
 * @param psm               {@code psm}: the LE protocol/service multiplexer the listener binds (0x01-0xFF)
 * @param mtu               {@code mtu}: the receive MTU requested per channel; a link's MTU is negotiated
 * @param maxConnections    {@code max_connections}: pool size, the oldest connection is evicted beyond it
 * @param connectTimeoutMs  {@code connect_timeout_ms}
 * @param advertise         {@code advertise}: register an LE advertisement carrying the FIPS service UUID
 * @param scan              {@code scan}: discover advertising FIPS nodes
 * @param autoConnect       {@code auto_connect}: dial discovered peers
 * @param acceptConnections {@code accept_connections}: run the L2CAP listener and admit strangers
 * @param probeCooldownSecs {@code probe_cooldown_secs}: minimum time between probes of one address
 */
public record BleConfig(Optional<String> name, String adapter, int psm, int mtu, int maxConnections,
        long connectTimeoutMs, boolean advertise, boolean scan, boolean autoConnect, boolean acceptConnections,
        long probeCooldownSecs) {
    /** The reference's default adapter. */
    public static final String DEFAULT_ADAPTER = "hci0";
    /** The adapter value meaning "whichever adapter BlueZ lists first". */
    public static final String ANY_ADAPTER = "default";
    /** Default PSM 0x0085 (LE dynamic range 0x80-0xFF). */
    public static final int DEFAULT_PSM = 0x0085;
    /** Default requested MTU. */
    public static final int DEFAULT_MTU = 2048;
    /** The smallest MTU that carries a Noise msg1 (114 bytes). */
    public static final int MIN_MTU = 114;
    /** An unnamed instance with every default. */
    public static final BleConfig DEFAULTS = new BleConfig(Optional.empty(), DEFAULT_ADAPTER, DEFAULT_PSM, DEFAULT_MTU,
            7, 10_000, true, true, false, true, 30);

    /** Checks nullness. */
    public BleConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(adapter, "adapter");
    }

    /** @return the name used in logs and {@code show_transports}: the instance name or "ble" */
    public String displayName() {
        return name.orElse("ble");
    }
}
