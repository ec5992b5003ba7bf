package net.fips.control.dns;

import java.net.InetSocketAddress;
import java.util.OptionalInt;
import java.io.IOException;
import java.net.NetworkInterface;

import net.fips.dataplane.udp.PktinfoUdpSocket;

/**
 * Decides whether a query is dropped unanswered because of where it came from (operator.md §4.6: queries that
 * arrive on fips0 are dropped, so that hosts-file names cannot be enumerated across the mesh when the responder
 * is bound to {@code ::}).
 */
@FunctionalInterface
public interface ArrivalFilter {
    /** The arrival interface index when the receive path cannot tell it. */
    int UNKNOWN_IFINDEX = PktinfoUdpSocket.UNKNOWN_IFINDEX;

    /**
     * @param source         the query's source
     * @param arrivalIfIndex the interface it arrived on, or {@link #UNKNOWN_IFINDEX}
     * @return true to drop it silently
     */
    boolean drop(InetSocketAddress source, int arrivalIfIndex);

    /** Drops nothing. */
    ArrivalFilter NONE = (source, ifindex) -> false;

    /**
     * The reference's rule: drop exactly when the mesh interface's index is known and the query arrived on it. A
     * query whose arrival interface is unknown passes (the reference fails open the same way), and so does every
     * query when no mesh interface is configured. The source address is not looked at: LAN ULA prefixes would
     * collide with {@code fd00::/8}.
     *
     * @param meshIfIndex fips0's interface index, if the TUN is up
     * @return the filter
     */
    static ArrivalFilter meshInterface(final OptionalInt meshIfIndex) {
        if (meshIfIndex.isEmpty()) {
            return NONE;
        }
        final int mesh = meshIfIndex.getAsInt();
        return (source, ifindex) -> ifindex != UNKNOWN_IFINDEX && ifindex == mesh;
    }

    /**
     * {@link #meshInterface} for the TUN named {@code tunName}, its index looked up once now as the reference
     * does at responder start; no filter when no such interface exists (TUN off or not up yet).
     *
     * @param tunName the TUN's name ({@code tun.name}, {@code fips0})
     * @return the filter
     */
    static ArrivalFilter meshInterfaceNamed(final String tunName) {
        try {
            final NetworkInterface nif = NetworkInterface.getByName(tunName);
            return meshInterface(nif == null ? OptionalInt.empty() : OptionalInt.of(nif.getIndex()));
        } catch (final IOException | RuntimeException e) {
            return NONE;
        }
    }
}
