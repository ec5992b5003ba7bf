package net.fips.control.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.control.config.NostrConfig;
import net.fips.control.config.TcpConfig;
import net.fips.control.config.TorConfig;
import net.fips.control.config.UdpConfig;
import net.fips.control.nat.PublicAddressLearner;
import net.fips.control.nat.TestStunResponder;
import net.fips.control.nostr.OverlayAdvert;
import net.fips.testing.Await;

/** Our advert from the transports (discovery-gateway.md §1.8), the table's rows one by one. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NostrAdvertsTest {
    private static final NostrConfig NOSTR = NostrConfig.DEFAULTS;
    private static final InetSocketAddress WILDCARD = new InetSocketAddress("0.0.0.0", 2121);

    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (final AutoCloseable c : closing.reversed()) {
            c.close();
        }
    }

    /** A learner whose observation never ends on its own (until closed): STUN is always pending. */
    private PublicAddressLearner neverAnswers() {
        final PublicAddressLearner l = new PublicAddressLearner(stopped -> {
            while (!stopped.getAsBoolean()) {
                LockSupport.parkNanos(1_000_000);
            }
            return null;
        }, 1_800_000, System::nanoTime);
        closing.add(l);
        return l;
    }

    private static TorConfig tor(final boolean advertise, final int port) {
        final TorConfig d = TorConfig.DEFAULTS;
        return new TorConfig(Optional.empty(), TorConfig.Mode.DIRECTORY, d.socks5Addr(), d.connectTimeoutMs(),
                d.mtu(), d.controlAddr(), d.controlAuth(), d.cookiePath(), d.maxInboundConnections(),
                d.directoryService(), advertise, port);
    }

    private static UdpConfig udp(final boolean advertise, final boolean isPublic, final String external,
            final boolean outboundOnly) {
        return new UdpConfig(Optional.empty(), "0.0.0.0:2121", 1280, 1, 1, advertise, isPublic,
                Optional.ofNullable(external), outboundOnly, true);
    }

    private static TcpConfig tcp(final String bind, final String external) {
        return new TcpConfig(Optional.empty(), Optional.ofNullable(bind), 1400, 5000, true, 30, 1, 1,
                OptionalInt.empty(), true, Optional.ofNullable(external));
    }

    private static List<OverlayAdvert.Endpoint> endpoints(final OverlayAdvert a) {
        return a.endpoints();
    }

    private static OverlayAdvert.Endpoint ep(final String t, final String a) {
        return new OverlayAdvert.Endpoint(t, a);
    }

    @Test
    void udpRows() {
        final NostrAdverts b = new NostrAdverts(neverAnswers());
        final InetSocketAddress wildcard = new InetSocketAddress("0.0.0.0", 2121);
        final InetSocketAddress bound = new InetSocketAddress("198.18.0.2", 2121);
        // Not advertised, or outbound_only: nothing.
        assertNull(b.build(NOSTR, List.of(udp(false, true, "198.18.0.2", false)), List.of(bound), List.of(),
                List.of()));
        assertNull(b.build(NOSTR, List.of(udp(true, true, "198.18.0.2", true)), List.of(bound), List.of(),
                List.of()));
        // Not public: "nat" with our dm_relays and stun_servers.
        final OverlayAdvert nat = b.build(NOSTR, List.of(udp(true, false, null, false)), List.of(wildcard),
                List.of(), List.of());
        assertEquals(List.of(ep("udp", "nat")), endpoints(nat));
        assertEquals(NOSTR.dmRelays(), nat.signalRelays());
        assertEquals(NOSTR.stunServers(), nat.stunServers());
        // Public: external_addr as an IP gets the bound port; ip:port is kept; a host name does not parse.
        assertEquals(List.of(ep("udp", "198.18.0.7:2121")), endpoints(b.build(NOSTR,
                List.of(udp(true, true, "198.18.0.7", false)), List.of(wildcard), List.of(), List.of())));
        assertEquals(List.of(ep("udp", "198.18.0.7:4000")), endpoints(b.build(NOSTR,
                List.of(udp(true, true, "198.18.0.7:4000", false)), List.of(wildcard), List.of(), List.of())));
        assertEquals(List.of(ep("udp", "[2001:db8::7]:2121")), endpoints(b.build(NOSTR,
                List.of(udp(true, true, "2001:db8::7", false)), List.of(wildcard), List.of(), List.of())));
        assertNull(b.build(NOSTR, List.of(udp(true, true, "node.example.org", false)), List.of(wildcard),
                List.of(), List.of()));
        // Public without external_addr: the bound address unless it is a wildcard (then STUN: nothing until it has
        // answered, see below).
        assertEquals(List.of(ep("udp", "198.18.0.2:2121")), endpoints(b.build(NOSTR,
                List.of(udp(true, true, null, false)), List.of(bound), List.of(), List.of())));
        assertNull(b.build(NOSTR, List.of(udp(true, true, null, false)), List.of(wildcard), List.of(), List.of()));
        final OverlayAdvert direct = b.build(NOSTR, List.of(udp(true, true, null, false)), List.of(bound), List.of(),
                List.of());
        assertNull(direct.signalRelays());
        assertNull(direct.stunServers());
    }

    @Test
    void tcpRowsAndOrder() {
        final NostrAdverts b = new NostrAdverts(neverAnswers());
        assertEquals(List.of(ep("tcp", "198.18.0.3:8443")), endpoints(b.build(NOSTR, List.of(), List.of(),
                List.of(tcp("0.0.0.0:8443", "198.18.0.3")), List.of("0.0.0.0:8443"))));
        assertEquals(List.of(ep("tcp", "198.18.0.4:443")), endpoints(b.build(NOSTR, List.of(), List.of(),
                List.of(tcp("0.0.0.0:8443", "198.18.0.4:443")), List.of("0.0.0.0:8443"))));
        assertEquals(List.of(ep("tcp", "198.18.0.5:8443")), endpoints(b.build(NOSTR, List.of(), List.of(),
                List.of(tcp("198.18.0.5:8443", null)), List.of("198.18.0.5:8443"))));
        assertNull(b.build(NOSTR, List.of(), List.of(), List.of(tcp("0.0.0.0:8443", null)), List.of("0.0.0.0:8443")));
        assertNull(b.build(NOSTR, List.of(), List.of(), List.of(tcp(null, null)), Arrays.asList((String) null)));
        // UDP endpoints first, then TCP, as the transports are ordered.
        final OverlayAdvert both = b.build(NOSTR, List.of(udp(true, false, null, false)),
                List.of(new InetSocketAddress("0.0.0.0", 2121)), List.of(tcp("198.18.0.5:8443", null)),
                List.of("198.18.0.5:8443"));
        assertEquals(List.of(ep("udp", "nat"), ep("tcp", "198.18.0.5:8443")), endpoints(both));
    }

    @Test
    void wildcardPublicUdpAdvertisesTheStunLearnedIpWithItsBoundPort() throws Exception {
        final TestStunResponder stun = new TestStunResponder(new InetSocketAddress("127.0.0.1", 0), 0, true);
        closing.add(stun);
        // As the node builds it: STUN from a fresh 0.0.0.0:0 socket against stun_servers.
        final PublicAddressLearner learner = PublicAddressLearner.stun(new InetSocketAddress("0.0.0.0", 0),
                List.of("stun:127.0.0.1:" + stun.address().getPort()), 1800);
        final NostrAdverts b = new NostrAdverts(learner);
        closing.add(b);
        final List<UdpConfig> udp = List.of(udp(true, true, null, false));
        final AtomicReference<OverlayAdvert> advert = new AtomicReference<>();
        Await.until(Duration.ofSeconds(20), () -> {
            advert.set(b.build(NOSTR, udp, List.of(WILDCARD), List.of(), List.of()));
            return advert.get() != null;
        }, () -> "no endpoint learned; STUN requests " + stun.requests());
        // The reflexive IP with the transport's bound listen port (the STUN socket's own port is not used).
        assertEquals(List.of(ep("udp", "127.0.0.1:2121")), endpoints(advert.get()));
        assertNull(advert.get().signalRelays());
        for (int i = 0; i < 5; i++) {
            assertEquals(List.of(ep("udp", "127.0.0.1:2121")), endpoints(b.build(NOSTR, udp, List.of(WILDCARD),
                    List.of(), List.of())));
        }
        assertEquals(1, stun.requests(), "learned once, then cached");
    }

    @Test
    void stunRunsOffTheCallerAndAFailureIsRetriedAfterAMinute() {
        final AtomicLong clock = new AtomicLong();
        final AtomicInteger observations = new AtomicInteger();
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicReference<InetAddress> answer = new AtomicReference<>();
        final PublicAddressLearner learner = new PublicAddressLearner(stopped -> {
            observations.incrementAndGet();
            try {
                release.await();
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return answer.get();
        }, 1_800_000, clock::get);
        final NostrAdverts b = new NostrAdverts(learner);
        closing.add(b);
        final List<UdpConfig> udp = List.of(udp(true, true, null, false));
        // The observation blocks: the build does not wait for it, and starts it only once.
        assertNull(b.build(NOSTR, udp, List.of(WILDCARD), List.of(), List.of()));
        Await.until(Duration.ofSeconds(10), () -> observations.get() == 1, () -> "observation started");
        assertNull(b.build(NOSTR, udp, List.of(WILDCARD), List.of(), List.of()));
        // It fails: no endpoint; not tried again within 60 s.
        release.countDown();
        Await.until(Duration.ofSeconds(10), () -> learner.lookup("udp0").state()
                == PublicAddressLearner.State.FAILED, () -> "failure recorded");
        clock.addAndGet(TimeUnit.SECONDS.toNanos(59));
        assertNull(b.build(NOSTR, udp, List.of(WILDCARD), List.of(), List.of()));
        assertEquals(1, observations.get());
        // After 60 s it is tried again; this time STUN answers.
        answer.set(InetAddress.ofLiteral("198.18.0.9"));
        clock.addAndGet(TimeUnit.SECONDS.toNanos(1));
        final AtomicReference<OverlayAdvert> advert = new AtomicReference<>();
        Await.until(Duration.ofSeconds(10), () -> {
            advert.set(b.build(NOSTR, udp, List.of(WILDCARD), List.of(), List.of()));
            return advert.get() != null;
        }, () -> "learned after the retry");
        assertEquals(2, observations.get());
        assertEquals(List.of(ep("udp", "198.18.0.9:2121")), endpoints(advert.get()));
        // Kept for advert_refresh_secs (here 1800 s), then observed again; the old address stays meanwhile.
        clock.addAndGet(TimeUnit.SECONDS.toNanos(1799));
        b.build(NOSTR, udp, List.of(WILDCARD), List.of(), List.of());
        assertEquals(2, observations.get());
        clock.addAndGet(TimeUnit.SECONDS.toNanos(1));
        assertEquals(List.of(ep("udp", "198.18.0.9:2121")), endpoints(b.build(NOSTR, udp, List.of(WILDCARD),
                List.of(), List.of())));
        Await.until(Duration.ofSeconds(10), () -> observations.get() == 3, () -> "refreshed");
    }

    @Test
    void torRows() {
        final NostrAdverts b = new NostrAdverts(neverAnswers());
        final String onion = "vww6ybal4bd7szmgncyruucpgfkqahzddi37ktceo3ah7ngmcopnpyyd.onion";
        // advertise_on_nostr with the onion known: <onion>:<advertised_port>, 443 by default.
        assertEquals(List.of(ep("tor", onion + ":443")), endpoints(b.build(NOSTR, List.of(), List.of(), List.of(),
                List.of(), List.of(tor(true, TorConfig.DEFAULT_ADVERTISED_PORT)), List.of(onion))));
        assertEquals(List.of(ep("tor", onion + ":9001")), endpoints(b.build(NOSTR, List.of(), List.of(), List.of(),
                List.of(), List.of(tor(true, 9001)), List.of(onion))));
        // Not advertised, or no onion address (socks5 / control_port mode): nothing.
        assertNull(b.build(NOSTR, List.of(), List.of(), List.of(), List.of(), List.of(tor(false, 443)),
                List.of(onion)));
        assertNull(b.build(NOSTR, List.of(), List.of(), List.of(), List.of(), List.of(tor(true, 443)),
                Arrays.asList((String) null)));
        // After UDP and TCP; a tor endpoint brings no signal relays.
        final OverlayAdvert all = b.build(NOSTR, List.of(udp(true, false, null, false)), List.of(WILDCARD),
                List.of(tcp("198.18.0.5:8443", null)), List.of("198.18.0.5:8443"), List.of(tor(true, 443)),
                List.of(onion));
        assertEquals(List.of(ep("udp", "nat"), ep("tcp", "198.18.0.5:8443"), ep("tor", onion + ":443")),
                endpoints(all));
    }
}
