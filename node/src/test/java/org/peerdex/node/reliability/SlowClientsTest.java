package org.peerdex.node.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Slow clients over raw sockets against a real peer whose idle timeout is 2 s: half-sent requests are closed,
 * drip-fed ones (slowloris) do not keep others from being served.
 */
@Tag("reliability")
class SlowClientsTest {
    static ReliabilityPeer peer;

    @BeforeAll
    static void start() throws Exception {
        peer = new ReliabilityPeer("pekko.http.server.request-timeout = 1 s\n"
                + "pekko.http.server.idle-timeout = 2 s\n");
    }

    @AfterAll
    static void stop() throws Exception {
        if (peer != null) peer.close();
    }

    @Test
    void halfSentRequestsAreClosedByTheIdleTimeoutWhileOthersAreServed() throws Exception {
        List<Socket> slow = new ArrayList<>();
        try {
            for (int i = 0; i < 64; i++) {
                Socket s = new Socket();
                s.connect(new InetSocketAddress("127.0.0.1", peer.port()), 5000);
                s.getOutputStream().write(("GET /api/search?q=tarn HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: "
                        + i).getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                slow.add(s);
            }
            // the peer serves everyone else while they hang
            HttpFuzzTest.assertStillServing(peer.port());
            long t0 = System.nanoTime();
            for (Socket s : slow) {
                s.setSoTimeout(15_000);
                RawHttp.Response r = RawHttp.read(s.getInputStream());
                assertTrue(!r.timedOut(), "a half-sent request was still open after 15 s");
                if (r.status() > 0) assertEquals("application/json", r.contentType());
            }
            System.out.printf("http fuzz: 64 half-sent requests closed within %d ms (idle-timeout 2 s)%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        } finally {
            for (Socket s : slow) s.close();
        }
        HttpFuzzTest.assertStillServing(peer.port());
    }

    @Test
    void dripFedRequestsDoNotStopThePeerFromServingOthers() throws Exception {
        // a slowloris client keeps its connections alive byte by byte; the peer must still serve everyone else
        List<Socket> drips = new ArrayList<>();
        try {
            for (int i = 0; i < 100; i++) {
                Socket s = new Socket();
                s.connect(new InetSocketAddress("127.0.0.1", peer.port()), 5000);
                s.getOutputStream().write("GET /api/search?q=".getBytes(StandardCharsets.US_ASCII));
                drips.add(s);
            }
            for (int round = 0; round < 5; round++) {
                for (Socket s : drips) s.getOutputStream().write('t');
                HttpFuzzTest.assertStillServing(peer.port());
            }
        } finally {
            for (Socket s : drips) s.close();
        }
    }

}
