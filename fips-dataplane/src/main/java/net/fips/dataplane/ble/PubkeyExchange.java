package net.fips.dataplane.ble;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.function.LongSupplier;

import net.fips.ffm.Errno;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.PollFds;
import net.fips.ffm.linux.Syscalls;

/**
 * Runs the pre-handshake public-key exchange (transports.md §5.4) on a connected, non-blocking SOCK_SEQPACKET
 * socket (an L2CAP CoC channel, or AF_UNIX in tests): send our {@link PubkeyHello}, then receive exactly one SDU
 * that must be a valid hello, all within a deadline (5 s by default). Never throws for peer or kernel behaviour;
 * the caller closes the socket on any failure. Runs on the connecting or accepting thread, once per connection.
 */
public final class PubkeyExchange {
    /** The reference's limit for the whole exchange. */
    public static final long DEFAULT_TIMEOUT_MS = 5_000;
    /** Receive buffer: anything longer than a hello still reads as longer than 33 bytes (oversize). */
    private static final int RECV_BUF = 64;

    /** Why an exchange failed. */
    public enum Failure {
        /** No (complete) hello within the deadline. */
        TIMEOUT,
        /** The peer closed before sending its hello. */
        CLOSED,
        /** The SDU was shorter than 33 bytes. */
        SHORT,
        /** The SDU was longer than 33 bytes. */
        OVERSIZE,
        /** Byte 0 was not 0x00. */
        BAD_PREFIX,
        /** Not an x-only secp256k1 key. */
        INVALID_KEY,
        /** send(2) failed (see errno). */
        SEND_FAILED,
        /** recv(2) or poll(2) failed (see errno). */
        RECV_FAILED
    }

    /**
     * @param peerKey the peer's x-only key, or null on failure
     * @param failure why it failed, or null on success
     * @param errno   the kernel's errno for SEND_FAILED / RECV_FAILED, else 0
     */
    public record Outcome(byte[] peerKey, Failure failure, int errno) {
        /** @return whether the exchange succeeded */
        public boolean ok() {
            return failure == null;
        }

        static Outcome fail(final Failure f, final int errno) {
            return new Outcome(null, f, errno);
        }
    }

    private PubkeyExchange() {
    }

    /**
     * @param fd        connected non-blocking SOCK_SEQPACKET socket
     * @param ownKey    our 32-byte x-only key
     * @param keys      key validation
     * @param timeoutMs deadline for the whole exchange
     * @param nanoClock monotonic clock (System::nanoTime in production)
     * @return the outcome
     */
    public static Outcome run(final int fd, final byte[] ownKey, final PeerKeys keys, final long timeoutMs,
            final LongSupplier nanoClock) {
        Objects.requireNonNull(keys, "keys");
        final long deadline = nanoClock.getAsLong() + timeoutMs * 1_000_000L;
        final CallState cs = CallState.forCurrentThread();
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment buf = arena.allocate(RECV_BUF);
            final PollFds pfd = new PollFds(arena, 1);
            final int n = PubkeyHello.encode(ownKey, buf);
            while (true) {
                final int rc = Syscalls.send(cs, fd, buf, n, Linux.MSG_DONTWAIT);
                if (rc == n) {
                    break;
                }
                if (rc >= 0 || rc != -Errno.EAGAIN && rc != -Errno.EINTR) {
                    return Outcome.fail(Failure.SEND_FAILED, rc < 0 ? -rc : Errno.EMSGSIZE);
                }
                final int w = await(pfd, cs, fd, Linux.POLLOUT, deadline, nanoClock);
                if (w != READY) {
                    return w == TIMED_OUT ? Outcome.fail(Failure.TIMEOUT, 0) : Outcome.fail(Failure.SEND_FAILED, w);
                }
            }
            while (true) {
                final int rc = Syscalls.recv(cs, fd, buf, RECV_BUF, Linux.MSG_DONTWAIT);
                if (rc == 0) {
                    return Outcome.fail(Failure.CLOSED, 0);
                }
                if (rc > 0) {
                    final PubkeyHello.Error e = PubkeyHello.check(buf, 0, rc, keys);
                    if (e == null) {
                        return new Outcome(PubkeyHello.key(buf, 0), null, 0);
                    }
                    return Outcome.fail(switch (e) {
                        case SHORT -> Failure.SHORT;
                        case OVERSIZE -> Failure.OVERSIZE;
                        case BAD_PREFIX -> Failure.BAD_PREFIX;
                        case INVALID_KEY -> Failure.INVALID_KEY;
                    }, 0);
                }
                if (rc != -Errno.EAGAIN && rc != -Errno.EINTR) {
                    return Outcome.fail(Failure.RECV_FAILED, -rc);
                }
                final int w = await(pfd, cs, fd, Linux.POLLIN, deadline, nanoClock);
                if (w != READY) {
                    return w == TIMED_OUT ? Outcome.fail(Failure.TIMEOUT, 0) : Outcome.fail(Failure.RECV_FAILED, w);
                }
            }
        }
    }

    private static final int READY = 0;
    private static final int TIMED_OUT = -1;

    /** Polls for {@code events} until the deadline: {@link #READY} (or hung up: the next call tells),
     * {@link #TIMED_OUT}, or poll's errno. */
    private static int await(final PollFds pfd, final CallState cs, final int fd, final short events,
            final long deadline, final LongSupplier nanoClock) {
        final long left = deadline - nanoClock.getAsLong();
        if (left <= 0) {
            return TIMED_OUT;
        }
        pfd.set(0, fd, events);
        final int rc = pfd.poll(cs, (int) Math.min(Integer.MAX_VALUE, Math.max(1, (left + 999_999) / 1_000_000)));
        if (rc < 0 && rc != -Errno.EINTR) {
            return -rc;
        }
        return READY; // ready, interrupted, or a poll timeout: the loop re-checks the deadline
    }
}
