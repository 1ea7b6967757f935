package org.peerdex.actors.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Completions from title words by frequency, the frequency floor, and the operator's word list. */
class SuggestionsTest {
    static final List<String> TITLES = List.of("Replication and repair", "Replication lag", "Release notes", "Rare topic");

    @Test
    void frequentTitleWordsComeFirstAndTheWordListIsOfferedToo() {
        Suggestions s = new Suggestions(TITLES, 1, List.of("Reindexing"));
        List<String> r = s.complete("re", 10);
        assertEquals("replication", r.get(0), r.toString());
        assertTrue(r.contains("reindexing") && r.contains("release"), r.toString());
    }

    @Test
    void wordsInFewerTitlesThanTheFloorAreLeftOutButListedWordsStay() {
        Suggestions s = new Suggestions(TITLES, 2, List.of("rarefied"));
        List<String> words = s.complete("ra", 10).stream().filter(w -> !w.contains(" ")).toList();
        assertEquals(List.of("rarefied"), words, "'rare' is in one title only");
        assertTrue(new Suggestions(TITLES, 2, List.of()).complete("rel", 10).stream().noneMatch(w -> w.equals("release")));
    }

    @Test
    void phrasesOfTitlesAreOfferedButNeverAWholeTitle() {
        List<String> titles = List.of("json — JSON encoder and decoder — Python 3.11.2 documentation",
                "json.tool — command line interface for the JSON module", "JSON Functions and Operators",
                "Python Software Foundation — JSON encoder history");
        Suggestions s = new Suggestions(titles, 1, List.of());
        List<String> r = s.complete("json e", 10);
        assertTrue(r.contains("json encoder"), r.toString());
        for (String c : s.complete("json", 10)) {
            assertTrue(c.split(" ").length <= 3, "a word or a phrase of at most three words: " + c);
            assertTrue(!c.contains("documentation") && !c.equals("json"), c);
        }
        assertTrue(s.complete("python s", 10).contains("python software foundation"), s.complete("python s", 10).toString());
        assertEquals(java.util.Set.of("encoder and decoder", "json encoder"),
                new java.util.HashSet<>(Suggestions.phrasesOf("JSON encoder and decoder")));
    }
}
