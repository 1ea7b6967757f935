package org.peerdex.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.stream.Materializer;
import org.peerdex.actors.dht.DhtPeer;
import org.peerdex.actors.dht.RangeKey;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.node.PeerNode;
import org.peerdex.node.peer.PeerClient;
import org.peerdex.node.peer.PeerProtocolStats;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.identity.PeerIdentity;
import org.peerdex.protocol.identity.PeerKeys;
import org.peerdex.protocol.wire.V1;
import org.peerdex.protocol.wire.WireCodec;

/**
 * What authentication costs on the peer protocol: Ed25519 sign and verify per second on one thread, then count
 * requests per second from one peer to another over loopback, signed (the real endpoint: signature, replay and
 * quota checks, signed reply checked by the client) and unsigned (the same CBOR body to the same shard owner
 * through a bare route, no checks at all), at the same concurrency.
 *
 * <p>Usage: {@code PeerProtocolBenchmark [REQUESTS=5000] [CONCURRENCY=16]}.
 */
public final class PeerProtocolBenchmark {
    public static void main(String[] args) throws Exception {
        int requests = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        int concurrency = args.length > 1 ? Integer.parseInt(args[1]) : 16;
        PeerKeys keys = PeerKeys.generate(0);
        byte[] data = new byte[200];
        int n = 20_000;
        long t0 = System.nanoTime();
        String sig = null;
        for (int i = 0; i < n; i++) sig = keys.sign(data);
        double signPerS = n / ((System.nanoTime() - t0) / 1e9);
        t0 = System.nanoTime();
        for (int i = 0; i < n; i++) PeerIdentity.verify(keys.publicKey(), data, sig);
        double verifyPerS = n / ((System.nanoTime() - t0) / 1e9);
        System.out.printf(Locale.ROOT, "Ed25519 on one thread: sign %.0f/s, verify %.0f/s (a request costs 2 signs and 2 verifies)%n",
                signPerS, verifyPerS);

        Path root = Files.createTempDirectory("peerdex-protobench");
        List<PeerNode> nodes = new ArrayList<>();
        try {
            Map<String, Object> m = new HashMap<>();
            m.put("peerdex.transport", "peer");
            m.put("peerdex.peer.host", "127.0.0.1");
            m.put("peerdex.peer.port", 0);
            m.put("peerdex.peer.identity-work-bits", 0);
            m.put("peerdex.peer.min-work-bits", 0);
            m.put("peerdex.peer.request-rate", 1_000_000);
            m.put("peerdex.peer.request-burst", 1_000_000);
            m.put("peerdex.peer.prefix-rate", 1_000_000);
            m.put("peerdex.peer.prefix-burst", 1_000_000);
            m.put("peerdex.dht.max-lookups-in-flight", 4096);
            PeerNode server = PeerNode.start(BenchPeers.config(root.resolve("server"), m));
            nodes.add(server);
            var system = server.context().system();
            DhtPeer dht = server.services().network().dht();
            WireCodec wire = new WireCodec();
            PeerClient client = new PeerClient(system, PeerKeys.generate(0), "peerdex", wire, Duration.ofSeconds(10),
                    2 << 20, new PeerProtocolStats());
            String signedAddress = server.openNetwork().orElseThrow().address();
            ServerBinding bare = bareRoute(system, wire, dht);
            String bareUrl = "http://127.0.0.1:" + bare.localAddress().getPort() + "/bare/count";
            V1.CountRequest body = new V1.CountRequest(1, List.of(new V1.Key(WordHash.of("peer").value(), 0),
                    new V1.Key(WordHash.of("index").value(), 3)));
            Http http = Http.get(Adapter.toClassic(system));
            Materializer mat = Materializer.matFromSystem(system);
            byte[] bytes = wire.write(body);
            for (int round = 0; round < 2; round++) { // the first round warms up both paths
                double unsigned = run(requests, concurrency, () -> http.singleRequest(HttpRequest.POST(bareUrl)
                                .withEntity(ContentTypes.APPLICATION_OCTET_STREAM, bytes))
                        .thenCompose(r -> r.entity().toStrict(10_000, mat)).thenApply(e -> e.getData().size()));
                double signed = run(requests, concurrency, () -> client.post(signedAddress, V1.COUNT, body,
                        Optional.empty()).thenApply(r -> r.body().counts().size()));
                System.out.printf(Locale.ROOT, "%s %d count requests, %d in flight: unsigned %.0f/s, signed %.0f/s (%.2fx)%n",
                        round == 0 ? "warm-up" : "measured", requests, concurrency, unsigned, signed, signed / unsigned);
            }
            bare.unbind();
        } finally {
            for (PeerNode p : nodes) p.close();
            BenchPeers.deleteTree(root);
        }
    }

    private interface Call {
        CompletionStage<?> start();
    }

    private static double run(int requests, int concurrency, Call call) throws Exception {
        Semaphore slots = new Semaphore(concurrency);
        List<CompletableFuture<?>> all = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int i = 0; i < requests; i++) {
            slots.acquire();
            all.add(call.start().toCompletableFuture().whenComplete((r, e) -> slots.release()));
        }
        CompletableFuture.allOf(all.toArray(new CompletableFuture[0])).get(5, TimeUnit.MINUTES);
        return requests / ((System.nanoTime() - t0) / 1e9);
    }

    /** The same body to the same shard owner, with no authentication at all: the baseline. */
    private static ServerBinding bareRoute(ActorSystem<?> system, WireCodec wire, DhtPeer dht)
            throws Exception {
        AllDirectives d = new AllDirectives() {};
        Materializer mat = Materializer.matFromSystem(system);
        var route = d.path(PathMatchers.segment("bare")
                .slash("count"), () -> d.post(() -> d.extractRequest(req -> d.completeWithFuture(
                req.entity().toStrict(10_000, mat).thenCompose(e -> {
                    // the same conversion from and to the wire types as the real endpoint, without its checks
                    V1.CountRequest c = wire.read(e.getData().toArray(), V1.CountRequest.class);
                    List<RangeKey> keys = c.keys().stream().map(k -> new RangeKey(new WordHash(k.word()), k.partition())).toList();
                    return AskPattern.<ShardOwner.Command, ShardOwner.CountReply>ask(dht.shardOwner(),
                            r -> new ShardOwner.CountRequest(c.queryId(), keys, r), Duration.ofSeconds(10),
                            system.scheduler());
                }).thenApply(reply -> HttpResponse.create().withEntity(ContentTypes.APPLICATION_OCTET_STREAM,
                        wire.write(new V1.CountReply(reply.queryId(), reply.counts(), reply.error()))))))));
        return Http.get(system).newServerAt("127.0.0.1", 0).bind(route).toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
}
