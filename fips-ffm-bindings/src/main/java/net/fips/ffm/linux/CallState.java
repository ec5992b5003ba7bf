package net.fips.ffm.linux;

import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * The memory the linker writes {@code errno} into right after a downcall
 * ({@link Linker.Option#captureCallState(String...)}). One instance belongs to one thread: an I/O loop
 * allocates its own from the arena it owns and passes it to every hot-path call; control-path callers use
 * {@link #forCurrentThread()}. Never share one between threads: a concurrent call would overwrite the value
 * between the failing call and the read.
 */
public final class CallState {
    /** The platform's capture-state layout (holds {@code errno} on Linux). */
    static final StructLayout LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final ThreadLocal<CallState> PER_THREAD =
            ThreadLocal.withInitial(() -> new CallState(Arena.ofAuto().allocate(LAYOUT)));

    final MemorySegment segment;

    private CallState(final MemorySegment segment) {
        this.segment = segment;
    }

    /**
     * @param allocator where the (few bytes of) state live; typically the owning loop's arena
     * @return a fresh call state for one thread
     */
    public static CallState allocate(final SegmentAllocator allocator) {
        return new CallState(allocator.allocate(LAYOUT));
    }

    /** @return the calling thread's own call state, created on first use (control path) */
    public static CallState forCurrentThread() {
        return PER_THREAD.get();
    }

    /** @return the errno captured by the last call made with this state */
    public int errno() {
        return (int) ERRNO.get(segment, 0L);
    }
}
