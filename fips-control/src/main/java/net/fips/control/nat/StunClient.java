package net.fips.control.nat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import net.fips.dataplane.udp.TraversalSocket;

/**
 * The STUN client of a traversal attempt (discovery-gateway.md §2.2), on the attempt's own socket: servers in
 * configured order, one Binding request each (the reference sends no retransmission), then a wait of up to the
 * per-server timeout for the success answer to that request, ignoring every other datagram (error responses,
 * other transactions, stray packets). The first server that answers wins; when none does the result is empty, which
 * is not an error (the offer then carries {@code reflexiveAddress: null}).
 *
 * <p>Deadlines come from the injected monotonic clock; the socket waits in between are real.
 */
public final class StunClient {
    /** The per-server wait during traversal (the reference's 2 s). */
    public static final long TRAVERSAL_TIMEOUT_MS = 2_000;
    /** The per-server wait when learning the advertised public address (the reference's 5 s). */
    public static final long ADVERT_TIMEOUT_MS = 5_000;

    /** Resolves a host name (the system resolver in production). */
    @FunctionalInterface
    public interface Resolver {
        /**
         * @param host a name or IP literal
         * @return its first address
         * @throws UnknownHostException when it does not resolve
         */
        InetAddress resolve(String host) throws UnknownHostException;
    }

    /**
     * What a STUN round learned.
     *
     * @param reflexive the socket's address as the server saw it, or null when no server answered
     * @param server    the configured string of the server that answered, or null
     * @param requests  Binding requests sent
     */
    public record Result(InetSocketAddress reflexive, String server, int requests) {
    }

    private final LongSupplier nanoClock;
    private final Resolver resolver;
    private final SecureRandom random = new SecureRandom();

    /**
     * @param nanoClock monotonic nanoseconds
     * @param resolver  host name resolution
     */
    public StunClient(final LongSupplier nanoClock, final Resolver resolver) {
        this.nanoClock = nanoClock;
        this.resolver = resolver;
    }

    /** @return a client on {@link System#nanoTime()} and the system resolver */
    public static StunClient system() {
        return new StunClient(System::nanoTime, InetAddress::getByName);
    }

    /**
     * Asks the servers in order until one answers.
     *
     * @param socket          the attempt's socket
     * @param servers         {@code stun_servers} as configured; unparsable or unresolvable ones are skipped
     * @param perServerMillis how long to wait for each
     * @return the reflexive address and the server that gave it, or an empty result
     */
    public Result discover(final DatagramPort socket, final List<String> servers, final long perServerMillis) {
        final byte[] in = new byte[TraversalSocket.MAX_DATAGRAM];
        int requests = 0;
        for (final String text : servers) {
            final InetSocketAddress server;
            try {
                final StunServer s = StunServer.parse(text);
                server = new InetSocketAddress(resolver.resolve(s.host()), s.port());
            } catch (final IllegalArgumentException | UnknownHostException e) {
                continue;
            }
            final byte[] txid = new byte[Stun.TXID_BYTES];
            random.nextBytes(txid);
            final byte[] request = Stun.bindingRequest(txid);
            requests++;
            if (socket.send(request, request.length, server) < 0) {
                continue;   // e.g. an IPv6 answer for the IPv4 socket: next server, as the reference does
            }
            final long deadline = nanoClock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(perServerMillis);
            while (true) {
                final long left = deadline - nanoClock.getAsLong();
                if (left <= 0) {
                    break;
                }
                final DatagramPort.Received r = socket.receive(in,
                        (int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(left))));
                if (r == null) {
                    if (socket.isClosed()) {
                        return new Result(null, null, requests);
                    }
                    continue;
                }
                final InetSocketAddress mapped = Stun.mappedAddress(in, r.length(), txid);
                if (mapped != null) {
                    return new Result(mapped, text, requests);
                }
            }
        }
        return new Result(null, null, requests);
    }
}
