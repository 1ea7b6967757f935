package org.peerdex.actors.dht.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.peerdex.actors.dht.TestCorpus;
import org.peerdex.actors.dht.replication.RebalancePlanner.Mode;
import org.peerdex.actors.dht.replication.RebalancePlanner.Plan;
import org.peerdex.actors.dht.shard.Digests;
import org.peerdex.actors.dht.shard.HeldArcs;
import org.peerdex.actors.dht.shard.RangeDigest;
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
    void aPlanThatFoldsAsItScansOffersWhatFoldingThePerOriginDigestsOffers() {
        Setup s = setup();
        try (PeerStorage storage = s.storage()) {
            Plan perOrigin = planner(s, true, 100_000).plan(s.ring());
            PeerId keptPerOrigin = perOrigin.digests().keySet().iterator().next();
            Plan folded = planner(s, true, 100_000).plan(s.ring(), List.of(), Mode.FULL, keptPerOrigin::equals);
            assertEquals(perOrigin.digests().keySet(), folded.digests().keySet());
            assertEquals(Set.of(keptPerOrigin), perOrigin.digests().keySet().stream()
                    .filter(p -> !folded.folded().contains(p)).collect(java.util.stream.Collectors.toSet()));
            assertTrue(perOrigin.folded().isEmpty());
            int manyOrigins = 0;
            for (PeerId target : perOrigin.digests().keySet()) {
                List<RangeDigest> ds = perOrigin.digests().get(target);
                if (target.equals(keptPerOrigin)) {
                    assertEquals(ds, folded.digests().get(target), "per origin where asked");
                    continue;
                }
                if (Digests.origins(ds).size() > 1) manyOrigins++;
                assertEquals(Digests.foldOrigins(ds, s.self()), folded.digests().get(target), "folded for " + target);
            }
            assertTrue(manyOrigins > 0, "some target's digests name several origins, which folding sums");
            assertEquals(perOrigin.handoffPostings().size(), folded.handoffPostings().size());
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

    /**
     * A planner that judged strays against the ring of its last plan reads only some buckets on a ring change;
     * its plans must equal those of a planner that reads every bucket (one that has not planned yet), through
     * joins, leaves and postings stored for others between them, some at positions held and some not.
     */
    @ParameterizedTest
    @ValueSource(ints = {23, 57, 91})
    void aDeltaThatReadsOnlyTheBucketsARingChangeTouchesPlansWhatReadingEveryBucketPlans(int seed) {
        Random r = new Random(seed);
        List<PeerId> members = new ArrayList<>();
        for (int i = 0; i < 40; i++) members.add(PeerId.random(r));
        PeerId self = members.get(0);
        try (PeerStorage s = PeerStorage.openLevelDb(dir.resolve("seed-" + seed), PLACEMENT.partitions())) {
            List<IndexedDocument> docs = TestCorpus.documents(200, seed);
            for (IndexedDocument d : docs.subList(0, 40)) s.writer().add(d);
            s.writer().flush();
            RebalancePlanner judged = new RebalancePlanner(self, s, PLACEMENT, true, 100_000, new ForeignBuckets(s));
            Ring ring = Ring.of(members, 16);
            judged.plan(ring);
            List<PeerId> out = new ArrayList<>();
            int fewer = 0;
            int offered = 0;
            int handedOff = 0;
            for (int step = 0; step < 10; step++) {
                // postings stored for others: a document's at random positions, and ones this peer holds now
                List<Posting> stored = new ArrayList<>();
                for (Posting p : docs.get(40 + step * 15).postings()) {
                    stored.add(p.withHolder(members.get(1 + r.nextInt(39))));
                }
                for (IndexedDocument d : docs.subList(41 + step * 15, 55 + step * 15)) {
                    for (Posting p : d.postings()) {
                        if (holders(p, ring).contains(self)) stored.add(p.withHolder(members.get(1)));
                    }
                }
                s.rwi().add(stored, false);
                Ring before = ring;
                if (step % 2 == 1) {
                    ring = ring.with(step == 3 || out.isEmpty() ? PeerId.random(r) : out.remove(0));
                } else {
                    PeerId gone = ring.get(1 + r.nextInt(ring.points() - 1));
                    if (gone.equals(self)) gone = members.get(2);
                    out.add(gone);
                    ring = ring.without(gone);
                }
                Plan plan = judged.plan(ring, List.of(before), Mode.DELTA);
                Plan every = new RebalancePlanner(self, s, PLACEMENT, true, 100_000, new ForeignBuckets(s))
                        .plan(ring, List.of(before), Mode.DELTA);
                assertEquals(digestSets(every), digestSets(plan), "digests after step " + step);
                assertEquals(new HashSet<>(every.handoffPostings()), new HashSet<>(plan.handoffPostings()),
                        "hand-off after step " + step);
                assertEquals(Digests.BUCKETS, every.bucketsRead());
                if (plan.bucketsRead() < every.bucketsRead() / 4) fewer++;
                offered += plan.digests().size();
                handedOff += plan.handoffPostings().size();
            }
            assertTrue(offered > 0 && handedOff > 0, "the changes moved ranges: " + offered + " " + handedOff);
            assertTrue(fewer >= 7, "a ring change touches a few buckets, not every one: " + fewer + " of 10 plans");
        }
    }

    private static Map<PeerId, Set<RangeDigest>> digestSets(Plan p) {
        Map<PeerId, Set<RangeDigest>> out = new HashMap<>();
        p.digests().forEach((peer, list) -> out.put(peer, new HashSet<>(list)));
        return out;
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

    /**
     * The small ring a replicator keeps as the base for restarted co-holders names, for every position the peer
     * holds, the holders the whole ring without them names, and has the same points within the peer's ranges (the
     * cuts a DELTA plan makes); checked position by position at each range's ends and inside, for one and for two
     * restarted peers, at one and at sixteen points per peer.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 16})
    void theLocalRingWithoutRestartedPeersPlacesHeldPositionsAsTheWholeRingDoes(int v) {
        Placement placement = new Placement(PLACEMENT.partitions(), 3, v);
        Random r = new Random(11 + v);
        List<PeerId> members = new ArrayList<>();
        for (int i = 0; i < 2000; i++) members.add(PeerId.random(r));
        Ring ring = placement.ring(members);
        int checked = 0;
        for (int trial = 0; trial < 40; trial++) {
            PeerId self = members.get(r.nextInt(members.size()));
            List<PeerId> near = new ArrayList<>(new HashSet<>(RebalancePlanner.neighbourhood(self, ring, 3)));
            near.remove(self);
            near.sort(null);
            List<PeerId> away = new ArrayList<>(List.of(near.get(r.nextInt(near.size()))));
            if (trial % 2 == 1) {
                PeerId second = near.get(r.nextInt(near.size()));
                if (!away.contains(second)) away.add(second);
            }
            Ring whole = ring;
            for (PeerId id : away) whole = whole.without(id);
            Ring local = RebalancePlanner.localRingWithout(self, ring, 3, away);
            assertTrue(local.points() < whole.points() / 4, "the local ring is a small part of the whole");
            for (PeerId id : away) assertFalse(local.contains(id));
            Ring expected = whole;
            HeldArcs arcs = HeldArcs.of(self, placement, ring);
            int[] n = {0};
            arcs.forEachRange((lo, hi) -> {
                long[] at = {lo, hi, lo + (hi - lo) / 3, lo + (hi - lo) / 2, hi - 1};
                for (long p : at) {
                    if (p < lo || p > hi) continue;
                    assertEquals(placement.holders(p, expected), placement.holders(p, local), "holders at " + p);
                    n[0]++;
                }
                List<Long> wholeCuts = new ArrayList<>();
                List<Long> localCuts = new ArrayList<>();
                for (int i = 0; i < expected.points(); i++) {
                    if (expected.positionAt(i) >= lo && expected.positionAt(i) <= hi) wholeCuts.add(expected.positionAt(i));
                }
                for (int i = 0; i < local.points(); i++) {
                    if (local.positionAt(i) >= lo && local.positionAt(i) <= hi) localCuts.add(local.positionAt(i));
                }
                assertEquals(wholeCuts, localCuts);
            });
            assertTrue(n[0] > 0);
            checked += n[0];
        }
        assertTrue(checked >= 200, "positions checked: " + checked);
    }
}
