package net.fips.control.config;

import java.util.regex.Pattern;

/** Syntax checks for the address strings of the schema; no name resolution happens here. */
final class SocketAddresses {
    private static final Pattern IPV4 = Pattern.compile(
            "^(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}$");
    private static final Pattern IPV6 = Pattern.compile("^[0-9A-Fa-f:.]+(%[A-Za-z0-9_.-]+)?$");
    private static final Pattern HOSTNAME = Pattern.compile(
            "^(?=.{1,253}$)[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(\\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}"
                    + "[A-Za-z0-9_])?)*\\.?$");

    /** A parsed {@code host:port}. */
    record HostPort(String host, int port, boolean literal) {
    }

    private SocketAddresses() {
    }

    /**
     * @param text {@code a.b.c.d:port} or {@code [v6]:port}, as Rust's SocketAddr parses it (port 0 allowed)
     * @return the parts, or null when it is not such a literal
     */
    static HostPort parseLiteral(final String text) {
        final HostPort hp = split(text, 0);
        return hp != null && hp.literal() ? hp : null;
    }

    /**
     * @param text {@code host:port} with a DNS name or IP literal and a port in 1..65535
     * @return the parts, or null
     */
    static HostPort parseHostPort(final String text) {
        final HostPort hp = split(text, 1);
        if (hp == null) {
            return null;
        }
        return hp.literal() || HOSTNAME.matcher(hp.host()).matches() ? hp : null;
    }

    private static HostPort split(final String text, final int minPort) {
        final String host;
        final String port;
        final boolean v6;
        if (text.startsWith("[")) {
            final int end = text.indexOf(']');
            if (end < 0 || end + 1 >= text.length() || text.charAt(end + 1) != ':') {
                return null;
            }
            host = text.substring(1, end);
            port = text.substring(end + 2);
            v6 = true;
        } else {
            final int colon = text.lastIndexOf(':');
            if (colon <= 0 || text.indexOf(':') != colon) {
                return null;
            }
            host = text.substring(0, colon);
            port = text.substring(colon + 1);
            v6 = false;
        }
        if (port.isEmpty() || port.length() > 5 || !port.chars().allMatch(Character::isDigit)) {
            return null;
        }
        final int p = Integer.parseInt(port);
        if (p < minPort || p > 0xFFFF) {
            return null;
        }
        final boolean literal = v6 ? host.contains(":") && IPV6.matcher(host).matches()
                : IPV4.matcher(host).matches();
        if (v6 && !literal) {
            return null;
        }
        return new HostPort(host, p, literal);
    }

    /**
     * The reference's textual loopback test: {@code 127.*}, {@code ::1} (bracketed or not) or {@code localhost};
     * names are assumed not to be loopback.
     */
    static boolean isLoopback(final String addr) {
        if (addr.startsWith("[")) {
            final int end = addr.indexOf(']');
            return end > 0 && "::1".equals(addr.substring(1, end));
        }
        final int colon = addr.lastIndexOf(':');
        final String host = colon >= 0 ? addr.substring(0, colon) : addr;
        return "localhost".equals(host) || "::1".equals(host) || "0:0:0:0:0:0:0:1".equals(host)
                || host.startsWith("127.");
    }
}
