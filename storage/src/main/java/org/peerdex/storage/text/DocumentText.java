package org.peerdex.storage.text;

import java.util.List;

/**
 * The text fields of a parsed document, as the condenser reads them.
 *
 * @param anchors anchor texts of links that point to this document (indexed for it, as YaCy does)
 */
public record DocumentText(String url, String title, String description, List<String> keywords, String author,
                           List<String> headings, List<String> emphasized, List<String> anchors, String body) {
    public DocumentText {
        title = title == null ? "" : title;
        description = description == null ? "" : description;
        keywords = keywords == null ? List.of() : keywords;
        author = author == null ? "" : author;
        headings = headings == null ? List.of() : headings;
        emphasized = emphasized == null ? List.of() : emphasized;
        anchors = anchors == null ? List.of() : anchors;
        body = body == null ? "" : body;
    }
}
