package net.fips.control.config;

import java.util.Objects;

import net.fips.dataplane.ethernet.MacAddress;

/**
 * An Ethernet peer address as config and the control socket write it, {@code "<iface>/aa:bb:cc:dd:ee:ff"}
 * (transports.md §4.5): the interface names the Ethernet instance, the MAC is the transport address.
 *
 * @param interfaceName the interface
 * @param mac           the MAC, low 48 bits
 */
public record EthernetAddress(String interfaceName, long mac) {
    /** Checks nullness. */
    public EthernetAddress {
        Objects.requireNonNull(interfaceName, "interfaceName");
    }

    /**
     * @throws IllegalArgumentException naming the text unless it is {@code iface/aa:bb:cc:dd:ee:ff} with a unicast MAC
     */
    public static EthernetAddress parse(final String text) {
        final int slash = text.indexOf('/');
        if (slash <= 0 || slash != text.lastIndexOf('/') || slash > 15) {
            throw new IllegalArgumentException("expected an Ethernet address \"<interface>/aa:bb:cc:dd:ee:ff\", got \""
                    + text + "\"");
        }
        final long mac;
        try {
            mac = MacAddress.parse(text.substring(slash + 1));
        } catch (final IllegalArgumentException e) {
            throw new IllegalArgumentException("expected an Ethernet address \"<interface>/aa:bb:cc:dd:ee:ff\", got \""
                    + text + "\"", e);
        }
        if (MacAddress.isGroup(mac)) {
            throw new IllegalArgumentException("Ethernet peer address " + text + " is a broadcast/multicast MAC");
        }
        return new EthernetAddress(text.substring(0, slash), mac);
    }

    @Override
    public String toString() {
        return interfaceName + "/" + MacAddress.format(mac);
    }
}
