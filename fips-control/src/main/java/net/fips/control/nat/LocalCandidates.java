package net.fips.control.nat;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ProtocolFamily;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.UnknownHostException;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.List;

import net.fips.control.identity.FipsAddress;

/**
 * Our host candidates for an attempt's offer or answer ({@code share_local_candidates}, discovery-gateway.md §2.3):
 * every address of an up, non-loopback interface that is RFC 1918 IPv4 or unique-local IPv6 ({@code fc00::/7},
 * which includes the node's own {@code fips0} address, as in the reference), then the source address the kernel
 * would pick towards {@link #PROBE_V4} and towards {@link #PROBE_V6} (a UDP {@code connect}, which sends nothing;
 * it may be a public address and is absent without a route); unspecified addresses dropped, each address once
 * (scope ids removed), each paired with the attempt socket's port. The interface list and the route lookup are
 * injected so tests drive them; {@link #system()} reads the host's.
 */
public final class LocalCandidates {
    /** The IPv4 destination whose route gives our default source address (the reference's 8.8.8.8:80). */
    public static final InetSocketAddress PROBE_V4 = new InetSocketAddress(literal("8.8.8.8"), 80);
    /** The IPv6 destination whose route gives our default source address. */
    public static final InetSocketAddress PROBE_V6 = new InetSocketAddress(literal("2001:4860:4860::8888"), 80);

    /**
     * One address of one interface.
     *
     * @param interfaceName the interface, for diagnostics
     * @param up            whether the interface is up
     * @param loopback      whether it is a loopback interface
     * @param address       the address
     */
    public record InterfaceAddress(String interfaceName, boolean up, boolean loopback, InetAddress address) {
    }

    /** Lists the host's interface addresses. */
    @FunctionalInterface
    public interface Interfaces {
        /**
         * @return every address of every interface, in the system's order
         * @throws IOException when the list cannot be read (no interface candidates then)
         */
        List<InterfaceAddress> list() throws IOException;
    }

    /** The kernel's route lookup. */
    @FunctionalInterface
    public interface RouteProbe {
        /**
         * @param destination where a datagram would go
         * @return the source address the kernel would use, or null when there is no route
         */
        InetAddress sourceTowards(InetSocketAddress destination);
    }

    private final Interfaces interfaces;
    private final RouteProbe routes;

    /**
     * @param interfaces the interface enumeration
     * @param routes     the route lookup
     */
    public LocalCandidates(final Interfaces interfaces, final RouteProbe routes) {
        this.interfaces = interfaces;
        this.routes = routes;
    }

    /** @return candidates from the host's interfaces ({@link NetworkInterface}) and its routing table */
    public static LocalCandidates system() {
        return new LocalCandidates(LocalCandidates::systemInterfaces, LocalCandidates::systemRoute);
    }

    /**
     * @param port the attempt socket's port
     * @return the candidates, in the order above
     */
    public List<InetSocketAddress> collect(final int port) {
        final List<InetAddress> ips = new ArrayList<>();
        List<InterfaceAddress> all;
        try {
            all = interfaces.list();
        } catch (final IOException e) {
            all = List.of();
        }
        for (final InterfaceAddress a : all) {
            if (a.up() && !a.loopback() && a.address() != null && isPrivateCandidate(a.address())) {
                add(ips, a.address());
            }
        }
        for (final InetSocketAddress probe : List.of(PROBE_V4, PROBE_V6)) {
            final InetAddress source = routes.sourceTowards(probe);
            if (source != null) {
                add(ips, source);
            }
        }
        final List<InetSocketAddress> out = new ArrayList<>(ips.size());
        for (final InetAddress ip : ips) {
            out.add(new InetSocketAddress(ip, port));
        }
        return List.copyOf(out);
    }

    /**
     * @param ip an address
     * @return whether it is an interface candidate: RFC 1918 IPv4 (10/8, 172.16/12, 192.168/16) or IPv6
     *         {@code fc00::/7}; public, loopback, link-local and everything else are not
     */
    public static boolean isPrivateCandidate(final InetAddress ip) {
        final byte[] b = ip.getAddress();
        if (ip instanceof Inet4Address) {
            final int b0 = b[0] & 0xff;
            final int b1 = b[1] & 0xff;
            return b0 == 10 || b0 == 172 && b1 >= 16 && b1 <= 31 || b0 == 192 && b1 == 168;
        }
        return (b[0] & 0xfe) == 0xfc;
    }

    /**
     * @param ip an address
     * @return its text as the reference prints an IP: dotted IPv4, IPv6 in RFC 5952 form without a scope id
     */
    public static String text(final InetAddress ip) {
        return ip instanceof Inet6Address ? FipsAddress.format(ip.getAddress()) : ip.getHostAddress();
    }

    private static void add(final List<InetAddress> ips, final InetAddress ip) {
        if (ip.isAnyLocalAddress()) {
            return;
        }
        final InetAddress plain;
        try {
            plain = InetAddress.getByAddress(ip.getAddress());   // drops an IPv6 scope id
        } catch (final UnknownHostException e) {
            return;   // not reached: the length is 4 or 16
        }
        for (final InetAddress seen : ips) {
            if (Arrays.equals(seen.getAddress(), plain.getAddress())) {
                return;
            }
        }
        ips.add(plain);
    }

    private static List<InterfaceAddress> systemInterfaces() throws SocketException {
        final List<InterfaceAddress> out = new ArrayList<>();
        final Enumeration<NetworkInterface> all = NetworkInterface.getNetworkInterfaces();
        while (all != null && all.hasMoreElements()) {
            final NetworkInterface ni = all.nextElement();
            final boolean up = ni.isUp();
            final boolean loopback = ni.isLoopback();
            for (final Enumeration<InetAddress> as = ni.getInetAddresses(); as.hasMoreElements();) {
                out.add(new InterfaceAddress(ni.getName(), up, loopback, as.nextElement()));
            }
        }
        return out;
    }

    private static InetAddress systemRoute(final InetSocketAddress destination) {
        final ProtocolFamily family = destination.getAddress() instanceof Inet6Address ? StandardProtocolFamily.INET6
                : StandardProtocolFamily.INET;
        try (DatagramChannel ch = DatagramChannel.open(family)) {
            ch.connect(destination);   // a UDP connect only picks the route: no datagram is sent
            return ((InetSocketAddress) ch.getLocalAddress()).getAddress();
        } catch (final IOException | UnsupportedOperationException e) {
            return null;   // no route (offline), or no IPv6 on this host
        }
    }

    private static InetAddress literal(final String text) {
        return InetAddress.ofLiteral(text);
    }
}
