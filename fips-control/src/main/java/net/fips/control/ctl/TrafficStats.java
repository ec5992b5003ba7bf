package net.fips.control.ctl;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * Packet and byte totals in each direction, the {@code stats} object of a peer.
 *
 * @param packetsSent packets sent
 * @param packetsRecv packets received
 * @param bytesSent   bytes sent
 * @param bytesRecv   bytes received
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record TrafficStats(long packetsSent, long packetsRecv, long bytesSent, long bytesRecv) {
    /** No traffic yet. */
    public static final TrafficStats ZERO = new TrafficStats(0, 0, 0, 0);
}
