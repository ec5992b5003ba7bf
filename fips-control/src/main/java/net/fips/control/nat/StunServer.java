package net.fips.control.nat;

/**
 * One entry of {@code stun_servers} as the reference reads it (discovery-gateway.md §2.2): an optional {@code stun:}
 * prefix, then host and port split at the last colon; brackets around an IPv6 literal are stripped for resolution.
 *
 * @param host the host name or IP literal, without brackets
 * @param port the port as written (any u16: the reference accepts 0 too)
 */
public record StunServer(String host, int port) {

    /**
     * @param text the configured string
     * @return the server
     * @throws IllegalArgumentException naming what is wrong ({@code stuns:}/{@code turn:} schemes, no port, a port
     *                                  that is not a u16, an empty host); the caller skips that server
     */
    public static StunServer parse(final String text) {
        String s = text.strip();
        if (s.startsWith("stun:")) {
            s = s.substring("stun:".length());
        } else if (s.startsWith("stuns:") || s.startsWith("turn:") || s.startsWith("turns:")) {
            throw new IllegalArgumentException("STUN server '" + text + "': only plain stun: is supported");
        }
        final int colon = s.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("STUN server '" + text + "' names no port (host:port)");
        }
        String host = s.substring(0, colon);
        final String portText = s.substring(colon + 1);
        final int port;
        try {
            port = Integer.parseInt(portText);
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException(
                    "STUN server '" + text + "': port '" + portText + "' is not a number", e);
        }
        if (port < 0 || port > 0xffff || !portText.chars().allMatch(Character::isDigit)) {
            throw new IllegalArgumentException("STUN server '" + text + "': port " + portText + " is not 0-65535");
        }
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("STUN server '" + text + "' names no host");
        }
        return new StunServer(host, port);
    }
}
