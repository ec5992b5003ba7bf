package net.fips.dataplane.ble;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.Syscalls;
import net.fips.ffm.linux.UnixSeqPacket;

/**
 * AF_UNIX SOCK_SEQPACKET in place of L2CAP (transports.md §8.6 item 2). A node's address is its listener's abstract
 * name; outbound sockets bind {@code <name>#<n>} so the accepting side sees the same address the node listens on,
 * as a Bluetooth peer's bdaddr is the same both ways. The MTUs stand in for BT_SNDMTU/BT_RCVMTU.
 */
public final class UnixFamily implements SeqPacketFamily {
    private static final AtomicInteger SEQ = new AtomicInteger();
    final String name;
    final int sendMtu;
    final int recvMtu;

    public UnixFamily(final String name, final int sendMtu, final int recvMtu) {
        this.name = name;
        this.sendMtu = sendMtu;
        this.recvMtu = recvMtu;
    }

    @Override
    public int connect(final String address) throws ErrnoException {
        final int fd = UnixSeqPacket.open();
        try {
            UnixSeqPacket.bind(fd, name + "#" + SEQ.incrementAndGet());
            UnixSeqPacket.connect(fd, address);
            return fd;
        } catch (final ErrnoException | RuntimeException e) {
            Syscalls.closeQuietly(fd);
            throw e;
        }
    }

    @Override
    public int listen() throws ErrnoException {
        return UnixSeqPacket.listen(name, 4);
    }

    @Override
    public int sockaddrSize() {
        return UnixSeqPacket.sockaddrSize();
    }

    @Override
    public String acceptedAddress(final MemorySegment sockaddr, final int length) {
        final String n = UnixSeqPacket.decodeAbstractName(sockaddr, length);
        final int hash = n.indexOf('#');
        return hash < 0 ? n : n.substring(0, hash);
    }

    @Override
    public int encodeSource(final String address, final MemorySegment dst) {
        final byte[] b = address.getBytes(StandardCharsets.UTF_8);
        MemorySegment.copy(b, 0, dst, ValueLayout.JAVA_BYTE, 0, b.length);
        return b.length;
    }

    @Override
    public String decodeSource(final MemorySegment src, final long off, final int len) {
        return new String(src.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE),
                StandardCharsets.UTF_8);
    }

    @Override
    public int sendMtu(final int fd) {
        return sendMtu;
    }

    @Override
    public int recvMtu(final int fd) {
        return recvMtu;
    }
}
