package net.fips.sim;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.Map;

import net.fips.control.crypto.Schnorr;
import net.fips.control.tree.SignatureVerifier;

/**
 * Real BIP-340 verification for every simulated node, optionally memoised: a TreeAnnounce is verified by each of
 * the announcer's peers, and in one JVM those are checks of identical bytes, so the first result is reused. The
 * key is SHA-256 of (key, data, signature), so a changed byte is a new check; only the cost is saved, never the
 * check itself. The memo keeps the {@value #MEMO_CAPACITY} most recently used results: every new announce or proof
 * adds one, so an unbounded memo grew by about 1 MiB per virtual hour of a 250-node soak and hid the nodes' own
 * heap figure; the peers of an announcer check it within seconds, long before it is evicted.
 */
public final class SimSignatures implements SignatureVerifier {
    private final boolean memoise;
    /** Results kept for reuse. */
    static final int MEMO_CAPACITY = 1 << 16;

    private final Map<Key, Boolean> memo = new LinkedHashMap<>(1024, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(final Map.Entry<Key, Boolean> eldest) {
            return size() > MEMO_CAPACITY;
        }
    };
    private final MessageDigest sha;
    private long verifications;
    private long memoHits;

    private record Key(long a, long b, long c, long d) {
    }

    SimSignatures(final boolean memoise) {
        this.memoise = memoise;
        try {
            this.sha = MessageDigest.getInstance("SHA-256");
        } catch (final NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public boolean verify(final byte[] xOnlyPublicKey, final byte[] data, final byte[] signature) {
        if (!memoise) {
            verifications++;
            return verifyOnce(xOnlyPublicKey, data, signature);
        }
        sha.update(xOnlyPublicKey);
        sha.update(data);
        sha.update(signature);
        final byte[] h = sha.digest();
        final Key k = new Key(word(h, 0), word(h, 8), word(h, 16), word(h, 24));
        final Boolean known = memo.get(k);
        if (known != null) {
            memoHits++;
            return known;
        }
        verifications++;
        final boolean ok = verifyOnce(xOnlyPublicKey, data, signature);
        memo.put(k, ok);
        return ok;
    }

    private static boolean verifyOnce(final byte[] key, final byte[] data, final byte[] sig) {
        try {
            return Schnorr.verifyData(key, data, sig);
        } catch (final RuntimeException e) {
            return false;
        }
    }

    private static long word(final byte[] b, final int off) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[off + i] & 0xFF);
        }
        return v;
    }

    /** @return BIP-340 verifications actually computed */
    public long verifications() {
        return verifications;
    }

    /** @return results in the memo (at most {@value #MEMO_CAPACITY}) */
    public int memoSize() {
        return memo.size();
    }

    /** @return checks answered from the memo */
    public long memoHits() {
        return memoHits;
    }
}
