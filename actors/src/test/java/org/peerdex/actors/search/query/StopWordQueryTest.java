package org.peerdex.actors.search.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A query of nothing but function words is read as those words in that order (every page of a language holds
 * each of them alone), and marked as one run; in a query with real words, function words stay required but are
 * not marked.
 */
class StopWordQueryTest {
    @Test
    void onlyFunctionWordsBecomeOnePhraseInTheOrderTyped() {
        Query q = QueryParser.parse("to be or not to be");
        assertEquals(List.of(List.of("to", "be", "or", "not", "to", "be")), q.phrases());
        assertEquals(List.of("to", "be", "or", "not"), q.terms());
        assertEquals(List.of("to be or not to be"), q.highlights());
        assertEquals("\"to be or not to be\"", q.canonical());
        Query issue = QueryParser.parse("the of and a to");
        assertEquals(List.of(List.of("the", "of", "and", "a", "to")), issue.phrases());
        assertEquals(List.of("the of and a to"), issue.highlights());
    }

    @Test
    void aQueryWithARealWordKeepsItsWordsAsTermsAndMarksOnlyTheRealOnes() {
        Query q = QueryParser.parse("the json decoder");
        assertTrue(q.phrases().isEmpty());
        assertEquals(List.of("the", "json", "decoder"), q.terms());
        assertEquals(List.of("json", "decoder"), q.highlights());
        Query quoted = QueryParser.parse("\"the who\" tickets");
        assertEquals(List.of("the who", "tickets"), quoted.highlights());
    }

    @Test
    void aSingleFunctionWordIsAnOrdinaryTermAndExclusionsAreNeverMarked() {
        Query the = QueryParser.parse("the");
        assertTrue(the.phrases().isEmpty());
        assertEquals(List.of("the"), the.highlights());
        Query q = QueryParser.parse("of the -json");
        assertEquals(List.of(List.of("of", "the")), q.phrases());
        assertEquals(List.of("of the"), q.highlights());
    }
}
