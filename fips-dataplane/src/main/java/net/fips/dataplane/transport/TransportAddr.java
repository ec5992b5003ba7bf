package net.fips.dataplane.transport;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A transport address: an opaque, immutable byte string with value equality (transports.md §1.1). UDP, TCP, Tor,
 * Nym and BLE hold UTF-8 text ({@code "ip:port"}, {@code "[v6]:port"}, {@code "host:port"}, {@code "x.onion:port"},
 * {@code "hci0/AA:BB:CC:DD:EE:FF"}); Ethernet holds the 6 raw MAC bytes.
 *
 * <p>Display ({@link #toString()}) follows the reference: valid UTF-8 is shown as is, any other 6 bytes as
 * {@code aa:bb:cc:dd:ee:ff}, anything else as bare lowercase hex.
 *
 * <p>Control-path type: it allocates; the data plane's per-packet paths use {@link TransportDestination}s instead.
 */
public final class TransportAddr {
    /** The length of a MAC address. */
    public static final int MAC_BYTES = 6;

    private final byte[] bytes;
    private final int hash;

    private TransportAddr(final byte[] bytes) {
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
    }

    /** @return an address holding a copy of {@code bytes} */
    public static TransportAddr of(final byte[] bytes) {
        return new TransportAddr(bytes.clone());
    }

    /** @return an address holding the UTF-8 bytes of {@code text} */
    public static TransportAddr ofText(final String text) {
        return new TransportAddr(text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * @param mac exactly 6 bytes
     * @return the Ethernet address form
     */
    public static TransportAddr ofMac(final byte[] mac) {
        if (mac.length != MAC_BYTES) {
            throw new IllegalArgumentException("a MAC address has 6 bytes, not " + mac.length);
        }
        return new TransportAddr(mac.clone());
    }

    /**
     * The text form of a socket address, as the UDP transport has always formatted it (see {@link #inetText}).
     */
    public static TransportAddr ofInet(final InetSocketAddress address) {
        return ofText(inetText(address));
    }

    /**
     * @return the text {@link #ofInet} holds: {@code ip:port}, {@code [v6]:port} (the JDK's uncompressed IPv6 text,
     *         with {@code %scope} when there is one) or, unresolved, {@code host:port}
     */
    public static String inetText(final InetSocketAddress address) {
        Objects.requireNonNull(address, "address");
        final InetAddress ip = address.getAddress();
        if (ip == null) {
            return address.getHostString() + ":" + address.getPort();
        }
        final String h = ip.getHostAddress();
        return (h.indexOf(':') >= 0 ? "[" + h + "]" : h) + ":" + address.getPort();
    }

    /** @return a copy of the bytes */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** @return the number of bytes */
    public int length() {
        return bytes.length;
    }

    /** @return the bytes as UTF-8 text, or null when they are not valid UTF-8 */
    public String text() {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (final CharacterCodingException e) {
            return null;
        }
    }

    /** @return whether this is 6 bytes that could be a MAC address */
    public boolean isMacSized() {
        return bytes.length == MAC_BYTES;
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof TransportAddr t && t.hash == hash && Arrays.equals(t.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    /** The reference's display rule: UTF-8 as is; 6 other bytes as a MAC; else hex. */
    @Override
    public String toString() {
        final String text = text();
        if (text != null) {
            return text;
        }
        if (bytes.length == MAC_BYTES) {
            return HexFormat.ofDelimiter(":").formatHex(bytes);
        }
        return HexFormat.of().formatHex(bytes);
    }
}
