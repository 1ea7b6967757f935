package org.peerdex.actors.dht.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.actors.dht.TestCorpus;
import org.peerdex.actors.dht.replication.RebalancePlanner.Mode;
import org.peerdex.actors.dht.replication.RebalancePlanner.Plan;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.rwi.Posting;

/**
 * Rebalance plans on a real LevelDB index holding this peer's crawl and postings it stores for another peer:
 * what is offered in digests, to whom, and what is handed off; checked against the placement, posting by posting.
 */
class RebalancePlannerTest {
    private static final Placement PLACEMENT = Placement.defaults();

    @TempDir
    Path dir;

    private record Setup(PeerStorage storage, PeerId self, PeerId other, Ring ring, List<Posting> own,
                         List<Posting> stored) {}

    private Setup setup() {
        Random r = new Random(5);
        List<PeerId> members = new ArrayList<>();
        for (int i = 0; i < 7; i++) members.add(PeerId.random(r));
        PeerStorage s = PeerStorage.openLevelDb(dir, PLACEMENT.partitions());
        List<IndexedDocument> docs = TestCorpus.documents(30, 9);
        List<Posting> own = new ArrayList<>();
        for (IndexedDocument d : docs.subList(0, 15)) {
            s.writer().add(d);
            own.addAll(d.postings());
        }
        s.writer().flush();
        PeerId other = members.get(1);
        List<Posting> stored = new ArrayList<>();
        for (IndexedDocument d : docs.subList(15, 30)) for (Posting p : d.postings()) stored.add(p.withHolder(other));
        s.rwi().add(stored, false);
        return new Setup(s, members.get(0), other, Ring.of(members), own, stored);
    }

    private static RebalancePlanner planner(Setup s, boolean active, int maxHandoff) {
        return new RebalancePlanner(s.self(), s.storage(), PLACEMENT, active, maxHandoff, new ForeignBuckets(s.storage()));
    }

    private static List<PeerId> holders(Posting p, Ring ring) {
        return PLACEMENT.holders(p.word(), p.url(), ring);
    }

    @Test
    void aFullPlanOffersWhatItHoldsOrCrawledToItsHoldersAndHandsOffWhatItNoLongerHolds() {
        Setup s = setup();
        try (PeerStorage storage = s.storage()) {
            Plan plan = planner(s, true, 100_000).plan(s.ring());
            Set<PeerId> expectedDigestTargets = new HashSet<>();
            Set<Posting> expectedHandoff = new HashSet<>();
            for (Posting p : s.own()) for (PeerId h : holders(p, s.ring())) if (!h.equals(s.self())) expectedDigestTargets.add(h);
            for (Posting p : s.stored()) {
                List<PeerId> holders = holders(p, s.ring());
                if (holders.contains(s.self())) {
                    for (PeerId h : holders) if (!h.equals(s.self())) expectedDigestTargets.add(h);
                } else {
                    expectedHandoff.add(p);
                }
            }
            assertFalse(expectedHandoff.isEmpty(), "the corpus has postings this peer does not hold");
            assertEquals(expectedDigestTargets, plan.digests().keySet());
            assertEquals(expectedHandoff.size(), plan.handoffPostings().size());
            for (Posting p : plan.handoffPostings()) {
                assertTrue(expectedHandoff.contains(p), "only postings stored for others and not held here go");
                for (PeerId h : holders(p, s.ring())) {
                    assertTrue(plan.handoff().get(h).postings.contains(p), p + " to each of its holders, " + h);
                }
            }
            assertFalse(plan.handoffTruncated());
        }
    }

    @Test
    void aDeltaAgainstTheSameRingOffersNothingAndAPassivePeerHandsOffAllItStoresForOthers() {
        Setup s = setup();
        try (PeerStorage storage = s.storage()) {
            Plan delta = planner(s, true, 100_000).plan(s.ring(), List.of(s.ring()), Mode.DELTA);
            assertTrue(delta.digests().isEmpty(), "every co-holder held the same ranges before: " + delta.digests().keySet());
            Plan passive = planner(s, false, 100_000).plan(s.ring());
            assertEquals(s.stored().size(), passive.handoffPostings().size(), "a passive peer holds no ranges");
            for (Posting p : s.own()) assertFalse(passive.handoffPostings().contains(p), "its own crawl stays");
        }
    }

    @Test
    void aHandOffIsCutAtItsBoundAndSaysSo() {
        Setup s = setup();
        try (PeerStorage storage = s.storage()) {
            Plan plan = planner(s, false, 10).plan(s.ring());
            assertEquals(10, plan.handoffPostings().size());
            assertTrue(plan.handoffTruncated());
        }
    }

    @Test
    void modesCombineToTheOneThatCoversBoth() {
        assertEquals(Mode.HELD, Mode.DELTA.and(Mode.HELD));
        assertEquals(Mode.FULL, Mode.HELD.and(Mode.FULL));
        assertEquals(Mode.DELTA, Mode.DELTA.and(Mode.DELTA));
        assertEquals(Mode.FULL, Mode.FULL.and(Mode.DELTA));
    }

    @Test
    void theNeighbourhoodIsRPeersEachSideOrTheWholeSmallRing() {
        Random r = new Random(3);
        List<PeerId> members = new ArrayList<>();
        for (int i = 0; i < 12; i++) members.add(PeerId.random(r));
        Ring ring = Ring.of(members);
        PeerId self = ring.get(0);
        List<PeerId> around = RebalancePlanner.neighbourhood(self, ring, 3);
        assertEquals(7, around.size());
        assertEquals(List.of(ring.get(-3), ring.get(-2), ring.get(-1), self, ring.get(1), ring.get(2), ring.get(3)), around);
        Ring small = Ring.of(members.subList(0, 5));
        assertEquals(small.members(), RebalancePlanner.neighbourhood(small.get(0), small, 3));
    }
}
