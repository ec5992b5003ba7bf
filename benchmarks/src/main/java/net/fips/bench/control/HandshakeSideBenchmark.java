package net.fips.bench.control;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

import net.fips.control.crypto.Schnorr;
import net.fips.control.crypto.Secp256k1;
import net.fips.control.crypto.Secp256k1Backend;
import net.fips.control.crypto.Secp256k1Backends;
import net.fips.control.noise.EphemeralSource;
import net.fips.control.noise.HandshakeResult;
import net.fips.control.noise.HandshakeState;
import net.fips.control.noise.HandshakeState.Pattern;
import net.fips.control.noise.NoiseException;

/**
 * The CPU of one side of a handshake, per secp256k1 backend ({@code backend}: {@code libsecp256k1} or
 * {@code bouncycastle}, switched with {@link Secp256k1Backends#use}). Each side runs alone against the other side's
 * messages, recorded once in setup, so a score is one side's work: {@code ikInitiator} = construct (static public key)
 * + write IK msg1 (ephemeral key, es, ss) + read msg2 (ee, se) + finish; {@code ikResponder} = construct + read msg1
 * (es, ss) + write msg2 (ephemeral key, ee, se) + finish; {@code xk*} the same for the three-message FSP handshake.
 * The ephemerals are fixed (so the recorded replies fit); a scalar multiplication costs the same for any scalar, and
 * production only adds one SecureRandom draw per side.
 *
 * <p>{@code ecdh}, {@code signData} and {@code verifyData} are the single operations (the Noise DH, and the FIPS
 * signing rule over 32 bytes of data as tree announcements and auth challenges use it) for scale.
 *
 * <p>On a machine shared with other work the score (wall time) also measures the share of a core this thread got.
 * So each measurement iteration also records the benchmark thread's own CPU time (user + system, from
 * {@link ThreadMXBean#getCurrentThreadCpuTime()}) per operation, printed at the end of each fork as
 * {@code cpu-us/op}. It leaves out the garbage collector's threads (BouncyCastle allocates about 0.4 MB per side).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class HandshakeSideBenchmark {
    /** Which secp256k1 backend the fork uses. */
    @Param({"libsecp256k1", "bouncycastle"})
    public String backend;

    private final byte[] initiatorEpoch = new byte[8];
    private final byte[] responderEpoch = new byte[8];
    private byte[] initiatorSecret;
    private byte[] responderSecret;
    private byte[] responderPublic;
    private byte[] initiatorEphemeral;
    private byte[] responderEphemeral;
    private byte[] ikMsg1;
    private byte[] ikMsg2;
    private byte[] xkMsg1;
    private byte[] xkMsg2;
    private byte[] xkMsg3;
    private byte[] data;
    private byte[] signature;
    private byte[] initiatorXOnly;

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final StringBuilder cpuPerOp = new StringBuilder();
    private long ops;
    private long opsAtStart;
    private long cpuAtStart;

    /** Selects the backend, then records both handshakes' messages once with seeded keys. */
    @Setup
    public void setup() throws NoiseException {
        Secp256k1Backend chosen = null;
        for (final Secp256k1Backend b : Secp256k1Backends.available()) {
            if (b.name().equals(backend)) {
                chosen = b;
            }
        }
        if (chosen == null) {
            throw new IllegalStateException("secp256k1 backend " + backend + " unavailable: "
                    + Secp256k1Backends.libsecp256k1UnavailableReason());
        }
        Secp256k1Backends.use(chosen);
        final Random rnd = new Random(18);
        initiatorSecret = secret(rnd);
        responderSecret = secret(rnd);
        initiatorEphemeral = secret(rnd);
        responderEphemeral = secret(rnd);
        rnd.nextBytes(initiatorEpoch);
        rnd.nextBytes(responderEpoch);
        responderPublic = Secp256k1.compressed(responderSecret);
        initiatorXOnly = Secp256k1.xOnly(initiatorSecret);

        HandshakeState i = initiator(Pattern.IK);
        HandshakeState r = responder(Pattern.IK);
        ikMsg1 = i.writeMessage1();
        r.readMessage1(ikMsg1);
        ikMsg2 = r.writeMessage2();
        i.readMessage2(ikMsg2);
        i.finish();
        r.finish();

        i = initiator(Pattern.XK);
        r = responder(Pattern.XK);
        xkMsg1 = i.writeMessage1();
        r.readMessage1(xkMsg1);
        xkMsg2 = r.writeMessage2();
        i.readMessage2(xkMsg2);
        xkMsg3 = i.writeMessage3();
        r.readMessage3(xkMsg3);
        i.finish();
        r.finish();

        data = new byte[32];
        rnd.nextBytes(data);
        signature = Schnorr.signData(initiatorSecret, data);
    }

    /** Notes where the iteration's CPU time and operation count start. */
    @Setup(Level.Iteration)
    public void startIteration() {
        opsAtStart = ops;
        cpuAtStart = threads.getCurrentThreadCpuTime();
    }

    /** Records a measurement iteration's thread CPU time per operation. */
    @TearDown(Level.Iteration)
    public void endIteration(final IterationParams params) {
        final long cpu = threads.getCurrentThreadCpuTime() - cpuAtStart;
        if (params.getType() == IterationType.MEASUREMENT && ops > opsAtStart) {
            cpuPerOp.append(String.format(Locale.ROOT, " %.1f", cpu / 1e3 / (ops - opsAtStart)));
        }
    }

    /** Prints the fork's CPU figures: one per measurement iteration. */
    @TearDown(Level.Trial)
    public void tearDown(final BenchmarkParams params) {
        final String name = params.getBenchmark();
        System.out.printf("%n%s %s: cpu-us/op per measurement iteration:%s%n",
                name.substring(name.lastIndexOf('.') + 1), backend, cpuPerOp);
    }

    private static byte[] secret(final Random rnd) {
        return Secp256k1.randomSecret(rnd);
    }

    private HandshakeState initiator(final Pattern pattern) throws NoiseException {
        return HandshakeState.initiator(pattern, initiatorSecret, responderPublic, initiatorEpoch,
                EphemeralSource.fixed(initiatorEphemeral));
    }

    private HandshakeState responder(final Pattern pattern) throws NoiseException {
        return HandshakeState.responder(pattern, responderSecret, responderEpoch,
                EphemeralSource.fixed(responderEphemeral));
    }

    /** IK initiator: write msg1, read msg2, finish. */
    @Benchmark
    public HandshakeResult ikInitiator() throws NoiseException {
        ops++;
        final HandshakeState i = initiator(Pattern.IK);
        i.writeMessage1();
        i.readMessage2(ikMsg2);
        return i.finish();
    }

    /** IK responder: read msg1, write msg2, finish. */
    @Benchmark
    public HandshakeResult ikResponder() throws NoiseException {
        ops++;
        final HandshakeState r = responder(Pattern.IK);
        r.readMessage1(ikMsg1);
        r.writeMessage2();
        return r.finish();
    }

    /** XK initiator: write msg1, read msg2, write msg3, finish. */
    @Benchmark
    public HandshakeResult xkInitiator() throws NoiseException {
        ops++;
        final HandshakeState i = initiator(Pattern.XK);
        i.writeMessage1();
        i.readMessage2(xkMsg2);
        i.writeMessage3();
        return i.finish();
    }

    /** XK responder: read msg1, write msg2, read msg3, finish. */
    @Benchmark
    public HandshakeResult xkResponder() throws NoiseException {
        ops++;
        final HandshakeState r = responder(Pattern.XK);
        r.readMessage1(xkMsg1);
        r.writeMessage2();
        r.readMessage3(xkMsg3);
        return r.finish();
    }

    /** One Noise DH (parse the peer key, multiply, SHA-256 of X). */
    @Benchmark
    public byte[] ecdh() {
        ops++;
        return Secp256k1.ecdh(initiatorSecret, responderPublic);
    }

    /** The FIPS signing rule (fresh aux, BIP-340 over SHA-256 of 32 bytes, self-verified). */
    @Benchmark
    public byte[] signData() {
        ops++;
        return Schnorr.signData(initiatorSecret, data);
    }

    /** The FIPS verification rule. */
    @Benchmark
    public boolean verifyData() {
        ops++;
        return Schnorr.verifyData(initiatorXOnly, data, signature);
    }

    /**
     * Runs just this benchmark.
     *
     * @param args ignored
     */
    public static void main(final String[] args) throws RunnerException {
        new Runner(new OptionsBuilder().include(HandshakeSideBenchmark.class.getSimpleName()).build()).run();
    }
}
