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
 * Two writers add different indices to {@link IndexTableHolder} at once (in the node: the control thread
 * adding a new session's index while a worker changes another). Each add copies the current table and installs
 * the copy by CAS; a plain store would let one copy overwrite the other. r1, r2: the link ids found for the two
 * keys afterwards (MISSING is Long.MIN_VALUE), r3: the table's size.
 */
@JCStressTest
@Description("IndexTableHolder: concurrent adds are both kept (no lost update)")
@Outcome(id = "1, 2, 2", expect = Expect.ACCEPTABLE, desc = "both indices present")
@Outcome(id = "-9223372036854775808, 2, .*", expect = Expect.FORBIDDEN, desc = "the first add was lost")
@Outcome(id = "1, -9223372036854775808, .*", expect = Expect.FORBIDDEN, desc = "the second add was lost")
@Outcome(expect = Expect.FORBIDDEN, desc = "anything else")
@State
public class IndexTableHolderAddAddTest {
    static final long K1 = IndexTable.key(0, 0x1111);
    static final long K2 = IndexTable.key(0, 0x2222);

    final IndexTableHolder holder = new IndexTableHolder();

    @Actor
    public void add1() {
        holder.add(K1, 1);
    }

    @Actor
    public void add2() {
        holder.add(K2, 2);
    }

    @Arbiter
    public void arbiter(final JJI_Result r) {
        final IndexTable t = holder.lvTable();
        r.r1 = t.get(K1);
        r.r2 = t.get(K2);
        r.r3 = t.size();
    }
}
