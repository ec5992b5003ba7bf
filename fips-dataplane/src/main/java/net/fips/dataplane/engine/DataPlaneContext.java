package net.fips.dataplane.engine;

import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import net.fips.dataplane.LocalDelivery;
import net.fips.dataplane.agent.AgentRunner;
import net.fips.dataplane.agent.BackoffIdleStrategy;
import net.fips.dataplane.agent.IdleStrategy;
import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.crypto.JdkAeadCipher;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.pool.SpscSlotRing;
import net.fips.dataplane.Ipv6Sink;

/**
 * Settings for a {@link DataPlane}: fluent setters, then {@link #conclude()} checks every value before anything is
 * allocated or started. Units are in the names.
 */
public final class DataPlaneContext {
    /** Default number of packet slots. */
    public static final int POOL_SLOTS_DEFAULT = 8192;
    /** Default largest transport MTU the slots must hold. */
    public static final int MAX_MTU_BYTES_DEFAULT = SlotDescriptor.DEFAULT_MTU_BYTES;
    /** Default number of AEAD workers. */
    public static final int WORKER_COUNT_DEFAULT = 1;
    /** Default capacity of the event queue to the control plane. */
    public static final int EVENT_QUEUE_CAPACITY_DEFAULT = 1024;
    /** Default capacity of each slot ring between agents (a power of two). */
    public static final int RING_CAPACITY_DEFAULT = 1024;
    /** Datagrams per receive and per send call. */
    public static final int BATCH_DEFAULT = 32;
    /** Consecutive failed decryptions that make a link report {@code TooManyDecryptFailures} (reference: 20). */
    public static final int DECRYPT_FAILURE_LIMIT_DEFAULT = 20;

    /** {@link #idleParkBoundNs(long)}: park until signalled, with no timeout at all. */
    public static final long IDLE_PARK_UNBOUNDED = AgentRunner.PARK_UNBOUNDED;
    /** {@link #idleParkBoundNs(long)}: never park on the wake signal; poll through the idle strategy only. */
    public static final long IDLE_PARK_DISABLED = AgentRunner.PARK_DISABLED;
    /**
     * Default {@link #idleParkBoundNs(long)}: one second. Producers wake a parked thread at once, so the bound
     * only caps what a missed signal could cost and lets an idle thread run a cycle now and then.
     */
    public static final long IDLE_PARK_BOUND_NS_DEFAULT = 1_000_000_000L;

    private int poolSlots = POOL_SLOTS_DEFAULT;
    private int maxMtuBytes = MAX_MTU_BYTES_DEFAULT;
    private int workerCount = WORKER_COUNT_DEFAULT;
    private int eventQueueCapacity = EVENT_QUEUE_CAPACITY_DEFAULT;
    private int ringCapacity = RING_CAPACITY_DEFAULT;
    private int batch = BATCH_DEFAULT;
    private int decryptFailureLimit = DECRYPT_FAILURE_LIMIT_DEFAULT;
    private Supplier<AeadCipher> cipherSupplier = JdkAeadCipher::new;
    private LocalDelivery localDelivery = (linkId, segment, offset, length) -> { };
    private boolean sessionPath;
    private Supplier<Ipv6Sink> ipv6SinkSupplier;
    private LongSupplier nanoClock = System::nanoTime;
    private Runnable eventSignal = () -> { };
    private Supplier<IdleStrategy> idleStrategySupplier = BackoffIdleStrategy::new;
    private long idleParkBoundNs = IDLE_PARK_BOUND_NS_DEFAULT;
    private ThreadingMode threadingMode = ThreadingMode.DEDICATED;
    private boolean concluded;

    /** @param slots packet slots in the pool shared by all agents (1 to {@link PacketPool#MAX_SLOT_COUNT}) */
    public DataPlaneContext poolSlots(final int slots) {
        this.poolSlots = slots;
        return this;
    }

    /** @param bytes the largest MTU of any transport that will be added */
    public DataPlaneContext maxMtuBytes(final int bytes) {
        this.maxMtuBytes = bytes;
        return this;
    }

    /** @param count AEAD workers; each link is pinned to worker {@code linkId mod count} */
    public DataPlaneContext workerCount(final int count) {
        this.workerCount = count;
        return this;
    }

    /** @param capacity events the control plane may leave undrained before further ones are dropped (counted) */
    public DataPlaneContext eventQueueCapacity(final int capacity) {
        this.eventQueueCapacity = capacity;
        return this;
    }

    /** @param capacity slots each inter-agent ring holds (a power of two, at least 2 x batch) */
    public DataPlaneContext ringCapacity(final int capacity) {
        this.ringCapacity = capacity;
        return this;
    }

    /** @param datagrams datagrams per receive/send batch (1 to 1024) */
    public DataPlaneContext batch(final int datagrams) {
        this.batch = datagrams;
        return this;
    }

    /** @param failures consecutive authentication failures before a link is reported (at least 1) */
    public DataPlaneContext decryptFailureLimit(final int failures) {
        this.decryptFailureLimit = failures;
        return this;
    }

    /** @param supplier makes one AEAD engine per worker (called on the constructing thread) */
    public DataPlaneContext cipherSupplier(final Supplier<AeadCipher> supplier) {
        this.cipherSupplier = supplier;
        return this;
    }

    /** @param hook receives SessionDatagrams addressed to this node, on the worker thread that opened them */
    public DataPlaneContext localDelivery(final LocalDelivery hook) {
        this.localDelivery = hook;
        return this;
    }

    /**
     * @param on whether SessionDatagrams for this node go through the end-to-end session path (FSP open, IPv6 to the
     *           sink; handshakes and error signals as events) rather than to the {@link #localDelivery} hook; only
     *           with a forwarding table installed. Off by default (the hook sees everything, as before sessions).
     */
    public DataPlaneContext sessionPath(final boolean on) {
        this.sessionPath = on;
        return this;
    }

    /**
     * @param supplier one {@link net.fips.dataplane.Ipv6Sink} per worker for decrypted IPv6 packets and ICMPv6
     *                 errors (the TUN device); null drops them (counted)
     */
    public DataPlaneContext ipv6SinkSupplier(final Supplier<Ipv6Sink> supplier) {
        this.ipv6SinkSupplier = supplier;
        return this;
    }

    /** @param clock monotonic nanoseconds (liveness stamps, frame timestamps); tests inject a manual clock */
    public DataPlaneContext nanoClock(final LongSupplier clock) {
        this.nanoClock = clock;
        return this;
    }

    /**
     * @param signal run on the data-plane thread right after each event is queued, so an idle control thread can
     *               sleep until there is work (e.g. {@code () -> LockSupport.unpark(controlThread)}); must be
     *               cheap and never block. Default: nothing.
     */
    public DataPlaneContext eventSignal(final Runnable signal) {
        this.eventSignal = signal;
        return this;
    }

    /**
     * @param supplier makes one idle strategy per worker and tx thread: it governs the spin and yield phases after
     *                 work runs out; what follows is set by {@link #idleParkBoundNs(long)}. A strategy whose
     *                 {@link IdleStrategy#isExhausted()} stays false (busy spinning) keeps its thread hot for good.
     */
    public DataPlaneContext idleStrategySupplier(final Supplier<IdleStrategy> supplier) {
        this.idleStrategySupplier = supplier;
        return this;
    }

    /**
     * The final idle phase of the worker and tx threads (dedicated threading). Once the idle strategy is
     * {@link IdleStrategy#isExhausted() exhausted} (the default one after spinning, yielding and short parks
     * growing to 1 ms: about 1-2 ms of idleness), the thread parks until a producer hands it something: the
     * receive loop, a {@link DataPlane#sendDatagram} caller, a command, or a worker with sealed frames. An idle
     * data plane then uses no CPU, while the first packet after a quiet spell wakes its threads at once. The
     * receive threads always block in the kernel instead. In {@link ThreadingMode#COMPACT} this is the longest
     * {@code poll} of the one thread (rounded up to milliseconds); {@link #IDLE_PARK_DISABLED} there means never
     * blocking, idling through the strategy only.
     *
     * @param nanos the longest such park: {@link #IDLE_PARK_BOUND_NS_DEFAULT}, {@link #IDLE_PARK_UNBOUNDED}, any
     *              positive bound, or {@link #IDLE_PARK_DISABLED} to poll through the strategy's own timed park
     *              (the {@link BackoffIdleStrategy} default wakes every millisecond)
     */
    public DataPlaneContext idleParkBoundNs(final long nanos) {
        this.idleParkBoundNs = nanos;
        return this;
    }

    /** @param mode how agents map onto threads */
    public DataPlaneContext threadingMode(final ThreadingMode mode) {
        this.threadingMode = mode;
        return this;
    }

    /**
     * Checks every setting.
     *
     * @return this
     * @throws IllegalArgumentException naming the first bad setting
     * @throws NullPointerException     for a missing hook, supplier or clock
     */
    public DataPlaneContext conclude() {
        if (poolSlots < 1 || poolSlots > PacketPool.MAX_SLOT_COUNT) {
            throw new IllegalArgumentException("poolSlots " + poolSlots + " not in [1, " + PacketPool.MAX_SLOT_COUNT
                    + "]");
        }
        if (maxMtuBytes < SlotDescriptor.MIN_MTU_BYTES || maxMtuBytes > SlotDescriptor.MAX_MTU_BYTES) {
            throw new IllegalArgumentException("maxMtuBytes " + maxMtuBytes + " not in [" + SlotDescriptor.MIN_MTU_BYTES
                    + ", " + SlotDescriptor.MAX_MTU_BYTES + "]");
        }
        if (workerCount < 1 || workerCount > 256) {
            throw new IllegalArgumentException("workerCount " + workerCount + " not in [1, 256]");
        }
        if (eventQueueCapacity < 1) {
            throw new IllegalArgumentException("eventQueueCapacity " + eventQueueCapacity + " < 1");
        }
        if (batch < 1 || batch > 1024) {
            throw new IllegalArgumentException("batch " + batch + " not in [1, 1024]");
        }
        if (ringCapacity < 2 * batch || ringCapacity > SpscSlotRing.MAX_CAPACITY
                || Integer.bitCount(ringCapacity) != 1) {
            throw new IllegalArgumentException("ringCapacity " + ringCapacity + " is not a power of two >= 2 x batch ("
                    + 2 * batch + ")");
        }
        if (idleParkBoundNs < 0) {
            throw new IllegalArgumentException("idleParkBoundNs " + idleParkBoundNs + " < 0");
        }
        if (decryptFailureLimit < 1) {
            throw new IllegalArgumentException("decryptFailureLimit " + decryptFailureLimit + " < 1");
        }
        Objects.requireNonNull(cipherSupplier, "cipherSupplier");
        Objects.requireNonNull(localDelivery, "localDelivery");
        Objects.requireNonNull(nanoClock, "nanoClock");
        Objects.requireNonNull(eventSignal, "eventSignal");
        Objects.requireNonNull(idleStrategySupplier, "idleStrategySupplier");
        Objects.requireNonNull(threadingMode, "threadingMode");
        concluded = true;
        return this;
    }

    /** @return whether {@link #conclude()} has run */
    public boolean concluded() {
        return concluded;
    }

    /** @return packet slots */
    public int poolSlots() {
        return poolSlots;
    }

    /** @return the largest MTU the slots hold */
    public int maxMtuBytes() {
        return maxMtuBytes;
    }

    /** @return AEAD workers */
    public int workerCount() {
        return workerCount;
    }

    /** @return event queue capacity */
    public int eventQueueCapacity() {
        return eventQueueCapacity;
    }

    /** @return ring capacity */
    public int ringCapacity() {
        return ringCapacity;
    }

    /** @return datagrams per batch */
    public int batch() {
        return batch;
    }

    /** @return consecutive failures before a link is reported */
    public int decryptFailureLimit() {
        return decryptFailureLimit;
    }

    /** @return the AEAD engine factory */
    public Supplier<AeadCipher> cipherSupplier() {
        return cipherSupplier;
    }

    /** @return whether the session path is on */
    public boolean sessionPath() {
        return sessionPath;
    }

    /** @return the IPv6 sink supplier, or null */
    public Supplier<Ipv6Sink> ipv6SinkSupplier() {
        return ipv6SinkSupplier;
    }

    /** @return the local delivery hook */
    public LocalDelivery localDelivery() {
        return localDelivery;
    }

    /** @return the nanosecond clock */
    public LongSupplier nanoClock() {
        return nanoClock;
    }

    /** @return what runs after each queued event */
    public Runnable eventSignal() {
        return eventSignal;
    }

    /** @return the idle strategy factory */
    public Supplier<IdleStrategy> idleStrategySupplier() {
        return idleStrategySupplier;
    }

    /** @return the longest park of an idle worker or tx thread on its wake signal; 0 = never parks on it */
    public long idleParkBoundNs() {
        return idleParkBoundNs;
    }

    /** @return the threading mode */
    public ThreadingMode threadingMode() {
        return threadingMode;
    }
}
