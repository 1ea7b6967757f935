package org.peerdex.node.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.node.PeerNode;
import org.peerdex.node.TestPeers;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.identity.PeerKeys;
import org.peerdex.protocol.identity.SignedMessage;
import org.peerdex.protocol.identity.SignedPeerRecord;
import org.peerdex.protocol.wire.PackedPostings;
import org.peerdex.protocol.wire.V1;
import org.peerdex.protocol.wire.WireCodec;

/**
 * A hostile peer written here talks the real peer protocol to three real open-network peers on 127.0.0.1 and
 * tries what a stranger would: no key, a bad signature, a replay, a record of another key, removing an honest
 * peer, writing without being admitted, a Sybil flood of identities from one address, a lookup flood. Each is
 * refused and counted; the honest peers keep their ring and keep answering searches.
 */
class HostilePeerTest {
    private static final String NETWORK = "peerdex";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;
    private List<PeerNode> nodes;
    private final List<HttpServer> sybils = new ArrayList<>();
    private final WireCodec wire = new WireCodec();
    private final SecureRandom random = new SecureRandom();
    /**
     * When the hostile peers' run started: their records renew with it, as a running peer's do (a new
     * {@code startedAt} in every record would make each hello a restart, after which searchers ask the ring before
     * it too, so a searcher might not ask the liar for a whole test).
     */
    private static final long STARTED = System.currentTimeMillis();

    @BeforeEach
    void network() throws Exception {
        // quotas low enough that a flood exceeds them however slowly this machine sends it (600 lookups would need
        // a minute at 10/s), high enough for the honest peers' probes and replication
        nodes = OpenPeers.network(dir, 3, Map.of("peerdex.peer.max-per-prefix", 4,
                "peerdex.peer.request-burst", 100, "peerdex.peer.request-rate", 10,
                "peerdex.peer.passive-store-rate", 1, "peerdex.dht.rebalance-delay", "500ms"));
    }

    /**
     * Word capture: Sybils of one address join the ring, take over positions and acknowledge every hand-off
     * without storing anything. The honest holders must keep their copies (the acknowledgements come from one
     * address prefix), and searches still find the pages.
     */
    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void sybilsThatAcknowledgeHandOffsDoNotMakeHonestHoldersDropTheirCopies() throws Exception {
        PeerNode crawler = nodes.get(0);
        assertEquals(200, TestPeers.send(HttpRequest.newBuilder(URI.create(crawler.baseUrl() + "/api/index/manual"))
                .POST(HttpRequest.BodyPublishers.noBody()).build()).status());
        long indexed = TestPeers.get(crawler.baseUrl() + "/api/status").json().get("postings").asLong();
        // with three peers and R = 3 every peer holds every posting
        OpenPeers.await(Duration.ofSeconds(60), () -> {
            for (PeerNode p : nodes) {
                if (TestPeers.get(p.baseUrl() + "/api/status").json().get("postings").asLong() < indexed) return false;
            }
            return true;
        });
        java.util.concurrent.atomic.AtomicLong claimed = new java.util.concurrent.atomic.AtomicLong();
        for (int i = 0; i < 4; i++) {
            PeerKeys k = PeerKeys.generate(0);
            HttpServer s = sybil(k, claimed);
            SignedPeerRecord r = SignedPeerRecord.sign(k, NETWORK, "127.0.0.9:" + s.getAddress().getPort(), true,
                    System.currentTimeMillis(), Duration.ofMinutes(10), STARTED, false);
            for (PeerNode p : nodes) assertEquals(200, post(p, "hello", k, new V1.Hello(r), nonce(), false).status());
        }
        OpenPeers.await(Duration.ofSeconds(30), () -> {
            for (PeerNode p : nodes) if (TestPeers.get(p.baseUrl() + "/api/status").json().get("peers").asInt() != 7) return false;
            return true;
        });
        // the honest peers hand postings they no longer hold to the Sybils, which acknowledge them all (a full
        // rebalance now, rather than waiting for the incremental one or the periodic repair to get to it)
        for (PeerNode p : nodes) p.services().network().dht().indexedLocally();
        try {
            // the crawler's own postings are never handed off; the other two hold them for it
            OpenPeers.await(Duration.ofSeconds(60), () -> claimed.get() > 0 && nodes.subList(1, 3).stream().allMatch(p -> {
                try {
                    JsonNode h = TestPeers.get(p.baseUrl() + "/api/status").json().get("dht").get("handoff");
                    return h.get("keptWithoutPrefixQuorum").asLong() + h.get("deletedAfterAck").asLong() > 0;
                } catch (Exception e) {
                    return false;
                }
            }));
        } catch (AssertionError e) {
            StringBuilder b = new StringBuilder("claimed by the Sybils: " + claimed.get());
            for (PeerNode p : nodes) {
                JsonNode st = TestPeers.get(p.baseUrl() + "/api/status").json();
                b.append("; ").append(p.peerId()).append(" postings ").append(st.get("postings"))
                        .append(" of ").append(indexed).append(' ').append(st.get("dht")).append(' ').append(st.get("peerProtocol"));
            }
            throw new AssertionError(b.toString(), e);
        }
        for (PeerNode p : nodes) {
            JsonNode st = TestPeers.get(p.baseUrl() + "/api/status").json();
            assertTrue(st.get("postings").asLong() >= indexed, p.peerId() + " dropped copies the Sybils claimed to hold: "
                    + st.get("postings") + " of " + indexed + "; " + st.get("dht").get("handoff"));
        }
        assertTrue(TestPeers.get(nodes.get(2).baseUrl() + "/api/search?q=peer").json().get("results").size() > 0);
    }

    /**
     * Invented results: an admitted holder answers every lookup for the words it holds with postings of URLs it
     * made up (ground to fall into the partition asked, so they pass the reply checks) and serves their metadata
     * itself, as the metadata holder it is for most URLs in a small ring. A searcher in the open network takes a
     * URL's metadata only from another peer than the one that named it, so no invented URL is shown; a searcher
     * configured as inside a trust domain ({@code independent-metadata = off}, {@code confirm-postings = off})
     * shows them, which proves the attack reached it; one that takes metadata from anyone but confirms postings by
     * a second holder ({@code confirm-postings = on}) shows none either: the other holders of the keys deny them.
     */
    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void aHolderThatInventsResultsCannotVouchForThemInTheOpenNetwork() throws Exception {
        PeerNode crawler = nodes.get(0);
        assertEquals(200, TestPeers.send(HttpRequest.newBuilder(URI.create(crawler.baseUrl() + "/api/index/manual"))
                .POST(HttpRequest.BodyPublishers.noBody()).build()).status());
        // a fourth honest peer that trusts every holder's word, as a cluster member would
        PeerNode trusting = PeerNode.start(OpenPeers.config(java.nio.file.Files.createDirectories(dir.resolve("trusting")),
                List.of(OpenPeers.address(crawler)), Map.of("peerdex.peer.max-per-prefix", 8,
                        "peerdex.dht.independent-metadata", "off", "peerdex.dht.confirm-postings", "off")));
        // and one that believes any metadata but confirms postings (on its own address: the others allow 4 each)
        PeerNode confirming = PeerNode.start(OpenPeers.config(java.nio.file.Files.createDirectories(dir.resolve("confirming")),
                List.of(OpenPeers.address(crawler)), Map.of("peerdex.peer.host", "127.0.0.2",
                        "peerdex.peer.max-per-prefix", 8, "peerdex.dht.independent-metadata", "off",
                        "peerdex.dht.confirm-postings", "on")));
        nodes = new ArrayList<>(nodes);
        nodes.add(trusting);
        nodes.add(confirming);
        OpenPeers.await(Duration.ofSeconds(40), () -> {
            for (PeerNode p : nodes) if (TestPeers.get(p.baseUrl() + "/api/status").json().get("peers").asInt() != 5) return false;
            return true;
        });
        java.util.concurrent.atomic.AtomicLong lies = new java.util.concurrent.atomic.AtomicLong();
        PeerKeys k = PeerKeys.generate(0);
        HttpServer liar = liar(k, lies);
        SignedPeerRecord r = SignedPeerRecord.sign(k, NETWORK, "127.0.0.9:" + liar.getAddress().getPort(), true,
                System.currentTimeMillis(), Duration.ofMinutes(10), STARTED, false);
        for (PeerNode p : nodes) assertEquals(200, post(p, "hello", k, new V1.Hello(r), nonce(), false).status());
        OpenPeers.await(Duration.ofSeconds(30), () -> {
            for (PeerNode p : nodes) if (TestPeers.get(p.baseUrl() + "/api/status").json().get("peers").asInt() != 6) return false;
            return true;
        });
        int shownByTrusting = 0;
        int honestResults = 0;
        // each search picks other holders (by query id), and right after the liar joined a searcher asks the
        // holders of the ring before it too: go on (within a bound) until the control has been reached
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (int i = 0; i < 12 || (shownByTrusting == 0 && System.nanoTime() < until); i++) {
            for (PeerNode p : nodes) {
                String results = TestPeers.get(p.baseUrl() + "/api/search?resource=global&count=100&q=peer").json()
                        .get("results").toString();
                boolean fake = results.contains("fake.example");
                if (p == trusting) {
                    if (fake) shownByTrusting++;
                } else {
                    assertFalse(fake, p.peerId() + " showed an invented result: " + results);
                    if (results.contains("http")) honestResults++;
                }
            }
        }
        assertTrue(lies.get() > 0, "the liar was never asked");
        assertTrue(shownByTrusting > 0, "the attack never reached the trusting searcher (" + lies.get() + " lies told)");
        assertTrue(honestResults > 0, "the open-network searchers found nothing real");
    }

    /**
     * An admitted peer on 127.0.0.9 that answers hellos, acknowledges stores, and answers counts, lookups and
     * metadata requests with invented pages ({@code http://fake.example/N}, one per partition asked, each naming
     * every word of the query) and their metadata, signed as the protocol wants; {@code lies} counts the lookups
     * it answered with them.
     */
    private HttpServer liar(PeerKeys k, java.util.concurrent.atomic.AtomicLong lies) throws IOException {
        org.peerdex.protocol.ring.Partitions partitions = new org.peerdex.protocol.ring.Partitions(
                org.peerdex.protocol.ring.Partitions.DEFAULT_EXPONENT);
        Map<Integer, org.peerdex.storage.index.IndexedDocument> fakes = new java.util.HashMap<>();
        for (int n = 0; fakes.size() < partitions.count(); n++) {
            var doc = org.peerdex.node.http.DocumentRoutes.document(Map.of("url", "http://fake.example/" + n,
                    "title", "FAKE peer", "text", "peer peer peer network FAKE"));
            fakes.putIfAbsent(partitions.partitionOf(doc.metadata().urlHash()), doc);
        }
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.9", 0), 16);
        int port = s.getAddress().getPort();
        s.createContext("/", ex -> {
            byte[] req = ex.getRequestBody().readAllBytes();
            String reqNonce = ex.getRequestHeaders().getFirst(SignedMessage.NONCE);
            String path = ex.getRequestURI().getPath();
            String name = path.substring(path.lastIndexOf('/') + 1);
            byte[] body;
            try {
                body = switch (name) {
                    case "hello" -> wire.write(new V1.HelloReply(SignedPeerRecord.sign(k, NETWORK,
                            "127.0.0.9:" + port, true, System.currentTimeMillis(), Duration.ofMinutes(10), STARTED, false),
                            List.of(), true));
                    case "store" -> {
                        V1.StoreRequest sp = wire.read(req, V1.StoreRequest.class);
                        yield wire.write(new V1.StoreReply(sp.batchId(), V1.Outcome.STORED, sp.postings().count(), "", 0));
                    }
                    case "count" -> {
                        V1.CountRequest c = wire.read(req, V1.CountRequest.class);
                        List<Integer> counts = new ArrayList<>();
                        for (int i = 0; i < c.keys().size(); i++) counts.add(1);
                        yield wire.write(new V1.CountReply(c.queryId(), counts, ""));
                    }
                    case "lookup" -> {
                        V1.LookupRequest l = wire.read(req, V1.LookupRequest.class);
                        List<V1.KeyPostings> out = new ArrayList<>();
                        for (V1.Lookup one : l.lookups()) {
                            var doc = fakes.get(one.key().partition());
                            List<V1.Posting> ps = doc.postings().stream()
                                    .filter(p -> p.word().value().equals(one.key().word()))
                                    .map(WireMapping::posting).toList();
                            out.add(new V1.KeyPostings(one.key(), PackedPostings.pack(ps), ps.size(), false));
                        }
                        lies.incrementAndGet();
                        yield wire.write(new V1.LookupReply(l.queryId(), out, ""));
                    }
                    case "metadata" -> {
                        V1.MetadataRequest f = wire.read(req, V1.MetadataRequest.class);
                        List<V1.UrlRecord> out = new ArrayList<>();
                        for (var doc : fakes.values()) {
                            if (f.urls().contains(doc.metadata().urlHash().value())) out.add(WireMapping.record(doc.metadata()));
                        }
                        yield wire.write(new V1.MetadataReply(f.queryId(), out, ""));
                    }
                    default -> null;
                };
            } catch (RuntimeException e) {
                body = null;
            }
            int status = body == null ? 404 : 200;
            if (body == null) body = new byte[0];
            reply(ex, k, reqNonce, status, body);
        });
        s.start();
        sybils.add(s);
        return s;
    }

    @AfterEach
    void close() {
        for (HttpServer s : sybils) s.stop(0);
        for (PeerNode n : nodes) n.close();
    }

    /** One signed request as the hostile peer sends it; the nonce can be fixed to replay it. */
    private record Sent(int status, byte[] bytes) {
        String body() {
            return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    private Sent post(PeerNode to, String name, PeerKeys keys, V1.Body body, String nonce, boolean tamper)
            throws IOException, InterruptedException {
        return post(to, V1.PATH + name, keys, wire.write(body), nonce, tamper);
    }

    private Sent post(PeerNode to, String path, PeerKeys keys, byte[] body, String nonce, boolean tamper)
            throws IOException, InterruptedException {
        byte[] bytes = body;
        long time = System.currentTimeMillis();
        String sig = keys.sign(SignedMessage.request(NETWORK, "POST", path, time, nonce, bytes));
        if (tamper) bytes = java.util.Arrays.copyOf(bytes, bytes.length + 1);
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://" + OpenPeers.address(to) + path))
                .header(SignedMessage.KEY, keys.publicKey()).header(SignedMessage.TIME, Long.toString(time))
                .header(SignedMessage.NONCE, nonce).header(SignedMessage.SIGNATURE, sig)
                .POST(HttpRequest.BodyPublishers.ofByteArray(bytes)).build();
        HttpResponse<byte[]> resp = HTTP.send(r, HttpResponse.BodyHandlers.ofByteArray());
        return new Sent(resp.statusCode(), resp.body());
    }

    private String nonce() {
        byte[] b = new byte[18];
        random.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private JsonNode refused(PeerNode p) throws Exception {
        return TestPeers.get(p.baseUrl() + "/api/status").json().get("peerProtocol").get("requestsRefused");
    }

    private static long count(JsonNode refused, String reason) {
        return refused.has(reason) ? refused.get(reason).asLong() : 0;
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void aHostilePeerIsRefusedAndCountedAndTheHonestPeersCarryOn() throws Exception {
        PeerNode victim = nodes.get(1);
        PeerKeys rogue = PeerKeys.generate(0);
        SignedPeerRecord rogueRecord = SignedPeerRecord.sign(rogue, NETWORK, "127.0.0.9:9", true,
                System.currentTimeMillis(), Duration.ofMinutes(10), STARTED, false);

        // no key at all
        HttpResponse<String> bare = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + OpenPeers.address(victim)
                + V1.PATH + "lookup")).POST(HttpRequest.BodyPublishers.ofString("x")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(401, bare.statusCode(), bare.body());

        // another version of the protocol: refused before anything is read, saying which version this peer serves
        Sent v2 = post(victim, "/peer/v2/count", rogue, wire.write(new V1.CountRequest(1, List.of())), nonce(), false);
        assertEquals(404, v2.status(), v2.body());
        assertTrue(v2.body().startsWith("unsupported-version") && v2.body().contains("v1"), v2.body());

        // a body changed after signing
        assertEquals(401, post(victim, "hello", rogue, new V1.Hello(rogueRecord), nonce(), true).status());

        // a replay of a request that was accepted once
        String n = nonce();
        assertEquals(200, post(victim, "hello", rogue, new V1.Hello(rogueRecord), n, false).status());
        Sent replay = post(victim, "hello", rogue, new V1.Hello(rogueRecord), n, false);
        assertEquals(401, replay.status(), replay.body());

        // a hello carrying another key's record (a forged identity)
        PeerKeys honestLooking = PeerKeys.generate(0);
        SignedPeerRecord other = SignedPeerRecord.sign(honestLooking, NETWORK, "127.0.0.9:10", true,
                System.currentTimeMillis(), Duration.ofMinutes(10), STARTED, false);
        assertEquals(400, post(victim, "hello", rogue, new V1.Hello(other), nonce(), false).status());

        // removing an honest peer: a leave needs that peer's own signature, which the rogue cannot make
        PeerNode honest = nodes.get(2);
        SignedPeerRecord honestRecord = honest.openNetwork().orElseThrow().membership().self();
        assertEquals(400, post(victim, "leave", rogue, new V1.Leave(honestRecord), nonce(), false).status());

        // a peer this one never admitted (it cannot be reached at its address): no digests (they make the victim
        // send data); stores only under a small quota of their own, and in the signer's name whatever "from" says
        Sent refusedDigest = post(victim, "digest", rogue, new V1.DigestRequest(1, List.of()), nonce(), false);
        assertEquals(403, refusedDigest.status(), refusedDigest.body());
        int stored = 0;
        int storesLimited = 0;
        CBORMapper cbor = new CBORMapper();
        for (int i = 0; i < 40; i++) {
            // the wire has no sender field: one named in the body (as the actors' records had) is ignored
            ObjectNode forged = cbor.createObjectNode().put("batchId", i).put("from", honest.peerId().value());
            Sent store = post(victim, V1.PATH + "store", rogue, cbor.writeValueAsBytes(forged), nonce(), false);
            if (store.status() == 200) {
                stored++;
                assertEquals(i, wire.read(store.bytes(), V1.StoreReply.class).batchId());
            } else if (store.status() == 429) {
                storesLimited++;
            }
        }
        assertTrue(stored > 0 && storesLimited > 0, "stored " + stored + ", limited " + storesLimited);

        // a Sybil flood: 24 identities that all answer their challenges, from one address
        for (int i = 0; i < 24; i++) {
            PeerKeys k = PeerKeys.generate(0);
            HttpServer s = sybil(k);
            SignedPeerRecord r = SignedPeerRecord.sign(k, NETWORK, "127.0.0.9:" + s.getAddress().getPort(), true,
                    System.currentTimeMillis(), Duration.ofMinutes(10), STARTED, false);
            for (PeerNode p : nodes) assertEquals(200, post(p, "hello", k, new V1.Hello(r), nonce(), false).status());
        }
        OpenPeers.await(Duration.ofSeconds(30), () -> {
            JsonNode rr = TestPeers.get(victim.baseUrl() + "/api/status").json().get("peerProtocol").get("refusedRecords");
            return rr.has("prefix full") && rr.get("prefix full").asLong() >= 20;
        });
        for (PeerNode p : nodes) {
            int ring = TestPeers.get(p.baseUrl() + "/api/status").json().get("peers").asInt();
            assertTrue(ring <= 3 + 4, "at most max-per-prefix (4) identities of one address in the ring, saw " + ring);
        }

        // a lookup flood from one key: the quota answers 429 after the burst
        V1.CountRequest count = new V1.CountRequest(7, List.of(new V1.Key(WordHash.of("peer").value(), 0)));
        List<java.util.concurrent.CompletableFuture<Sent>> flood = new ArrayList<>();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(16);
        for (int i = 0; i < 600; i++) {
            flood.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return post(victim, "count", rogue, count, nonce(), false);
                } catch (Exception e) {
                    return new Sent(-1, e.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                }
            }, pool));
        }
        int ok = 0;
        int limited = 0;
        for (var f : flood) {
            int st = f.get(60, TimeUnit.SECONDS).status();
            if (st == 200) ok++;
            else if (st == 429) limited++;
        }
        pool.shutdown();
        assertTrue(limited > 0 && ok < 600, "ok " + ok + ", limited " + limited);

        JsonNode refused = refused(victim);
        assertTrue(count(refused, "unauthenticated") >= 1, refused.toString());
        assertTrue(count(refused, "unsupported-version") >= 1, refused.toString());
        assertTrue(count(refused, "bad-signature") >= 1, refused.toString());
        assertTrue(count(refused, "replay") >= 1, refused.toString());
        assertTrue(count(refused, "malformed") >= 2, refused.toString());
        assertTrue(count(refused, "not-admitted") >= 1, refused.toString());
        assertTrue(count(refused, "rate-passive-store") >= 1, refused.toString());
        assertTrue(count(refused, "rate-peer") >= 1, refused.toString());

        // the honest peers carry on: every one still has the other two, and a search across them works
        for (PeerNode p : nodes) {
            JsonNode peers = TestPeers.get(p.baseUrl() + "/api/peers").json().get("peers");
            for (PeerNode q : nodes) {
                boolean found = false;
                for (JsonNode row : peers) {
                    if (row.get("peerId").asText().equals(q.peerId().value()) && !"offline".equals(row.get("role").asText())) {
                        found = true;
                    }
                }
                assertTrue(found, p.peerId() + " lost " + q.peerId() + ": " + peers);
            }
        }
        assertEquals(200, TestPeers.send(HttpRequest.newBuilder(URI.create(nodes.get(0).baseUrl() + "/api/index/manual"))
                .POST(HttpRequest.BodyPublishers.noBody()).build()).status());
        OpenPeers.await(Duration.ofSeconds(40), () -> TestPeers.get(honest.baseUrl() + "/api/search?q=peer").json()
                .get("results").size() > 0);
        assertFalse(TestPeers.get(honest.baseUrl() + "/api/search?q=peer").json().get("results").toString()
                .contains("127.0.0.9"));
    }

    /** A Sybil identity that answers hello challenges correctly (and nothing else) on its own port of 127.0.0.9. */
    private HttpServer sybil(PeerKeys k) throws IOException {
        return sybil(k, null);
    }

    /**
     * A Sybil on its own port of 127.0.0.9; with {@code acked} it also acknowledges every store as STORED without
     * keeping anything (counting the postings it claimed), as a word-capturing operator would.
     */
    private HttpServer sybil(PeerKeys k, java.util.concurrent.atomic.AtomicLong acked) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.9", 0), 16);
        int port = s.getAddress().getPort();
        s.createContext("/", ex -> {
            byte[][] requestBody = {ex.getRequestBody().readAllBytes()};
            String reqNonce = ex.getRequestHeaders().getFirst(SignedMessage.NONCE);
            SignedPeerRecord r = SignedPeerRecord.sign(k, NETWORK, "127.0.0.9:" + port, true,
                    System.currentTimeMillis(), Duration.ofMinutes(10), STARTED, false);
            byte[] req = requestBody[0];
            String path = ex.getRequestURI().getPath();
            boolean hello = path.endsWith("/hello");
            byte[] body = new byte[0];
            int status = 404;
            if (hello) {
                body = wire.write(new V1.HelloReply(r, List.of(), false));
                status = 200;
            } else if (acked != null && path.endsWith("/store")) {
                V1.StoreRequest sp = wire.read(req, V1.StoreRequest.class);
                acked.addAndGet(sp.postings().count());
                body = wire.write(new V1.StoreReply(sp.batchId(), V1.Outcome.STORED, sp.postings().count(), "", 0));
                status = 200;
            }
            reply(ex, k, reqNonce, status, body);
        });
        s.start();
        sybils.add(s);
        return s;
    }

    /** Sends a reply signed by {@code k} over the request's nonce, as the peer protocol wants. */
    private static void reply(com.sun.net.httpserver.HttpExchange ex, PeerKeys k, String reqNonce, int status,
                              byte[] body) throws IOException {
        long t = System.currentTimeMillis();
        ex.getResponseHeaders().add(SignedMessage.KEY, k.publicKey());
        ex.getResponseHeaders().add(SignedMessage.TIME, Long.toString(t));
        ex.getResponseHeaders().add(SignedMessage.SIGNATURE,
                k.sign(SignedMessage.reply(NETWORK, reqNonce == null ? "" : reqNonce, status, t, body)));
        ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        try (OutputStream o = ex.getResponseBody()) {
            o.write(body);
        }
    }
}
