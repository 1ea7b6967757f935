package org.peerdex.node.http;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Base of the test classes that share one {@link SearchTestPeer} (the Tarn corpus indexed) per class. */
abstract class TarnPeerTest {
    static SearchTestPeer peer;

    @BeforeAll
    static void startPeer() throws Exception {
        peer = new SearchTestPeer();
    }

    @AfterAll
    static void stopPeer() throws Exception {
        if (peer != null) peer.close();
        peer = null;
    }
}
