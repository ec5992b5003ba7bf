package net.fips.dataplane.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import net.fips.dataplane.agent.Agent;
import net.fips.dataplane.agent.AgentRunner;
import net.fips.dataplane.agent.IdleStrategy;
import net.fips.dataplane.agent.WakeSignal;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.PollFds;
import net.fips.ffm.linux.Syscalls;
import net.fips.ffm.linux.WakeFd;

/**
 * {@link ThreadingMode#COMPACT}: every agent of the data plane (UDP receive, TUN receive, workers, UDP transmit) on
 * one platform thread, {@value #THREAD_NAME}, in run-to-completion cycles: each cycle runs every agent once, in
 * pipeline order, so a datagram received at the top of a cycle is usually opened, delivered (or re-sealed) and sent
 * before the cycle ends, with no hand-off to another thread.
 *
 * <p>Idle: after a cycle that did nothing the thread announces itself on the shared {@link WakeSignal}, re-checks
 * every ring and command queue, then blocks in {@code poll(2)} on every descriptor it reads (the UDP sockets, the
 * TUN device) and the signal's eventfd. Producers outside the thread (the control thread's commands, the loops of
 * the other transports delivering frames, {@code sendDatagram} callers, {@link #close()}) write the eventfd. The
 * poll is bounded by the data plane's idle park bound.
 *
 * <p>Back-pressure: when a descriptor is readable, or input is queued, yet a cycle could take none of it (an
 * exhausted pool, say), nothing will change until another thread gives something back, and the poll would return
 * at once again. The runner then paces its retries through the idle strategy (spin, yield, timed parks growing to
 * its maximum, 1 ms by default) until a cycle does work again, so it neither spins for good nor stalls.
 */
final class CompactRunner implements Runnable, AutoCloseable {
    /** The thread's name. */
    static final String THREAD_NAME = "fips-dataplane";

    private final Agent[] agents;
    /** The agents with a wake signal, whose queues the re-check looks at. */
    private final Agent[] signalled;
    private final TunRxAgent tunRx;
    private final WakeSignal signal;
    private final WakeFd wakeFd;
    private final IdleStrategy idle;
    private final int pollTimeoutMs;
    private final AgentRunner.ErrorHandler errors;
    private final Arena arena = Arena.ofShared();
    private final CallState cs = CallState.allocate(arena);
    private final MemorySegment eventValue = arena.allocate(ValueLayout.JAVA_LONG);
    private final PollFds pfds;
    private final int dataFds;
    /** Index of the TUN descriptor in {@link #pfds}, or -1. */
    private final int tunIndex;
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile boolean running = true;
    private boolean tunRemoved;
    private Thread thread;
    /** Written by the thread only (volatile for tests that watch it; one store per cycle, not per packet). */
    private volatile long cycles;
    private volatile long polls;

    /**
     * @param agents        every agent, in the order of one cycle
     * @param fds           the descriptors the receive agents read (UDP sockets, then the TUN device if any)
     * @param tunRx         the TUN agent (its descriptor is the last of {@code fds}), or null
     * @param signal        the signal shared by every agent, made with {@code wakeFd}
     * @param wakeFd        the eventfd producers write; closed by {@link #close()}
     * @param idle          paces retries while input waits that no cycle can take
     * @param parkBoundNs   longest poll ({@link DataPlaneContext#IDLE_PARK_UNBOUNDED}: none;
     *                      {@link DataPlaneContext#IDLE_PARK_DISABLED}: never block, idle through {@code idle} only)
     */
    CompactRunner(final List<Agent> agents, final int[] fds, final TunRxAgent tunRx, final WakeSignal signal,
                  final WakeFd wakeFd, final IdleStrategy idle, final long parkBoundNs,
                  final AgentRunner.ErrorHandler errors) {
        this.agents = agents.toArray(new Agent[0]);
        this.signalled = agents.stream().filter(a -> a.wakeSignal() != null).toArray(Agent[]::new);
        this.tunRx = tunRx;
        this.signal = signal;
        this.wakeFd = wakeFd;
        this.idle = idle;
        this.errors = errors;
        if (parkBoundNs == DataPlaneContext.IDLE_PARK_UNBOUNDED) {
            this.pollTimeoutMs = -1;
        } else if (parkBoundNs == DataPlaneContext.IDLE_PARK_DISABLED) {
            this.pollTimeoutMs = 0;
        } else {
            this.pollTimeoutMs = (int) Math.min(Integer.MAX_VALUE, Math.max(1, (parkBoundNs + 999_999) / 1_000_000));
        }
        this.dataFds = fds.length;
        this.tunIndex = tunRx == null ? -1 : fds.length - 1;
        this.pfds = new PollFds(arena, fds.length + 1);
        for (int i = 0; i < fds.length; i++) {
            pfds.set(i, fds[i], Linux.POLLIN);
        }
        pfds.set(fds.length, wakeFd.fd(), Linux.POLLIN);
    }

    void start() {
        thread = Thread.ofPlatform().name(THREAD_NAME).daemon(true).unstarted(this);
        thread.start();
    }

    @Override
    public void run() {
        Agent current = null;
        try {
            final Agent[] agents = this.agents;
            boolean inputWaits = false;
            while (running) {
                int work = 0;
                for (final Agent a : agents) {
                    current = a;
                    work += a.doWork();
                }
                current = null;
                cycles = cycles + 1;
                if (work > 0) {
                    if (inputWaits) {
                        idle.reset();
                        inputWaits = false;
                    }
                    continue;
                }
                if (inputWaits || pollTimeoutMs == 0) {
                    // Input was there but this cycle took none of it: nothing changes until another thread
                    // gives something back, so pace the retries instead of polling (which returns at once).
                    idle.idle(0);
                }
                inputWaits = sleep();
            }
        } catch (final Throwable t) {
            errors.onError(current == null ? agents[0] : current, t);
        } finally {
            try {
                for (final Agent a : agents) {
                    try {
                        a.onClose();
                    } catch (final RuntimeException e) {
                        errors.onError(a, e);
                    }
                }
            } finally {
                done.countDown();
            }
        }
    }

    /**
     * Announces, re-checks every queue, then polls the descriptors and the eventfd.
     *
     * @return whether input is waiting (queued, or a descriptor readable): the next cycle should take it
     */
    private boolean sleep() {
        if (tunRx != null && !tunRemoved && tunRx.deviceGone()) {
            // a deleted device stays readable (in error) for good: stop polling it
            pfds.set(tunIndex, -1, (short) 0);
            tunRemoved = true;
        }
        signal.prepareToSleep();
        try {
            if (!running) {
                return false;
            }
            // After the announcement: whatever a producer publishes from here on comes with an eventfd write.
            if (pendingWork()) {
                return true;
            }
            if (pollTimeoutMs == 0) {
                return false;
            }
            polls = polls + 1;
            final int ready = pfds.poll(cs, pollTimeoutMs);
            if (ready <= 0) {
                return false;   // timeout, EINTR
            }
            if (pfds.revents(dataFds) != 0) {
                Syscalls.read(cs, wakeFd.fd(), eventValue, Long.BYTES);   // reset the eventfd; EAGAIN is harmless
            }
            for (int i = 0; i < dataFds; i++) {
                if (pfds.revents(i) != 0) {
                    return true;
                }
            }
            return false;
        } finally {
            signal.awake();
        }
    }

    private boolean pendingWork() {
        for (final Agent a : signalled) {
            if (a.hasPendingWork()) {
                return true;
            }
        }
        return tunRx != null && tunRx.holdsInput();
    }

    /** @return duty cycles run so far (a moment old) */
    long cycles() {
        return cycles;
    }

    /** @return how often the thread blocked in poll so far (a moment old) */
    long polls() {
        return polls;
    }

    /** @return the thread, once started */
    Thread thread() {
        return thread;
    }

    /** Stops the loop, wakes the thread out of poll, and waits for its last cycle and the agents' onClose. */
    @Override
    public void close() {
        running = false;
        if (thread != null) {
            wakeFd.wake();
            AgentRunner.awaitUninterruptibly(done);
        }
        wakeFd.close();
        arena.close();
    }
}
