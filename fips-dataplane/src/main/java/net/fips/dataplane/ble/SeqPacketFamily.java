package net.fips.dataplane.ble;

import java.lang.foreign.MemorySegment;

import net.fips.ffm.ErrnoException;

/**
 * How {@link BleConnections} opens its SOCK_SEQPACKET sockets: L2CAP CoC in production ({@link L2capFamily}), or
 * AF_UNIX in tests, where there is no Bluetooth (transports.md §8.6 item 2). Everything else (poll, accept4, send,
 * recv, the key exchange, the pool) is the same code for both.
 */
public interface SeqPacketFamily {
    /** @return a non-blocking socket whose connect to {@code address} has been started (or has completed) */
    int connect(String address) throws ErrnoException;

    /** @return a non-blocking listening socket */
    int listen() throws ErrnoException;

    /** @return bytes of the address buffer accept4 needs */
    int sockaddrSize();

    /** @return the transport address of an accepted peer from the sockaddr accept4 wrote */
    String acceptedAddress(MemorySegment sockaddr, int length);

    /**
     * Writes the source bytes the data plane keeps for a packet from {@code address} (at most
     * {@code TransportPort.SOURCE_MAX_BYTES}).
     *
     * @return bytes written
     */
    int encodeSource(String address, MemorySegment dst);

    /** @return the address whose source bytes are {@code src[off..off+len)} */
    String decodeSource(MemorySegment src, long off, int len);

    /** @return the channel's send MTU, or {@code -errno} */
    int sendMtu(int fd);

    /** @return the channel's receive MTU, or {@code -errno} */
    int recvMtu(int fd);
}
