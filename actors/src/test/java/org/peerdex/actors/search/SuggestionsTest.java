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
}
