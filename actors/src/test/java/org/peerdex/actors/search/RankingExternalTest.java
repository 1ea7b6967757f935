package org.peerdex.actors.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.search.query.QueryParser;
import org.peerdex.actors.search.ranking.CorpusStats;
import org.peerdex.actors.search.ranking.LinkRank;
import org.peerdex.actors.search.ranking.RankingProfile;
import org.peerdex.actors.search.ranking.Scorer;
import org.peerdex.actors.search.ranking.ScorerTest;
import org.peerdex.protocol.hash.UrlHash;

/** The Ranking actor with federated hits: scored by place and weight, one entry per URL, index candidates win. */
class RankingExternalTest {
    static final ActorTestKit KIT = ActorTestKit.create(com.typesafe.config.ConfigFactory.parseString(
            "pekko.actor.provider = local"));

    @AfterAll
    static void stop() {
        KIT.shutdownTestKit();
    }

    static Candidate hit(String source, String url, int rank, double weight) {
        return Candidate.external(UrlHash.of(url), new ExternalHit(source, url, "t", "s", rank, weight, 0));
    }

    ActorRef<Ranking.Command> ranking() {
        return KIT.spawn(Ranking.create(new Scorer(QueryParser.parse("backup"), RankingProfile.defaults(),
                new CorpusStats(1, Map.of(), 0), LinkRank.NONE, u -> 0, "", "text")));
    }

    @Test
    void federatedHitsRankByPlaceAndWeightAndGiveWayToIndexCandidatesOfTheSameUrl() {
        ActorRef<Ranking.Command> r = ranking();
        TestProbe<Ranking.Ranked> probe = KIT.createTestProbe();
        r.tell(new Ranking.AddCandidates(List.of(hit("x", "http://x.test/3", 3, 1), hit("x", "http://x.test/1", 1, 1),
                hit("heavy", "http://y.test/1", 1, 2)), null, 10, false, probe.getRef()));
        Ranking.Ranked first = probe.receiveMessage();
        assertEquals(3, first.total());
        assertEquals(List.of("http://y.test/1", "http://x.test/1", "http://x.test/3"),
                first.top().stream().map(c -> c.candidate().external().url()).toList());
        assertTrue(first.top().get(0).score() > first.top().get(1).score());

        // the index returns x.test/1 too: its own candidate replaces the federated hit; a later hit does not return
        r.tell(new Ranking.AddCandidates(List.of(ScorerTest.doc("http://x.test/1", 0, 2, 100)), null, 10, false,
                probe.getRef()));
        Ranking.Ranked second = probe.receiveMessage();
        assertEquals(3, second.total());
        r.tell(new Ranking.AddCandidates(List.of(hit("z", "http://x.test/1", 1, 5)), null, 10, false, probe.getRef()));
        Ranking.Ranked third = probe.receiveMessage();
        assertEquals(3, third.total());
        var x1 = third.top().stream().filter(c -> c.candidate().url().equals(UrlHash.of("http://x.test/1"))).toList();
        assertEquals(1, x1.size());
        assertTrue(!x1.get(0).candidate().isExternal(), "the index candidate stays");
    }
}
