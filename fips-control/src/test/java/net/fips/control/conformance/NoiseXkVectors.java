package net.fips.control.conformance;

import java.nio.file.Path;

import net.fips.control.noise.HandshakeState;

/**
 * {@code noise_xk.json}: the FSP session handshake (XK, three messages) driven on both sides with the file's keys,
 * checked message by message and trace by trace ({@code handshakes}), then its sealed transport messages
 * ({@code transport_messages}).
 */
public final class NoiseXkVectors implements VectorFileCheck {
    @Override
    public void check(final Path file, final Tally tally) throws Exception {
        NoiseVectorSupport.checkFile(file, tally, HandshakeState.Pattern.XK);
    }
}
