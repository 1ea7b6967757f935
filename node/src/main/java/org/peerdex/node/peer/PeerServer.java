package org.peerdex.node.peer;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.RemoteAddress;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.scaladsl.model.EntityStreamSizeException;
import org.apache.pekko.stream.Materializer;
import org.peerdex.actors.dht.shard.SenderRateLimiter;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.identity.PeerIdentity;
import org.peerdex.protocol.identity.PeerKeys;
import org.peerdex.protocol.identity.ReplayGuard;
import org.peerdex.protocol.identity.SignedMessage;
import org.peerdex.protocol.wire.V1;
import org.peerdex.protocol.wire.WireCodec;

/**
 * The peer protocol endpoint (docs/protocol.md): {@code POST /peer/v1/NAME} with a CBOR body of the protocol's own
 * types ({@link V1}) and the sender's signature in headers; other versions are refused before anything is read.
 * Every request is authenticated, bounded, checked against replays and rate-limited by its verified key and its
 * address prefix before any actor sees it; the sender of a request is the key that
 * signed it, never a field it fills in; every answer goes back on the same connection, signed over the
 * request's nonce. The DHT actors behind it are the same ones a trust domain reaches over Pekko Cluster; their
 * messages are converted from and to the wire types here ({@link WireMapping}) and never appear on the wire.
 */
public final class PeerServer extends AllDirectives {
    /** the versions this peer serves, as they appear in the path */
    public static final String VERSION = "v" + V1.VERSION;

    private final ActorSystem<?> system;
    private final Materializer materializer;
    private final PeerKeys keys;
    private final String network;
    private final WireCodec wire;
    private final PeerProtocolStats stats;
    private final ActorRef<ShardOwner.Command> owner;
    private final OpenMembership.Handle membership;
    private final PeerProtocolSettings settings;
    private final ReplayGuard replays;
    private final SenderRateLimiter perPeer;
    private final SenderRateLimiter perPrefix;
    private final SenderRateLimiter passiveStores;
    private final Map<String, Integer> strikes = new ConcurrentHashMap<>();
    private final Map<String, Long> blockedUntil = new ConcurrentHashMap<>();

    public PeerServer(ActorSystem<?> system, PeerKeys keys, String network, WireCodec wire, PeerProtocolStats stats,
                      ActorRef<ShardOwner.Command> owner, OpenMembership.Handle membership,
                      PeerProtocolSettings settings) {
        this.system = system;
        this.materializer = Materializer.matFromSystem(system);
        this.keys = keys;
        this.network = network;
        this.wire = wire;
        this.stats = stats;
        this.owner = owner;
        this.membership = membership;
        this.settings = settings;
        this.replays = new ReplayGuard(settings.clockSkew().toMillis(), settings.replayCapacity());
        this.perPeer = new SenderRateLimiter(settings.requestRate(), settings.requestBurst());
        this.perPrefix = new SenderRateLimiter(settings.prefixRate(), settings.prefixBurst());
        this.passiveStores = new SenderRateLimiter(settings.passiveStoreRate(), Math.max(1, (int) (2 * settings.passiveStoreRate())));
    }

    public Route route() {
        return pathPrefix("peer", () -> path(PathMatchers.segment().slash(PathMatchers.segment()), (version, name) ->
                post(() -> extractRequest(req -> extractClientIP(ip ->
                        completeWithFuture(handle(version, name, req, ip)))))));
    }

    private CompletionStage<HttpResponse> handle(String version, String name, HttpRequest req, RemoteAddress ip) {
        String nonce = header(req, SignedMessage.NONCE);
        if (!SignedMessage.validNonce(nonce)) nonce = "";
        String n = nonce;
        // another version's bodies may mean something else: refused before anything is read, saying what is served
        if (!VERSION.equals(version)) {
            return done(refuse(n, 404, "unsupported-version", "this peer speaks " + VERSION + ", not " + cut(version)));
        }
        V1.Message<?, ?> message = V1.MESSAGES.get(name);
        if (message == null) return done(refuse(n, 404, "unknown-message", "no such message: " + cut(name)));
        String key = header(req, SignedMessage.KEY);
        String time = header(req, SignedMessage.TIME);
        String signature = header(req, SignedMessage.SIGNATURE);
        Optional<InetAddress> from = ip.getAddress();
        String prefix = from.map(settings.prefixes()::of).orElse("unknown");
        long now = System.currentTimeMillis();
        if (!perPrefix.take(prefix, now)) return done(refuse(n, 429, "rate-prefix", "too many requests from your network"));
        if (key.isEmpty() || signature.isEmpty() || n.isEmpty() || !time.matches("[0-9]{1,19}")) {
            return done(refuse(n, 401, "unauthenticated", "requests must be signed (docs/protocol.md)"));
        }
        Optional<PeerId> sender = PeerIdentity.idOf(key);
        if (sender.isEmpty()) return done(refuse(n, 401, "bad-key", "not an Ed25519 key"));
        return req.entity().withSizeLimit(settings.maxBodyBytes()).toStrict(settings.readTimeout().toMillis(), materializer)
                .thenCompose(e -> {
                    byte[] body = e.getData().toArray();
                    stats.bytesIn.addAndGet(body.length);
                    return authenticated(message, key, sender.get(), Long.parseLong(time), n, signature, body, prefix);
                })
                .exceptionally(t -> {
                    Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
                    if (c instanceof EntityStreamSizeException) {
                        return refuse(n, 413, "too-large", "body over " + settings.maxBodyBytes() + " bytes");
                    }
                    return refuse(n, 400, "unreadable", "cannot read the request: " + cut(String.valueOf(c.getMessage())));
                });
    }

    private CompletionStage<HttpResponse> authenticated(V1.Message<?, ?> message, String key, PeerId sender, long time,
                                                        String nonce, String signature, byte[] body, String prefix) {
        String path = message.path();
        if (!PeerIdentity.verify(key, SignedMessage.request(network, "POST", path, time, nonce, body), signature)) {
            return done(refuse(nonce, 401, "bad-signature", "the signature does not hold"));
        }
        long now = System.currentTimeMillis();
        String replay = replays.check(key, nonce, time, now);
        if (replay != null) return done(refuse(nonce, 401, replay.startsWith("replayed") ? "replay" : "stale", replay));
        if (PeerIdentity.decode(key).map(PeerIdentity::workOf).orElse(0) < settings.minWorkBits()) {
            return done(refuse(nonce, 403, "weak-identity", "identity without enough proof of work"));
        }
        Long until = blockedUntil.get(sender.value());
        if (until != null && until > now) return done(refuse(nonce, 403, "blocked", "blocked for malformed requests"));
        if (!perPeer.take(sender.value(), now)) return done(refuse(nonce, 429, "rate-peer", "too many requests"));
        try {
            return dispatch(message, sender, key, body).thenApply(reply -> ok(nonce, reply))
                    .exceptionally(t -> refuse(nonce, 503, "unavailable", "try another peer"));
        } catch (IllegalArgumentException e) {
            strike(sender);
            return done(refuse(nonce, 400, "malformed", e.getMessage()));
        } catch (Refused r) {
            return done(refuse(nonce, r.status, r.reason, r.getMessage()));
        }
    }

    /** A request refused after it was read: its status and counter name. */
    private static final class Refused extends RuntimeException {
        final int status;
        final String reason;

        Refused(int status, String reason, String message) {
            super(message);
            this.status = status;
            this.reason = reason;
        }
    }

    /** Reads the body as the message's own wire type, checks it, and asks the shard owner or the membership. */
    private CompletionStage<V1.Body> dispatch(V1.Message<?, ?> message, PeerId sender, String key, byte[] body) {
        switch (message.name()) {
            case "hello": {
                V1.Hello h = wire.read(body, V1.Hello.class);
                if (!key.equals(h.record().key())) throw new IllegalArgumentException("the record is not the signer's");
                return membership.greeted(h.record(), h.placement()).thenApply(r -> r);
            }
            case "leave": {
                V1.Leave l = wire.read(body, V1.Leave.class);
                if (!key.equals(l.record().key()) || !l.record().leaving()) {
                    throw new IllegalArgumentException("a leave carries the signer's own leaving record");
                }
                membership.left(l.record());
                return CompletableFuture.completedFuture(new V1.HelloReply(membership.self(), null, false));
            }
            case "store": {
                // a passive peer (behind NAT, never admitted) still sends its postings to their holders, under a
                // quota of its own; digests, which make this peer send data, are for admitted peers only
                if (!membership.isAdmitted(sender) && !passiveStores.take(sender.value(), System.currentTimeMillis())) {
                    throw new Refused(429, "rate-passive-store", "too many stores from a peer outside this ring");
                }
                // the sender is the key that signed; the postings are read into the index's types here, so a
                // malformed pack is a malformed request
                ShardOwner.StorePostings s = WireMapping.store(wire.read(body, V1.StoreRequest.class), sender, null);
                return this.<ShardOwner.StoreReply>ask(r -> new ShardOwner.StorePostings(s.batchId(), sender,
                        s.postings(), s.metadata(), r)).thenApply(WireMapping::reply);
            }
            case "digest": {
                admitted(sender);
                ShardOwner.DigestRequest d = WireMapping.digest(wire.read(body, V1.DigestRequest.class), sender, null);
                return this.<ShardOwner.DigestReply>ask(r -> new ShardOwner.DigestRequest(d.exchangeId(), sender,
                        d.digests(), d.allOrigins(), r)).thenApply(WireMapping::reply);
            }
            case "count": {
                ShardOwner.CountRequest c = WireMapping.count(wire.read(body, V1.CountRequest.class), null);
                return this.<ShardOwner.CountReply>ask(r -> new ShardOwner.CountRequest(c.queryId(), c.keys(), r, c.tops()))
                        .thenApply(WireMapping::reply);
            }
            case "filter": {
                ShardOwner.FilterRequest f = WireMapping.filter(wire.read(body, V1.FilterRequest.class), null);
                return this.<ShardOwner.FilterReply>ask(r -> new ShardOwner.FilterRequest(f.queryId(), f.keys(),
                        f.bitsPerElement(), r)).thenApply(WireMapping::reply);
            }
            case "lookup": {
                ShardOwner.LookupRequest l = WireMapping.lookup(wire.read(body, V1.LookupRequest.class), null);
                return this.<ShardOwner.LookupReply>ask(r -> new ShardOwner.LookupRequest(l.queryId(), l.lookups(), r, l.keyed(),
                                l.joinTable(), l.presenceTable(), l.joins()))
                        .thenApply(WireMapping::reply);
            }
            case "metadata": {
                ShardOwner.FetchMetadata m = WireMapping.metadata(wire.read(body, V1.MetadataRequest.class), null);
                return this.<ShardOwner.MetadataReply>ask(r -> new ShardOwner.FetchMetadata(m.queryId(), m.urls(), r,
                                m.rows()))
                        .thenApply(WireMapping::reply);
            }
            default:
                throw new Refused(404, "unknown-message", "no such message");
        }
    }

    /** Digests (which make this peer send what the asker lacks) come only from peers it admitted to its ring. */
    private void admitted(PeerId sender) {
        if (!membership.isAdmitted(sender)) throw new Refused(403, "not-admitted", "say hello first: not in this peer's ring");
    }

    private <R> CompletionStage<R> ask(Function<ActorRef<R>, ShardOwner.Command> make) {
        return AskPattern.<ShardOwner.Command, R>ask(owner, make::apply, settings.answerTimeout(), system.scheduler());
    }

    private void strike(PeerId sender) {
        int s = strikes.merge(sender.value(), 1, Integer::sum);
        if (s >= settings.blockAfterStrikes()) {
            strikes.remove(sender.value());
            blockedUntil.put(sender.value(), System.currentTimeMillis() + settings.blockFor().toMillis());
            if (blockedUntil.size() > 65_536) blockedUntil.values().removeIf(t -> t < System.currentTimeMillis());
        }
        if (strikes.size() > 65_536) strikes.clear();
    }

    private HttpResponse ok(String nonce, V1.Body reply) {
        stats.accepted.incrementAndGet();
        return signed(nonce, 200, wire.write(reply));
    }

    private HttpResponse refuse(String nonce, int status, String reason, String message) {
        stats.refuse(reason);
        return signed(nonce, status, (reason + ": " + message).getBytes(StandardCharsets.UTF_8));
    }

    private HttpResponse signed(String nonce, int status, byte[] body) {
        long t = System.currentTimeMillis();
        stats.bytesOut.addAndGet(body.length);
        String sig = keys.sign(SignedMessage.reply(network, nonce, status, t, body));
        return HttpResponse.create().withStatus(StatusCodes.get(status))
                .withEntity(status == 200 ? ContentTypes.APPLICATION_OCTET_STREAM : ContentTypes.TEXT_PLAIN_UTF8, body)
                .addHeader(RawHeader.create(SignedMessage.KEY, keys.publicKey()))
                .addHeader(RawHeader.create(SignedMessage.TIME, Long.toString(t)))
                .addHeader(RawHeader.create(SignedMessage.SIGNATURE, sig));
    }

    private static CompletionStage<HttpResponse> done(HttpResponse r) {
        return CompletableFuture.completedFuture(r);
    }

    private static String header(HttpRequest r, String name) {
        return r.getHeader(name).map(HttpHeader::value).orElse("");
    }

    private static String cut(String s) {
        return s.length() > 120 ? s.substring(0, 120) : s;
    }
}
