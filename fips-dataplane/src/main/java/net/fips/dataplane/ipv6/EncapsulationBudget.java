package net.fips.dataplane.ipv6;

/**
 * Per-packet overheads of FIPS encapsulation (routing-session.md §5.10), in one place:
 * <pre>
 *   FMP outer header (AAD: prefix 4 + receiver_idx 4 + counter 8)           16
 *   FMP inner header (timestamp 4 + msg_type 1)                              5
 *   SessionDatagram body (ttl 1 + path_mtu 2 + src 16 + dst 16)             35
 *   FSP header (AAD: prefix 4 + counter 8)                                  12
 *   FSP inner header (timestamp 4 + msg_type 1 + flags 1)                    6
 *   FSP Poly1305 tag                                                        16
 *   FMP Poly1305 tag                                                        16
 *                                                                         ----
 *   FIPS_OVERHEAD                                                          106
 *   + port header 4 + shim header 7 - IPv6 header 40                       -29
 *   FIPS_IPV6_OVERHEAD (wire size = IPv6 packet size + 77)                  77
 * </pre>
 * The transport MTU is compared against the whole encrypted FMP packet, so the largest IPv6 packet that fits a
 * transport MTU is {@code transport_mtu - 77} (1280 -> 1203), and the largest TCP MSS another 60 bytes less.
 */
public final class EncapsulationBudget {
    /** FMP established-frame outer header (authenticated, clear). */
    public static final int FMP_OUTER_HEADER = 16;
    /** FMP inner header inside the AEAD. */
    public static final int FMP_INNER_HEADER = 5;
    /** SessionDatagram body after its msg_type. */
    public static final int SESSION_DATAGRAM_BODY = 35;
    /** FSP header (authenticated, clear). */
    public static final int FSP_HEADER = 12;
    /** FSP inner header inside the AEAD. */
    public static final int FSP_INNER_HEADER = 6;
    /** One Poly1305 tag. */
    public static final int AEAD_TAG = 16;
    /** Base overhead of a DataPacket, excluding its port payload (the reference's {@code FIPS_OVERHEAD}). */
    public static final int FIPS_OVERHEAD = FMP_OUTER_HEADER + FMP_INNER_HEADER + SESSION_DATAGRAM_BODY + FSP_HEADER
            + FSP_INNER_HEADER + AEAD_TAG + AEAD_TAG;
    /** DataPacket port header (src_port + dst_port). */
    public static final int PORT_HEADER = 4;
    /** Shim header (format + 6 residual bytes). */
    public static final int SHIM_HEADER = 7;
    /** Fixed IPv6 header. */
    public static final int IPV6_HEADER = 40;
    /** Fixed TCP header (no options). */
    public static final int TCP_HEADER = 20;
    /** Overhead for an IPv6 packet through the port-256 shim (the reference's {@code FIPS_IPV6_OVERHEAD}). */
    public static final int FIPS_IPV6_OVERHEAD = FIPS_OVERHEAD + PORT_HEADER + SHIM_HEADER - IPV6_HEADER;
    /** The IPv6 minimum link MTU (RFC 8200). */
    public static final int IPV6_MIN_MTU = 1280;
    /** Largest ICMPv6 error packet (it must fit the IPv6 minimum MTU). */
    public static final int ICMPV6_ERROR_MAX = IPV6_MIN_MTU;
    /** The MSS ceiling for a destination whose path MTU is unknown: {@code 1280 - 77 - 60 = 1143}. */
    public static final int CONSERVATIVE_MAX_MSS = IPV6_MIN_MTU - FIPS_IPV6_OVERHEAD - IPV6_HEADER - TCP_HEADER;

    private EncapsulationBudget() {
    }

    /**
     * The largest IPv6 packet (header included) that fits a transport MTU after encapsulation:
     * {@code max(0, mtu - 77)}, with {@code mtu} capped at 65535 (it is a u16 on the wire).
     */
    public static int effectiveIpv6Mtu(final int transportMtu) {
        return Math.max(0, Math.min(transportMtu, 0xFFFF) - FIPS_IPV6_OVERHEAD);
    }

    /**
     * The largest TCP MSS for a transport or path MTU: {@code max(0, effectiveIpv6Mtu(mtu) - 40 - 20)}
     * (each subtraction saturating at 0, as the reference).
     */
    public static int maxMss(final int mtu) {
        return Math.max(0, effectiveIpv6Mtu(mtu) - IPV6_HEADER - TCP_HEADER);
    }

    /**
     * The per-flow MSS ceiling: {@code min(globalMaxMss, maxMss(pathMtu))} when a path MTU is known for the peer
     * address, else {@code min(globalMaxMss, 1143)}.
     *
     * @param globalMaxMss {@link #maxMss} of the local transport MTU
     * @param pathMtu      the learned path MTU (bytes on the wire) for the flow's FIPS peer address, or a negative
     *                     value when none is known (or the address is not a FIPS address)
     */
    public static int perFlowMaxMss(final int globalMaxMss, final int pathMtu) {
        return Math.min(globalMaxMss, pathMtu < 0 ? CONSERVATIVE_MAX_MSS : maxMss(pathMtu));
    }
}
