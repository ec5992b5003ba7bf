package net.fips.dataplane.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import net.fips.dataplane.engine.Msg1Admission.Verdict;

/** The msg1 budgets keyed by the raw source bytes: IPv4, IPv6, IPv4-mapped IPv6 and other transports' forms. */
class Msg1AdmissionTest {
    private final AtomicLong clock = new AtomicLong(5_000_000_000L);
    private final Msg1Admission admission = new Msg1Admission(clock::get, 42);

    /** A sockaddr_in as the kernel writes it (family in host order, port and address in network order). */
    private static MemorySegment v4(final int a, final int b, final int c, final int d, final int port) {
        final ByteBuffer s = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        s.putShort((short) 2).order(ByteOrder.BIG_ENDIAN).putShort((short) port)
                .put((byte) a).put((byte) b).put((byte) c).put((byte) d);
        return MemorySegment.ofArray(s.array());
    }

    private static MemorySegment v6(final long hi, final long lo, final int port) {
        final ByteBuffer s = ByteBuffer.allocate(28).order(ByteOrder.LITTLE_ENDIAN);
        s.putShort((short) 10).order(ByteOrder.BIG_ENDIAN).putShort((short) port).putInt(0).putLong(hi).putLong(lo);
        return MemorySegment.ofArray(s.array());
    }

    private Verdict admit(final MemorySegment source) {
        return admission.admit(source, 0, source == null ? 0 : (int) source.byteSize());
    }

    /** Admits from {@code source} until refused; @return how many were admitted (at most 1000) */
    private int drain(final MemorySegment source) {
        int n = 0;
        while (n < 1000 && admit(source) == Verdict.ADMITTED) {
            n++;
        }
        return n;
    }

    @Test
    void portsOfOneIpv4AddressShareItsBudgetAndItRefillsAtOnePerSecond() {
        for (int i = 0; i < Msg1Admission.SOURCE_BURST; i++) {
            assertEquals(Verdict.ADMITTED, admit(v4(192, 0, 2, 7, 40000 + i)));
        }
        assertEquals(Verdict.SOURCE_BUDGET, admit(v4(192, 0, 2, 7, 1)));
        assertEquals(Verdict.ADMITTED, admit(v4(192, 0, 2, 8, 1)), "the next address has its own");
        // One a second over its two half-budget slots: two after two seconds, none before.
        clock.addAndGet(1_999_000_000L);
        assertEquals(Verdict.SOURCE_BUDGET, admit(v4(192, 0, 2, 7, 1)));
        clock.addAndGet(1_000_000L);
        assertEquals(2, drain(v4(192, 0, 2, 7, 1)));
    }

    @Test
    void anIpv4MappedIpv6AddressIsTheSameSource() {
        assertEquals(Msg1Admission.SOURCE_BURST, drain(v4(198, 51, 100, 9, 5)));
        assertEquals(Verdict.SOURCE_BUDGET, admit(v6(0, 0xFFFF_C633_6409L, 6)), "::ffff:198.51.100.9");
    }

    @Test
    void ipv6AddressesOfOneSlash64ShareItsNetworkBudget() {
        final long net = 0x2001_0db8_0000_0001L;
        int admitted = 0;
        for (int host = 1; host <= 8; host++) {
            admitted += drain(v6(net, host, 1000));
        }
        assertEquals(Msg1Admission.NETWORK_BURST, admitted);
        assertEquals(Verdict.NETWORK_BUDGET, admit(v6(net, 99, 1)));
        assertEquals(Verdict.ADMITTED, admit(v6(net + 1, 1, 1)), "the next /64");
    }

    @Test
    void otherSourceFormatsAreKeyedByAllTheirBytesWithoutANetwork() {
        final MemorySegment mac = MemorySegment.ofArray(new byte[]{2, 0, 0, 0, 0, 1});
        assertEquals(Msg1Admission.SOURCE_BURST, drain(mac));
        assertEquals(Verdict.ADMITTED, admit(MemorySegment.ofArray(new byte[]{2, 0, 0, 0, 0, 2})));
        // No source at all: only the transport's budget.
        assertEquals(Msg1Admission.TRANSPORT_BURST - Msg1Admission.SOURCE_BURST - 1, drain(null));
        assertEquals(Verdict.TRANSPORT_BUDGET, admit(v4(203, 0, 113, 1, 1)));
    }

    @Test
    void theTransportBudgetCapsEveryoneTogether() {
        int admitted = 0;
        for (int net = 0; net < 60; net++) {
            admitted += drain(v4(10, net, 0, 1, 1));
        }
        assertEquals(Msg1Admission.TRANSPORT_BURST, admitted);
        clock.addAndGet(2_000_000_000L);
        int later = 0;
        for (int net = 100; net < 130; net++) {
            later += drain(v4(10, net, 0, 1, 1));
        }
        assertEquals((int) (2 * Msg1Admission.TRANSPORT_PER_SECOND), later);
    }
}
