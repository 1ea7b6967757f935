package org.peerdex.storage.testing;

import java.util.List;
import java.util.stream.Collectors;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.peerdex.storage.text.DocumentText;

/** Reads an HTML page with jsoup into the fields the condenser takes (tests only; the crawler has its own parser). */
public final class HtmlText {
    private HtmlText() {}

    public static DocumentText of(String url, String html, List<String> incomingAnchors) {
        Document d = Jsoup.parse(html, url);
        Element description = d.selectFirst("meta[name=description]");
        return new DocumentText(url, d.title(), description == null ? "" : description.attr("content"), List.of(),
                "", texts(d, "h1, h2, h3, h4, h5, h6"), texts(d, "b, strong, em, i"), incomingAnchors,
                d.body().text());
    }

    private static List<String> texts(Document d, String css) {
        return d.select(css).stream().map(Element::text).collect(Collectors.toList());
    }
}
