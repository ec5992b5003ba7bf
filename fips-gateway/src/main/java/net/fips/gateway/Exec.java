package net.fips.gateway;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Runs a system tool ({@code nft}, {@code ip}) with a deadline; a failure is an IOException with its output. */
final class Exec {
    /** How long one tool call may take. */
    static final long TIMEOUT_SECONDS = 10;

    private Exec() {
    }

    /**
     * @param command the argv
     * @param stdin   text for its stdin, or null
     * @return its stdout
     * @throws IOException when it cannot start, exits non-zero (message: the command and its stderr) or hangs
     */
    static String run(final List<String> command, final String stdin) throws IOException {
        final Process p;
        try {
            p = new ProcessBuilder(command).start();
        } catch (final IOException e) {
            throw new IOException(command.getFirst() + " cannot be run (" + e.getMessage() + "); is it installed?",
                    e);
        }
        final CompletableFuture<String> out = drain(p.getInputStream());
        final CompletableFuture<String> err = drain(p.getErrorStream());
        try (OutputStream in = p.getOutputStream()) {
            if (stdin != null) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
        }
        try {
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + ": no exit within " + TIMEOUT_SECONDS + " s");
            }
            final String stdout = out.get();
            if (p.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + ": exit " + p.exitValue() + ": "
                        + err.get().strip());
            }
            return stdout;
        } catch (final InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException(String.join(" ", command) + ": interrupted", e);
        } catch (final ExecutionException e) {
            throw new IOException(String.join(" ", command) + ": " + e.getCause(), e);
        }
    }

    private static CompletableFuture<String> drain(final InputStream s) {
        final CompletableFuture<String> f = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try (s) {
                f.complete(new String(s.readAllBytes(), StandardCharsets.UTF_8));
            } catch (final IOException e) {
                f.complete("");
            }
        });
        return f;
    }
}
