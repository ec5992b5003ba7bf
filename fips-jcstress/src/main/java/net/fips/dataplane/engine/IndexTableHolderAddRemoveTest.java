package net.fips.dataplane.engine;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJI_Result;

/**
 * A worker removes an ended session's index while the control thread adds another one. The remove must not
 * resurrect the old table (dropping the add), and the add must not resurrect the removed index. r1: the link id
 * of the removed key afterwards, r2: of the added key (MISSING is Long.MIN_VALUE), r3: the table's size.
 */
@JCStressTest
@Description("IndexTableHolder: a concurrent remove and add are both applied (no lost update)")
@Outcome(id = "-9223372036854775808, 2, 1", expect = Expect.ACCEPTABLE, desc = "old index gone, new one present")
@Outcome(id = "1, 2, .*", expect = Expect.FORBIDDEN, desc = "the remove was lost (the add copied the table before it)")
@Outcome(id = "-9223372036854775808, -9223372036854775808, .*", expect = Expect.FORBIDDEN, desc = "the add was lost")
@Outcome(expect = Expect.FORBIDDEN, desc = "anything else")
@State
public class IndexTableHolderAddRemoveTest {
    static final long OLD = IndexTable.key(0, 0x1111);
    static final long NEW = IndexTable.key(0, 0x2222);

    final IndexTableHolder holder = new IndexTableHolder();

    public IndexTableHolderAddRemoveTest() {
        holder.add(OLD, 1);
    }

    @Actor
    public void worker() {
        holder.remove(OLD, 1);
    }

    @Actor
    public void control() {
        holder.add(NEW, 2);
    }

    @Arbiter
    public void arbiter(final JJI_Result r) {
        final IndexTable t = holder.lvTable();
        r.r1 = t.get(OLD);
        r.r2 = t.get(NEW);
        r.r3 = t.size();
    }
}
