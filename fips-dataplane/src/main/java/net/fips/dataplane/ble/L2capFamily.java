package net.fips.dataplane.ble;

import java.lang.foreign.MemorySegment;
import java.util.Locale;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.L2cap;
import net.fips.ffm.linux.Syscalls;

/**
 * The L2CAP CoC recipe of transports.md §5.2 behind {@link SeqPacketFamily}. Transport addresses are
 * {@code "<adapter>/AA:BB:CC:DD:EE:FF"} (§5.7); a suffix {@code "/random"} selects the LE random address type
 * (a compatible extension for peers BlueZ reports with {@code AddressType = random}).
 */
public final class L2capFamily implements SeqPacketFamily {
    private final String adapter;
    private final byte[] ownAddress;
    private final int psm;
    private final int mtu;

    /**
     * @param adapter    the adapter name used in addresses, e.g. {@code hci0}
     * @param ownAddress the adapter's address (from BlueZ), which the listener binds
     * @param psm        the PSM
     * @param mtu        the receive MTU to request
     */
    public L2capFamily(final String adapter, final String ownAddress, final int psm, final int mtu) {
        this.adapter = adapter;
        this.ownAddress = L2cap.parseAddress(ownAddress);
        this.psm = psm;
        this.mtu = mtu;
    }

    /** @return {@code adapter/AA:BB:..} for a printed-order address */
    public String format(final byte[] bdaddr) {
        return adapter + "/" + L2cap.formatAddress(bdaddr);
    }

    /**
     * Parses {@code "<adapter>/AA:BB:CC:DD:EE:FF"} (case-insensitive), optionally followed by {@code /random}.
     *
     * @return {address bytes (6), type byte (1)} as a 7-byte array
     * @throws IllegalArgumentException naming the text
     */
    public static byte[] parse(final String address) {
        final String[] parts = address.split("/", -1);
        if (parts.length < 2 || parts.length > 3 || parts[0].isEmpty()
                || parts.length == 3 && !"random".equals(parts[2].toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("expected a BLE address adapter/AA:BB:CC:DD:EE:FF, got \"" + address
                    + "\"");
        }
        final byte[] b = L2cap.parseAddress(parts[1]);
        final byte[] out = new byte[7];
        System.arraycopy(b, 0, out, 0, 6);
        out[6] = (byte) (parts.length == 3 ? L2cap.BDADDR_LE_RANDOM : L2cap.BDADDR_LE_PUBLIC);
        return out;
    }

    private void prepare(final int fd) throws ErrnoException {
        L2cap.setRecvMtu(fd, mtu);
        L2cap.forceActive(fd); // errors ignored, as the reference does
    }

    @Override
    public int connect(final String address) throws ErrnoException {
        final byte[] a = parse(address);
        final byte[] bd = Arrays.copyOf(a, 6);
        final int fd = L2cap.openSocket();
        try {
            L2cap.bind(fd, 0, new byte[6], L2cap.BDADDR_LE_PUBLIC);
            prepare(fd);
            L2cap.connect(fd, psm, bd, a[6]);
            return fd;
        } catch (final ErrnoException | RuntimeException e) {
            Syscalls.closeQuietly(fd);
            throw e;
        }
    }

    @Override
    public int listen() throws ErrnoException {
        final int fd = L2cap.openSocket();
        try {
            L2cap.bind(fd, psm, ownAddress, L2cap.BDADDR_LE_PUBLIC);
            Syscalls.listen(fd, 1, L2cap.formatAddress(ownAddress) + " psm 0x" + Integer.toHexString(psm));
            prepare(fd);
            return fd;
        } catch (final ErrnoException | RuntimeException e) {
            Syscalls.closeQuietly(fd);
            throw e;
        }
    }

    @Override
    public int sockaddrSize() {
        return L2cap.SOCKADDR_SIZE;
    }

    @Override
    public String acceptedAddress(final MemorySegment sockaddr, final int length) {
        final String base = format(L2cap.decodeAddress(sockaddr));
        return L2cap.decodeAddressType(sockaddr) == L2cap.BDADDR_LE_RANDOM ? base + "/random" : base;
    }

    /** Source bytes: the 6 address bytes in printed order, then the address type. */
    @Override
    public int encodeSource(final String address, final MemorySegment dst) {
        final byte[] a = parse(address);
        MemorySegment.copy(a, 0, dst, ValueLayout.JAVA_BYTE, 0, 7);
        return 7;
    }

    @Override
    public String decodeSource(final MemorySegment src, final long off, final int len) {
        if (len != 7) {
            return adapter + "/?";
        }
        final byte[] b = src.asSlice(off, 6).toArray(ValueLayout.JAVA_BYTE);
        final String base = format(b);
        return src.get(ValueLayout.JAVA_BYTE, off + 6) == L2cap.BDADDR_LE_RANDOM
                ? base + "/random" : base;
    }

    @Override
    public int sendMtu(final int fd) {
        return L2cap.mtuOption(fd, L2cap.BT_SNDMTU);
    }

    @Override
    public int recvMtu(final int fd) {
        return L2cap.mtuOption(fd, L2cap.BT_RCVMTU);
    }
}
