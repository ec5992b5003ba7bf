package net.fips.control.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.junit.jupiter.api.Test;

import net.fips.control.config.FipsConfig;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.link.LinkConductor;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportTypes;

/**
 * How {@link NodeAssembly} combines the transport factories: ids in factory order (including transports a type opens
 * only once the identity is known), each group's hooks told its first id, and a failing factory closing what the
 * earlier ones opened.
 */
class NodeTransportsTest {
    /** A transport that remembers being closed. */
    private static final class Fake implements StubTransport {
        private final String type;
        boolean closed;

        Fake(final String type) {
            this.type = type;
        }

        @Override
        public String typeName() {
            return type;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** One type's group: some transports at open, some once the identity is known; records its hooks. */
    private static final class Group implements TransportFactory.Opened {
        final List<Transport> transports = new ArrayList<>();
        final int openedLater;
        final JsonNode monitoring;
        final List<Integer> attachedAt = new ArrayList<>();
        final List<Integer> startedAt = new ArrayList<>();
        boolean closed;

        Group(final int atOpen, final int openedLater, final JsonNode monitoring) {
            for (int i = 0; i < atOpen; i++) {
                transports.add(new Fake("udp"));
            }
            this.openedLater = openedLater;
            this.monitoring = monitoring;
        }

        @Override
        public void identityKnown(final NodeIdentity identity, final LongSupplier clock) {
            for (int i = 0; i < openedLater; i++) {
                transports.add(new Fake("ble"));
            }
        }

        @Override
        public List<Transport> transports() {
            return List.copyOf(transports);
        }

        @Override
        public LongConsumer attach(final int firstId, final NodeIdentity identity, final LinkConductor conductor) {
            attachedAt.add(firstId);
            return now -> { };
        }

        @Override
        public void started(final int firstId, final NodeOptions options) {
            startedAt.add(firstId);
        }

        @Override
        public JsonNode monitoring(final int index) {
            return index == 0 ? monitoring : null;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private static TransportFactory factory(final TransportFactory.Opened opened) {
        return new TransportFactory() {
            @Override
            public String type() {
                return "test";
            }

            @Override
            public Opened open(final FipsConfig cfg, final NodeOptions options) {
                return opened;
            }
        };
    }

    @Test
    void idsFollowTheFactoryOrderAndEachGroupHearsItsFirstId() throws NodeStartException {
        final JsonNode tor = JsonNodeFactory.instance.objectNode().put("bootstrap", 100);
        final Group a = new Group(2, 0, null);
        final Group empty = new Group(0, 0, null);
        final Group b = new Group(1, 0, tor);
        final Group late = new Group(0, 2, null);
        final NodeTransports t = NodeTransports.open(
                List.of(factory(a), factory(empty), factory(b), factory(late)), null, new NodeOptions());
        t.identityKnown(null, () -> 0L);

        final List<Transport> all = t.all();
        assertEquals(5, all.size());
        assertSame(a.transports.get(0), all.get(0));
        assertSame(a.transports.get(1), all.get(1));
        assertSame(b.transports.get(0), all.get(2));
        assertSame(late.transports.get(0), all.get(3));
        assertSame(late.transports.get(1), all.get(4));

        assertEquals(4, t.attach(null, null).size());
        t.started(new NodeOptions());
        assertEquals(List.of(0), a.attachedAt);
        assertEquals(List.of(2), empty.attachedAt);
        assertEquals(List.of(2), b.attachedAt);
        assertEquals(List.of(3), late.attachedAt);
        assertEquals(List.of(3), late.startedAt);

        assertSame(tor, t.monitoring(2), "transport 2 is b's first");
        assertNull(t.monitoring(0));
        assertNull(t.monitoring(3));
        assertNull(t.monitoring(5));

        t.close();
        assertTrue(a.closed && b.closed && late.closed);
        assertTrue(all.stream().noneMatch(x -> ((Fake) x).closed), "the data plane closes the transports");
    }

    @Test
    void aFailingFactoryClosesWhatTheEarlierOnesOpened() {
        final Group a = new Group(2, 0, null);
        final NodeStartException failure = new NodeStartException("cannot open TCP transport", false, null);
        final TransportFactory failing = new TransportFactory() {
            @Override
            public String type() {
                return "tcp";
            }

            @Override
            public Opened open(final FipsConfig cfg, final NodeOptions options) throws NodeStartException {
                throw failure;
            }
        };
        final NodeStartException e = assertThrows(NodeStartException.class,
                () -> NodeTransports.open(List.of(factory(a), failing), null, new NodeOptions()));
        assertSame(failure, e);
        assertTrue(a.closed);
        assertTrue(a.transports.stream().allMatch(x -> ((Fake) x).closed));
    }

    @Test
    void theRegisteredFactoriesFollowTheReferenceIdOrder() {
        int last = -1;
        final List<TransportFactory> configured = TransportFactories.REGISTERED.subList(0,
                TransportFactories.REGISTERED.size() - 1);
        // The last entry is no configured type: the NAT adoption slots (UDP) take the ids after every configured
        // transport, as the reference's runtime bootstrap transports do (ADR 0046).
        assertInstanceOf(NatAdoptionFactory.class, TransportFactories.REGISTERED.getLast());
        for (final TransportFactory f : configured) {
            final int rank = TransportTypes.rank(f.type());
            assertTrue(rank > last, f.type() + " is registered out of the id order " + TransportTypes.ID_ORDER);
            last = rank;
        }
        assertEquals(List.of("udp", "ethernet", "tcp", "tor", "nym", "ble"),
                configured.stream().map(TransportFactory::type).toList());
    }
}
