package net.fips.dataplane.agent;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs one {@link Agent} on a dedicated platform thread named by its role, idling through an
 * {@link IdleStrategy} between empty cycles, until {@link #close()}.
 *
 * <p>With a {@link WakeSignal} and a positive park bound, once the strategy is exhausted the thread
 * parks until a producer signals (or the bound passes) instead of waking on a timer, so an idle agent costs no
 * CPU. If input is queued but a cycle could not take it (a full downstream ring), the strategy's timed park is
 * used, since no signal will come for that.
 */
public final class AgentRunner implements Runnable, AutoCloseable {
    /** Park bound: park on the wake signal until a producer signals, however long that takes. */
    public static final long PARK_UNBOUNDED = Long.MAX_VALUE;
    /** Park bound: never park on the wake signal; idle through the strategy only. */
    public static final long PARK_DISABLED = 0;

    private final Agent agent;
    private final IdleStrategy idle;
    private final ErrorHandler errors;
    private final WakeSignal signal;
    private final long parkBoundNs;
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile boolean running = true;
    private Thread thread;

    /** Where an agent's unexpected exception goes (it is a bug: the agent stops). */
    public interface ErrorHandler {
        /** Called on the agent's thread with the exception that stopped it. */
        void onError(Agent agent, Throwable error);
    }

    /**
     * @param agent       the agent to run
     * @param idle        what the thread does between empty cycles
     * @param parkBoundNs longest park on the agent's wake signal ({@link #PARK_UNBOUNDED}: none);
     *                    {@link #PARK_DISABLED}, or an agent without a signal: poll through the idle strategy only
     * @param errors      where an unexpected exception of the agent goes
     */
    public AgentRunner(final Agent agent, final IdleStrategy idle, final long parkBoundNs, final ErrorHandler errors) {
        this.agent = agent;
        this.idle = idle;
        this.errors = errors;
        this.signal = parkBoundNs > 0 ? agent.wakeSignal() : null;
        this.parkBoundNs = parkBoundNs;
    }

    /** Starts the thread, named by the agent's role. */
    public void start() {
        thread = Thread.ofPlatform().name(agent.roleName()).daemon(true).unstarted(this);
        thread.start();
    }

    @Override
    public void run() {
        try {
            final Agent agent = this.agent;
            final IdleStrategy idle = this.idle;
            final WakeSignal signal = this.signal;
            boolean stalled = false;
            while (running) {
                final int work = agent.doWork();
                if (work > 0 || signal == null || !idle.isExhausted()) {
                    idle.idle(work);
                    stalled = false;
                } else if (sleep(agent, signal)) {
                    stalled = false;
                } else if (stalled) {
                    // Input waits, yet a second cycle took none: it is blocked downstream, and nobody will
                    // signal when that clears, so poll on the strategy's timer.
                    idle.idle(0);
                } else {
                    // Usually input that arrived after the cycle looked: go round again at once.
                    stalled = true;
                }
            }
        } catch (final Throwable t) {
            errors.onError(agent, t);
        } finally {
            try {
                agent.onClose();
            } finally {
                done.countDown();
            }
        }
    }

    /** @return false, without parking, if the agent has input waiting */
    private boolean sleep(final Agent agent, final WakeSignal signal) {
        signal.prepareToSleep();
        try {
            if (!running) {
                return true;
            }
            // After the announcement: whatever a producer publishes from here on comes with an unpark.
            if (agent.hasPendingWork()) {
                return false;
            }
            if (parkBoundNs == PARK_UNBOUNDED) {
                LockSupport.park(this);
            } else {
                LockSupport.parkNanos(this, parkBoundNs);
            }
            return true;
        } finally {
            signal.awake();
        }
    }

    /** Stops the loop and waits for the thread to finish its last cycle and {@link Agent#onClose()}. */
    @Override
    public void close() {
        running = false;
        if (thread == null) {
            return;
        }
        agent.wakeup();
        // unpark: a parked idle strategy would otherwise sleep out its period first
        LockSupport.unpark(thread);
        awaitUninterruptibly(done);
    }

    /** Waits for {@code latch} through interrupts, then restores the caller's interrupt status if there was one. */
    public static void awaitUninterruptibly(final CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (final InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
