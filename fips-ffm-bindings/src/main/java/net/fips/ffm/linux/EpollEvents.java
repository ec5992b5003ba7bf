package net.fips.ffm.linux;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.MemorySegment;

import net.fips.ffm.linux.gen.epoll_event;

/**
 * Access to arrays of {@code struct epoll_event}:
 * <pre>{@code
 * struct epoll_event { uint32_t events; epoll_data_t data; } __attribute__((packed));   // x86_64: 12 bytes
 * }</pre>
 * The struct is packed on x86_64 (data at offset 4, unaligned) but not on aarch64; sizes come from the generated
 * layout and {@code LayoutTest} pins them.
 */
public final class EpollEvents {
    /** {@code sizeof(struct epoll_event)}. */
    public static final long SIZE = epoll_event.sizeof();
    private static final long EVENTS = epoll_event.events$offset();
    private static final long DATA = epoll_event.data$offset();

    private EpollEvents() {
    }

    /** Writes entry {@code index} of an event array. */
    public static void set(final MemorySegment array, final int index, final int events, final long data) {
        final long base = index * SIZE;
        array.set(JAVA_INT_UNALIGNED, base + EVENTS, events);
        array.set(JAVA_LONG_UNALIGNED, base + DATA, data);
    }

    /** @return the ready-event mask of entry {@code index} */
    public static int events(final MemorySegment array, final int index) {
        return array.get(JAVA_INT_UNALIGNED, index * SIZE + EVENTS);
    }

    /** @return the user data of entry {@code index} */
    public static long data(final MemorySegment array, final int index) {
        return array.get(JAVA_LONG_UNALIGNED, index * SIZE + DATA);
    }
}
