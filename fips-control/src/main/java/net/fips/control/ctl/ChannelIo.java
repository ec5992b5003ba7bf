package net.fips.control.ctl;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * Deadline-bounded line reads and writes on a non-blocking Unix socket channel. Blocking JDK socket channels have
 * no read timeout, so each connection gets its own selector; control connections are rare and short, so the
 * extra file descriptor is cheap.
 */
final class ChannelIo implements AutoCloseable {

    /** A line grew past its limit before its newline arrived. */
    static final class TooLargeException extends IOException {
        private static final long serialVersionUID = 1L;

        TooLargeException() {
            super("request too large");
        }
    }

    private final SocketChannel channel;
    private final Selector selector;
    private final SelectionKey key;

    /**
     * @param channel a connected channel; it is switched to non-blocking mode
     * @throws IOException when the selector cannot be opened
     */
    ChannelIo(final SocketChannel channel) throws IOException {
        this.channel = channel;
        channel.configureBlocking(false);
        this.selector = Selector.open();
        try {
            this.key = channel.register(selector, 0);
        } catch (final IOException | RuntimeException e) {
            selector.close();
            throw e;
        }
    }

    /**
     * Reads up to the first newline or end of stream.
     *
     * @param maxBytes       the most bytes a line may take, its newline included (the reference counts it)
     * @param deadlineNanos  {@link System#nanoTime()} value after which to give up
     * @return the bytes before the newline (or all bytes up to end of stream); bytes after the newline are dropped
     * @throws TooLargeException       when more than {@code maxBytes} arrive without completing the line
     * @throws SocketTimeoutException  when the deadline passes first
     * @throws IOException             on a socket error
     */
    byte[] readLine(final int maxBytes, final long deadlineNanos) throws IOException {
        final ByteArrayOutputStream line = new ByteArrayOutputStream(256);
        final ByteBuffer buf = ByteBuffer.allocate(1024);
        int total = 0;
        key.interestOps(SelectionKey.OP_READ);
        while (true) {
            buf.clear();
            final int n = channel.read(buf);
            if (n < 0) {
                return line.toByteArray();
            }
            if (n == 0) {
                await(deadlineNanos);
                continue;
            }
            buf.flip();
            while (buf.hasRemaining()) {
                final byte b = buf.get();
                total++;
                if (total > maxBytes) {
                    throw new TooLargeException();
                }
                if (b == '\n') {
                    return line.toByteArray();
                }
                line.write(b);
            }
        }
    }

    /**
     * Writes all of {@code data}.
     *
     * @param data          bytes to write
     * @param deadlineNanos {@link System#nanoTime()} value after which to give up
     * @throws SocketTimeoutException when the peer does not drain the socket in time
     * @throws IOException            on a socket error
     */
    void writeAll(final ByteBuffer data, final long deadlineNanos) throws IOException {
        key.interestOps(SelectionKey.OP_WRITE);
        while (data.hasRemaining()) {
            if (channel.write(data) == 0) {
                await(deadlineNanos);
            }
        }
    }

    /**
     * Discards input that has already arrived, without waiting, up to {@code maxBytes}. Closing a Unix socket with
     * unread input resets the connection, and the peer could lose the response written just before.
     *
     * @param maxBytes the most bytes to discard
     */
    void discardPending(final int maxBytes) {
        final ByteBuffer buf = ByteBuffer.allocate(4096);
        int left = maxBytes;
        try {
            while (left > 0) {
                buf.clear().limit(Math.min(buf.capacity(), left));
                final int n = channel.read(buf);
                if (n <= 0) {
                    return;
                }
                left -= n;
            }
        } catch (final IOException e) {
            // The peer is gone; nothing left to protect.
        }
    }

    private void await(final long deadlineNanos) throws IOException {
        final long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            throw new SocketTimeoutException("timed out");
        }
        // select(0) would wait forever, so never pass less than one millisecond.
        selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        selector.selectedKeys().clear();
    }

    @Override
    public void close() throws IOException {
        selector.close();
    }
}
