package net.fips.control.nat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.dataplane.udp.TraversalSocket;

/** The STUN client over real loopback sockets against {@link TestStunResponder} (discovery-gateway.md §2.2). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StunClientTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 0);

    private static StunClient client() {
        return new StunClient(System::nanoTime, host -> {
            if (host.endsWith(".invalid")) {
                throw new UnknownHostException(host);
            }
            return InetAddress.getByName(host);
        });
    }

    private static String url(final TestStunResponder r) {
        return "stun:127.0.0.1:" + r.address().getPort();
    }

    @Test
    void learnsTheSocketsAddressFromTheServer() throws Exception {
        try (TestStunResponder server = new TestStunResponder(LOOPBACK, 0, false);
             TraversalSocket socket = TraversalSocket.open(LOOPBACK)) {
            final StunClient.Result r = client().discover(DatagramPort.of(socket), List.of(url(server)), 2_000);
            assertEquals(socket.localAddress(), r.reflexive());
            assertEquals(url(server), r.server());
            assertEquals(1, r.requests());
            assertEquals(1, server.requests());
        }
    }

    @Test
    void ignoresErrorResponsesAndOtherTransactions() throws Exception {
        try (TestStunResponder server = new TestStunResponder(LOOPBACK, 0, true);
             TraversalSocket socket = TraversalSocket.open(LOOPBACK)) {
            final StunClient.Result r = client().discover(DatagramPort.of(socket), List.of(url(server)), 2_000);
            assertEquals(socket.localAddress(), r.reflexive(), "the error and the foreign success were skipped");
        }
    }

    @Test
    void skipsBadAndSilentServersInOrderWithoutRetransmitting() throws Exception {
        try (TestStunResponder silent = new TestStunResponder(LOOPBACK, Integer.MAX_VALUE, false);
             TestStunResponder good = new TestStunResponder(LOOPBACK, 0, false);
             TraversalSocket socket = TraversalSocket.open(LOOPBACK)) {
            final List<String> servers = List.of("turn:127.0.0.1:1", "127.0.0.1", "stun.example.invalid:3478",
                    "127.0.0.1:" + silent.address().getPort(), url(good));
            final StunClient.Result r = client().discover(DatagramPort.of(socket), servers, 300);
            assertEquals(socket.localAddress(), r.reflexive());
            assertEquals(url(good), r.server());
            assertEquals(2, r.requests(), "only the parsable, resolvable servers get a request");
            assertEquals(1, silent.requests(), "one request per server, no retransmission (as the reference)");
        }
    }

    @Test
    void noAnswerIsAnEmptyResultNotAnError() throws Exception {
        try (TestStunResponder silent = new TestStunResponder(LOOPBACK, Integer.MAX_VALUE, false);
             TraversalSocket socket = TraversalSocket.open(LOOPBACK)) {
            final StunClient.Result r = client().discover(DatagramPort.of(socket),
                    List.of("127.0.0.1:" + silent.address().getPort()), 200);
            assertNull(r.reflexive());
            assertNull(r.server());
            assertEquals(1, r.requests());
        }
    }

    @Test
    void deadlinesComeFromTheInjectedClock() throws Exception {
        // A 10-minute per-server wait that the injected clock ends after 1 ms of waiting: the test's own timeout
        // (60 s) would fail if the client waited by the real clock.
        final long[] readings = {0, 599_999_000_000L, 600_000_000_000L};
        final int[] next = {0};
        final StunClient c = new StunClient(() -> readings[Math.min(next[0]++, readings.length - 1)],
                InetAddress::getByName);
        try (TestStunResponder silent = new TestStunResponder(LOOPBACK, Integer.MAX_VALUE, false);
             TraversalSocket socket = TraversalSocket.open(LOOPBACK)) {
            final StunClient.Result r = c.discover(DatagramPort.of(socket),
                    List.of("127.0.0.1:" + silent.address().getPort()),
                    600_000);
            assertNull(r.reflexive());
            assertEquals(3, next[0], "deadline set, one wait of what was left, then the deadline seen");
        }
    }

    @Test
    void responseEncoderMatchesTheSpecVector() {
        final byte[] txid = HexFormat.of().parseHex("0102030405060708090a0b0c");
        final byte[] ok = Stun.bindingSuccess(txid, new InetSocketAddress("203.0.113.10", 62000));
        // §2.2's vector, with our SOFTWARE attribute after the XOR-MAPPED-ADDRESS
        assertArrayEquals(HexFormat.of().parseHex("00200008" + "0001d322ea12d548"),
                Arrays.copyOfRange(ok, 20, 32));
        assertEquals(new InetSocketAddress("203.0.113.10", 62000), Stun.mappedAddress(ok, ok.length, txid));
        assertArrayEquals(txid, Stun.requestTxid(Stun.bindingRequest(txid), 20));
    }
}
