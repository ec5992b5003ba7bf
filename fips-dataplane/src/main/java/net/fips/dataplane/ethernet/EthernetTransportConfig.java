package net.fips.dataplane.ethernet;

import java.util.Objects;
import java.nio.charset.StandardCharsets;

/**
 * Settings of one Ethernet transport (transports.md §4; operator.md §1.14). Defaults follow the reference:
 * EtherType 0x2121, MTU = interface MTU − 3, 2 MiB socket buffers, beacons processed ({@code discovery}/{@code
 * listen} true). Beacon sending, its interval and dialling are control-plane decisions
 * (net.fips.control.ethernet); the transport only sends a beacon when told to.
 *
 * @param interfaceName the interface to bind (1-15 ASCII bytes)
 * @param etherType     the EtherType, 0x0600-0xFFFF (lower values are 802.3 lengths, not types)
 * @param mtu           the largest FMP packet; 0 = interface MTU − 3; larger values are capped at that
 * @param recvBufSize   SO_RCVBUF request
 * @param sendBufSize   SO_SNDBUF request
 * @param discovery     whether received beacons are kept for {@link EthernetTransport#drainBeacons()}
 * @param beaconKey     the node's 32-byte x-only key for {@link EthernetTransport#sendBeacon()}, or null (no beacons)
 * @param batch         frames per recvmmsg/sendmmsg
 * @param sendTimeoutMs how long a send waits for socket-buffer space before dropping (0 = never waits)
 * @param instanceName  the instance name of a named-instance config, or null
 * @param autoConnect   what {@link EthernetTransport#autoConnect()} reports ({@code auto_connect}, default false)
 * @param acceptConnections what {@link EthernetTransport#acceptConnections()} reports (default false)
 */
public record EthernetTransportConfig(String interfaceName, int etherType, int mtu, int recvBufSize,
        int sendBufSize, boolean discovery, byte[] beaconKey, int batch, int sendTimeoutMs, String instanceName,
        boolean autoConnect, boolean acceptConnections) {
    /** The reference's EtherType. */
    public static final int DEFAULT_ETHERTYPE = 0x2121;
    /** 2 MiB. */
    public static final int DEFAULT_BUF_SIZE = 2 * 1024 * 1024;
    /** Frames per batch by default. */
    public static final int DEFAULT_BATCH = 32;
    /** Smallest usable MTU: a Noise msg1 (114 bytes) must fit. */
    public static final int MIN_MTU = 114;

    /** Checks nullness and copies the key. */
    public EthernetTransportConfig {
        Objects.requireNonNull(interfaceName, "interfaceName");
        beaconKey = beaconKey == null ? null : beaconKey.clone();
    }

    /** @return the defaults for {@code interfaceName} */
    public static EthernetTransportConfig of(final String interfaceName) {
        return new EthernetTransportConfig(interfaceName, DEFAULT_ETHERTYPE, 0, DEFAULT_BUF_SIZE, DEFAULT_BUF_SIZE,
                true, null, DEFAULT_BATCH, 10, null, false, false);
    }

    /** @return a copy with another EtherType */
    public EthernetTransportConfig withEtherType(final int v) {
        return new EthernetTransportConfig(interfaceName, v, mtu, recvBufSize, sendBufSize, discovery, beaconKey,
                batch, sendTimeoutMs, instanceName, autoConnect, acceptConnections);
    }

    /** @return a copy with another MTU (0 = interface MTU − 3) */
    public EthernetTransportConfig withMtu(final int v) {
        return new EthernetTransportConfig(interfaceName, etherType, v, recvBufSize, sendBufSize, discovery,
                beaconKey, batch, sendTimeoutMs, instanceName, autoConnect, acceptConnections);
    }

    /** @return a copy with other socket buffer sizes */
    public EthernetTransportConfig withBuffers(final int recv, final int send) {
        return new EthernetTransportConfig(interfaceName, etherType, mtu, recv, send, discovery, beaconKey, batch,
                sendTimeoutMs, instanceName, autoConnect, acceptConnections);
    }

    /** @return a copy that keeps (true) or ignores (false) received beacons */
    public EthernetTransportConfig withDiscovery(final boolean v) {
        return new EthernetTransportConfig(interfaceName, etherType, mtu, recvBufSize, sendBufSize, v, beaconKey,
                batch, sendTimeoutMs, instanceName, autoConnect, acceptConnections);
    }

    /** @return a copy that can send beacons for {@code xOnlyKey} */
    public EthernetTransportConfig withBeaconKey(final byte[] xOnlyKey) {
        return new EthernetTransportConfig(interfaceName, etherType, mtu, recvBufSize, sendBufSize, discovery,
                xOnlyKey, batch, sendTimeoutMs, instanceName, autoConnect, acceptConnections);
    }

    /** @return a copy with another batch size */
    public EthernetTransportConfig withBatch(final int v) {
        return new EthernetTransportConfig(interfaceName, etherType, mtu, recvBufSize, sendBufSize, discovery,
                beaconKey, v, sendTimeoutMs, instanceName, autoConnect, acceptConnections);
    }

    /** @return a copy with the node-level role: instance name, auto_connect and accept_connections */
    public EthernetTransportConfig withRole(final String name, final boolean dial, final boolean accept) {
        return new EthernetTransportConfig(interfaceName, etherType, mtu, recvBufSize, sendBufSize, discovery,
                beaconKey, batch, sendTimeoutMs, name, dial, accept);
    }

    @Override
    public byte[] beaconKey() {
        return beaconKey == null ? null : beaconKey.clone();
    }

    /** @return null when every setting is in range, else what is wrong */
    String problem() {
        final int nameBytes = interfaceName.getBytes(StandardCharsets.US_ASCII).length;
        if (nameBytes == 0 || nameBytes > 15 || !interfaceName.chars().allMatch(c -> c > ' ' && c < 127 && c != '/')) {
            return "interface name must be 1-15 printable ASCII characters without '/', got \"" + interfaceName
                    + "\"";
        }
        if (etherType < 0x0600 || etherType > 0xFFFF) {
            return "ethertype must be 0x0600-0xffff, got 0x" + Integer.toHexString(etherType);
        }
        if (mtu != 0 && (mtu < MIN_MTU || mtu > EthernetFrame.MAX_DATA_LENGTH)) {
            return "mtu must be " + MIN_MTU + "-" + EthernetFrame.MAX_DATA_LENGTH + " (or unset), got " + mtu;
        }
        if (recvBufSize < 1 || sendBufSize < 1) {
            return "socket buffer sizes must be positive, got " + recvBufSize + "/" + sendBufSize;
        }
        if (beaconKey != null && beaconKey.length != EthernetFrame.KEY_SIZE) {
            return "beacon key must be 32 bytes, got " + beaconKey.length;
        }
        if (batch < 1 || batch > 1024) {
            return "batch must be 1-1024, got " + batch;
        }
        if (sendTimeoutMs < 0) {
            return "send timeout must be >= 0, got " + sendTimeoutMs;
        }
        return null;
    }
}
