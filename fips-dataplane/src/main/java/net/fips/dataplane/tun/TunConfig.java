package net.fips.dataplane.tun;

import java.net.Inet6Address;
import java.util.Objects;

/**
 * Settings for {@link TunDevice#open}: the {@code tun.*} keys (operator.md §1.11) plus the node's FIPS address and
 * two knobs tests and unusual hosts need. Checked by {@link TunDevice#open}, which reports problems as
 * {@link TunException.Reason#INVALID_CONFIG}.
 *
 * @param name            interface name (default {@value #NAME_DEFAULT}); 1-15 ASCII bytes
 * @param mtu             device MTU (default {@value #MTU_DEFAULT}; at least 1280, the IPv6 minimum)
 * @param address         the node's FIPS address ({@code 0xfd ‖ node_addr[0..15]}), assigned as a /128
 * @param devicePath      the TUN clone device (default {@value #DEVICE_PATH_DEFAULT})
 * @param replaceExisting delete an existing interface of that name first, as the reference does (default true);
 *                        when false an existing interface is {@link TunException.Reason#NAME_IN_USE}
 * @param policyRule      add the reference's {@code to fd00::/8 lookup main priority 5265} rule, failure ignored
 *                        (default true)
 * @param offload         ask for the virtio-net header and TCP segmentation offloads ({@code IFF_VNET_HDR},
 *                        {@code TUNSETOFFLOAD}); the device falls back to plain packets when the kernel refuses
 *                        (default false here; the node's {@code tun.offload: auto} turns it on)
 */
public record TunConfig(String name, int mtu, Inet6Address address, String devicePath, boolean replaceExisting,
                        boolean policyRule, boolean offload) {
    /** Default interface name. */
    public static final String NAME_DEFAULT = "fips0";
    /** Default MTU. */
    public static final int MTU_DEFAULT = 1280;
    /** The smallest MTU IPv6 runs on. */
    public static final int MTU_MIN = 1280;
    /** The largest MTU ({@code tun.mtu} is a u16). */
    public static final int MTU_MAX = 65535;
    /** Default TUN clone device. */
    public static final String DEVICE_PATH_DEFAULT = "/dev/net/tun";

    /** Null checks only; the values are validated by {@link TunDevice#open}. */
    public TunConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(devicePath, "devicePath");
    }

    /**
     * @param address the node's FIPS address
     * @return the defaults: {@code fips0}, MTU 1280, {@code /dev/net/tun}, replace existing, policy rule on,
     *         offloads off
     */
    public static TunConfig of(final Inet6Address address) {
        return new TunConfig(NAME_DEFAULT, MTU_DEFAULT, address, DEVICE_PATH_DEFAULT, true, true, false);
    }

    /** @return a copy with another interface name */
    public TunConfig withName(final String newName) {
        return new TunConfig(newName, mtu, address, devicePath, replaceExisting, policyRule, offload);
    }

    /** @return a copy with another MTU */
    public TunConfig withMtu(final int newMtu) {
        return new TunConfig(name, newMtu, address, devicePath, replaceExisting, policyRule, offload);
    }

    /** @return a copy with another clone-device path */
    public TunConfig withDevicePath(final String newPath) {
        return new TunConfig(name, mtu, address, newPath, replaceExisting, policyRule, offload);
    }

    /** @return a copy that does or does not replace an existing interface of the same name */
    public TunConfig withReplaceExisting(final boolean replace) {
        return new TunConfig(name, mtu, address, devicePath, replace, policyRule, offload);
    }

    /** @return a copy with the policy rule on or off */
    public TunConfig withPolicyRule(final boolean rule) {
        return new TunConfig(name, mtu, address, devicePath, replaceExisting, rule, offload);
    }

    /** @return a copy with the offloads requested or not */
    public TunConfig withOffload(final boolean on) {
        return new TunConfig(name, mtu, address, devicePath, replaceExisting, policyRule, on);
    }
}
