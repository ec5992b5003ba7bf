package net.fips.dataplane.udp;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

import net.fips.dataplane.transport.TransportAddr;

/**
 * Parses UDP transport address text: {@code "1.2.3.4:2121"}, {@code "[2001:db8::1]:2121"},
 * {@code "[fe80::1%eth0]:2121"} or {@code "host.name:2121"} (resolved through the JDK resolver). Errors name the text
 * and what is wrong with it.
 */
public final class UdpAddresses {
    private UdpAddresses() {
    }

    /**
     * @param text address text
     * @return the resolved socket address
     * @throws UdpTransportException if the text is malformed, the port is out of range or the host does not resolve
     */
    public static InetSocketAddress parse(final String text) throws UdpTransportException {
        final HostPort hp = split(text);
        final String host = hp.host();
        try {
            // In brackets the JDK takes it as an IPv6 literal or fails, never asking a name server.
            return new InetSocketAddress(InetAddress.getByName(hp.bracketed() ? "[" + host + "]" : host), hp.port());
        } catch (final UnknownHostException e) {
            throw new UdpTransportException("UDP address '" + text + "': host '" + host + "' does not resolve", e);
        } catch (final SecurityException | IllegalArgumentException e) {
            throw new UdpTransportException("UDP address '" + text + "': " + e.getMessage(), e);
        }
    }

    /**
     * Whether {@link #parse} would have to look the host up (a name, not an IP literal): a lookup can block for
     * seconds, so event-loop threads do it elsewhere.
     *
     * @param text address text
     * @return true for a well-formed {@code name:port}; false for an IP literal and for malformed text (whose
     *         {@link #parse} fails at once, without a lookup)
     */
    public static boolean needsLookup(final String text) {
        final HostPort hp;
        try {
            hp = split(text);
        } catch (final UdpTransportException e) {
            return false;
        }
        return !hp.bracketed() && !isIpv4Literal(hp.host());
    }

    private static boolean isIpv4Literal(final String host) {
        int parts = 0;
        int digits = 0;
        for (int i = 0; i < host.length(); i++) {
            final char c = host.charAt(i);
            if (c == '.') {
                if (digits == 0) {
                    return false;
                }
                parts++;
                digits = 0;
            } else if (c >= '0' && c <= '9' && digits < 3) {
                digits++;
            } else {
                return false;
            }
        }
        return digits > 0 && parts == 3;
    }

    /** Address text taken apart (no lookup): the host as written, without brackets, and the port. */
    private record HostPort(String host, boolean bracketed, int port) {
    }

    /** The port text of well-formed address text, checked. */
    private static int port(final String text, final String portText) throws UdpTransportException {
        final int port;
        try {
            port = Integer.parseInt(portText);
        } catch (final NumberFormatException e) {
            throw new UdpTransportException("UDP address '" + text + "': port '" + portText + "' is not a number");
        }
        if (port < 0 || port > 65535) {
            throw new UdpTransportException("UDP address '" + text + "': port " + port + " is out of range 0-65535");
        }
        return port;
    }

    private static HostPort split(final String text) throws UdpTransportException {
        if (text == null || text.isBlank()) {
            throw new UdpTransportException("UDP address is empty");
        }
        final String host;
        final String portText;
        if (text.startsWith("[")) {
            final int close = text.indexOf(']');
            if (close < 0 || close + 1 >= text.length() || text.charAt(close + 1) != ':') {
                throw new UdpTransportException("UDP address '" + text + "' is not of the form [ipv6]:port");
            }
            host = text.substring(1, close);
            portText = text.substring(close + 2);
            if (host.indexOf(':') < 0) {
                throw new UdpTransportException("UDP address '" + text + "': '" + host + "' in brackets is not IPv6");
            }
        } else {
            final int colon = text.lastIndexOf(':');
            if (colon <= 0 || colon == text.length() - 1) {
                throw new UdpTransportException("UDP address '" + text + "' has no host:port");
            }
            if (text.indexOf(':') != colon) {
                throw new UdpTransportException("UDP address '" + text + "': put IPv6 addresses in brackets, "
                        + "as in [::1]:2121");
            }
            host = text.substring(0, colon);
            portText = text.substring(colon + 1);
        }
        return new HostPort(host, text.startsWith("["), port(text, portText));
    }

    /**
     * Formats like the reference does: {@code ip:port} or {@code [ipv6]:port}.
     *
     * @param address a resolved socket address
     * @return its text
     */
    public static String format(final InetSocketAddress address) {
        return TransportAddr.inetText(address);
    }
}
