package net.fips.control.nat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;

import net.fips.dataplane.udp.TraversalSocket;

/**
 * A STUN Binding responder for tests, on its own thread and socket: answers each request with the source address as
 * XOR-MAPPED-ADDRESS (plus SOFTWARE), as coturn's {@code --stun-only} does. It can first send an error response and a
 * success for another transaction (both must be ignored), or stay silent for the first {@code silentRequests}.
 */
public final class TestStunResponder implements AutoCloseable {
    private final TraversalSocket socket;
    private final Thread thread;
    private final AtomicInteger requests = new AtomicInteger();
    private final int silentRequests;
    private final boolean noiseFirst;
    private volatile boolean stop;

    /**
     * @param bind           where it listens
     * @param silentRequests requests not answered first
     * @param noiseFirst     send an error and a wrong transaction's success before each answer
     * @throws IOException   when the socket cannot be bound
     */
    public TestStunResponder(final InetSocketAddress bind, final int silentRequests, final boolean noiseFirst)
            throws IOException {
        this.socket = TraversalSocket.open(bind);
        this.silentRequests = silentRequests;
        this.noiseFirst = noiseFirst;
        this.thread = Thread.ofPlatform().daemon().name("test-stun").start(this::serve);
    }

    private void serve() {
        final byte[] in = new byte[TraversalSocket.MAX_DATAGRAM];
        while (!stop) {
            final TraversalSocket.Received r = socket.receive(in, 100);
            if (r == null) {
                continue;
            }
            final byte[] txid = Stun.requestTxid(in, r.length());
            if (txid == null) {
                continue;
            }
            if (requests.incrementAndGet() <= silentRequests) {
                continue;
            }
            if (noiseFirst) {
                final byte[] error = Stun.bindingSuccess(txid, r.from());
                error[0] = 0x01;
                error[1] = 0x11;   // 0x0111: Binding error response
                socket.send(error, error.length, r.from());
                final byte[] otherTx = txid.clone();
                otherTx[0] ^= 1;
                final byte[] wrong = Stun.bindingSuccess(otherTx, new InetSocketAddress("192.0.2.1", 1));
                socket.send(wrong, wrong.length, r.from());
            }
            final byte[] ok = Stun.bindingSuccess(txid, r.from());
            socket.send(ok, ok.length, r.from());
        }
    }

    /** @return where it listens */
    public InetSocketAddress address() {
        return socket.localAddress();
    }

    /** @return Binding requests received */
    public int requests() {
        return requests.get();
    }

    @Override
    public void close() {
        stop = true;
        socket.wakeup();
        try {
            thread.join(5_000);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        socket.close();
    }
}
