package net.fips.dataplane.transport;

import java.util.List;

/** The reference's transport type names, in the order instances get their ids (transports.md §1.4). */
public final class TransportTypes {
    public static final String UDP = "udp";
    public static final String ETHERNET = "ethernet";
    public static final String TCP = "tcp";
    public static final String TOR = "tor";
    public static final String NYM = "nym";
    public static final String BLE = "ble";

    /** Id allocation order: every UDP instance (config order), then Ethernet, TCP, Tor, Nym, BLE. */
    public static final List<String> ID_ORDER = List.of(UDP, ETHERNET, TCP, TOR, NYM, BLE);

    private TransportTypes() {
    }

    /**
     * The reference's static type metadata (transports.md §1.1): UDP and Ethernet are datagram media; TCP, Tor, Nym
     * and BLE need a connection first and deliver in order without loss.
     *
     * @return whether links of {@code type} are connection-oriented (and reliable)
     */
    public static boolean connectionOriented(final String type) {
        return !UDP.equals(type) && !ETHERNET.equals(type);
    }

    /** @return the position of {@code type} in {@link #ID_ORDER}, or -1 for an unknown type */
    public static int rank(final String type) {
        return ID_ORDER.indexOf(type);
    }
}
