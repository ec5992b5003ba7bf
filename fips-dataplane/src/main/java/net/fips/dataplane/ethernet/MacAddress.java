package net.fips.dataplane.ethernet;

import java.util.HexFormat;

/**
 * MAC addresses as the low 48 bits of a {@code long} ({@code aa:bb:cc:dd:ee:ff} = {@code 0xaabbccddeeffL}), so
 * frames carry their source without allocating. The transport address of an Ethernet peer is these 6 bytes
 * (transports.md §1.1); config and the control socket write it {@code "<iface>/aa:bb:cc:dd:ee:ff"}.
 */
public final class MacAddress {
    /** {@code ff:ff:ff:ff:ff:ff}. */
    public static final long BROADCAST = 0xFFFF_FFFF_FFFFL;
    /** Bytes in a MAC address. */
    public static final int SIZE = 6;
    private static final long MASK = 0xFFFF_FFFF_FFFFL;

    private MacAddress() {
    }

    /** @return {@code aa:bb:cc:dd:ee:ff}, lower case */
    public static String format(final long mac) {
        final StringBuilder b = new StringBuilder(17);
        for (int i = 0; i < SIZE; i++) {
            if (i > 0) {
                b.append(':');
            }
            final int v = (int) (mac >>> (40 - 8 * i)) & 0xFF;
            b.append(Character.forDigit(v >>> 4, 16)).append(Character.forDigit(v & 0xF, 16));
        }
        return b.toString();
    }

    /**
     * Parses six colon- (or dash-) separated hex pairs.
     *
     * @throws IllegalArgumentException naming the text when it is not a MAC address
     */
    public static long parse(final String text) {
        final String[] parts = text.split("[:-]", -1);
        if (parts.length != SIZE) {
            throw new IllegalArgumentException("not a MAC address (want aa:bb:cc:dd:ee:ff): \"" + text + "\"");
        }
        long mac = 0;
        for (final String p : parts) {
            if (p.length() != 2 || Character.digit(p.charAt(0), 16) < 0 || Character.digit(p.charAt(1), 16) < 0) {
                throw new IllegalArgumentException("not a MAC address (want aa:bb:cc:dd:ee:ff): \"" + text + "\"");
            }
            mac = (mac << 8) | Integer.parseInt(p, 16);
        }
        return mac;
    }

    /** @return the 6 address bytes, most significant first */
    public static byte[] toBytes(final long mac) {
        final byte[] b = new byte[SIZE];
        for (int i = 0; i < SIZE; i++) {
            b[i] = (byte) (mac >>> (40 - 8 * i));
        }
        return b;
    }

    /**
     * @throws IllegalArgumentException unless {@code bytes} has 6 elements
     */
    public static long fromBytes(final byte[] bytes) {
        if (bytes.length != SIZE) {
            throw new IllegalArgumentException("a MAC address has 6 bytes, got " + bytes.length + ": "
                    + HexFormat.of().formatHex(bytes));
        }
        long mac = 0;
        for (final byte x : bytes) {
            mac = (mac << 8) | (x & 0xFF);
        }
        return mac;
    }

    /** @return whether the group bit is set (broadcast and multicast): never a peer's own address */
    public static boolean isGroup(final long mac) {
        return ((mac & MASK) >>> 40 & 1) == 1;
    }
}
