package org.peerdex.actors.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

class SnippetsTest {
    private static String filler(int words) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < words; i++) b.append("lorem").append(i % 7).append(i % 3 == 0 ? " \n\t  " : " ");
        return b.toString();
    }

    @Test
    void windowHoldsTheQueryWordsWithWhitespaceCollapsed() {
        String text = filler(3000) + " the WAL archive keeps every  segment\n\n until the archive command succeeds " + filler(3000);
        String s = Snippets.build(text, Set.of("archive", "segment"), "");
        assertTrue(s.contains("WAL archive keeps every segment"), s);
        assertFalse(s.contains("  ") || s.contains("\n"), s);
        assertTrue(s.startsWith("… ") && s.endsWith(" …"), s);
        assertTrue(s.length() <= Snippets.WINDOW + 4, "length " + s.length());
    }

    @Test
    void theWindowWithMoreDistinctWordsWins() {
        String text = filler(200) + " archive archive archive " + filler(200) + " archive and segment together " + filler(200);
        assertTrue(Snippets.build(text, Set.of("archive", "segment"), "").contains("archive and segment together"));
    }

    @Test
    void wordsOnlyMatchWholeWordsAndShortTextIsReturnedWhole() {
        String text = filler(400) + " archived " + filler(400) + " archive " + filler(400);
        String s = Snippets.build(text, Set.of("archive"), "");
        assertTrue(s.contains(" archive ") && !s.contains("archived"), s);
        assertEquals("a short text", Snippets.build("  a   short\ntext ", Set.of("short"), ""));
        assertEquals("fallback", Snippets.build("", Set.of("x"), "fallback"));
    }

    @Test
    void aPhraseWinsOverTheDensestClusterOfItsWords() {
        String text = filler(300) + " to be to be to be or to be not or not to be " + filler(300)
                + " Hamlet asks: to be, or not to be, that is the question " + filler(300);
        String s = Snippets.build(text, Set.of("to", "be", "or", "not"),
                java.util.List.of(java.util.List.of("to", "be", "or", "not", "to", "be")), "");
        assertTrue(s.contains("to be, or not to be, that is the question"), s);
        assertEquals(-1, Snippets.phraseAt("not to bee or", java.util.List.of("to", "be")));
    }
}
