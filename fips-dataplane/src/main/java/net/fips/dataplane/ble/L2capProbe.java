package net.fips.dataplane.ble;

import net.fips.ffm.linux.L2cap;
import net.fips.ffm.Errno;

/**
 * Whether this kernel makes L2CAP CoC sockets, for the control plane's start-time check of a BLE instance
 * (transports.md §1.4).
 *
 * @param available   {@code socket(AF_BLUETOOTH, SOCK_SEQPACKET, BTPROTO_L2CAP)} worked
 * @param noKernel    the kernel has no Bluetooth at all (EAFNOSUPPORT)
 * @param description one operator-facing sentence
 */
public record L2capProbe(boolean available, boolean noKernel, String description) {
    /** What a kernel without CONFIG_BT answers. */
    public static final L2capProbe NO_KERNEL_SUPPORT = of(new L2cap.Probe(L2cap.Support.NO_KERNEL_SUPPORT,
            Errno.EAFNOSUPPORT));
    /** A kernel that made the socket. */
    public static final L2capProbe AVAILABLE = of(new L2cap.Probe(L2cap.Support.AVAILABLE, 0));

    /** @return the probe of this host's kernel (opens and closes one socket) */
    public static L2capProbe run() {
        return of(L2cap.probe());
    }

    private static L2capProbe of(final L2cap.Probe p) {
        return new L2capProbe(p.support() == L2cap.Support.AVAILABLE, p.support() == L2cap.Support.NO_KERNEL_SUPPORT,
                p.describe());
    }
}
