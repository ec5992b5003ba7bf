package net.fips.dataplane.engine;

import java.util.concurrent.CountDownLatch;

/**
 * Runs one {@link Agent} on a dedicated platform thread named by its role, idling through an
 * {@link IdleStrategy} between empty cycles, until {@link #close()}.
 */
final class AgentRunner implements Runnable, AutoCloseable {
    private final Agent agent;
    private final IdleStrategy idle;
    private final ErrorHandler errors;
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile boolean running = true;
    private Thread thread;

    /** Where an agent's unexpected exception goes (it is a bug: the agent stops). */
    interface ErrorHandler {
        void onError(Agent agent, Throwable error);
    }

    AgentRunner(final Agent agent, final IdleStrategy idle, final ErrorHandler errors) {
        this.agent = agent;
        this.idle = idle;
        this.errors = errors;
    }

    void start() {
        thread = Thread.ofPlatform().name(agent.roleName()).daemon(true).unstarted(this);
        thread.start();
    }

    @Override
    public void run() {
        try {
            final Agent agent = this.agent;
            final IdleStrategy idle = this.idle;
            while (running) {
                idle.idle(agent.doWork());
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

    /** Stops the loop and waits for the thread to finish its last cycle and {@link Agent#onClose()}. */
    @Override
    public void close() {
        running = false;
        if (thread == null) {
            return;
        }
        agent.wakeup();
        // unpark: a parked idle strategy would otherwise sleep out its period first
        java.util.concurrent.locks.LockSupport.unpark(thread);
        boolean interrupted = false;
        while (true) {
            try {
                done.await();
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
