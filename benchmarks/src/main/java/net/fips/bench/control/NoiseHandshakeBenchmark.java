package net.fips.bench.control;

import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

import net.fips.control.crypto.Secp256k1;
import net.fips.control.noise.HandshakeResult;
import net.fips.control.noise.HandshakeState;
import net.fips.control.noise.HandshakeState.Pattern;
import net.fips.control.noise.NoiseException;

/**
 * A complete handshake, both sides in one thread, with fresh ephemerals each time: {@code ik} is the FMP link
 * handshake (msg1 + msg2), {@code xk} the FSP session handshake (msg1 + msg2 + msg3). The score is the CPU cost of
 * both sides together; half of it approximates one side.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class NoiseHandshakeBenchmark {
    private byte[] initiatorSecret;
    private byte[] responderSecret;
    private byte[] responderPublic;
    private final byte[] initiatorEpoch = new byte[8];
    private final byte[] responderEpoch = new byte[8];

    /** Fixed static keys for the run; ephemerals stay random per handshake as in real use. */
    @Setup
    public void setup() {
        final SecureRandom rnd = new SecureRandom();
        initiatorSecret = randomSecret(rnd);
        responderSecret = randomSecret(rnd);
        responderPublic = Secp256k1.compressed(responderSecret);
        rnd.nextBytes(initiatorEpoch);
        rnd.nextBytes(responderEpoch);
    }

    private static byte[] randomSecret(final SecureRandom rnd) {
        return Secp256k1.randomSecret(rnd);
    }

    /** IK: initiator writes msg1, responder reads it and writes msg2, initiator reads msg2; both finish. */
    @Benchmark
    public HandshakeResult ik() throws NoiseException {
        final HandshakeState i = HandshakeState.initiator(Pattern.IK, initiatorSecret, responderPublic, initiatorEpoch);
        final HandshakeState r = HandshakeState.responder(Pattern.IK, responderSecret, responderEpoch);
        r.readMessage1(i.writeMessage1());
        i.readMessage2(r.writeMessage2());
        r.finish();
        return i.finish();
    }

    /** XK: three messages; both finish. */
    @Benchmark
    public HandshakeResult xk() throws NoiseException {
        final HandshakeState i = HandshakeState.initiator(Pattern.XK, initiatorSecret, responderPublic, initiatorEpoch);
        final HandshakeState r = HandshakeState.responder(Pattern.XK, responderSecret, responderEpoch);
        r.readMessage1(i.writeMessage1());
        i.readMessage2(r.writeMessage2());
        r.readMessage3(i.writeMessage3());
        r.finish();
        return i.finish();
    }

    /**
     * Runs just this benchmark.
     *
     * @param args ignored
     */
    public static void main(final String[] args) throws RunnerException {
        new Runner(new OptionsBuilder().include(NoiseHandshakeBenchmark.class.getSimpleName()).build()).run();
    }
}
