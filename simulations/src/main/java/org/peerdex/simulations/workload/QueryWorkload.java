package org.peerdex.simulations.workload;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Queries as people type them: a word-count mix (default 1 word 40%, 2 words 35%, 3 words 15%, 4 words 10%,
 * close to what search logs show), the words taken from one document of the corpus so that most queries have
 * answers; the document is drawn uniformly, its words uniformly (so frequent words are asked more often).
 */
public final class QueryWorkload {
    /** One query: word ids of the oracle. */
    public record Query(int index, List<Integer> words) {}

    private final double[] mix;

    /** @param mix fraction of queries with 1, 2, 3, ... words (normalized) */
    public QueryWorkload(double[] mix) {
        double sum = 0;
        for (double m : mix) {
            if (m < 0) throw new IllegalArgumentException("query mix fractions must not be negative");
            sum += m;
        }
        if (sum <= 0) throw new IllegalArgumentException("query mix is empty");
        this.mix = new double[mix.length];
        for (int i = 0; i < mix.length; i++) this.mix[i] = mix[i] / sum;
    }

    public static double[] parseMix(String text) {
        String[] parts = text.split(",");
        double[] out = new double[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                out[i] = Double.parseDouble(parts[i].trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("query mix must be numbers like 40,35,15,10: " + text);
            }
        }
        return out;
    }

    public List<Query> generate(Oracle oracle, int count, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        List<Query> out = new ArrayList<>();
        for (int q = 0; q < count; q++) {
            double u = r.nextDouble();
            int n = mix.length;
            double acc = 0;
            for (int i = 0; i < mix.length; i++) {
                acc += mix[i];
                if (u < acc) {
                    n = i + 1;
                    break;
                }
            }
            int[] ws = oracle.wordsOf(r.nextInt(oracle.documents()));
            LinkedHashSet<Integer> chosen = new LinkedHashSet<>();
            int want = Math.min(n, ws.length);
            while (chosen.size() < want) chosen.add(ws[r.nextInt(ws.length)]);
            out.add(new Query(q, List.copyOf(chosen)));
        }
        return out;
    }
}
