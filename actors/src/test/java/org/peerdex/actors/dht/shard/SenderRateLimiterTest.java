package org.peerdex.actors.dht.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A token bucket per sender: what it refuses, and that it forgets only senders whose bucket has refilled. */
class SenderRateLimiterTest {

    @Test
    void aSenderPastItsBurstWaitsForTheRefillAndOthersAreNotHeldBack() {
        SenderRateLimiter l = new SenderRateLimiter(10, 5);
        for (int i = 0; i < 5; i++) assertEquals(0, l.acquire("a", 1_000));
        long wait = l.acquire("a", 1_000);
        assertEquals(100, wait, "one token at 10 a second");
        assertEquals(0, l.acquire("b", 1_000));
        assertTrue(l.acquire("a", 1_050) > 0, "half a token is not one");
        assertEquals(0, l.acquire("a", 1_100));
    }

    @Test
    void sendersWhoseBucketsRefilledAreForgottenWithoutChangingWhatAnyoneMaySend() {
        SenderRateLimiter l = new SenderRateLimiter(200, 100);
        for (int i = 0; i < 10_000; i++) assertEquals(0, l.acquire("s" + i, 0));
        assertEquals(10_000, l.senders());
        // a sender that spent its burst at time 0 is still remembered until it refills
        for (int i = 0; i < 100; i++) l.acquire("busy", 0);
        assertTrue(l.acquire("busy", 0) > 0);
        // from 0.5 s on every bucket of time 0 is full again (100 tokens at 200 a second): each call drops two
        for (int i = 0; i < 6_000; i++) assertEquals(0, l.acquire("later" + (i % 10), 1_000 + i));
        assertTrue(l.senders() <= 11, "left: " + l.senders());
        // the busy sender, forgotten once refilled, has its whole burst again, as it would have had anyway
        for (int i = 0; i < 100; i++) assertEquals(0, l.acquire("busy", 7_000), "token " + i);
        assertTrue(l.acquire("busy", 7_000) > 0);
    }

    @Test
    void aSenderStillShortOfTokensIsNotForgotten() {
        SenderRateLimiter l = new SenderRateLimiter(1, 10);
        for (int i = 0; i < 10; i++) l.acquire("slow", 0);
        // 2 s later it has 2 tokens, not 10: other senders' calls must not reset it to a full bucket
        for (int i = 0; i < 100; i++) l.acquire("other" + i, 2_000);
        assertEquals(0, l.acquire("slow", 2_000));
        assertEquals(0, l.acquire("slow", 2_000));
        assertTrue(l.acquire("slow", 2_000) > 0, "the third token is not there yet");
    }
}
