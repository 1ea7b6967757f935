package org.peerdex.node.peer;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.stream.Materializer;
import org.peerdex.protocol.identity.PeerIdentity;
import org.peerdex.protocol.identity.PeerKeys;
import org.peerdex.protocol.identity.SignedMessage;
import org.peerdex.protocol.wire.V1;
import org.peerdex.protocol.wire.WireCodec;

/**
 * Sends signed peer-protocol requests and accepts a reply only when the peer that was meant signed it over this
 * request's nonce (docs/protocol.md, "Authentication"). Only the protocol's own types ({@link V1}) are sent, each
 * to its message's path, and a reply is read as that message's reply type. Bodies are bounded both ways.
 */
public final class PeerClient {
    /** A reply whose signature held: the key that signed it and the decoded body. */
    public record Signed<T>(String key, T body) {}

    /** A request the other side refused or a reply that failed its checks. */
    public static final class PeerException extends RuntimeException {
        public PeerException(String message) {
            super(message);
        }
    }

    private final ActorSystem<?> system;
    private final Http http;
    private final Materializer materializer;
    private final PeerKeys keys;
    private final String network;
    private final WireCodec wire;
    private final Duration timeout;
    private final long maxBody;
    private final PeerProtocolStats stats;
    private final SecureRandom random = new SecureRandom();

    public PeerClient(ActorSystem<?> system, PeerKeys keys, String network, WireCodec wire, Duration timeout,
                      long maxBody, PeerProtocolStats stats) {
        this.system = system;
        this.http = Http.get(Adapter.toClassic(system));
        this.materializer = Materializer.matFromSystem(system);
        this.keys = keys;
        this.network = network;
        this.wire = wire;
        this.timeout = timeout;
        this.maxBody = maxBody;
        this.stats = stats;
    }

    public PeerKeys keys() {
        return keys;
    }

    public WireCodec wire() {
        return wire;
    }

    /**
     * POSTs {@code body} to {@code address} (host:port) at the message's path ({@code /peer/v1/NAME}); completes
     * with the reply when it is signed by {@code expectedKey} (any valid key when empty), fails otherwise.
     */
    public <Q extends V1.Body, R extends V1.Body> CompletionStage<Signed<R>> post(String address,
            V1.Message<Q, R> message, Q body, Optional<String> expectedKey) {
        String path = message.path();
        Class<R> replyType = message.reply();
        byte[] bytes = wire.write(body);
        long time = System.currentTimeMillis();
        byte[] n = new byte[18];
        random.nextBytes(n);
        String nonce = Base64.getUrlEncoder().withoutPadding().encodeToString(n);
        String signature = keys.sign(SignedMessage.request(network, "POST", path, time, nonce, bytes));
        HttpRequest request = HttpRequest.POST("http://" + address + path)
                .withEntity(ContentTypes.APPLICATION_OCTET_STREAM, bytes)
                .addHeader(RawHeader.create(SignedMessage.KEY, keys.publicKey()))
                .addHeader(RawHeader.create(SignedMessage.TIME, Long.toString(time)))
                .addHeader(RawHeader.create(SignedMessage.NONCE, nonce))
                .addHeader(RawHeader.create(SignedMessage.SIGNATURE, signature));
        stats.sent.incrementAndGet();
        stats.bytesOut.addAndGet(bytes.length);
        CompletionStage<Signed<R>> reply;
        try {
            reply = http.singleRequest(request)
                    .thenCompose(r -> r.entity().withSizeLimit(maxBody).toStrict(timeout.toMillis(), materializer)
                            .thenApply(e -> accept(r, e.getData().toArray(), nonce, replyType, expectedKey)));
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        return reply.toCompletableFuture().orTimeout(timeout.toMillis() * 2, TimeUnit.MILLISECONDS)
                .whenComplete((r, e) -> {
                    if (e != null) stats.sendFailures.incrementAndGet();
                });
    }

    private <T extends V1.Body> Signed<T> accept(HttpResponse r, byte[] body, String nonce, Class<T> type,
                                                Optional<String> expected) {
        stats.bytesIn.addAndGet(body.length);
        String key = header(r, SignedMessage.KEY);
        String time = header(r, SignedMessage.TIME);
        String signature = header(r, SignedMessage.SIGNATURE);
        if (key.isEmpty() || signature.isEmpty() || !time.matches("[0-9]{1,19}")) {
            throw new PeerException("unsigned reply (HTTP " + r.status().intValue() + ")");
        }
        if (expected.isPresent() && !expected.get().equals(key)) throw new PeerException("reply signed by another key");
        int status = r.status().intValue();
        long t = Long.parseLong(time);
        if (!PeerIdentity.verify(key, SignedMessage.reply(network, nonce, status, t, body), signature)) {
            throw new PeerException("bad reply signature");
        }
        if (status != 200) {
            String why = new String(body, StandardCharsets.UTF_8);
            throw new PeerException("refused (HTTP " + status + "): " + (why.length() > 200 ? why.substring(0, 200) : why));
        }
        return new Signed<>(key, wire.read(body, type));
    }

    private static String header(HttpResponse r, String name) {
        return r.getHeader(name).map(HttpHeader::value).orElse("");
    }
}
