package net.fips.dataplane.engine;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IJ_Result;

/**
 * A receive thread looks an index up while the control thread adds it. {@link IndexTable#with} fills the copy's
 * arrays after its constructor (no final-field freeze covers them), so only the CAS publishing it and the
 * reader's acquire load make the entries visible with the table. r1: the size of the table the reader saw, r2:
 * the link id it found (MISSING is Long.MIN_VALUE).
 */
@JCStressTest
@Description("IndexTableHolder: a reader that sees the new table sees its entries")
@Outcome(id = "0, -9223372036854775808", expect = Expect.ACCEPTABLE, desc = "old (empty) table")
@Outcome(id = "1, 7", expect = Expect.ACCEPTABLE, desc = "new table with its entry")
@Outcome(id = "1, .*", expect = Expect.FORBIDDEN, desc = "new table seen without its entry: publication broken")
@Outcome(expect = Expect.FORBIDDEN, desc = "anything else")
@State
public class IndexTableHolderPublicationTest {
    static final long KEY = IndexTable.key(2, 0x7777);

    final IndexTableHolder holder = new IndexTableHolder();

    @Actor
    public void control() {
        holder.add(KEY, 7);
    }

    @Actor
    public void rx(final IJ_Result r) {
        final IndexTable t = holder.lvTable();
        r.r1 = t.size();
        r.r2 = t.get(KEY);
    }
}
