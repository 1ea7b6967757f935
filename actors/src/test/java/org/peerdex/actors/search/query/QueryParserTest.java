package org.peerdex.actors.search.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class QueryParserTest {
    @Test
    void wordsExclusionsAndPhrasesAreSeparated() {
        Query q = QueryParser.parse("Linux kernel -windows \"device driver\"");
        assertEquals(List.of("linux", "kernel", "device", "driver"), q.terms());
        assertEquals(List.of("windows"), q.exclusions());
        assertEquals(List.of(List.of("device", "driver")), q.phrases());
    }

    @Test
    void operatorsBecomeFilters() {
        Query q = QueryParser.parse("backup site:https://www.Example.org/path filetype:.PDF inurl:Docs lang:DE author:smith");
        assertEquals(List.of("backup"), q.terms());
        assertEquals(Optional.of("www.example.org"), q.site());
        assertEquals(Optional.of("pdf"), q.filetype());
        assertEquals(Optional.of("docs"), q.inurl());
        assertEquals(Optional.of("de"), q.language());
        assertEquals(Optional.of("smith"), q.author());
        assertTrue(q.needsMetadataFilter());
    }

    @Test
    void yacyLanguageModifierIsUnderstood() {
        assertEquals(Optional.of("fr"), QueryParser.parse("bonjour /language/fr").language());
    }

    @Test
    void identifiersAreKeptWholeLikeTheIndexKeepsThem() {
        assertEquals(List.of("os.path.join"), QueryParser.parse("os.path.join").terms());
        assertEquals(List.of("pg_dump", "options"), QueryParser.parse("pg_dump options").terms());
        assertEquals(List.of("pg", "dump"), QueryParser.parse("pg dump").terms());
        // an unknown operator is a word (C++ scope, a URL scheme...)
        assertEquals(List.of("std::vector"), QueryParser.parse("std::vector").terms());
    }

    @Test
    void malformedQueriesFailWithAClearMessage() {
        assertTrue(assertThrows(QuerySyntaxException.class, () -> QueryParser.parse("-a -b"))
                .getMessage().contains("exclusions"));
        assertThrows(QuerySyntaxException.class, () -> QueryParser.parse("   "));
        assertThrows(QuerySyntaxException.class, () -> QueryParser.parse("site:example.org"));
        assertTrue(assertThrows(QuerySyntaxException.class, () -> QueryParser.parse("a".repeat(513)))
                .getMessage().contains("512"));
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 33; i++) many.append("w").append(i).append(' ');
        assertTrue(assertThrows(QuerySyntaxException.class, () -> QueryParser.parse(many.toString()))
                .getMessage().contains("32"));
        assertThrows(QuerySyntaxException.class, () -> QueryParser.parse("x lang:english"));
    }

    @Test
    void unbalancedQuotesAreReadLenientlyLikeYacyReadsThem() {
        // answered HTTP 500 (StringIndexOutOfBoundsException) on every search endpoint before
        Query q = QueryParser.parse("json\" decoder\"\" \"");
        assertEquals(List.of("json", "decoder"), q.terms());
        assertEquals(List.of(), q.phrases());
        // a phrase never closed runs to the end of the query
        Query open = QueryParser.parse("kernel \"device driver");
        assertEquals(List.of("kernel", "device", "driver"), open.terms());
        assertEquals(List.of(List.of("device", "driver")), open.phrases());
        assertEquals(List.of("linux"), QueryParser.parse("linux -\"windows").terms());
        assertEquals(List.of("windows"), QueryParser.parse("linux -\"windows").exclusions());
        assertEquals(List.of("a"), QueryParser.parse("a \"").terms());
        assertEquals(List.of("say"), QueryParser.parse("say\"\"\"").terms());
    }

    @Test
    void canonicalFormRoundTrips() {
        Query q = QueryParser.parse("\"write ahead\" log -lag site:a.org");
        assertEquals(q.terms(), QueryParser.parse(q.canonical()).terms());
        assertEquals(q.site(), QueryParser.parse(q.canonical()).site());
    }
}
