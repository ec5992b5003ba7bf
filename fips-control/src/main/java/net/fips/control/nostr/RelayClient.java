package net.fips.control.nostr;

import java.lang.System.Logger.Level;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One NIP-01 relay connection over the JDK's {@link java.net.http.WebSocket} (discovery-gateway.md §1.6): REQ with
 * live subscriptions that are re-sent after every reconnect, fetches (REQ, collect until EOSE or a timeout,
 * CLOSE), EVENT publishes answered by OK, NOTICE and CLOSED. It reconnects by itself with exponential
 * {@link Backoff} on the injected {@link RelayScheduler}.
 *
 * <p>Every incoming event is checked as the reference's relay pool checks it: id and signature verified, NIP-40
 * expired events (by the injected wall clock) dropped. Malformed relay messages, invalid and expired events are
 * counted in {@link #stats()} and dropped; nothing a relay sends escapes as an exception.
 */
public final class RelayClient implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RelayClient.class.getName());
    /** Largest relay message we assemble; a longer one closes the connection (counted as malformed). */
    public static final int MAX_MESSAGE_CHARS = 1 << 20;

    private final URI url;
    private final HttpClient http;
    private final RelayScheduler scheduler;
    private final LongSupplier wallClockMs;
    private final Backoff backoff;
    private final Duration connectTimeout;
    private final Counters counters = new Counters();
    private final Object lock = new Object();
    private final Map<String, Sub> subs = new LinkedHashMap<>();
    private final Map<String, CompletableFuture<PublishResult>> pendingOk = new HashMap<>();
    private final AtomicLong nextSubId = new AtomicLong();

    private WebSocket socket;
    private CompletableFuture<?> sendChain = CompletableFuture.completedFuture(null);
    private int failures;
    private boolean started;
    private boolean closed;
    private RelayScheduler.Task reconnectTask;

    /** Counters of one relay connection. */
    private static final class Counters {
        final AtomicLong connects = new AtomicLong();
        final AtomicLong connectFailures = new AtomicLong();
        final AtomicLong disconnects = new AtomicLong();
        final AtomicLong eventsDelivered = new AtomicLong();
        final AtomicLong eventsInvalid = new AtomicLong();
        final AtomicLong eventsExpired = new AtomicLong();
        final AtomicLong malformedMessages = new AtomicLong();
        final AtomicLong notices = new AtomicLong();
    }

    /**
     * A snapshot of the counters.
     *
     * @param connects          connections opened
     * @param connectFailures   connection attempts that failed
     * @param disconnects       open connections that ended
     * @param eventsDelivered   events handed to a subscription or fetch
     * @param eventsInvalid     events dropped for a bad id, signature or shape
     * @param eventsExpired     events dropped as NIP-40 expired
     * @param malformedMessages relay messages that were not NIP-01
     * @param notices           NOTICE messages
     */
    public record Stats(long connects, long connectFailures, long disconnects, long eventsDelivered,
            long eventsInvalid, long eventsExpired, long malformedMessages, long notices) {
    }

    /**
     * The answer to a publish.
     *
     * @param accepted whether the relay said OK true
     * @param message  the relay's message, or why there was no answer ({@code not connected}, {@code timeout})
     */
    public record PublishResult(boolean accepted, String message) {
    }

    /** One REQ this client keeps open (or a fetch in progress). */
    private static final class Sub {
        final String id;
        final List<Filter> filters;
        final Consumer<NostrEvent> onEvent;
        final CompletableFuture<List<NostrEvent>> fetch;
        final List<NostrEvent> collected = new ArrayList<>();
        RelayScheduler.Task timeout;

        Sub(final String id, final List<Filter> filters, final Consumer<NostrEvent> onEvent,
                final CompletableFuture<List<NostrEvent>> fetch) {
            this.id = id;
            this.filters = List.copyOf(filters);
            this.onEvent = onEvent;
            this.fetch = fetch;
        }
    }

    /**
     * @param url            a {@code ws://} or {@code wss://} relay URL
     * @param http           the HTTP client whose WebSocket builder is used
     * @param scheduler      timers
     * @param wallClockMs    the wall clock, Unix ms (NIP-40 expiry)
     * @param backoff        reconnect delays
     * @param connectTimeout how long one connection attempt may take
     */
    public RelayClient(final URI url, final HttpClient http, final RelayScheduler scheduler,
            final LongSupplier wallClockMs, final Backoff backoff, final Duration connectTimeout) {
        if (!DiscoveryEvents.isRelayUrl(url.toString())) {
            throw new IllegalArgumentException("not a ws:// or wss:// relay URL: " + url);
        }
        this.url = url;
        this.http = http;
        this.scheduler = scheduler;
        this.wallClockMs = wallClockMs;
        this.backoff = backoff;
        this.connectTimeout = connectTimeout;
    }

    /** @return the relay's URL */
    public URI url() {
        return url;
    }

    /** Starts connecting (asynchronously); it never blocks on the relay. */
    public void start() {
        synchronized (lock) {
            if (started || closed) {
                return;
            }
            started = true;
        }
        connect();
    }

    /** @return whether a connection is open now */
    public boolean isConnected() {
        synchronized (lock) {
            return socket != null;
        }
    }

    /** @return the counters so far */
    public Stats stats() {
        final Counters c = counters;
        return new Stats(c.connects.get(), c.connectFailures.get(), c.disconnects.get(), c.eventsDelivered.get(),
                c.eventsInvalid.get(), c.eventsExpired.get(), c.malformedMessages.get(), c.notices.get());
    }

    /**
     * Opens a live subscription: sent now if connected, and again after every reconnect.
     *
     * @param filters the filters
     * @param onEvent receives each verified, unexpired event (on a client thread; it must not block)
     * @return the subscription id, for {@link #unsubscribe}
     */
    public String subscribe(final List<Filter> filters, final Consumer<NostrEvent> onEvent) {
        final Sub sub = new Sub("sub-" + nextSubId.incrementAndGet(), filters, onEvent, null);
        synchronized (lock) {
            subs.put(sub.id, sub);
            if (socket != null) {
                send(reqJson(sub));
            }
        }
        return sub.id;
    }

    /**
     * Closes a subscription (CLOSE).
     *
     * @param subId the id {@link #subscribe} gave
     */
    public void unsubscribe(final String subId) {
        synchronized (lock) {
            if (subs.remove(subId) != null && socket != null) {
                send("[\"CLOSE\"," + quoted(subId) + "]");
            }
        }
    }

    /**
     * Fetches stored events: REQ, collect until EOSE, CLOSED or {@code timeoutMs}, then CLOSE. A fetch issued
     * while disconnected is sent on connection and still ends at its timeout.
     *
     * @param filters   the filters
     * @param timeoutMs how long to wait for EOSE
     * @return the events collected (verified, unexpired), in arrival order
     */
    public CompletableFuture<List<NostrEvent>> fetch(final List<Filter> filters, final long timeoutMs) {
        final CompletableFuture<List<NostrEvent>> done = new CompletableFuture<>();
        final Sub sub = new Sub("fetch-" + nextSubId.incrementAndGet(), filters, null, done);
        synchronized (lock) {
            if (closed) {
                done.complete(List.of());
                return done;
            }
            subs.put(sub.id, sub);
            sub.timeout = scheduler.schedule(() -> finishFetch(sub.id), timeoutMs);
            if (socket != null) {
                send(reqJson(sub));
            }
        }
        return done;
    }

    /**
     * Publishes an event (EVENT) and waits for the relay's OK.
     *
     * @param event     a signed event
     * @param timeoutMs how long to wait for OK
     * @return the relay's answer; {@code not connected} at once when there is no connection
     */
    public CompletableFuture<PublishResult> publish(final NostrEvent event, final long timeoutMs) {
        final CompletableFuture<PublishResult> result = new CompletableFuture<>();
        synchronized (lock) {
            if (socket == null) {
                result.complete(new PublishResult(false, "not connected"));
                return result;
            }
            pendingOk.put(event.id(), result);
            send("[\"EVENT\"," + event.toJson() + "]");
        }
        final RelayScheduler.Task t = scheduler.schedule(() -> {
            synchronized (lock) {
                pendingOk.remove(event.id(), result);
            }
            result.complete(new PublishResult(false, "timeout"));
        }, timeoutMs);
        result.whenComplete((r, e) -> t.cancel());
        return result;
    }

    @Override
    public void close() {
        final WebSocket ws;
        final List<Sub> fetches = new ArrayList<>();
        final List<CompletableFuture<PublishResult>> pubs;
        synchronized (lock) {
            closed = true;
            ws = socket;
            socket = null;
            if (reconnectTask != null) {
                reconnectTask.cancel();
            }
            for (final Sub s : subs.values()) {
                if (s.fetch != null) {
                    fetches.add(s);
                }
            }
            subs.clear();
            pubs = new ArrayList<>(pendingOk.values());
            pendingOk.clear();
        }
        fetches.forEach(s -> s.fetch.complete(List.copyOf(s.collected)));
        pubs.forEach(p -> p.complete(new PublishResult(false, "closed")));
        if (ws != null) {
            ws.sendClose(WebSocket.NORMAL_CLOSURE, "").exceptionally(e -> null);
            ws.abort();
        }
    }

    private void connect() {
        synchronized (lock) {
            if (closed) {
                return;
            }
        }
        http.newWebSocketBuilder().connectTimeout(connectTimeout).buildAsync(url, new Listener())
                .whenComplete((ws, err) -> {
                    if (err != null) {
                        counters.connectFailures.incrementAndGet();
                        LOG.log(Level.DEBUG, "relay " + url + ": connect failed: " + err);
                        scheduleReconnect();
                        return;
                    }
                    synchronized (lock) {
                        if (closed) {
                            ws.abort();
                            return;
                        }
                        socket = ws;
                        failures = 0;
                        counters.connects.incrementAndGet();
                        sendChain = CompletableFuture.completedFuture(null);
                        for (final Sub s : subs.values()) {
                            send(reqJson(s));
                        }
                    }
                    watch(ws);
                    if (ws.isInputClosed()) {
                        // Closed before we took it as ours: the listener's report was ignored, so report it now.
                        disconnected(ws);
                    }
                });
    }

    /**
     * Checks the connection every {@link #livenessMs()}: a relay that closes the TCP connection without a Close frame
     * ends the JDK client's input without always calling the listener (seen in tests: no onClose, no onError), so
     * closed input or output counts as a disconnect here. (A connection whose end vanished without a FIN is still
     * only noticed when a send fails: no keepalive ping yet.)
     */
    private void watch(final WebSocket ws) {
        scheduler.schedule(() -> {
            synchronized (lock) {
                if (closed || socket != ws) {
                    return;
                }
            }
            if (ws.isInputClosed() || ws.isOutputClosed()) {
                disconnected(ws);
            } else {
                watch(ws);
            }
        }, livenessMs());
    }

    /** @return how often {@link #watch} looks: a fifth of the connect timeout, at least 100 ms */
    private long livenessMs() {
        return Math.max(100, connectTimeout.toMillis() / 5);
    }

    private void scheduleReconnect() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            final long delay = backoff.delayMs(failures++);
            reconnectTask = scheduler.schedule(this::connect, delay);
        }
    }

    private void disconnected(final WebSocket ws) {
        final List<CompletableFuture<PublishResult>> pubs;
        synchronized (lock) {
            if (socket != ws) {
                return;
            }
            socket = null;
            counters.disconnects.incrementAndGet();
            pubs = new ArrayList<>(pendingOk.values());
            pendingOk.clear();
        }
        pubs.forEach(p -> p.complete(new PublishResult(false, "disconnected")));
        scheduleReconnect();
    }

    /** Queues one text frame; the JDK allows one outstanding send, so sends are chained. Caller holds lock. */
    private void send(final String text) {
        final WebSocket ws = socket;
        sendChain = sendChain.handle((r, e) -> null).thenCompose(x -> ws.sendText(text, true))
                .exceptionally(e -> {
                    LOG.log(Level.DEBUG, "relay " + url + ": send failed: " + e);
                    return null;
                });
    }

    private static String reqJson(final Sub s) {
        final StringBuilder sb = new StringBuilder("[\"REQ\",").append(quoted(s.id));
        for (final Filter f : s.filters) {
            sb.append(',').append(f.toJson());
        }
        return sb.append(']').toString();
    }

    private static String quoted(final String s) {
        final StringBuilder sb = new StringBuilder();
        Json.quote(sb, s);
        return sb.toString();
    }

    private void finishFetch(final String subId) {
        final Sub s;
        synchronized (lock) {
            s = subs.remove(subId);
            if (s == null) {
                return;
            }
            if (socket != null) {
                send("[\"CLOSE\"," + quoted(subId) + "]");
            }
        }
        if (s.timeout != null) {
            s.timeout.cancel();
        }
        final List<NostrEvent> events;
        synchronized (s.collected) {
            events = List.copyOf(s.collected);
        }
        s.fetch.complete(events);
    }

    /** Handles one complete relay message. Package-private for tests and fuzzing. */
    void onMessage(final String text) {
        final JsonNode msg;
        try {
            msg = NostrEvent.readTree(text);
        } catch (final NostrFormatException e) {
            counters.malformedMessages.incrementAndGet();
            return;
        }
        if (!msg.isArray() || msg.isEmpty() || !msg.get(0).isTextual()) {
            counters.malformedMessages.incrementAndGet();
            return;
        }
        switch (msg.get(0).textValue()) {
            case "EVENT" -> onEvent(msg);
            case "OK" -> onOk(msg);
            case "EOSE", "CLOSED" -> {
                if (msg.size() >= 2 && msg.get(1).isTextual()) {
                    final Sub s;
                    synchronized (lock) {
                        s = subs.get(msg.get(1).textValue());
                        if (s != null && s.fetch == null && "CLOSED".equals(msg.get(0).textValue())) {
                            subs.remove(s.id);
                        }
                    }
                    if (s != null && s.fetch != null) {
                        finishFetch(s.id);
                    }
                } else {
                    counters.malformedMessages.incrementAndGet();
                }
            }
            case "NOTICE" -> {
                counters.notices.incrementAndGet();
                LOG.log(Level.DEBUG, "relay " + url + " notice: " + msg);
            }
            default -> counters.malformedMessages.incrementAndGet();
        }
    }

    private void onEvent(final JsonNode msg) {
        if (msg.size() < 3 || !msg.get(1).isTextual()) {
            counters.malformedMessages.incrementAndGet();
            return;
        }
        final NostrEvent event;
        try {
            event = NostrEvent.fromJson(msg.get(2), true);
            event.verify();
        } catch (final NostrFormatException e) {
            counters.eventsInvalid.incrementAndGet();
            return;
        }
        if (event.isExpired(Math.floorDiv(wallClockMs.getAsLong(), 1000))) {
            counters.eventsExpired.incrementAndGet();
            return;
        }
        final Sub s;
        synchronized (lock) {
            s = subs.get(msg.get(1).textValue());
        }
        if (s == null || !s.filters.isEmpty() && s.filters.stream().noneMatch(f -> f.matches(event))) {
            // Not ours, or not what we asked for: a relay may not push unrelated events into a subscription.
            counters.malformedMessages.incrementAndGet();
            return;
        }
        counters.eventsDelivered.incrementAndGet();
        if (s.fetch != null) {
            synchronized (s.collected) {
                s.collected.add(event);
            }
        } else {
            try {
                s.onEvent.accept(event);
            } catch (final RuntimeException e) {
                LOG.log(Level.WARNING, "relay " + url + ": subscriber failed", e);
            }
        }
    }

    private void onOk(final JsonNode msg) {
        if (msg.size() < 3 || !msg.get(1).isTextual() || !msg.get(2).isBoolean()) {
            counters.malformedMessages.incrementAndGet();
            return;
        }
        final CompletableFuture<PublishResult> p;
        synchronized (lock) {
            p = pendingOk.remove(msg.get(1).textValue().toLowerCase(Locale.ROOT));
        }
        if (p != null) {
            p.complete(new PublishResult(msg.get(2).booleanValue(),
                    msg.size() > 3 && msg.get(3).isTextual() ? msg.get(3).textValue() : ""));
        }
    }

    /** Assembles text frames into messages and reports closes. */
    private final class Listener implements WebSocket.Listener {
        private final StringBuilder partial = new StringBuilder();

        @Override
        public CompletionStage<?> onText(final WebSocket ws, final CharSequence data, final boolean last) {
            if (partial.length() + data.length() > MAX_MESSAGE_CHARS) {
                counters.malformedMessages.incrementAndGet();
                partial.setLength(0);
                ws.abort();
                disconnected(ws);
                return null;
            }
            partial.append(data);
            if (last) {
                final String text = partial.toString();
                partial.setLength(0);
                onMessage(text);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(final WebSocket ws, final int statusCode, final String reason) {
            disconnected(ws);
            return null;
        }

        @Override
        public void onError(final WebSocket ws, final Throwable error) {
            LOG.log(Level.DEBUG, "relay " + url + ": " + error);
            disconnected(ws);
        }
    }
}
