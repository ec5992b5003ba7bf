package net.fips.dataplane.engine;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JI_Result;

/**
 * The same index is re-pointed at another link (the control thread's add) while a worker removes it for the old
 * link. {@code remove(key, linkId)} removes only while the key still maps to that link, so whichever runs first
 * the new mapping survives: the check and the swap must be one CAS step. r1: the key's link id afterwards
 * (MISSING is Long.MIN_VALUE), r2: the table's size.
 */
@JCStressTest
@Description("IndexTableHolder: a remove for the old link never deletes the key's new mapping")
@Outcome(id = "3, 1", expect = Expect.ACCEPTABLE,
        desc = "the new mapping survives (remove ran first, or saw it and did nothing)")
@Outcome(id = "-9223372036854775808, .*", expect = Expect.FORBIDDEN, desc = "the remove deleted the new mapping")
@Outcome(id = "1, .*", expect = Expect.FORBIDDEN, desc = "the re-pointing was lost")
@Outcome(expect = Expect.FORBIDDEN, desc = "anything else")
@State
public class IndexTableHolderRemoveStaleTest {
    static final long KEY = IndexTable.key(1, 0x4242);

    final IndexTableHolder holder = new IndexTableHolder();

    public IndexTableHolderRemoveStaleTest() {
        holder.add(KEY, 1);
    }

    @Actor
    public void control() {
        holder.add(KEY, 3);
    }

    @Actor
    public void worker() {
        holder.remove(KEY, 1);
    }

    @Arbiter
    public void arbiter(final JI_Result r) {
        final IndexTable t = holder.lvTable();
        r.r1 = t.get(KEY);
        r.r2 = t.size();
    }
}
