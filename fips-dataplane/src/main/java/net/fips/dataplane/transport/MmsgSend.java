package net.fips.dataplane.transport;

import net.fips.ffm.Errno;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.MmsgVector;
import net.fips.ffm.linux.Syscalls;

/**
 * The {@code sendmmsg} loop the batched datagram transports share (UDP, Ethernet): sends the prepared messages
 * {@code 0..m-1} of one {@link MmsgVector}, resuming after partial sends; on EAGAIN waits up to the send timeout for
 * room, then drops the rest; on ENOBUFS/ENOMEM yields and retries up to {@value #ENOBUFS_RETRIES} times, then drops
 * the rest; a hard error (EMSGSIZE, ENXIO, ENETDOWN, ...) belongs to the first unsent message, which is skipped.
 *
 * <p>What happened is read back after each {@link #send} ({@link #eagain()}, {@link #enobufs()}, {@link #errors()},
 * {@link #drops()}, {@link #bytes()}) so each transport counts it under its own names. Owned by one thread; nothing
 * allocates.
 */
public final class MmsgSend {
    /** ENOBUFS/ENOMEM retries before the rest of a batch is dropped. */
    public static final int ENOBUFS_RETRIES = 64;

    private final CallState cs;
    private final MmsgVector vec;
    private final SocketWait wait;
    private final int sendTimeoutMs;
    private int eagain;
    private int enobufs;
    private int errors;
    private int drops;
    private int calls;
    private long bytes;

    /**
     * @param cs            the owning thread's call state
     * @param vec           the messages; the caller fills entries {@code 0..m-1} before each {@link #send}
     * @param wait          the owning thread's waits
     * @param sendTimeoutMs how long EAGAIN waits for room (0: drop at once)
     */
    public MmsgSend(final CallState cs, final MmsgVector vec, final SocketWait wait, final int sendTimeoutMs) {
        this.cs = cs;
        this.vec = vec;
        this.wait = wait;
        this.sendTimeoutMs = sendTimeoutMs;
    }

    /** @return the message vector the caller fills */
    public MmsgVector vector() {
        return vec;
    }

    /**
     * Sends messages {@code 0..m-1}.
     *
     * @return messages the kernel accepted
     */
    public int send(final int sock, final int m) {
        eagain = 0;
        enobufs = 0;
        errors = 0;
        drops = 0;
        calls = 0;
        bytes = 0;
        int done = 0;
        int retries = 0;
        int sent = 0;
        while (done < m) {
            final int rc = Syscalls.sendmmsg(cs, sock, vec.from(done), m - done, 0);
            calls++;
            if (rc > 0) {
                for (int t = done; t < done + rc; t++) {
                    bytes += vec.messageLength(t);
                }
                sent += rc;
                done += rc;
                retries = 0;
            } else if (rc == Errno.EAGAIN_NEGATIVE) {
                eagain++;
                if (sendTimeoutMs == 0 || !wait.writable(sock, sendTimeoutMs)) {
                    drops += m - done;
                    break;
                }
            } else if (rc == Errno.ENOBUFS_NEGATIVE || rc == -Errno.ENOMEM) {
                enobufs++;
                if (++retries > ENOBUFS_RETRIES) {
                    drops += m - done;
                    break;
                }
                Thread.yield();
            } else if (rc != Errno.EINTR_NEGATIVE) {
                errors++;
                done++;
            }
        }
        return sent;
    }

    /** @return EAGAIN answers during the last {@link #send} */
    public int eagain() {
        return eagain;
    }

    /** @return ENOBUFS/ENOMEM answers during the last {@link #send} */
    public int enobufs() {
        return enobufs;
    }

    /** @return messages skipped for a hard error during the last {@link #send} */
    public int errors() {
        return errors;
    }

    /** @return messages dropped unsent (no room within the timeout, or ENOBUFS retries spent) in the last send */
    public int drops() {
        return drops;
    }

    /** @return sendmmsg calls made during the last {@link #send} */
    public int calls() {
        return calls;
    }

    /** @return bytes of the messages the kernel accepted in the last {@link #send} */
    public long bytes() {
        return bytes;
    }
}
