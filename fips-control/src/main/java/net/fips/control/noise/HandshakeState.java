package net.fips.control.noise;

import java.security.MessageDigest;
import java.util.Arrays;

import net.fips.control.crypto.Secp256k1;
import net.fips.control.crypto.Secp256k1Backend;
import net.fips.control.crypto.Secp256k1Backends;

/**
 * One side of a FIPS Noise handshake: IK for the FMP link layer, XK for the FSP session layer, byte-compatible with
 * the reference (spec crypto-link §4). Messages, with the reference's deviations from textbook Noise:
 *
 * <pre>
 *   pre-message   &lt;- s        responder static mixed with its prefix forced to 0x02
 *   IK msg1 (106) -&gt; e, es, s, ss, enc(epoch_I)
 *   IK msg2  (57) &lt;- e, ee, se, enc(epoch_R)      "se" = DH(s_R, e_I), the same value as es
 *   XK msg1  (33) -&gt; e, es                        no payload, no tag
 *   XK msg2  (57) &lt;- e, ee, enc(epoch_R)
 *   XK msg3  (73) -&gt; s, se, enc(epoch_I)
 * </pre>
 *
 * DH = SHA-256 of the X coordinate of the shared point; payload AEAD uses empty associated data. The DHs run on the
 * active secp256k1 backend ({@link Secp256k1}); IK's "se" is not computed a second time: the es output of message 1
 * is kept until message 2 and mixed again.
 *
 * <p>Every read is all-or-nothing: a message that fails (wrong length, bad key, bad tag) throws a checked
 * {@link NoiseException} and leaves this state exactly as it was, so a forged packet cannot spoil a handshake in
 * progress. (The reference mutates its state before failing; no wire byte depends on the difference.)
 *
 * <p>Not thread-safe; one instance per handshake attempt. Retransmissions resend the stored bytes of a message,
 * never a second {@code write}.
 */
public final class HandshakeState {
    /** Compressed public key size. */
    public static final int PUBKEY_BYTES = 33;
    /** Startup epoch size. */
    public static final int EPOCH_BYTES = 8;
    /** Encrypted epoch size (epoch + tag). */
    public static final int ENCRYPTED_EPOCH_BYTES = EPOCH_BYTES + CipherState.TAG_BYTES;
    /** Encrypted static key size (key + tag). */
    public static final int ENCRYPTED_STATIC_BYTES = PUBKEY_BYTES + CipherState.TAG_BYTES;
    /** IK message 1: e || enc(s) || enc(epoch). */
    public static final int IK_MSG1_BYTES = PUBKEY_BYTES + ENCRYPTED_STATIC_BYTES + ENCRYPTED_EPOCH_BYTES;
    /** IK message 2: e || enc(epoch). */
    public static final int IK_MSG2_BYTES = PUBKEY_BYTES + ENCRYPTED_EPOCH_BYTES;
    /** XK message 1: e. */
    public static final int XK_MSG1_BYTES = PUBKEY_BYTES;
    /** XK message 2: e || enc(epoch). */
    public static final int XK_MSG2_BYTES = PUBKEY_BYTES + ENCRYPTED_EPOCH_BYTES;
    /** XK message 3: enc(s) || enc(epoch). */
    public static final int XK_MSG3_BYTES = ENCRYPTED_STATIC_BYTES + ENCRYPTED_EPOCH_BYTES;

    /** The handshake pattern and its protocol name. */
    public enum Pattern {
        /** Two messages; the FMP link handshake. */
        IK("Noise_IK_secp256k1_ChaChaPoly_SHA256"),
        /** Three messages; the FSP session handshake. */
        XK("Noise_XK_secp256k1_ChaChaPoly_SHA256");

        private final String protocolName;

        Pattern(final String protocolName) {
            this.protocolName = protocolName;
        }

        /** @return the Noise protocol name hashed into the initial state */
        public String protocolName() {
            return protocolName;
        }
    }

    /** Which side we are. */
    public enum Role {
        /** Sends message 1; knows the responder's static key beforehand. */
        INITIATOR,
        /** Receives message 1; learns the initiator's static key from the handshake. */
        RESPONDER
    }

    /** How far the handshake has got. */
    public enum Progress {
        /** Nothing sent or received. */
        INITIAL,
        /** Message 1 written or read. */
        MESSAGE1_DONE,
        /** Message 2 written or read (XK only; IK completes with message 2). */
        MESSAGE2_DONE,
        /** All messages done; {@link #finish()} gives the transport keys. */
        COMPLETE
    }

    /**
     * The static key pair of the last handshake: a node runs every handshake with its one identity, so its public
     * key (a scalar multiplication) is derived once, not per handshake. Kept by SHA-256 of the secret, not the
     * secret itself, and per backend, so each backend derives its own.
     */
    private static volatile StaticKey lastStatic;

    private record StaticKey(byte[] secretHash, byte[] compressed, Secp256k1Backend backend) {
    }

    private final Pattern pattern;
    private final Role role;
    private final EphemeralSource ephemerals;
    private final byte[] staticSecret;
    private final byte[] staticPublic;
    private final byte[] localEpoch;

    private Progress progress = Progress.INITIAL;
    private SymmetricState sym;
    private byte[] ephemeralSecret;
    private byte[] ephemeralPublic;
    private byte[] remoteStatic;
    private byte[] remoteEphemeral;
    private byte[] remoteEpoch;
    /** IK only: the es DH output of message 1, mixed again as message 2's "se" (D5); wiped by {@link #finish()}. */
    private byte[] esOutput;
    private boolean finished;

    private HandshakeState(final Pattern pattern, final Role role, final byte[] staticSecret, final byte[] localEpoch,
                           final EphemeralSource ephemerals) throws NoiseException {
        if (pattern == null || ephemerals == null) {
            throw new NoiseException(NoiseException.Reason.WRONG_STATE, "pattern and ephemeral source are required");
        }
        if (!Secp256k1.isValidSecret(staticSecret)) {
            throw new NoiseException(NoiseException.Reason.INVALID_SECRET_KEY,
                    "static secret must be 32 bytes with 1 <= k < n");
        }
        if (localEpoch == null || localEpoch.length != EPOCH_BYTES) {
            throw new NoiseException(NoiseException.Reason.WRONG_LENGTH, "startup epoch must be 8 bytes");
        }
        this.pattern = pattern;
        this.role = role;
        this.ephemerals = ephemerals;
        this.staticSecret = staticSecret.clone();
        this.staticPublic = staticPublicOf(this.staticSecret);
        this.localEpoch = localEpoch.clone();
        this.sym = SymmetricState.initialize(pattern.protocolName());
    }

    /**
     * Starts a handshake as initiator with a {@link EphemeralSource#secureRandom()} ephemeral.
     *
     * @see #initiator(Pattern, byte[], byte[], byte[], EphemeralSource)
     */
    public static HandshakeState initiator(final Pattern pattern, final byte[] staticSecret,
                                           final byte[] remoteStatic, final byte[] localEpoch)
            throws NoiseException {
        return initiator(pattern, staticSecret, remoteStatic, localEpoch, EphemeralSource.secureRandom());
    }

    /**
     * Starts a handshake as initiator.
     *
     * @param pattern      IK or XK
     * @param staticSecret our 32-byte static secret (copied)
     * @param remoteStatic the responder's 33-byte compressed static key; either parity works (an npub gives the
     *                     even lift), because DH uses X only and the pre-message forces the prefix to 0x02
     * @param localEpoch   our 8-byte startup epoch, sent encrypted in IK msg1 / XK msg3
     * @param ephemerals   where the one ephemeral of this handshake comes from
     * @throws NoiseException INVALID_SECRET_KEY, INVALID_PUBLIC_KEY or WRONG_LENGTH
     */
    public static HandshakeState initiator(final Pattern pattern, final byte[] staticSecret,
                                           final byte[] remoteStatic, final byte[] localEpoch,
                                           final EphemeralSource ephemerals) throws NoiseException {
        final HandshakeState hs = new HandshakeState(pattern, Role.INITIATOR, staticSecret, localEpoch, ephemerals);
        requireKey(remoteStatic, "responder static key");
        hs.remoteStatic = remoteStatic.clone();
        hs.sym.mixHash(premessage(hs.remoteStatic));
        return hs;
    }

    /**
     * Starts a handshake as responder with a {@link EphemeralSource#secureRandom()} ephemeral.
     *
     * @see #responder(Pattern, byte[], byte[], EphemeralSource)
     */
    public static HandshakeState responder(final Pattern pattern, final byte[] staticSecret,
                                           final byte[] localEpoch) throws NoiseException {
        return responder(pattern, staticSecret, localEpoch, EphemeralSource.secureRandom());
    }

    /**
     * Starts a handshake as responder.
     *
     * @param pattern      IK or XK
     * @param staticSecret our 32-byte static secret (copied)
     * @param localEpoch   our 8-byte startup epoch, sent encrypted in msg2
     * @param ephemerals   where the one ephemeral of this handshake comes from
     * @throws NoiseException INVALID_SECRET_KEY or WRONG_LENGTH
     */
    public static HandshakeState responder(final Pattern pattern, final byte[] staticSecret,
                                           final byte[] localEpoch, final EphemeralSource ephemerals)
            throws NoiseException {
        final HandshakeState hs = new HandshakeState(pattern, Role.RESPONDER, staticSecret, localEpoch, ephemerals);
        hs.sym.mixHash(premessage(hs.staticPublic));
        return hs;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Messages

    /**
     * Writes message 1 (initiator): IK 106 bytes, XK 33 bytes.
     *
     * @throws NoiseException WRONG_STATE, or INVALID_SECRET_KEY when the ephemeral source gives a bad key
     */
    public byte[] writeMessage1() throws NoiseException {
        expect(Role.INITIATOR, Progress.INITIAL, "write message 1");
        final byte[][] eph = newEphemeral();
        final SymmetricState s = sym.copy();
        final byte[] out = new byte[pattern == Pattern.IK ? IK_MSG1_BYTES : XK_MSG1_BYTES];
        System.arraycopy(eph[1], 0, out, 0, PUBKEY_BYTES);
        s.mixHash(eph[1]);
        final byte[] es = dh(eph[0], remoteStatic, "responder static key");
        s.mixKey(es);                                                     // es
        if (pattern == Pattern.IK) {
            final byte[] encStatic = s.encryptAndHash(staticPublic);
            System.arraycopy(encStatic, 0, out, PUBKEY_BYTES, ENCRYPTED_STATIC_BYTES);
            s.mixKey(dh(staticSecret, remoteStatic, "responder static key")); // ss
            final byte[] encEpoch = s.encryptAndHash(localEpoch);
            System.arraycopy(encEpoch, 0, out, PUBKEY_BYTES + ENCRYPTED_STATIC_BYTES, ENCRYPTED_EPOCH_BYTES);
        }
        sym = s;
        ephemeralSecret = eph[0];
        ephemeralPublic = eph[1];
        keepEs(es);
        progress = Progress.MESSAGE1_DONE;
        return out;
    }

    /**
     * Reads message 1 (responder). For IK this authenticates the initiator's static key and epoch
     * ({@link #remoteStatic()}, {@link #remoteEpoch()}); for XK it learns only the initiator's ephemeral.
     *
     * @throws NoiseException WRONG_STATE, WRONG_LENGTH, INVALID_PUBLIC_KEY or DECRYPT_FAILED; state unchanged
     */
    public void readMessage1(final byte[] msg) throws NoiseException {
        expect(Role.RESPONDER, Progress.INITIAL, "read message 1");
        requireLength(msg, pattern == Pattern.IK ? IK_MSG1_BYTES : XK_MSG1_BYTES, "message 1");
        final SymmetricState s = sym.copy();
        final byte[] re = Arrays.copyOfRange(msg, 0, PUBKEY_BYTES);
        s.mixHash(re);
        final byte[] es = dh(staticSecret, re, "initiator ephemeral key");
        s.mixKey(es);                                                     // es
        byte[] rs = null;
        byte[] epoch = null;
        if (pattern == Pattern.IK) {
            rs = s.decryptAndHash(Arrays.copyOfRange(msg, PUBKEY_BYTES, PUBKEY_BYTES + ENCRYPTED_STATIC_BYTES));
            s.mixKey(dh(staticSecret, rs, "initiator static key"));       // ss
            epoch = s.decryptAndHash(Arrays.copyOfRange(msg, PUBKEY_BYTES + ENCRYPTED_STATIC_BYTES, msg.length));
        }
        sym = s;
        remoteEphemeral = re;
        remoteStatic = rs;
        remoteEpoch = epoch;
        keepEs(es);
        progress = Progress.MESSAGE1_DONE;
    }

    /**
     * Writes message 2 (responder), 57 bytes for both patterns. Completes an IK handshake.
     *
     * @throws NoiseException WRONG_STATE, or INVALID_SECRET_KEY when the ephemeral source gives a bad key
     */
    public byte[] writeMessage2() throws NoiseException {
        expect(Role.RESPONDER, Progress.MESSAGE1_DONE, "write message 2");
        final byte[][] eph = newEphemeral();
        final SymmetricState s = sym.copy();
        final byte[] out = new byte[PUBKEY_BYTES + ENCRYPTED_EPOCH_BYTES];
        System.arraycopy(eph[1], 0, out, 0, PUBKEY_BYTES);
        s.mixHash(eph[1]);
        s.mixKey(dh(eph[0], remoteEphemeral, "initiator ephemeral key"));  // ee
        if (pattern == Pattern.IK) {
            // The reference's "se" uses our static with the initiator's ephemeral: DH(s_R, e_I), the es value (D5).
            s.mixKey(esOutput);
        }
        System.arraycopy(s.encryptAndHash(localEpoch), 0, out, PUBKEY_BYTES, ENCRYPTED_EPOCH_BYTES);
        sym = s;
        ephemeralSecret = eph[0];
        ephemeralPublic = eph[1];
        progress = pattern == Pattern.IK ? Progress.COMPLETE : Progress.MESSAGE2_DONE;
        return out;
    }

    /**
     * Reads message 2 (initiator) and learns the responder's epoch. Completes an IK handshake.
     *
     * @throws NoiseException WRONG_STATE, WRONG_LENGTH, INVALID_PUBLIC_KEY or DECRYPT_FAILED; state unchanged
     */
    public void readMessage2(final byte[] msg) throws NoiseException {
        expect(Role.INITIATOR, Progress.MESSAGE1_DONE, "read message 2");
        requireLength(msg, PUBKEY_BYTES + ENCRYPTED_EPOCH_BYTES, "message 2");
        final SymmetricState s = sym.copy();
        final byte[] re = Arrays.copyOfRange(msg, 0, PUBKEY_BYTES);
        s.mixHash(re);
        s.mixKey(dh(ephemeralSecret, re, "responder ephemeral key"));     // ee
        if (pattern == Pattern.IK) {
            s.mixKey(esOutput);                                           // "se" = DH(e_I, s_R) = es (D5)
        }
        final byte[] epoch = s.decryptAndHash(Arrays.copyOfRange(msg, PUBKEY_BYTES, msg.length));
        sym = s;
        remoteEphemeral = re;
        remoteEpoch = epoch;
        progress = pattern == Pattern.IK ? Progress.COMPLETE : Progress.MESSAGE2_DONE;
    }

    /**
     * Writes XK message 3 (initiator), 73 bytes: our static and epoch. Completes the handshake.
     *
     * @throws NoiseException WRONG_STATE (IK has no message 3)
     */
    public byte[] writeMessage3() throws NoiseException {
        expectXk("write message 3");
        expect(Role.INITIATOR, Progress.MESSAGE2_DONE, "write message 3");
        final SymmetricState s = sym.copy();
        final byte[] out = new byte[XK_MSG3_BYTES];
        // Same cipher key as msg2's epoch, so this seal runs at n = 1.
        System.arraycopy(s.encryptAndHash(staticPublic), 0, out, 0, ENCRYPTED_STATIC_BYTES);
        s.mixKey(dh(staticSecret, remoteEphemeral, "responder ephemeral key")); // se
        System.arraycopy(s.encryptAndHash(localEpoch), 0, out, ENCRYPTED_STATIC_BYTES, ENCRYPTED_EPOCH_BYTES);
        sym = s;
        progress = Progress.COMPLETE;
        return out;
    }

    /**
     * Reads XK message 3 (responder): authenticates the initiator's static key and epoch. Completes the handshake.
     *
     * @throws NoiseException WRONG_STATE, WRONG_LENGTH, INVALID_PUBLIC_KEY or DECRYPT_FAILED; state unchanged
     */
    public void readMessage3(final byte[] msg) throws NoiseException {
        expectXk("read message 3");
        expect(Role.RESPONDER, Progress.MESSAGE2_DONE, "read message 3");
        requireLength(msg, XK_MSG3_BYTES, "message 3");
        final SymmetricState s = sym.copy();
        final byte[] rs = s.decryptAndHash(Arrays.copyOfRange(msg, 0, ENCRYPTED_STATIC_BYTES));
        s.mixKey(dh(ephemeralSecret, rs, "initiator static key"));       // se
        final byte[] epoch = s.decryptAndHash(Arrays.copyOfRange(msg, ENCRYPTED_STATIC_BYTES, msg.length));
        sym = s;
        remoteStatic = rs;
        remoteEpoch = epoch;
        progress = Progress.COMPLETE;
    }

    /**
     * Splits the completed handshake into transport keys (initiator sends with k1, responder with k2) and wipes
     * this state's secrets. Callable once.
     *
     * @return the peer's static key and epoch, both transport keys and the final handshake hash
     * @throws NoiseException WRONG_STATE before completion or on a second call
     */
    public HandshakeResult finish() throws NoiseException {
        if (progress != Progress.COMPLETE || finished) {
            throw new NoiseException(NoiseException.Reason.WRONG_STATE,
                    finished ? "handshake already finished" : "handshake not complete (" + progress + ")");
        }
        final byte[][] k = sym.split();
        final byte[] hash = sym.handshakeHash();
        finished = true;
        sym.destroy();
        wipe(ephemeralSecret);
        wipe(staticSecret);
        wipe(esOutput);
        final boolean initiator = role == Role.INITIATOR;
        return new HandshakeResult(pattern, role, remoteStatic.clone(), remoteEpoch.clone(),
                initiator ? k[0] : k[1], initiator ? k[1] : k[0], hash);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Accessors

    /** @return IK or XK */
    public Pattern pattern() {
        return pattern;
    }

    /** @return our role */
    public Role role() {
        return role;
    }

    /** @return how far the handshake has got */
    public Progress progress() {
        return progress;
    }

    /** @return true once every message is written or read */
    public boolean isComplete() {
        return progress == Progress.COMPLETE;
    }

    /** @return our static key, compressed with its real parity (what we send encrypted) */
    public byte[] localStatic() {
        return staticPublic.clone();
    }

    /** @return our ephemeral key as sent, or {@code null} before we sent it */
    public byte[] localEphemeral() {
        return ephemeralPublic == null ? null : ephemeralPublic.clone();
    }

    /** @return the peer's ephemeral key, or {@code null} before we received it */
    public byte[] remoteEphemeral() {
        return remoteEphemeral == null ? null : remoteEphemeral.clone();
    }

    /**
     * @return the peer's static key: the configured one for an initiator, the authenticated one for a responder
     *     once it read IK msg1 / XK msg3; {@code null} before that
     */
    public byte[] remoteStatic() {
        return remoteStatic == null ? null : remoteStatic.clone();
    }

    /** @return the peer's authenticated 8-byte startup epoch, or {@code null} before it arrived */
    public byte[] remoteEpoch() {
        return remoteEpoch == null ? null : remoteEpoch.clone();
    }

    /** @return the current handshake hash h */
    public byte[] handshakeHash() {
        return sym.handshakeHash();
    }

    /** @return h, ck, the handshake cipher key and its next nonce, for test traces (meaningless after finish) */
    public SymmetricState.Snapshot snapshot() {
        return sym.snapshot();
    }

    @Override
    public String toString() {
        return "HandshakeState[" + pattern + " " + role + " " + progress + "]";
    }

    // ---------------------------------------------------------------------------------------------------------
    // Helpers

    private void expect(final Role wantRole, final Progress wantProgress, final String op) throws NoiseException {
        if (role != wantRole) {
            throw new NoiseException(NoiseException.Reason.WRONG_STATE,
                    "cannot " + op + " as " + role + " (" + pattern + ")");
        }
        if (finished || progress != wantProgress) {
            throw new NoiseException(NoiseException.Reason.WRONG_STATE,
                    "cannot " + op + " in state " + (finished ? "FINISHED" : progress) + " (expected " + wantProgress
                            + ")");
        }
    }

    private void expectXk(final String op) throws NoiseException {
        if (pattern != Pattern.XK) {
            throw new NoiseException(NoiseException.Reason.WRONG_STATE, "cannot " + op + ": " + pattern
                    + " has two messages");
        }
    }

    private static void requireLength(final byte[] msg, final int want, final String what) throws NoiseException {
        final int got = msg == null ? 0 : msg.length;
        if (got != want) {
            throw new NoiseException(NoiseException.Reason.WRONG_LENGTH,
                    what + " must be " + want + " bytes, got " + got);
        }
    }

    /** @return {secret, compressed public key} of a fresh ephemeral */
    private byte[][] newEphemeral() throws NoiseException {
        final byte[] sk = ephemerals.nextSecret();
        if (!Secp256k1.isValidSecret(sk)) {
            wipe(sk);
            throw new NoiseException(NoiseException.Reason.INVALID_SECRET_KEY,
                    "ephemeral secret must be 32 bytes with 1 <= k < n");
        }
        return new byte[][] {sk, Secp256k1.compressed(sk)};
    }

    /** @return the compressed public key of {@code secret} (a copy), from {@link #lastStatic} when it matches */
    private static byte[] staticPublicOf(final byte[] secret) {
        final byte[] hash = Secp256k1.sha256(secret);
        final Secp256k1Backend backend = Secp256k1Backends.active();
        final StaticKey last = lastStatic;
        if (last != null && last.backend() == backend && MessageDigest.isEqual(last.secretHash(), hash)) {
            return last.compressed().clone();
        }
        final byte[] pub = Secp256k1.compressed(secret);
        lastStatic = new StaticKey(hash, pub.clone(), backend);
        return pub;
    }

    /** IK keeps message 1's es output for message 2's "se"; XK has no such repeat. */
    private void keepEs(final byte[] es) {
        if (pattern == Pattern.IK) {
            esOutput = es;
        } else {
            wipe(es);
        }
    }

    private static void requireKey(final byte[] p33, final String what) throws NoiseException {
        if (!Secp256k1.isValidCompressed(p33)) {
            throw new NoiseException(NoiseException.Reason.INVALID_PUBLIC_KEY,
                    what + " is not a 33-byte compressed secp256k1 point");
        }
    }

    /** The reference mixes the responder static with its prefix forced to 0x02, whatever its real parity (D4). */
    private static byte[] premessage(final byte[] p33) {
        final byte[] pre = p33.clone();
        pre[0] = 0x02;
        return pre;
    }

    /**
     * The DH on the active secp256k1 backend, which also parses {@code peer}: a key that is not a valid compressed
     * point fails here, before anything is mixed into the state.
     */
    private static byte[] dh(final byte[] sk, final byte[] peer, final String what) throws NoiseException {
        if (!Secp256k1.isValidSecret(sk)) {
            // Unreachable: the static and ephemeral secrets are validated when they are taken.
            throw new NoiseException(NoiseException.Reason.INVALID_SECRET_KEY, "DH with an invalid secret key");
        }
        try {
            return Secp256k1.ecdh(sk, peer);
        } catch (final IllegalArgumentException e) {
            throw new NoiseException(NoiseException.Reason.INVALID_PUBLIC_KEY,
                    what + " is not a 33-byte compressed secp256k1 point");
        }
    }

    private static void wipe(final byte[] b) {
        if (b != null) {
            Arrays.fill(b, (byte) 0);
        }
    }
}
