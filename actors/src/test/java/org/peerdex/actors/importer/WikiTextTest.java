package org.peerdex.actors.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class WikiTextTest {
    static final String PAGE = String.join("\n",
            "{{Short description|Lake in western Norway}}",
            "{{Infobox lake",
            "| name = Lake Skorvatn",
            "| location = [[Vestland]], Norway",
            "| area = {{convert|4.2|km2}}",
            "}}",
            "'''Lake Skorvatn''' is a ''glacial'' lake in [[Vestland]], fed by the [[Skorbreen|Skorbreen glacier]]."
                    + "<ref>{{cite web |url=http://example.org/survey |title=Lake survey 2019}}</ref> Its colour comes"
                    + " from [[rock flour]]s.",
            "== Geology ==",
            "A moraine of {{lang|no|morenerygg}}. <!-- hidden editor note -->",
            "{| class=\"wikitable\"",
            "|+ Soundings by year",
            "|-",
            "! Year !! Max depth",
            "|-",
            "| 1962 || 85 m",
            "|-",
            "| style=\"background:#eee\" | 2019 || 87 m",
            "|}",
            "* [http://example.org/photos Photo archive]",
            "[[File:Aerial.jpg|thumb|right|Aerial view of the kettlehole shore]]",
            "[[Category:Glacial lakes]]",
            "[[de:Skorvatn]] &amp; done");

    @Test
    void linksBecomeTheirLabelsAndTargetsAreCollected() {
        WikiText.Result r = WikiText.convert(PAGE);
        assertTrue(r.text().contains("fed by the Skorbreen glacier."), r.text());
        assertTrue(r.text().contains("from rock flours."), r.text());
        assertTrue(r.links().contains("Skorbreen") && r.links().contains("Vestland") && r.links().contains("rock flour"),
                r.links().toString());
        assertFalse(r.text().contains("[["), r.text());
        assertTrue(r.text().contains("Aerial view of the kettlehole shore"), "file caption kept: " + r.text());
        assertFalse(r.text().contains("Skorvatn]]") || r.text().contains("de:"), "interlanguage link dropped");
    }

    @Test
    void templatesAreDroppedExceptInlineTextAndInfoboxValues() {
        WikiText.Result r = WikiText.convert(PAGE);
        assertFalse(r.text().contains("Lake in western Norway"), "short description is no text: " + r.text());
        assertFalse(r.text().contains("Lake survey 2019"), "references dropped: " + r.text());
        assertTrue(r.text().contains("morenerygg"), "{{lang}} keeps its text: " + r.text());
        assertTrue(r.text().contains("4.2 km2"), "{{convert}} keeps the figure: " + r.text());
        assertTrue(r.text().contains("Vestland, Norway"), "infobox values kept: " + r.text());
        assertFalse(r.text().contains("{{") || r.text().contains("}}"), r.text());
        assertFalse(r.text().contains("hidden editor note"), r.text());
    }

    @Test
    void tablesBecomeRowsOfCellText() {
        WikiText.Result r = WikiText.convert(PAGE);
        assertTrue(r.text().contains("Soundings by year"), r.text());
        assertTrue(r.text().contains("Year Max depth"), r.text());
        assertTrue(r.text().contains("1962 85 m"), r.text());
        assertTrue(r.text().contains("2019 87 m"), "cell attributes removed: " + r.text());
        assertFalse(r.text().contains("wikitable") || r.text().contains("background"), r.text());
    }

    @Test
    void headingsBoldCategoriesAndEntitiesAreHandled() {
        WikiText.Result r = WikiText.convert(PAGE);
        assertEquals(java.util.List.of("Geology"), r.headings());
        assertTrue(r.emphasized().contains("Lake Skorvatn"), r.emphasized().toString());
        assertEquals(java.util.List.of("Glacial lakes"), r.categories());
        assertTrue(r.text().contains("Photo archive"), r.text());
        assertFalse(r.text().contains("http://example.org/photos"), r.text());
        assertTrue(r.text().contains("& done"), r.text());
        assertFalse(r.text().contains("'''") || r.text().contains("''glacial"), r.text());
    }

    @Test
    void unbalancedAndDeeplyNestedMarkupStaysBounded() {
        String deep = "{{a|".repeat(5000) + "x" + "}}".repeat(5000) + " after";
        assertTrue(WikiText.convert(deep).text().contains("after"));
        String open = "text {{never closed\nnext line [[open link";
        WikiText.Result r = WikiText.convert(open);
        assertTrue(r.text().contains("text") && r.text().contains("next line"), r.text());
    }
}
