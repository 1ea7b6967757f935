package org.peerdex.actors.importer;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jsoup.parser.Parser;

/**
 * Wikitext to indexable text, without a MediaWiki: comments and references dropped; templates dropped except the
 * inline ones that carry text ({{lang}}, {{nowrap}}, {{convert}}, ...) and infoboxes, whose values are kept;
 * tables turned into their cells' text, one row a line; [[links]] into their labels (targets collected),
 * [[Category:...]] into keywords, files into their captions, interlanguage links dropped; external links into
 * their labels; headings and '''bold''' collected for the ranking; HTML tags and entities resolved. Bounded: the
 * input is cut at {@link #MAX_INPUT_CHARS} and template nesting at {@link #MAX_DEPTH}.
 */
public final class WikiText {
    public static final int MAX_INPUT_CHARS = 4 << 20;
    static final int MAX_DEPTH = 20;
    private static final Pattern COMMENT = Pattern.compile("<!--.*?(-->|\\z)", Pattern.DOTALL);
    private static final Pattern REF = Pattern.compile(
            "<ref[^>/]*/>|<ref[^>]*>.*?</ref\\s*>|<(math|gallery|score|timeline|syntaxhighlight|source)[^>]*>.*?</\\1\\s*>",
            Pattern.DOTALL | Pattern.CASE_INSENSITIVE);
    private static final Pattern HEADING = Pattern.compile("^(={1,6})\\s*(.+?)\\s*\\1\\s*$");
    private static final Pattern BOLD = Pattern.compile("'''(.+?)'''");
    private static final Pattern EXTERNAL = Pattern.compile("\\[(?:https?:)?//[^\\s\\]]+(?:\\s+([^\\]]*))?\\]");
    private static final Pattern BR = Pattern.compile("<br\\s*/?>", Pattern.CASE_INSENSITIVE);
    private static final Pattern TAG = Pattern.compile("</?[a-zA-Z][^>]*>");
    private static final Pattern MAGIC = Pattern.compile("__[A-Z]+__");
    private static final Pattern INTERLANGUAGE = Pattern.compile("[a-z]{2,3}(-[a-z]+)?");
    private static final Pattern TRIPLE = Pattern.compile("\\{\\{\\{[^{}]*\\}\\}\\}");

    private WikiText() {}

    /** The text of a page and what the ranking wants from it. @param links link targets (page titles) */
    public record Result(String text, List<String> headings, List<String> emphasized, List<String> links,
                         List<String> categories) {}

    public static Result convert(String wikitext) {
        String s = wikitext == null ? "" : wikitext;
        if (s.length() > MAX_INPUT_CHARS) s = s.substring(0, MAX_INPUT_CHARS);
        // each pass runs only where its markup occurs: regular expressions over every page dominate otherwise
        if (s.contains("<!--")) s = COMMENT.matcher(s).replaceAll("");
        boolean tags = s.indexOf('<') >= 0;
        if (tags) {
            s = REF.matcher(s).replaceAll("");
            s = s.replace("<nowiki>", "").replace("</nowiki>", "");
        }
        s = templates(s, 0);
        if (s.contains("{{{")) s = TRIPLE.matcher(s).replaceAll("");
        s = tables(s);
        List<String> links = new ArrayList<>();
        List<String> categories = new ArrayList<>();
        s = links(s, links, categories, 0);
        if (s.contains("//")) {
            s = EXTERNAL.matcher(s).replaceAll(m -> Matcher.quoteReplacement(m.group(1) == null ? "" : m.group(1)));
        }
        if (s.contains("__")) s = MAGIC.matcher(s).replaceAll("");
        if (tags) s = BR.matcher(s).replaceAll("\n");
        List<String> headings = new ArrayList<>();
        List<String> emphasized = new ArrayList<>();
        StringBuilder out = new StringBuilder(s.length());
        for (String line : s.split("\n")) {
            String l = line.strip();
            if (l.isEmpty() || l.startsWith("----")) continue;
            Matcher h = l.charAt(0) == '=' ? HEADING.matcher(l) : null;
            if (h != null && h.matches()) {
                l = clean(h.group(2));
                if (!l.isEmpty() && headings.size() < 200) headings.add(l);
            } else {
                int i = 0;
                while (i < l.length() && "*#:;".indexOf(l.charAt(i)) >= 0) i++;
                l = l.substring(i).strip();
                if (l.contains("'''")) {
                    Matcher b = BOLD.matcher(l);
                    while (b.find() && emphasized.size() < 500) {
                        String e = clean(b.group(1));
                        if (!e.isEmpty()) emphasized.add(e);
                    }
                }
                l = clean(l);
            }
            if (!l.isEmpty()) out.append(l).append('\n');
        }
        return new Result(out.toString().strip(), headings, emphasized, links, categories);
    }

    private static String clean(String s) {
        String t = s.indexOf('\'') >= 0 ? s.replace("'''", "").replace("''", "") : s;
        if (t.indexOf('<') >= 0) t = TAG.matcher(t).replaceAll("");
        if (t.indexOf('&') >= 0) t = Parser.unescapeEntities(t, false);
        StringBuilder b = new StringBuilder(t.length());
        boolean space = false;
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c == ' ' || c == '\t' || c == '\u00a0') {
                space = b.length() > 0;
            } else {
                if (space) b.append(' ');
                space = false;
                b.append(c);
            }
        }
        return b.toString();
    }

    /** Replaces every {{template}} (innermost first through recursion) by the text it stands for. */
    static String templates(String s, int depth) {
        if (s.indexOf("{{") < 0) return s;
        StringBuilder out = new StringBuilder(s.length());
        int i = 0;
        while (i < s.length()) {
            int open = s.indexOf("{{", i);
            if (open < 0) {
                out.append(s, i, s.length());
                break;
            }
            out.append(s, i, open);
            int close = matching(s, open, "{{", "}}");
            if (close < 0) { // unbalanced: drop the rest of the line, keep the text after it
                int nl = s.indexOf('\n', open);
                i = nl < 0 ? s.length() : nl;
                continue;
            }
            String inner = s.substring(open + 2, close);
            if (!inner.startsWith("{")) out.append(depth >= MAX_DEPTH ? "" : template(inner, depth + 1));
            i = close + 2;
        }
        return out.toString();
    }

    private static String template(String inner, int depth) {
        List<String> parts = splitTop(inner, '|');
        String name = parts.get(0).strip().toLowerCase(Locale.ROOT).replace('_', ' ');
        List<String> positional = new ArrayList<>();
        List<String> named = new ArrayList<>();
        for (int k = 1; k < parts.size(); k++) {
            String p = parts.get(k);
            int eq = topLevelEquals(p);
            if (eq < 0) positional.add(p.strip());
            else named.add(p.substring(eq + 1).strip());
        }
        if (name.startsWith("#") || name.startsWith("subst:") || name.startsWith("cite") || name.startsWith("citation")
                || name.startsWith("reflist") || name.startsWith("main") || name.startsWith("see also")
                || name.startsWith("further") || name.startsWith("short description") || name.startsWith("defaultsort")) {
            return "";
        }
        if (name.startsWith("infobox")) {
            StringBuilder b = new StringBuilder("\n");
            for (String v : named) {
                String t = templates(v, depth).strip();
                if (!t.isEmpty()) b.append(t).append('\n');
            }
            return b.toString();
        }
        if ((name.equals("lang") || name.startsWith("lang-")) && !positional.isEmpty()) {
            return templates(positional.get(positional.size() - 1), depth);
        }
        if (name.equals("convert") && positional.size() >= 2) return positional.get(0) + " " + positional.get(1);
        if (List.of("nowrap", "nobr", "small", "big", "sic", "abbr", "nihongo", "quote", "blockquote", "code",
                "mvar", "math", "tooltip", "em", "strong", "visible anchor").contains(name) && !positional.isEmpty()) {
            return templates(positional.get(0), depth);
        }
        return "";
    }

    /** The index of the closing token that balances the opening one at {@code from}, or -1. */
    static int matching(String s, int from, String openTok, String closeTok) {
        int depth = 0;
        int i = from;
        while (i < s.length() - 1) {
            if (s.startsWith(openTok, i)) {
                depth++;
                i += 2;
            } else if (s.startsWith(closeTok, i)) {
                depth--;
                if (depth == 0) return i;
                i += 2;
            } else {
                i++;
            }
        }
        return -1;
    }

    /** Splits at {@code sep} outside [[...]] and {{...}}. */
    static List<String> splitTop(String s, char sep) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ((c == '[' || c == '{') && i + 1 < s.length() && s.charAt(i + 1) == c) {
                depth++;
                i++;
            } else if ((c == ']' || c == '}') && i + 1 < s.length() && s.charAt(i + 1) == c && depth > 0) {
                depth--;
                i++;
            } else if (c == sep && depth == 0) {
                parts.add(s.substring(start, i));
                start = i + 1;
            }
        }
        parts.add(s.substring(start));
        return parts;
    }

    private static int topLevelEquals(String p) {
        int depth = 0;
        for (int i = 0; i < p.length(); i++) {
            char c = p.charAt(i);
            if (c == '[' || c == '{') depth++;
            else if (c == ']' || c == '}') depth--;
            else if (c == '=' && depth == 0) return i;
        }
        return -1;
    }

    /** Tables: one line per row with its cells' text; attributes, captions markers and row separators removed. */
    static String tables(String s) {
        if (s.indexOf("{|") < 0) return s;
        StringBuilder out = new StringBuilder(s.length());
        int depth = 0;
        StringBuilder row = new StringBuilder();
        for (String line : s.split("\n", -1)) {
            String l = line.strip();
            if (l.startsWith("{|")) {
                depth++;
                continue;
            }
            if (depth == 0) {
                out.append(line).append('\n');
                continue;
            }
            if (l.startsWith("|}")) {
                depth--;
                flushRow(out, row);
                continue;
            }
            if (l.startsWith("|-")) {
                flushRow(out, row);
                continue;
            }
            if (l.startsWith("|+")) {
                flushRow(out, row);
                out.append(cell(l.substring(2))).append('\n');
                continue;
            }
            if (l.startsWith("|") || l.startsWith("!")) {
                String cells = l.substring(1);
                for (String c : cells.split("\\|\\||!!")) {
                    String t = cell(c);
                    if (!t.isEmpty()) row.append(row.length() > 0 ? " " : "").append(t);
                }
            } else if (!l.isEmpty()) {
                row.append(row.length() > 0 ? " " : "").append(l); // a cell continued on the next line
            }
        }
        flushRow(out, row);
        return out.toString();
    }

    private static void flushRow(StringBuilder out, StringBuilder row) {
        if (row.length() > 0) {
            out.append(row).append('\n');
            row.setLength(0);
        }
    }

    /** A cell's content: what follows "attributes |" when the cell has attributes. */
    private static String cell(String c) {
        List<String> parts = splitTop(c, '|');
        String content = parts.size() > 1 && parts.get(0).contains("=") ? parts.get(parts.size() - 1) : c;
        return content.strip();
    }

    /** [[links]]: labels into the text, targets into {@code links}, categories into {@code categories}. */
    static String links(String s, List<String> links, List<String> categories, int depth) {
        if (s.indexOf("[[") < 0) return s;
        StringBuilder out = new StringBuilder(s.length());
        int i = 0;
        while (i < s.length()) {
            int open = s.indexOf("[[", i);
            if (open < 0) {
                out.append(s, i, s.length());
                break;
            }
            out.append(s, i, open);
            int close = matching(s, open, "[[", "]]");
            if (close < 0) {
                out.append(s, open, s.length());
                break;
            }
            String inner = s.substring(open + 2, close);
            i = close + 2;
            List<String> parts = splitTop(inner, '|');
            String target = parts.get(0).strip();
            int colon = target.indexOf(':');
            String prefix = colon > 0 ? target.substring(0, colon).strip().toLowerCase(Locale.ROOT) : "";
            if (prefix.equals("category")) {
                if (categories.size() < 100) categories.add(target.substring(colon + 1).strip());
                continue;
            }
            if (prefix.equals("file") || prefix.equals("image")) {
                // the caption is the last part that is not an image option
                String caption = parts.size() > 1 ? parts.get(parts.size() - 1) : "";
                if (caption.matches("(?i)\\s*(thumb|thumbnail|frame|frameless|left|right|center|none|upright.*|\\d+px|\\d*x\\d+px|alt=.*)\\s*")) caption = "";
                if (depth < MAX_DEPTH) out.append(links(caption, links, categories, depth + 1));
                continue;
            }
            if (colon > 0 && INTERLANGUAGE.matcher(prefix).matches() && colon < 8 && !target.startsWith(":")) {
                continue; // [[de:Seite]]: a link to another language's wiki, no text of this page
            }
            if (target.startsWith(":")) target = target.substring(1);
            String label = parts.size() > 1 ? parts.get(parts.size() - 1).strip() : target;
            if (label.isEmpty()) label = target.replaceAll("\\s*\\(.*\\)$", ""); // the pipe trick
            int hash = target.indexOf('#');
            String page = hash >= 0 ? target.substring(0, hash) : target;
            if (!page.isEmpty() && links.size() < 2000) links.add(page);
            out.append(depth < MAX_DEPTH ? links(label, links, categories, depth + 1) : label);
            // the link trail: [[bus]]es reads "buses"
            int t = i;
            while (t < s.length() && Character.isLetter(s.charAt(t))) t++;
            out.append(s, i, t);
            i = t;
        }
        return out.toString();
    }
}
