package net.fips.dataplane.engine;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * An agent's {@link Counters} are written by that agent alone with opaque stores and read by the control thread
 * (stats, {@code show}) with opaque loads: a reader may lag, but two reads in a row never go backwards (opaque
 * accesses are coherent per variable) and every value is one the writer stored. r1, r2: two consecutive reads,
 * r3: the value after the writer finished.
 */
@JCStressTest
@Description("Counters: a reader's consecutive reads never go backwards; the final value counts every increment")
@Outcome(id = {"0, 0, 2", "0, 1, 2", "0, 2, 2", "1, 1, 2", "1, 2, 2", "2, 2, 2"}, expect = Expect.ACCEPTABLE,
        desc = "reads lag at most, and never decrease")
@Outcome(id = {"1, 0, 2", "2, 0, 2", "2, 1, 2"}, expect = Expect.FORBIDDEN, desc = "the counter went backwards")
@Outcome(expect = Expect.FORBIDDEN, desc = "a value never written, or a lost increment")
@State
public class CountersTest {
    final Counters counters = new Counters();

    @Actor
    public void agent() {
        counters.increment(DataPlaneCounter.DROP_UNKNOWN_INDEX);
        counters.increment(DataPlaneCounter.DROP_UNKNOWN_INDEX);
    }

    @Actor
    public void reader(final III_Result r) {
        r.r1 = (int) counters.get(DataPlaneCounter.DROP_UNKNOWN_INDEX);
        r.r2 = (int) counters.get(DataPlaneCounter.DROP_UNKNOWN_INDEX);
    }

    @Arbiter
    public void arbiter(final III_Result r) {
        r.r3 = (int) counters.get(DataPlaneCounter.DROP_UNKNOWN_INDEX);
    }
}
