package org.peerdex.actors.dht.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.peerdex.protocol.hash.PeerId;

/** Digests come out by origin id, bucket and kind however many there are (the packed sort and the plain one agree). */
class DigestsOrderTest {
    private static final Comparator<RangeDigest> BY_ID_BUCKET_KIND = Comparator
            .comparing((RangeDigest d) -> d.origin().value()).thenComparingInt(RangeDigest::bucket)
            .thenComparing(RangeDigest::kind);

    @Test
    void digestsAreSortedByOriginIdBucketAndKindAtEverySize() {
        Random r = new Random(3);
        for (int origins : new int[] {1, 3, 200}) {
            List<PeerId> ids = new ArrayList<>();
            for (int i = 0; i < origins; i++) ids.add(PeerId.random(r));
            for (int entries : new int[] {5, 63, 64, 5_000}) {
                Digests d = new Digests();
                for (int i = 0; i < entries; i++) {
                    char kind = "pmcd".charAt(r.nextInt(4));
                    d.add(kind, ids.get(r.nextInt(origins)), r.nextInt(Digests.BUCKETS), r.nextLong());
                }
                List<RangeDigest> out = d.digests();
                List<RangeDigest> expected = new ArrayList<>(out);
                expected.sort(BY_ID_BUCKET_KIND);
                assertEquals(expected, out, origins + " origins, " + entries + " entries");
                // folding origins keeps the order too
                List<RangeDigest> folded = Digests.foldOrigins(out, ids.get(0));
                List<RangeDigest> foldedExpected = new ArrayList<>(folded);
                foldedExpected.sort(BY_ID_BUCKET_KIND);
                assertEquals(foldedExpected, folded);
            }
        }
    }
}
