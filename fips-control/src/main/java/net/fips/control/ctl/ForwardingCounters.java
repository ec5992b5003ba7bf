package net.fips.control.ctl;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * The forwarding counter family that {@code show_status.forwarding} carries: packet and byte totals per outcome,
 * plus how often each routing decision was taken. All counters are monotonic since node start; a figure the node
 * does not measure is null (emitted as JSON null), never a zero that looks measured.
 *
 * @param decodeErrorBytes       bytes of frames that failed to decode
 * @param decodeErrorPackets     frames that failed to decode
 * @param deliveredBytes         bytes delivered to this node
 * @param deliveredPackets       packets delivered to this node
 * @param dropMtuExceededBytes   bytes dropped because the next hop's MTU was too small
 * @param dropMtuExceededPackets packets dropped because the next hop's MTU was too small
 * @param dropNoRouteBytes       bytes dropped without a route
 * @param dropNoRoutePackets     packets dropped without a route
 * @param dropSendErrorBytes     bytes dropped on a transport send error
 * @param dropSendErrorPackets   packets dropped on a transport send error
 * @param forwardedBytes         bytes forwarded for others
 * @param forwardedPackets       packets forwarded for others
 * @param originatedBytes        bytes this node originated
 * @param originatedPackets      packets this node originated
 * @param receivedBytes          bytes received from peers
 * @param receivedPackets        packets received from peers
 * @param routeCrosslinkAscend   routing decisions: cross-link towards the root
 * @param routeCrosslinkDescend  routing decisions: cross-link away from the root
 * @param routeDirectPeer        routing decisions: destination is a direct peer
 * @param routeTreeDown          routing decisions: down the tree
 * @param routeTreeDownCross     routing decisions: down the tree via a cross-link
 * @param routeTreeUp            routing decisions: up the tree
 * @param ttlExhaustedBytes      bytes dropped at TTL zero
 * @param ttlExhaustedPackets    packets dropped at TTL zero
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record ForwardingCounters(
        Long decodeErrorBytes, Long decodeErrorPackets,
        Long deliveredBytes, Long deliveredPackets,
        Long dropMtuExceededBytes, Long dropMtuExceededPackets,
        Long dropNoRouteBytes, Long dropNoRoutePackets,
        Long dropSendErrorBytes, Long dropSendErrorPackets,
        Long forwardedBytes, Long forwardedPackets,
        Long originatedBytes, Long originatedPackets,
        Long receivedBytes, Long receivedPackets,
        Long routeCrosslinkAscend, Long routeCrosslinkDescend,
        Long routeDirectPeer, Long routeTreeDown, Long routeTreeDownCross, Long routeTreeUp,
        Long ttlExhaustedBytes, Long ttlExhaustedPackets) {

    /** All counters zero, as a node that has not forwarded anything reports. */
    public static final ForwardingCounters ZERO = new ForwardingCounters(0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L,
            0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L);
}
