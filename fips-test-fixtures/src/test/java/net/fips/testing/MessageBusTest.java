package net.fips.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The harnesses' bus: FIFO including what deliveries send, drops counted, a storm fails instead of hanging. */
class MessageBusTest {
    @Test
    void deliversInFifoOrderIncludingWhatDeliveriesSend() {
        final MessageBus<Integer> bus = new MessageBus<>(100);
        final List<Integer> seen = new ArrayList<>();
        bus.send(1);
        bus.send(2);
        assertEquals(2, bus.size());
        final int n = bus.drain(m -> {
            seen.add(m);
            if (m < 3) {
                bus.send(m + 10);
            }
        });
        assertEquals(List.of(1, 2, 11, 12), seen);
        assertEquals(4, n);
        assertEquals(0, bus.size());
    }

    @Test
    void dropsWhatTheFilterAcceptsAndCountsThem() {
        final MessageBus<Integer> bus = new MessageBus<>(100);
        final List<Integer> seen = new ArrayList<>();
        bus.dropWhen(m -> m % 2 == 0);
        for (int i = 0; i < 6; i++) {
            bus.send(i);
        }
        assertEquals(3, bus.drain(seen::add));
        assertEquals(List.of(1, 3, 5), seen);
        assertEquals(3, bus.dropped());
        bus.send(7);
        bus.clear();
        assertEquals(0, bus.drain(seen::add), "cleared messages are gone");
        assertEquals(3, bus.dropped(), "and not counted as dropped");
    }

    @Test
    void aStormFailsTheTest() {
        final MessageBus<Integer> bus = new MessageBus<>(50);
        bus.send(0);
        final AssertionError e = assertThrows(AssertionError.class, () -> bus.drain(m -> {
            bus.send(m + 1);
            bus.send(m + 1);
        }));
        assertTrue(e.getMessage().contains("more than 50 deliveries"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new MessageBus<Integer>(0));
    }
}
